package candidates

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"net/netip"
)

// OpaqueAddress returns the stable opaque address of counter of a VM's
// interface in prefix, the method of RFC 7217 as RFC 7943 applies it to
// addresses a server assigns: the interface identifier (the host bits of
// prefix) is the leftmost 128 − prefix.Bits() bits of
//
//	HMAC-SHA-256(key, prefix's 16 bytes ‖ its length ‖ len(vmUID) ‖ vmUID ‖ nic ‖ counter)
//
// lengths and numbers written big-endian in 4 bytes (the length of the
// prefix in 1). It is RFC 7217's F(Prefix, Net_Iface, Network_ID,
// DAD_Counter, secret_key) with the VM's uid and the NIC as the interface,
// no network id, and HMAC-SHA-256 as the pseudorandom function: the same
// inputs give the same address on every run and in the browser, an
// interface gets the same address in a prefix whenever it is attached
// again, and without the key nobody can tell which addresses of the
// prefix are in use. prefix must be IPv6; an IPv4 prefix gives the zero
// Addr.
func OpaqueAddress(key []byte, prefix netip.Prefix, vmUID string, nic int, counter uint32) netip.Addr {
	if !prefix.IsValid() || !prefix.Addr().Is6() {
		return netip.Addr{}
	}
	p := prefix.Masked()
	mac := hmac.New(sha256.New, key)
	a := p.Addr().As16()
	mac.Write(a[:])
	mac.Write([]byte{byte(p.Bits())})
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(vmUID)))
	mac.Write(n[:])
	mac.Write([]byte(vmUID))
	binary.BigEndian.PutUint32(n[:], uint32(nic))
	mac.Write(n[:])
	binary.BigEndian.PutUint32(n[:], counter)
	mac.Write(n[:])
	sum := mac.Sum(nil)
	rid := ip6{binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:16])}
	iid := rid.shiftRight(p.Bits())
	lo, _ := prefixBounds6(p)
	return addr6(lo.or(iid))
}

// MaxOpaqueTries bounds the counters NextOpaque tries for one interface.
const MaxOpaqueTries = 256

// NextOpaque returns the address a VM's interface gets in s when its VPC
// takes stable opaque addresses: OpaqueAddress of the scope (the subnet)
// for the counters 0, 1, 2 … in turn, the first that is a candidate, is
// not taken and has no reserved interface identifier (RFC 5453: in a /64,
// the reserved subnet anycast identifiers of RFC 2526 and IANA's
// Ethernet block). So a conflict moves the interface to its next
// candidate, and a detached interface gets its address again while it is
// free. When none of the first MaxOpaqueTries is free (a small subnet
// nearly full) it is the lowest free candidate, as without opaque
// addresses; and for an IPv4 space, always. false: no candidate is free.
func (s Space) NextOpaque(taken Set, key []byte, vmUID string, nic int) (netip.Addr, bool) {
	if s.six != nil {
		for counter := range uint32(MaxOpaqueTries) {
			a := OpaqueAddress(key, s.scope, vmUID, nic, counter)
			if s.Contains(a) && !taken.Contains(a) && !reservedIID(s.scope, a) {
				return a, true
			}
		}
	}
	return s.First(taken)
}

// OpaqueSkipped returns the candidates of a VM's interface that NextOpaque
// passes over in s because taken holds them, in their order: empty when the
// interface gets its first candidate. A process whose view of the pool
// missed a release asks the database about these alone, so that an
// interface attached again after a detach elsewhere gets its own address.
func (s Space) OpaqueSkipped(taken Set, key []byte, vmUID string, nic int) []netip.Addr {
	if s.six == nil {
		return nil
	}
	var skipped []netip.Addr
	for counter := range uint32(MaxOpaqueTries) {
		a := OpaqueAddress(key, s.scope, vmUID, nic, counter)
		if !s.Contains(a) || reservedIID(s.scope, a) {
			continue
		}
		if !taken.Contains(a) {
			break
		}
		skipped = append(skipped, a)
	}
	return skipped
}

// reservedIID reports whether a has an interface identifier reserved in
// a /64 (RFC 5453): the subnet-router anycast identifier, the reserved
// subnet anycast identifiers fdff:ffff:ffff:ff80 to fdff:ffff:ffff:ffff
// (RFC 2526) and IANA's Ethernet block 0200:5eff:fe00:0000 to
// 0200:5eff:feff:ffff.
func reservedIID(p netip.Prefix, a netip.Addr) bool {
	if p.Bits() != 64 {
		return false
	}
	iid := u128(a).lo
	return iid == 0 || iid>>7 == 0xfdffffffffffff80>>7 || iid>>24 == 0x02005efffe
}
