package candidates

import (
	"encoding/binary"
	"net/netip"
)

// ip6 is an IPv6 address as a 128-bit number, hi its upper 64 bits: the
// width of a Set's IPv6 spans (see width).
type ip6 struct{ hi, lo uint64 }

func (v ip6) less(w ip6) bool { return v.hi < w.hi || v.hi == w.hi && v.lo < w.lo }

func (v ip6) next() ip6 {
	if v.lo == maxUint64 {
		return ip6{v.hi + 1, 0}
	}
	return ip6{v.hi, v.lo + 1}
}

func (v ip6) prev() ip6 {
	if v.lo == 0 {
		return ip6{v.hi - 1, maxUint64}
	}
	return ip6{v.hi, v.lo - 1}
}

const maxUint64 = 1<<64 - 1

// addr6Span is a Range of IPv6 addresses as numbers.
type addr6Span = span[ip6]

// u128 returns the IPv6 address a as a number; a must be IPv6.
func u128(a netip.Addr) ip6 {
	b := a.As16()
	return ip6{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
}

// addr6 returns the IPv6 address of v.
func addr6(v ip6) netip.Addr {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], v.hi)
	binary.BigEndian.PutUint64(b[8:], v.lo)
	return netip.AddrFrom16(b)
}

// hostMask6 returns the host bits of a prefix of length bits (0 to 128).
func hostMask6(bits int) ip6 {
	switch {
	case bits >= 128:
		return ip6{}
	case bits >= 64:
		return ip6{0, maxUint64 >> (bits - 64)}
	}
	return ip6{maxUint64 >> bits, maxUint64}
}

// prefixBounds6 returns the first and last address of the IPv6 prefix p.
func prefixBounds6(p netip.Prefix) (lo, hi ip6) {
	lo = u128(p.Masked().Addr())
	m := hostMask6(p.Bits())
	return lo, ip6{lo.hi | m.hi, lo.lo | m.lo}
}

// size6 returns the count of addresses of s. The whole IPv6 space, one
// more than a Count holds, counts as the largest Count.
func size6(s addr6Span) Count {
	return Count(s.hi).Sub(Count(s.lo)).Add(CountOf(1))
}

// plus returns v + n, which the caller keeps inside the address space.
func (v ip6) plus(n uint64) ip6 {
	lo := v.lo + n
	if lo < v.lo {
		return ip6{v.hi + 1, lo}
	}
	return ip6{v.hi, lo}
}

// or returns the bits of v or w.
func (v ip6) or(w ip6) ip6 { return ip6{v.hi | w.hi, v.lo | w.lo} }

// andNot returns the bits of v not in w.
func (v ip6) andNot(w ip6) ip6 { return ip6{v.hi &^ w.hi, v.lo &^ w.lo} }

// shiftRight returns v shifted right by n bits, 0 to 128.
func (v ip6) shiftRight(n int) ip6 {
	switch {
	case n >= 128:
		return ip6{}
	case n >= 64:
		return ip6{0, v.hi >> (n - 64)}
	case n == 0:
		return v
	}
	return ip6{v.hi >> n, v.lo>>n | v.hi<<(64-n)}
}
