package candidates

import (
	"math/bits"
	"slices"
	"sort"
)

// spans6 is the IPv6 span set of a Set and of a SetBuilder: the sorted,
// disjoint, non-adjacent spans of spans.go, kept in 12 bytes a span
// rather than the 32 of a span[ip6] (docs/allocation.md, "IPv6
// candidates"). The addresses of a pool, and of a subnet's /64 or longer
// prefix, share their upper 64 bits: the spans are grouped by the upper
// 64 bits of their first address (heads), and each keeps only the lower
// 64 bits of its first address and its length less one (a run6). A span
// of 2^32 addresses or more, or one that ends in another /64, is wide:
// its run says so, and wide holds it whole. Its zero value is empty.
type spans6 struct {
	runs  gapSlice[run6]
	heads []head6     // the groups of runs, sorted by hi, none empty
	wide  []addr6Span // the wide spans, sorted
}

// A run6 is a span of its group: the lower 64 bits of its first address
// (lo1, lo0) and n, its last address less its first, or wideRun.
type run6 struct{ lo1, lo0, n uint32 }

// wideRun is the n of a wide span.
const wideRun = 1<<32 - 1

// A head6 starts a group: the runs from its own to the next head's.
type head6 struct {
	hi   uint64 // the upper 64 bits of the first address of the runs
	from int    // the index of its first run
}

func (r run6) lo() uint64 { return uint64(r.lo1)<<32 | uint64(r.lo0) }

// pack6 returns spans (sorted, disjoint, non-adjacent) as spans6.
func pack6(spans []addr6Span) spans6 {
	var s spans6
	if len(spans) == 0 {
		return s
	}
	s.runs.buf = make([]run6, 0, len(spans))
	for _, sp := range spans {
		s.push(sp)
	}
	return s
}

// push appends sp, which comes after every span of s and does not touch
// the last.
func (s *spans6) push(sp addr6Span) {
	if n := len(s.heads); n == 0 || s.heads[n-1].hi != sp.lo.hi {
		s.heads = append(s.heads, head6{sp.lo.hi, s.runs.len()})
	}
	r := s.run(sp)
	s.runs.push(r)
	if r.n == wideRun {
		s.wide = append(s.wide, sp)
	}
}

// run returns the run of sp (which s does not hold yet, for a wide one).
func (s *spans6) run(sp addr6Span) run6 {
	r := run6{uint32(sp.lo.lo >> 32), uint32(sp.lo.lo), wideRun}
	if sp.hi.hi == sp.lo.hi && sp.hi.lo-sp.lo.lo < wideRun {
		r.n = uint32(sp.hi.lo - sp.lo.lo)
	}
	return r
}

// len returns the number of spans.
func (s *spans6) len() int { return s.runs.len() }

// group returns the index of the head of the run i.
func (s *spans6) group(i int) int {
	last := len(s.heads) - 1
	if s.heads[last].from <= i {
		return last
	}
	return sort.Search(last, func(k int) bool { return s.heads[k+1].from > i })
}

// at returns the span i.
func (s *spans6) at(i int) addr6Span {
	r := *s.runs.at(i)
	lo := ip6{s.heads[s.group(i)].hi, r.lo()}
	if r.n == wideRun {
		return s.wide[s.wideIndex(lo)]
	}
	return addr6Span{lo, ip6{lo.hi, lo.lo + uint64(r.n)}}
}

// wideIndex returns the index in wide of the first span that starts at or
// after lo.
func (s *spans6) wideIndex(lo ip6) int {
	return sort.Search(len(s.wide), func(k int) bool { return !s.wide[k].lo.less(lo) })
}

// end returns the last address of the run i of the group whose upper 64
// bits are hi.
func (s *spans6) end(i int, hi uint64) ip6 {
	r := *s.runs.at(i)
	if r.n == wideRun {
		return s.wide[s.wideIndex(ip6{hi, r.lo()})].hi
	}
	return ip6{hi, r.lo() + uint64(r.n)}
}

