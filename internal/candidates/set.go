package candidates

import (
	"encoding/binary"
	"net/netip"
	"slices"
)

// A Range is the inclusive run of IPv4 addresses From..To.
type Range struct {
	From, To netip.Addr
}

// String returns "a.b.c.d" for a single address and "a.b.c.d-a.b.c.e" otherwise.
func (r Range) String() string {
	if r.From == r.To {
		return r.From.String()
	}
	return r.From.String() + "-" + r.To.String()
}

// ip4 is an IPv4 address as a number: the width of a Set (see width).
type ip4 uint32

func (v ip4) less(w ip4) bool { return v < w }
func (v ip4) next() ip4       { return v + 1 }
func (v ip4) prev() ip4       { return v - 1 }

// addrSpan is a Range as numbers.
type addrSpan = span[ip4]

// size returns the count of addresses of s.
func size(s addrSpan) uint64 { return uint64(s.hi) - uint64(s.lo) + 1 }

func u32(a netip.Addr) ip4 {
	b := a.As4()
	return ip4(binary.BigEndian.Uint32(b[:]))
}

func addr(u ip4) netip.Addr {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(u))
	return netip.AddrFrom4(b)
}

// prefixBounds returns the first and last address of p.
func prefixBounds(p netip.Prefix) (lo, hi ip4) {
	lo = u32(p.Masked().Addr())
	return lo, lo | ip4(uint64(1)<<(32-p.Bits())-1)
}

// Bounds returns the first and the last address of the IPv4 prefix p.
func Bounds(p netip.Prefix) (first, last netip.Addr) {
	lo, hi := prefixBounds(p)
	return addr(lo), addr(hi)
}

// A Set is an immutable set of IPv4 addresses, kept as sorted, disjoint,
// non-adjacent ranges (a span set, spans.go). Its zero value is the empty
// set. A Set costs 8 bytes per range, whatever the number of addresses in
// it.
type Set struct {
	spans []addrSpan
}

// SetOf returns the set of the given addresses.
func SetOf(addrs ...netip.Addr) Set {
	spans := make([]addrSpan, 0, len(addrs))
	for _, a := range addrs {
		spans = append(spans, addrSpan{u32(a), u32(a)})
	}
	return Set{normalize(spans)}
}

// SetOfRanges returns the set of the addresses in the given ranges, which may
// overlap and come in any order. A range whose From is after its To is empty.
func SetOfRanges(ranges ...Range) Set {
	spans := make([]addrSpan, 0, len(ranges))
	for _, r := range ranges {
		if lo, hi := u32(r.From), u32(r.To); lo <= hi {
			spans = append(spans, addrSpan{lo, hi})
		}
	}
	return Set{normalize(spans)}
}

// Contains reports whether a is in s.
func (s Set) Contains(a netip.Addr) bool {
	if !a.Is4() {
		return false
	}
	_, ok := find(s.spans, u32(a))
	return ok
}

// Len returns the number of addresses in s.
func (s Set) Len() uint64 {
	var n uint64
	for _, sp := range s.spans {
		n += size(sp)
	}
	return n
}

// RangeCount returns the number of ranges s is made of.
func (s Set) RangeCount() int { return len(s.spans) }

// Ranges returns the ranges of s in ascending order.
func (s Set) Ranges() []Range { return ranges(s.spans) }

// ranges returns spans as Ranges.
func ranges(spans []addrSpan) []Range {
	out := make([]Range, len(spans))
	for i, sp := range spans {
		out[i] = Range{addr(sp.lo), addr(sp.hi)}
	}
	return out
}

// RangesIn returns the ranges of s inside p, clipped to it, in ascending
// order.
func (s Set) RangesIn(p netip.Prefix) []Range {
	if !p.Addr().Is4() {
		return nil
	}
	lo, hi := prefixBounds(p.Masked())
	return ranges(within(s.spans, lo, hi))
}

// RangeOf returns the range of s that holds a.
func (s Set) RangeOf(a netip.Addr) (Range, bool) {
	if !a.Is4() {
		return Range{}, false
	}
	i, ok := find(s.spans, u32(a))
	if !ok {
		return Range{}, false
	}
	return Range{addr(s.spans[i].lo), addr(s.spans[i].hi)}, true
}

// Union returns the addresses in s or in t.
func (s Set) Union(t Set) Set {
	return Set{normalize(append(append(make([]addrSpan, 0, len(s.spans)+len(t.spans)), s.spans...), t.spans...))}
}

// A SetBuilder is a mutable set of IPv4 addresses (a spanBuilder). Its
// zero value is empty and ready to use. Adding to the end of the set, as a
// pool fills from its lowest address, costs O(1); adding elsewhere costs a
// binary search and at most one move of the ranges after it.
type SetBuilder struct {
	b spanBuilder[ip4]
}

// Add adds a to the set. Addresses that are not IPv4 are ignored.
func (b *SetBuilder) Add(a netip.Addr) {
	if a.Is4() {
		b.b.add(u32(a))
	}
}

// AddRange adds the addresses of r to the set.
func (b *SetBuilder) AddRange(r Range) {
	if r.From.Is4() && r.To.Is4() && u32(r.From) <= u32(r.To) {
		b.b.insert(addrSpan{u32(r.From), u32(r.To)})
	}
}

// Remove removes a from the set.
func (b *SetBuilder) Remove(a netip.Addr) {
	if a.Is4() {
		b.b.remove(u32(a))
	}
}

// Contains reports whether a is in the set.
func (b *SetBuilder) Contains(a netip.Addr) bool { return b.View().Contains(a) }

// Set returns the current set. It is a copy: later changes to b do not
// show in it.
func (b *SetBuilder) Set() Set { return Set{slices.Clone(b.b.spans)} }

// View returns the current set without copying it. It is valid only until
// the next change to b; use it for a lookup under the caller's own lock.
func (b *SetBuilder) View() Set { return Set{b.b.spans} }
