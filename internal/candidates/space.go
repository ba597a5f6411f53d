package candidates

import "net/netip"

// A Space is the candidates of one pool for one request: the addresses of
// the pool's prefix (or of the request's Within) less the network and
// broadcast addresses (IPv4) or the subnet-router anycast addresses
// (IPv6), the gateway, the excludes and the reserved addresses. It is
// computed once and then enumerated against any taken set.
type Space struct {
	pool    Pool
	req     Request
	scope   netip.Prefix
	lo, hi  ip4
	blocked []addrSpan // never a candidate; sorted, clipped to lo..hi
	six     *space6    // the candidates of an IPv6 pool; nil for IPv4
}

// Space returns the candidates of p for r.
func (p Pool) Space(r Request) Space {
	s := Space{pool: p, req: r, scope: p.Prefix}
	if r.Within.IsValid() {
		s.scope = r.Within
	}
	if p.Prefix.Addr().Is6() {
		s.six = newSpace6(p, r, s.scope)
		return s
	}
	s.lo, s.hi = prefixBounds(s.scope)
	var b SetBuilder
	for _, edge := range []netip.Prefix{p.Prefix, r.Within} {
		if edge.IsValid() && edge.Bits() <= 30 {
			lo, hi := prefixBounds(edge)
			b.b.insert(addrSpan{lo, lo})
			b.b.insert(addrSpan{hi, hi})
		}
	}
	if p.Gateway.IsValid() {
		b.Add(p.Gateway)
	}
	for _, set := range []Set{p.Exclude, r.Reserved} {
		for _, sp := range set.spans {
			b.b.insert(sp)
		}
	}
	s.blocked = within(b.View().spans, s.lo, s.hi)
	return s
}

// Candidates returns every candidate of p.
func (p Pool) Candidates() Space { return p.Space(Request{}) }

// Reserved returns the request's reserved addresses.
func (s Space) Reserved() Set { return s.req.Reserved }

// Scope returns the prefix the candidates are taken from.
func (s Space) Scope() netip.Prefix { return s.scope }

// Size returns the number of candidates, taken or not, or math.MaxInt
// when they are more (Count is exact).
func (s Space) Size() int {
	if s.six != nil {
		return s.six.count().Int()
	}
	n := uint64(s.hi) - uint64(s.lo) + 1
	for _, b := range s.blocked {
		n -= size(b)
	}
	return int(n)
}

// Count returns the number of candidates, taken or not, exactly.
func (s Space) Count() Count {
	if s.six != nil {
		return s.six.count()
	}
	return CountOf(uint64(s.Size()))
}

// FreeCount returns the number of candidates that are not in taken,
// exactly.
func (s Space) FreeCount(taken Set) Count {
	if s.six != nil {
		return s.six.free(taken.spans6())
	}
	return CountOf(uint64(s.Free(taken)))
}

// Free returns the number of candidates that are not in taken, or
// math.MaxInt when they are more (FreeCount is exact).
func (s Space) Free(taken Set) int {
	if s.six != nil {
		return s.six.free(taken.spans6()).Int()
	}
	free := uint64(s.Size())
	// Subtract the taken addresses inside the scope, and add back those that
	// are not candidates anyway: the overlap of taken and blocked, both
	// sorted, in one merge walk. Nothing is copied.
	i, _ := find(taken.spans, s.lo)
	j := 0
	for ; i < len(taken.spans) && taken.spans[i].lo <= s.hi; i++ {
		t := addrSpan{max(taken.spans[i].lo, s.lo), min(taken.spans[i].hi, s.hi)}
		free -= size(t)
		for j < len(s.blocked) && s.blocked[j].lo <= t.hi {
			if lo, hi := max(t.lo, s.blocked[j].lo), min(t.hi, s.blocked[j].hi); lo <= hi {
				free += uint64(hi) - uint64(lo) + 1
			}
			if s.blocked[j].hi > t.hi {
				break
			}
			j++
		}
	}
	return int(free)
}

