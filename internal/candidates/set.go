package candidates

import (
	"encoding/binary"
	"net/netip"
	"slices"
	"sort"
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

// span is a Range as numbers: lo <= hi, both inclusive.
type span struct{ lo, hi uint32 }

func (s span) size() uint64 { return uint64(s.hi) - uint64(s.lo) + 1 }

func u32(a netip.Addr) uint32 {
	b := a.As4()
	return binary.BigEndian.Uint32(b[:])
}

func addr(u uint32) netip.Addr {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], u)
	return netip.AddrFrom4(b)
}

// prefixBounds returns the first and last address of p.
func prefixBounds(p netip.Prefix) (lo, hi uint32) {
	lo = u32(p.Masked().Addr())
	return lo, lo | uint32(uint64(1)<<(32-p.Bits())-1)
}

// Bounds returns the first and the last address of the IPv4 prefix p.
func Bounds(p netip.Prefix) (first, last netip.Addr) {
	lo, hi := prefixBounds(p)
	return addr(lo), addr(hi)
}

// A Set is an immutable set of IPv4 addresses, kept as sorted, disjoint,
// non-adjacent ranges. Its zero value is the empty set. A Set costs 8 bytes
// per range, whatever the number of addresses in it.
type Set struct {
	spans []span
}

// SetOf returns the set of the given addresses.
func SetOf(addrs ...netip.Addr) Set {
	var b SetBuilder
	b.spans = make([]span, 0, len(addrs))
	for _, a := range addrs {
		b.spans = append(b.spans, span{u32(a), u32(a)})
	}
	return b.normalized()
}

// SetOfRanges returns the set of the addresses in the given ranges, which may
// overlap and come in any order. A range whose From is after its To is empty.
func SetOfRanges(ranges ...Range) Set {
	var b SetBuilder
	b.spans = make([]span, 0, len(ranges))
	for _, r := range ranges {
		if lo, hi := u32(r.From), u32(r.To); lo <= hi {
			b.spans = append(b.spans, span{lo, hi})
		}
	}
	return b.normalized()
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
		n += sp.size()
	}
	return n
}

// RangeCount returns the number of ranges s is made of.
func (s Set) RangeCount() int { return len(s.spans) }

// Ranges returns the ranges of s in ascending order.
func (s Set) Ranges() []Range {
	out := make([]Range, len(s.spans))
	for i, sp := range s.spans {
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
	spans := s.within(lo, hi)
	out := make([]Range, len(spans))
	for i, sp := range spans {
		out[i] = Range{addr(sp.lo), addr(sp.hi)}
	}
	return out
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
	var b SetBuilder
	b.spans = make([]span, 0, len(s.spans)+len(t.spans))
	b.spans = append(append(b.spans, s.spans...), t.spans...)
	return b.normalized()
}

// within returns the spans of s clipped to lo..hi.
func (s Set) within(lo, hi uint32) []span {
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].hi >= lo })
	j := sort.Search(len(s.spans), func(j int) bool { return s.spans[j].lo > hi })
	if i >= j {
		return nil
	}
	out := slices.Clone(s.spans[i:j])
	out[0].lo = max(out[0].lo, lo)
	out[len(out)-1].hi = min(out[len(out)-1].hi, hi)
	return out
}

// find returns the index of the span holding v, or where it would be inserted.
func find(spans []span, v uint32) (int, bool) {
	i := sort.Search(len(spans), func(i int) bool { return spans[i].hi >= v })
	return i, i < len(spans) && spans[i].lo <= v
}

// A SetBuilder is a mutable set of IPv4 addresses. Its zero value is empty
// and ready to use. Adding to the end of the set, as a pool fills from its
// lowest address, costs O(1); adding elsewhere costs a binary search and at
// most one move of the ranges after it.
type SetBuilder struct {
	spans []span
}

// Add adds a to the set. Addresses that are not IPv4 are ignored.
func (b *SetBuilder) Add(a netip.Addr) {
	if a.Is4() {
		b.insert(span{u32(a), u32(a)})
	}
}

// AddRange adds the addresses of r to the set.
func (b *SetBuilder) AddRange(r Range) {
	if r.From.Is4() && r.To.Is4() && u32(r.From) <= u32(r.To) {
		b.insert(span{u32(r.From), u32(r.To)})
	}
}

// Remove removes a from the set.
func (b *SetBuilder) Remove(a netip.Addr) {
	if !a.Is4() {
		return
	}
	v := u32(a)
	i, ok := find(b.spans, v)
	if !ok {
		return
	}
	sp := b.spans[i]
	switch {
	case sp.lo == v && sp.hi == v:
		b.spans = slices.Delete(b.spans, i, i+1)
	case sp.lo == v:
		b.spans[i].lo++
	case sp.hi == v:
		b.spans[i].hi--
	default:
		b.spans[i].hi = v - 1
		b.spans = slices.Insert(b.spans, i+1, span{v + 1, sp.hi})
	}
}

// Contains reports whether a is in the set.
func (b *SetBuilder) Contains(a netip.Addr) bool { return Set{b.spans}.Contains(a) }

// Set returns the current set. It is a copy: later changes to b do not
// show in it.
func (b *SetBuilder) Set() Set { return Set{slices.Clone(b.spans)} }

// View returns the current set without copying it. It is valid only until
// the next change to b; use it for a lookup under the caller's own lock.
func (b *SetBuilder) View() Set { return Set{b.spans} }

// insert adds s, merging it with the ranges it overlaps or touches.
func (b *SetBuilder) insert(s span) {
	n := len(b.spans)
	if n == 0 || b.spans[n-1].hi < s.lo && b.spans[n-1].hi+1 < s.lo {
		b.spans = append(b.spans, s)
		return
	}
	// First span that ends at or after s.lo-1 (touching counts).
	i := sort.Search(n, func(i int) bool { return uint64(b.spans[i].hi)+1 >= uint64(s.lo) })
	// First span that starts after s.hi+1.
	j := sort.Search(n, func(j int) bool { return uint64(b.spans[j].lo) > uint64(s.hi)+1 })
	if i == j {
		b.spans = slices.Insert(b.spans, i, s)
		return
	}
	merged := span{min(s.lo, b.spans[i].lo), max(s.hi, b.spans[j-1].hi)}
	b.spans[i] = merged
	b.spans = slices.Delete(b.spans, i+1, j)
}

// normalized sorts and merges b's spans and returns them as a Set.
func (b *SetBuilder) normalized() Set {
	if len(b.spans) == 0 {
		return Set{}
	}
	slices.SortFunc(b.spans, func(x, y span) int {
		switch {
		case x.lo < y.lo:
			return -1
		case x.lo > y.lo:
			return 1
		}
		return 0
	})
	out := b.spans[:1]
	for _, s := range b.spans[1:] {
		last := &out[len(out)-1]
		if uint64(s.lo) <= uint64(last.hi)+1 {
			last.hi = max(last.hi, s.hi)
			continue
		}
		out = append(out, s)
	}
	return Set{slices.Clip(out)}
}