// find is find of spans.go: the index of the first span that ends at or
// after v, and whether that span holds v.
func (s *spans6) find(v ip6) (int, bool) {
	k := sort.Search(len(s.heads), func(k int) bool { return v.hi < s.heads[k].hi })
	if k == 0 {
		return 0, false
	}
	g := s.heads[k-1]
	to := s.runs.len()
	if k < len(s.heads) {
		to = s.heads[k].from
	}
	if g.hi < v.hi {
		// Only the group's last span, if wide, may reach v.
		if !s.end(to-1, g.hi).less(v) {
			return to - 1, true
		}
		return to, false
	}
	// The span before the group, if wide, may reach v.
	if g.from > 0 && s.runs.at(g.from-1).n == wideRun && !s.at(g.from-1).hi.less(v) {
		return g.from - 1, true
	}
	i := g.from + sort.Search(to-g.from, func(j int) bool { return !s.end(g.from+j, g.hi).less(v) })
	return i, i < to && s.runs.at(i).lo() <= v.lo
}

// all returns the spans as a slice.
func (s *spans6) all() []addr6Span {
	out := make([]addr6Span, s.len())
	for i := range out {
		out[i] = s.at(i)
	}
	return out
}

// within is within of spans.go.
func (s *spans6) within(lo, hi ip6) []addr6Span {
	i, _ := s.find(lo)
	var out []addr6Span
	for ; i < s.len(); i++ {
		sp := s.at(i)
		if hi.less(sp.lo) {
			break
		}
		out = append(out, addr6Span{max6(sp.lo, lo), min6(sp.hi, hi)})
	}
	return out
}

// sizes returns the count of addresses of the spans i to j−1, which are
// inside one pool: at most 2^120, so the sum cannot overflow.
func (s *spans6) sizes(i, j int) Count {
	var hi, lo, carry uint64
	for k := i; k < j; k++ {
		n := s.runs.at(k).n
		d := CountOf(uint64(n) + 1)
		if n == wideRun {
			d = size6(s.at(k))
		}
		lo, carry = bits.Add64(lo, d.lo, 0)
		hi += d.hi + carry
	}
	return Count{hi, lo}
}

// skipTo is skipTo6 of s: the first span from i on that ends at or after
// v, where every span before i ends before v.
func (s *spans6) skipTo(i int, v ip6) int {
	if i >= s.len() || !s.at(i).hi.less(v) {
		return i
	}
	if i+1 >= s.len() || !s.at(i+1).hi.less(v) {
		return i + 1
	}
	j, _ := s.find(v)
	return j
}

// clone returns a copy of s that shares nothing with it.
func (s *spans6) clone() spans6 {
	return spans6{gapSlice[run6]{buf: s.runs.slice()}, slices.Clone(s.heads), slices.Clone(s.wide)}
}

// splice replaces the spans i to j−1 with repl (sorted, and fitting
// between the spans before i and from j): what every change of a
// spans6 comes down to.
func (s *spans6) splice(i, j int, repl ...addr6Span) {
	// The wide spans of i to j−1 give way to those of repl.
	if w := s.wideRuns(i, j); len(w) > 0 || len(repl) > 0 {
		at := len(s.wide)
		if i < s.len() {
			at = s.wideIndex(s.at(i).lo)
		}
		var add []addr6Span
		for _, sp := range repl {
			if s.run(sp).n == wideRun {
				add = append(add, sp)
			}
		}
		if len(w) > 0 || len(add) > 0 {
			s.wide = slices.Replace(s.wide, at, at+len(w), add...)
		}
	}
	// The groups: those that start before i stay, those that start after
	// j move by the change of length, and where a group starts from i to
	// the end of repl is found anew.
	var prev, next uint64
	hasPrev, hasNext := i > 0, j < s.len()
	if hasPrev {
		prev = s.heads[s.group(i-1)].hi
	}
	if hasNext {
		next = s.heads[s.group(j)].hi
	}
	k0 := sort.Search(len(s.heads), func(k int) bool { return s.heads[k].from >= i })
	k1 := sort.Search(len(s.heads), func(k int) bool { return s.heads[k].from > j })
	var starts [3]head6
	m := 0
	key, has := prev, hasPrev
	for x, sp := range repl {
		if !has || key != sp.lo.hi {
			starts[m] = head6{sp.lo.hi, i + x}
			m++
		}
		key, has = sp.lo.hi, true
	}
	if hasNext && (!has || key != next) {
		starts[m] = head6{next, i + len(repl)}
		m++
	}
	s.heads = slices.Replace(s.heads, k0, k1, starts[:m]...)
	for k := k0 + m; k < len(s.heads); k++ {
		s.heads[k].from += len(repl) - (j - i)
	}
	var runs [2]run6
	for x, sp := range repl {
		runs[x] = s.run(sp)
	}
	s.runs.replace(i, j, runs[:len(repl)]...)
}

