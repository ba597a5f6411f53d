package candidates

import "net/netip"

// space6 is the candidates of a Space of an IPv6 pool: the addresses of
// the scope less the subnet-router anycast addresses (RFC 4291 §2.6.1:
// the first address of the pool's prefix and of the request's Within, in
// a /126 or shorter), the gateway, the excludes and the reserved
// addresses. IPv6 has no broadcast address; a /127 keeps both its
// addresses and a /128 its one (RFC 6164).
type space6 struct {
	lo, hi  ip6
	blocked []addr6Span // never a candidate; sorted, clipped to lo..hi
}

// maxAnycastBits is the longest IPv6 prefix whose first address is its
// subnet-router anycast address, never handed out: a /127 or a /128 has
// none (RFC 6164).
const maxAnycastBits = 126

func newSpace6(p Pool, r Request, scope netip.Prefix) *space6 {
	s := &space6{}
	s.lo, s.hi = prefixBounds6(scope)
	var b spanBuilder[ip6]
	for _, edge := range []netip.Prefix{p.Prefix, r.Within} {
		if edge.IsValid() && edge.Bits() <= maxAnycastBits {
			lo, _ := prefixBounds6(edge)
			b.insert(addr6Span{lo, lo})
		}
	}
	if p.Gateway.Is6() {
		b.add(u128(p.Gateway))
	}
	for _, set := range []Set{p.Exclude, r.Reserved} {
		for _, sp := range set.spans6 {
			b.insert(sp)
		}
	}
	s.blocked = within(b.spans, s.lo, s.hi)
	return s
}

// count returns the number of candidates, taken or not.
func (s *space6) count() Count {
	n := size6(addr6Span{s.lo, s.hi})
	for _, b := range s.blocked {
		n = n.Sub(size6(b))
	}
	return n
}

// free returns the number of candidates not in taken, in one merge walk
// of taken and blocked as Space.Free does.
func (s *space6) free(taken []addr6Span) Count {
	free := s.count()
	i, _ := find(taken, s.lo)
	j := 0
	for ; i < len(taken) && !s.hi.less(taken[i].lo); i++ {
		t := addr6Span{vmax(taken[i].lo, s.lo), vmin(taken[i].hi, s.hi)}
		free = free.Sub(size6(t))
		for j < len(s.blocked) && !t.hi.less(s.blocked[j].lo) {
			if lo, hi := vmax(t.lo, s.blocked[j].lo), vmin(t.hi, s.blocked[j].hi); !hi.less(lo) {
				free = free.Add(size6(addr6Span{lo, hi}))
			}
			if t.hi.less(s.blocked[j].hi) {
				break
			}
			j++
		}
	}
	return free
}

// last returns the highest candidate not in taken.
func (s *space6) last(taken []addr6Span) (netip.Addr, bool) {
	v := s.hi
	for !v.less(s.lo) {
		var jump ip6
		if i, ok := find(s.blocked, v); ok {
			jump = s.blocked[i].lo
		} else if i, ok := find(taken, v); ok {
			jump = taken[i].lo
		} else {
			return addr6(v), true
		}
		if !s.lo.less(jump) {
			break
		}
		v = jump.prev()
	}
	return netip.Addr{}, false
}

// iter returns a walk of the candidates not in taken, lowest first.
func (s *space6) iter(taken []addr6Span) *iter6 {
	return &iter6{blocked: s.blocked, taken: taken, hi: s.hi, cur: s.lo}
}

// set returns the candidates, taken or not, as spans.
func (s *space6) set() []addr6Span {
	out := make([]addr6Span, 0, len(s.blocked)+1)
	next, done := s.lo, false
	for _, b := range s.blocked {
		if next.less(b.lo) {
			out = append(out, addr6Span{next, b.lo.prev()})
		}
		next, done = b.hi.next(), b.hi == s.hi
	}
	if !done {
		out = append(out, addr6Span{next, s.hi})
	}
	return out
}

// An iter6 is the walk of an Iterator over an IPv6 space. Unlike the IPv4
// walk it cannot step past the last address of the space (which may be
// the last of all), so it says when it is done.
type iter6 struct {
	blocked, taken []addr6Span
	bi, ti         int // first blocked and taken span that may still hold cur
	hi, cur        ip6 // last address of the scope, next address to look at
	done           bool
}

func (it *iter6) next() (netip.Addr, bool) {
	for !it.done {
		v := it.cur
		it.bi = skipTo6(it.blocked, it.bi, v)
		if it.bi < len(it.blocked) && !v.less(it.blocked[it.bi].lo) {
			it.skipPast(it.blocked[it.bi].hi)
			continue
		}
		it.ti = skipTo6(it.taken, it.ti, v)
		if it.ti < len(it.taken) && !v.less(it.taken[it.ti].lo) {
			it.skipPast(it.taken[it.ti].hi)
			continue
		}
		it.skipPast(v)
		return addr6(v), true
	}
	return netip.Addr{}, false
}

// skipPast moves the walk to the address after v, done when v is the last.
func (it *iter6) skipPast(v ip6) {
	if !v.less(it.hi) {
		it.done = true
		return
	}
	it.cur = v.next()
}

// skipTo6 is skipTo for IPv6 spans.
func skipTo6(spans []addr6Span, i int, v ip6) int {
	if i >= len(spans) || !spans[i].hi.less(v) {
		return i
	}
	i++
	if i >= len(spans) || !spans[i].hi.less(v) {
		return i
	}
	lo, hi := i+1, len(spans)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if spans[m].hi.less(v) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
