package candidates

import "net/netip"

// CellLimit is the largest scope an AddressMap shows address by address: a /24.
const CellLimit = 256

// An AddressMap is a picture of a Space: address by address for a /24 or
// smaller, otherwise block by block. An IPv6 space is drawn address by
// address when it is a /120 or smaller, and not at all otherwise (the map
// holds only its scope): a larger IPv6 prefix is drawn as the prefixes it
// hands out.
type AddressMap struct {
	Scope netip.Prefix `json:"scope"`
	// Cells holds one State code per address of Scope, when it is a /24 or
	// smaller.
	Cells string `json:"cells,omitempty"`
	// Blocks splits a larger Scope into equal blocks: /24s for a /16 or
	// smaller, 256 blocks otherwise.
	Blocks []Block `json:"blocks,omitempty"`
}

// A Block is one part of a large scope, with its figures.
type Block struct {
	Prefix  netip.Prefix `json:"prefix"`
	Size    int          `json:"size"`    // candidates in the block
	Free    int          `json:"free"`    // candidates nobody holds
	Blocked int          `json:"blocked"` // network, broadcast, gateway, excluded or reserved
}

// Map draws s with taken.
func (s Space) Map(taken Set) AddressMap {
	m := AddressMap{Scope: s.scope}
	if s.six != nil {
		if s.scope.Bits() < 128-8 {
			return m
		}
		cells := make([]byte, 0, CellLimit)
		for v := s.six.lo; ; v = v.next() {
			cells = append(cells, s.State(addr6(v), taken).Code())
			if v == s.six.hi {
				break
			}
		}
		m.Cells = string(cells)
		return m
	}
	count := uint64(s.hi) - uint64(s.lo) + 1
	if count <= CellLimit {
		cells := make([]byte, 0, count)
		for v := uint64(s.lo); v <= uint64(s.hi); v++ {
			cells = append(cells, s.State(addr(ip4(v)), taken).Code())
		}
		m.Cells = string(cells)
		return m
	}
	bits := min(s.scope.Bits()+8, 24)
	step := uint64(1) << (32 - bits)
	m.Blocks = make([]Block, 0, count/step)
	for lo := uint64(s.lo); lo <= uint64(s.hi); lo += step {
		hi := lo + step - 1
		sub := Space{lo: ip4(lo), hi: ip4(hi)}
		sub.blocked = within(s.blocked, sub.lo, sub.hi)
		b := Block{Prefix: netip.PrefixFrom(addr(ip4(lo)), bits), Size: sub.Size()}
		b.Free = sub.Free(taken)
		b.Blocked = int(step) - b.Size
		m.Blocks = append(m.Blocks, b)
	}
	return m
}
