package candidates

import (
	"encoding/binary"
	"net/netip"
	"slices"
)

// A Range is the inclusive run of addresses From..To, both of one family.
type Range struct {
	From, To netip.Addr
}

// String returns "a.b.c.d" for a single address and "a.b.c.d-a.b.c.e"
// otherwise ("2001:db8::5-2001:db8::9" for IPv6).
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

// Bounds returns the first and the last address of the prefix p.
func Bounds(p netip.Prefix) (first, last netip.Addr) {
	if p.Addr().Is6() {
		lo, hi := prefixBounds6(p)
		return addr6(lo), addr6(hi)
	}
	lo, hi := prefixBounds(p)
	return addr(lo), addr(hi)
}

// A Set is an immutable set of addresses, kept as sorted, disjoint,
// non-adjacent ranges (a span set, spans.go), one span set for each
// family: a range never holds addresses of both. Its zero value is the
// empty set. A Set costs 8 bytes per IPv4 range and, whatever the number
// of addresses in it, 12 per IPv6 range shorter than 2^32 addresses that
// does not cross a /64 boundary (spans6).
type Set struct {
	spans []addrSpan
	six   *spans6 // nil when s holds no IPv6 address
}

// setOf returns the Set of IPv4 spans and IPv6 spans6, both normalized.
func setOf(spans []addrSpan, spans6 []addr6Span) Set {
	s := Set{spans: spans}
	if len(spans6) > 0 {
		six := pack6(spans6)
		s.six = &six
	}
	return s
}

// noSpans6 is the IPv6 spans of a Set that has none. It is never changed.
var noSpans6 spans6

// spans6 returns the IPv6 spans of s, to read.
func (s Set) spans6() *spans6 {
	if s.six == nil {
		return &noSpans6
	}
	return s.six
}

// SetOf returns the set of the given addresses.
func SetOf(addrs ...netip.Addr) Set {
	spans := make([]addrSpan, 0, len(addrs))
	var spans6 []addr6Span
	for _, a := range addrs {
		switch {
		case a.Is4():
			spans = append(spans, addrSpan{u32(a), u32(a)})
		case a.Is6():
			spans6 = append(spans6, addr6Span{u128(a), u128(a)})
		}
	}
	return setOf(normalize(spans), normalize(spans6))
}

// SetOfRanges returns the set of the addresses in the given ranges, which may
// overlap and come in any order. A range whose From is after its To, or
// whose ends are of two families, is empty.
func SetOfRanges(ranges ...Range) Set {
	spans := make([]addrSpan, 0, len(ranges))
	var spans6 []addr6Span
	for _, r := range ranges {
		switch {
		case r.From.Is4() && r.To.Is4():
			if lo, hi := u32(r.From), u32(r.To); lo <= hi {
				spans = append(spans, addrSpan{lo, hi})
			}
		case r.From.Is6() && r.To.Is6():
			if lo, hi := u128(r.From), u128(r.To); !hi.less(lo) {
				spans6 = append(spans6, addr6Span{lo, hi})
			}
		}
	}
	return setOf(normalize(spans), normalize(spans6))
}

// Contains reports whether a is in s.
func (s Set) Contains(a netip.Addr) bool {
	if !a.Is4() {
		if !a.Is6() {
			return false
		}
		_, ok := s.spans6().find(u128(a))
		return ok
	}
	_, ok := find(s.spans, u32(a))
	return ok
}

// Len returns the number of addresses in s, or the largest uint64 when
// they are more (Count is exact).
func (s Set) Len() uint64 {
	var n uint64
	for _, sp := range s.spans {
		n += size(sp)
	}
	if s.six == nil {
		return n
	}
	if v, ok := s.Count().Uint64(); ok {
		return v
	}
	return maxUint64
}

// Count returns the number of addresses in s, exactly.
func (s Set) Count() Count {
	var n uint64
	for _, sp := range s.spans {
		n += size(sp)
	}
	c := CountOf(n)
	if s.six != nil {
		c = c.Add(s.six.sizes(0, s.six.len()))
	}
	return c
}

// RangeCount returns the number of ranges s is made of.
func (s Set) RangeCount() int { return len(s.spans) + s.spans6().len() }

