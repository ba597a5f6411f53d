package candidates

import (
	"net/netip"
	"sort"
)

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
		six := set.spans6()
		for i := range six.len() {
			b.insert(six.at(i))
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

// free returns the number of candidates not in taken: the candidates,
// less the taken addresses in the scope, plus those of them that are not
// candidates anyway. The taken ones are summed in one tight loop; the few
// blocked ranges (anycast, gateway, excludes, reserved) each look up the
// taken ones they overlap.
func (s *space6) free(taken *spans6) Count {
	i, _ := taken.find(s.lo)
	j := i + sort.Search(taken.len()-i, func(n int) bool { return s.hi.less(taken.at(i + n).lo) })
	if i == j {
		return s.count()
	}
	first, last := taken.at(i), taken.at(j-1)
	first.lo, last.hi = max6(first.lo, s.lo), min6(last.hi, s.hi)
	sub := size6(addr6Span{first.lo, min6(first.hi, last.hi)})
	if j-i > 1 {
		sub = sub.Add(taken.sizes(i+1, j-1)).Add(size6(last))
	}
	var add Count
	for _, b := range s.blocked {
		k, _ := taken.find(b.lo)
		for ; k < j; k++ {
			t := taken.at(k)
			if b.hi.less(t.lo) {
				break
			}
			if lo, hi := max6(t.lo, b.lo), min6(t.hi, b.hi); !hi.less(lo) {
				add = add.Add(size6(addr6Span{lo, hi}))
			}
		}
	}
	return s.count().Add(add).Sub(sub)
}

// max6 and min6 are vmax and vmin of ip6, which the compiler inlines.
func max6(a, b ip6) ip6 {
	if a.less(b) {
		return b
	}
	return a
}

func min6(a, b ip6) ip6 {
	if b.less(a) {
		return b
	}
	return a
}

// last returns the highest candidate not in taken.
func (s *space6) last(taken *spans6) (netip.Addr, bool) {
	v := s.hi
	for !v.less(s.lo) {
		var jump ip6
		if i, ok := find(s.blocked, v); ok {
			jump = s.blocked[i].lo
		} else if i, ok := taken.find(v); ok {
			jump = taken.at(i).lo
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
func (s *space6) iter(taken *spans6) *iter6 {
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
	blocked []addr6Span
	taken   *spans6
	bi, ti  int // first blocked and taken span that may still hold cur
	hi, cur ip6 // last address of the scope, next address to look at
	done    bool
}

func (it *iter6) next() (netip.Addr, bool) {
	for !it.done {
		v := it.cur
		it.bi = skipTo6(it.blocked, it.bi, v)
		if it.bi < len(it.blocked) && !v.less(it.blocked[it.bi].lo) {
			it.skipPast(it.blocked[it.bi].hi)
			continue
		}
		it.ti = it.taken.skipTo(it.ti, v)
		if it.ti < it.taken.len() {
			if t := it.taken.at(it.ti); !v.less(t.lo) {
				it.skipPast(t.hi)
				continue
			}
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
	j, _ := find(spans[i+1:], v)
	return i + 1 + j
}