// wideRuns returns the wide spans among the spans i to j−1, in wide.
func (s *spans6) wideRuns(i, j int) []addr6Span {
	if i >= j || len(s.wide) == 0 {
		return nil
	}
	from := s.wideIndex(s.at(i).lo)
	to := from
	last := s.at(j - 1).lo
	for to < len(s.wide) && !last.less(s.wide[to].lo) {
		to++
	}
	return s.wide[from:to]
}

// add is spanBuilder.add of s.
func (s *spans6) add(v ip6) {
	last := s.len() - 1
	if last < 0 {
		s.push(addr6Span{v, v})
		return
	}
	if l := s.at(last); !touches(l.hi, v) {
		s.push(addr6Span{v, v})
		return
	} else if l.hi.less(v) {
		s.setHi(last, l, v)
		return
	}
	i, held := s.find(v)
	if held {
		return
	}
	next := s.at(i)
	switch joinsPrev, joinsNext := i > 0 && s.at(i-1).hi.next() == v, next.lo == v.next(); {
	case joinsPrev && joinsNext:
		s.splice(i-1, i+1, addr6Span{s.at(i - 1).lo, next.hi})
	case joinsPrev:
		s.setHi(i-1, s.at(i-1), v)
	case joinsNext:
		s.splice(i, i+1, addr6Span{v, next.hi})
	default:
		s.splice(i, i, addr6Span{v, v})
	}
}

// setHi makes sp, the span i, end at v, at no cost where it stays a run
// of its group.
func (s *spans6) setHi(i int, sp addr6Span, v ip6) {
	r := s.runs.at(i)
	if r.n != wideRun && v.hi == sp.lo.hi && v.lo-sp.lo.lo < wideRun {
		r.n = uint32(v.lo - sp.lo.lo)
		return
	}
	s.splice(i, i+1, addr6Span{sp.lo, v})
}

// insert is spanBuilder.insert of s.
func (s *spans6) insert(sp addr6Span) {
	n := s.len()
	if n == 0 || !touches(s.at(n-1).hi, sp.lo) {
		s.push(sp)
		return
	}
	i := sort.Search(n, func(i int) bool { return touches(s.at(i).hi, sp.lo) })
	j := sort.Search(n, func(j int) bool { return !touches(sp.hi, s.at(j).lo) })
	if i == j {
		s.splice(i, i, sp)
		return
	}
	s.splice(i, j, addr6Span{vmin(sp.lo, s.at(i).lo), vmax(sp.hi, s.at(j-1).hi)})
}

// remove is spanBuilder.remove of s.
func (s *spans6) remove(v ip6) {
	i, held := s.find(v)
	if !held {
		return
	}
	sp := s.at(i)
	switch {
	case sp.lo == v && sp.hi == v:
		s.splice(i, i+1)
	case sp.lo == v:
		s.splice(i, i+1, addr6Span{v.next(), sp.hi})
	case sp.hi == v:
		s.setHi(i, sp, v.prev())
	default:
		s.splice(i, i+1, addr6Span{sp.lo, v.prev()}, addr6Span{v.next(), sp.hi})
	}
}