// Ranges returns the ranges of s in ascending order, IPv4 first.
func (s Set) Ranges() []Range { return append(ranges(s.spans), ranges6(s.spans6().all())...) }

// ranges returns spans as Ranges.
func ranges(spans []addrSpan) []Range {
	out := make([]Range, len(spans))
	for i, sp := range spans {
		out[i] = Range{addr(sp.lo), addr(sp.hi)}
	}
	return out
}

// ranges6 returns IPv6 spans as Ranges.
func ranges6(spans []addr6Span) []Range {
	out := make([]Range, len(spans))
	for i, sp := range spans {
		out[i] = Range{addr6(sp.lo), addr6(sp.hi)}
	}
	return out
}

// RangesIn returns the ranges of s inside p, clipped to it, in ascending
// order.
func (s Set) RangesIn(p netip.Prefix) []Range {
	switch {
	case p.Addr().Is4():
		lo, hi := prefixBounds(p.Masked())
		return ranges(within(s.spans, lo, hi))
	case p.Addr().Is6():
		lo, hi := prefixBounds6(p)
		return ranges6(s.spans6().within(lo, hi))
	}
	return nil
}

// RangeOf returns the range of s that holds a.
func (s Set) RangeOf(a netip.Addr) (Range, bool) {
	switch {
	case a.Is4():
		if i, ok := find(s.spans, u32(a)); ok {
			return Range{addr(s.spans[i].lo), addr(s.spans[i].hi)}, true
		}
	case a.Is6():
		if i, ok := s.spans6().find(u128(a)); ok {
			sp := s.six.at(i)
			return Range{addr6(sp.lo), addr6(sp.hi)}, true
		}
	}
	return Range{}, false
}

// Union returns the addresses in s or in t.
func (s Set) Union(t Set) Set {
	spans := normalize(append(append(make([]addrSpan, 0, len(s.spans)+len(t.spans)), s.spans...), t.spans...))
	if s.six == nil && t.six == nil {
		return Set{spans: spans}
	}
	return setOf(spans, normalize(append(s.spans6().all(), t.spans6().all()...)))
}

// A SetBuilder is a mutable set of addresses (a spanBuilder for each
// family). Its zero value is empty and ready to use. Adding to the end of
// the set, as a pool fills from its lowest address, costs O(1); adding
// elsewhere costs a binary search and at most one move of the ranges after
// it.
type SetBuilder struct {
	b  spanBuilder[ip4]
	b6 spans6
}

// Add adds a to the set. The zero Addr is ignored.
func (b *SetBuilder) Add(a netip.Addr) {
	switch {
	case a.Is4():
		b.b.add(u32(a))
	case a.Is6():
		b.b6.add(u128(a))
	}
}

// AddRange adds the addresses of r to the set. A range whose ends are of
// two families, or whose From is after its To, adds nothing.
func (b *SetBuilder) AddRange(r Range) {
	switch {
	case r.From.Is4() && r.To.Is4():
		if u32(r.From) <= u32(r.To) {
			b.b.insert(addrSpan{u32(r.From), u32(r.To)})
		}
	case r.From.Is6() && r.To.Is6():
		if lo, hi := u128(r.From), u128(r.To); !hi.less(lo) {
			b.b6.insert(addr6Span{lo, hi})
		}
	}
}

// Remove removes a from the set.
func (b *SetBuilder) Remove(a netip.Addr) {
	switch {
	case a.Is4():
		b.b.remove(u32(a))
	case a.Is6():
		b.b6.remove(u128(a))
	}
}

// Contains reports whether a is in the set.
func (b *SetBuilder) Contains(a netip.Addr) bool { return b.View().Contains(a) }

// Set returns the current set. It is a copy: later changes to b do not
// show in it.
func (b *SetBuilder) Set() Set {
	s := Set{spans: slices.Clone(b.b.spans)}
	if b.b6.len() > 0 {
		six := b.b6.clone()
		s.six = &six
	}
	return s
}

// View returns the current set without copying it. It is valid only until
// the next change to b; use it for a lookup under the caller's own lock.
func (b *SetBuilder) View() Set {
	s := Set{spans: b.b.spans}
	if b.b6.len() > 0 {
		s.six = &b.b6
	}
	return s
}
