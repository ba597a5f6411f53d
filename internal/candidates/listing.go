package candidates

import (
	"net/netip"
	"sort"
)

// A Row is one line of a table of addresses, such as a pool's or a subnet's
// allocations: a taken address (From is To, Free is false) or a run of free
// candidates, consecutive addresses none of which is taken (Free is true).
type Row struct {
	From, To netip.Addr
	Free     bool
}

// Count returns the number of addresses of the row: 1 for a taken address;
// math.MaxInt for an IPv6 run of more (Size is exact).
func (r Row) Count() int {
	if r.From.Is6() {
		return r.Size().Int()
	}
	return int(uint64(u32(r.To)) - uint64(u32(r.From)) + 1)
}

// Size returns the number of addresses of the row, exactly.
func (r Row) Size() Count {
	if r.From.Is6() {
		return size6(addr6Span{u128(r.From), u128(r.To)})
	}
	return CountOf(uint64(r.Count()))
}

// A Listing is the rows of a table of addresses between two bounds, in
// address order: every taken address, a row of its own, and every run of
// free candidates, one row each. A taken address that is not a candidate
// (handed out before it was excluded) is a row too; an address that is
// neither taken nor a candidate (a network address, a gateway, an excluded
// one) is in no row, so it ends a run of free candidates.
//
// A Listing reads the sets it was made of without copying them: walking it
// costs a step per range of the two sets up to the rows asked for, never a
// step per address.
type Listing struct {
	cand, taken []addrSpan
	lo, hi      ip4
	six         *listing6 // the listing of IPv6 bounds; nil for IPv4
}

// NewListing returns the rows of the addresses from within.From to
// within.To: those of taken, and the runs of cand's addresses not in taken.
// Both bounds are of one family, the listing's.
func NewListing(cand, taken Set, within Range) Listing {
	l := Listing{cand: cand.spans, taken: taken.spans}
	if within.From.Is6() && within.To.Is6() {
		l.six = &listing6{cand: cand.spans6(), taken: taken.spans6(), lo: u128(within.From), hi: u128(within.To)}
		return l
	}
	if !within.From.Is4() || !within.To.Is4() {
		l.lo, l.hi = 1, 0
		return l
	}
	l.lo, l.hi = u32(within.From), u32(within.To)
	return l
}

// A ListingCount is what a listing holds: its rows, its taken addresses
// and its free candidates, as ints (math.MaxInt when they are more) and
// the free candidates exactly (FreeCount).
type ListingCount struct {
	Rows, Taken, Free int
	FreeCount         Count
}

// Page returns at most n rows from the offset-th (counting from 0), and
// what the whole listing holds, in one walk.
func (l Listing) Page(offset, n int) (rows []Row, count ListingCount) {
	if l.six != nil {
		return l.six.page(offset, n)
	}
	rows = make([]Row, 0, min(max(n, 0), 1024))
	if l.lo > l.hi {
		return rows, count
	}
	if offset < 0 {
		n = 0
	}
	it := listingIter{l: l, pos: uint64(l.lo)}
	it.ti = sort.Search(len(l.taken), func(i int) bool { return l.taken[i].hi >= l.lo })
	it.ci = sort.Search(len(l.cand), func(i int) bool { return l.cand[i].hi >= l.lo })
	it.tk = it.ti
	t, tok := it.nextTaken()
	f, fok := it.nextFree()
	for tok || fok {
		if tok && (!fok || t.lo < f.lo) {
			// The rows count.Rows to count.Rows+size-1 are t's addresses.
			size := int(size(t))
			if count.Rows+size > offset && len(rows) < n {
				for v := uint64(t.lo) + uint64(max(offset-count.Rows, 0)); v <= uint64(t.hi) && len(rows) < n; v++ {
					a := addr(ip4(v))
					rows = append(rows, Row{From: a, To: a})
				}
			}
			count.Rows += size
			count.Taken += size
			t, tok = it.nextTaken()
			continue
		}
		if count.Rows >= offset && len(rows) < n {
			rows = append(rows, Row{From: addr(f.lo), To: addr(f.hi), Free: true})
		}
		count.Rows++
		count.Free += int(size(f))
		f, fok = it.nextFree()
	}
	count.FreeCount = CountOf(uint64(count.Free))
	return rows, count
}

// A listingIter walks a listing's taken runs and, beside, its free runs.
type listingIter struct {
	l Listing
	// ti is the next taken run.
	ti int
	// The free runs are the candidates from pos on, less the taken runs:
	// ci is the candidates' range that may hold pos, tk the first taken
	// run that may end at or after pos.
	ci, tk int
	pos    uint64
}

// nextTaken returns the next run of taken addresses, clipped to the
// listing's bounds.
func (it *listingIter) nextTaken() (addrSpan, bool) {
	l := &it.l
	if it.ti >= len(l.taken) || l.taken[it.ti].lo > l.hi {
		return addrSpan{}, false
	}
	s := addrSpan{max(l.taken[it.ti].lo, l.lo), min(l.taken[it.ti].hi, l.hi)}
	it.ti++
	return s, true
}

// nextFree returns the next run of free candidates.
func (it *listingIter) nextFree() (addrSpan, bool) {
	l := &it.l
	for it.ci < len(l.cand) && l.cand[it.ci].lo <= l.hi {
		start, end := max(it.pos, uint64(l.cand[it.ci].lo)), uint64(min(l.cand[it.ci].hi, l.hi))
		if start > end {
			it.ci++
			continue
		}
		for it.tk < len(l.taken) && uint64(l.taken[it.tk].hi) < start {
			it.tk++
		}
		if it.tk < len(l.taken) && uint64(l.taken[it.tk].lo) <= start {
			it.pos = uint64(l.taken[it.tk].hi) + 1
			continue
		}
		if it.tk < len(l.taken) && uint64(l.taken[it.tk].lo) <= end {
			end = uint64(l.taken[it.tk].lo) - 1
		}
		it.pos = end + 1
		return addrSpan{ip4(start), ip4(end)}, true
	}
	return addrSpan{}, false
}

// Set returns the candidates of s, taken or not, as a set.
func (s Space) Set() Set {
	if s.six != nil {
		return setOf(nil, s.six.set())
	}
	out := make([]addrSpan, 0, len(s.blocked)+1)
	next := uint64(s.lo)
	for _, b := range s.blocked {
		if uint64(b.lo) > next {
			out = append(out, addrSpan{ip4(next), b.lo - 1})
		}
		next = uint64(b.hi) + 1
	}
	if next <= uint64(s.hi) {
		out = append(out, addrSpan{ip4(next), s.hi})
	}
	return Set{spans: out}
}