// First returns the lowest candidate that is not in taken.
func (s Space) First(taken Set) (netip.Addr, bool) {
	it := s.Iter(taken)
	return it.Next()
}

// Last returns the highest candidate that is not in taken.
func (s Space) Last(taken Set) (netip.Addr, bool) {
	if s.six != nil {
		return s.six.last(taken.spans6())
	}
	cur := int64(s.hi)
	for cur >= int64(s.lo) {
		v := ip4(cur)
		if i, ok := find(s.blocked, v); ok {
			cur = int64(s.blocked[i].lo) - 1
			continue
		}
		if i, ok := find(taken.spans, v); ok {
			cur = int64(taken.spans[i].lo) - 1
			continue
		}
		return addr(v), true
	}
	return netip.Addr{}, false
}

// NextN returns up to n candidates not in taken, lowest first.
func (s Space) NextN(taken Set, n int) []netip.Addr {
	out := make([]netip.Addr, 0, min(n, 256))
	it := s.Iter(taken)
	for len(out) < n {
		a, ok := it.Next()
		if !ok {
			break
		}
		out = append(out, a)
	}
	return out
}

// Iter returns an iterator over the candidates not in taken, lowest first.
func (s Space) Iter(taken Set) Iterator {
	if s.six != nil {
		return Iterator{six: s.six.iter(taken.spans6())}
	}
	return Iterator{blocked: s.blocked, taken: taken.spans, hi: s.hi, cur: uint64(s.lo)}
}

// IterFrom returns an iterator over the candidates not in taken that are
// not lower than from.
func (s Space) IterFrom(taken Set, from netip.Addr) Iterator {
	it := s.Iter(taken)
	switch {
	case it.six != nil && from.Is6():
		if v := u128(from); it.six.cur.less(v) {
			it.six.cur = v
			it.six.done = it.six.hi.less(v)
		}
	case it.six == nil && from.Is4():
		it.cur = max(it.cur, uint64(u32(from)))
	}
	return it
}

// Contains reports whether a is a candidate (taken or not).
func (s Space) Contains(a netip.Addr) bool {
	if s.six != nil {
		if !s.scope.Contains(a) {
			return false
		}
		_, blocked := find(s.six.blocked, u128(a))
		return !blocked
	}
	if !a.Is4() || !s.scope.Contains(a) {
		return false
	}
	_, blocked := find(s.blocked, u32(a))
	return !blocked
}

// An Iterator walks candidates in ascending order. Next allocates nothing.
type Iterator struct {
	blocked, taken []addrSpan
	bi, ti         int    // first blocked and taken span that may still hold cur
	hi             ip4    // last address of the scope
	cur            uint64 // next address to look at; past hi when done
	six            *iter6 // the walk of an IPv6 space; nil for IPv4
}

// Next returns the next candidate, or false when there is none.
func (it *Iterator) Next() (netip.Addr, bool) {
	if it.six != nil {
		return it.six.next()
	}
	for it.cur <= uint64(it.hi) {
		v := ip4(it.cur)
		it.bi = skipTo(it.blocked, it.bi, v)
		if it.bi < len(it.blocked) && it.blocked[it.bi].lo <= v {
			it.cur = uint64(it.blocked[it.bi].hi) + 1
			continue
		}
		it.ti = skipTo(it.taken, it.ti, v)
		if it.ti < len(it.taken) && it.taken[it.ti].lo <= v {
			it.cur = uint64(it.taken[it.ti].hi) + 1
			continue
		}
		it.cur++
		return addr(v), true
	}
	return netip.Addr{}, false
}

// skipTo returns the index of the first span at or after i that ends at or
// after v. The next span is tried first: iteration mostly moves by one.
func skipTo(spans []addrSpan, i int, v ip4) int {
	if i >= len(spans) || spans[i].hi >= v {
		return i
	}
	i++
	if i >= len(spans) || spans[i].hi >= v {
		return i
	}
	lo, hi := i+1, len(spans)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if spans[m].hi < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
