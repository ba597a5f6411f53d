package candidates

import (
	"math"
)

// listing6 is a Listing between two IPv6 bounds.
type listing6 struct {
	cand, taken *spans6
	lo, hi      ip6
}

// page is Listing.Page for IPv6: the rows and figures are the same, the
// free candidates are counted exactly.
func (l *listing6) page(offset, n int) (rows []Row, count ListingCount) {
	rows = make([]Row, 0, min(max(n, 0), 1024))
	if l.hi.less(l.lo) {
		return rows, count
	}
	if offset < 0 {
		n = 0
	}
	it := listingIter6{l: l, pos: l.lo}
	it.ti, _ = l.taken.find(l.lo)
	it.ci, _ = l.cand.find(l.lo)
	it.tk = it.ti
	var free Count
	t, tok := it.nextTaken()
	f, fok := it.nextFree()
	for tok || fok {
		if tok && (!fok || t.lo.less(f.lo)) {
			// The rows count.Rows to count.Rows+size-1 are t's addresses.
			size := size6(t).Int()
			if satAdd(count.Rows, size) > offset && len(rows) < n {
				for v := t.lo.plus(uint64(max(offset-count.Rows, 0))); len(rows) < n; v = v.next() {
					a := addr6(v)
					rows = append(rows, Row{From: a, To: a})
					if v == t.hi {
						break
					}
				}
			}
			count.Rows = satAdd(count.Rows, size)
			count.Taken = satAdd(count.Taken, size)
			t, tok = it.nextTaken()
			continue
		}
		if count.Rows >= offset && len(rows) < n {
			rows = append(rows, Row{From: addr6(f.lo), To: addr6(f.hi), Free: true})
		}
		count.Rows = satAdd(count.Rows, 1)
		free = free.Add(size6(f))
		f, fok = it.nextFree()
	}
	count.Free, count.FreeCount = free.Int(), free
	return rows, count
}

// satAdd returns a + b for a and b not negative, or math.MaxInt when
// that does not fit.
func satAdd(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// A listingIter6 is a listingIter over IPv6 spans. Its position cannot
// step past the last address of all, so it says when it is done.
type listingIter6 struct {
	l          *listing6
	ti, ci, tk int
	pos        ip6
	done       bool
}

func (it *listingIter6) nextTaken() (addr6Span, bool) {
	l := it.l
	if it.ti >= l.taken.len() {
		return addr6Span{}, false
	}
	t := l.taken.at(it.ti)
	if l.hi.less(t.lo) {
		return addr6Span{}, false
	}
	s := addr6Span{vmax(t.lo, l.lo), vmin(t.hi, l.hi)}
	it.ti++
	return s, true
}

func (it *listingIter6) nextFree() (addr6Span, bool) {
	l := it.l
	for !it.done && it.ci < l.cand.len() {
		c := l.cand.at(it.ci)
		if l.hi.less(c.lo) {
			break
		}
		start, end := vmax(it.pos, c.lo), vmin(c.hi, l.hi)
		if end.less(start) {
			it.ci++
			continue
		}
		for it.tk < l.taken.len() && l.taken.at(it.tk).hi.less(start) {
			it.tk++
		}
		if it.tk < l.taken.len() {
			t := l.taken.at(it.tk)
			if !start.less(t.lo) {
				it.movePast(t.hi)
				continue
			}
			if !end.less(t.lo) {
				end = t.lo.prev()
			}
		}
		it.movePast(end)
		return addr6Span{start, end}, true
	}
	return addr6Span{}, false
}

// movePast moves the position to the address after v, done when v is the
// last address of all.
func (it *listingIter6) movePast(v ip6) {
	if v == (ip6{maxUint64, maxUint64}) {
		it.done = true
		return
	}
	it.pos = v.next()
}
