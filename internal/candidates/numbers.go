package candidates

import (
	"cmp"
	"fmt"
	"slices"
)

// The numbers a pool's ranges may hold: the whole numbers that JavaScript,
// and so the browser and JSON clients, hold exactly (±(2⁵³−1)).
const (
	MinNumber = -(1<<53 - 1)
	MaxNumber = 1<<53 - 1
)

// MaxNumberRanges bounds the ranges of one number pool.
const MaxNumberRanges = 1024

// DefaultWeight is the weight of a range that names none.
const DefaultWeight = 1

// A NumberRange is a run of numbers Start..End, both inclusive, of a number
// pool. Ranges of higher Weight are tried first. Decoded from JSON, a range
// without a weight has DefaultWeight.
type NumberRange struct {
	Start  int64 `json:"start"`
	End    int64 `json:"end"`
	Weight int   `json:"weight"`
}

// String returns "100-199", or "100" for a range of one number.
func (r NumberRange) String() string { return string(appendRun(nil, r.Start, r.End)) }

// UnmarshalJSON reads {"start", "end", "weight"}, refusing other fields; the
// weight defaults to DefaultWeight.
func (r *NumberRange) UnmarshalJSON(b []byte) error {
	type plain NumberRange
	p := plain{Weight: DefaultWeight}
	if err := decodeStrict(b, &p); err != nil {
		return err
	}
	*r = NumberRange(p)
	return nil
}

// A NumberPool is the validated ranges of a number pool. It is immutable;
// its zero value has no range and so no number. A pool's numbers are
// handed out range by range, by descending weight and, between ranges of
// one weight, in the order given; within a range, lowest first.
type NumberPool struct {
	ranges []NumberRange // as given
	tried  []numSpan     // the same, in the order they are tried
	size   int64
}

// ParseNumberPool validates the ranges of a number pool: at least one and
// at most MaxNumberRanges, each with Start <= End, both between MinNumber
// and MaxNumber, a Weight of 1 or more, and no two overlapping. The error,
// if any, is an Errors listing every mistake, each naming its field
// ("ranges[1].weight"; "ranges" for an overlap, which names both ranges:
// "ranges 100-199 and 150-250 overlap").
func ParseNumberPool(ranges []NumberRange) (NumberPool, error) {
	var errs errorList
	switch {
	case len(ranges) == 0:
		errs.add("ranges", "ranges is empty; a number pool needs at least one start-end range")
		return NumberPool{}, errs.err()
	case len(ranges) > MaxNumberRanges:
		errs.add("ranges", fmt.Sprintf("ranges has %d entries; at most %d are accepted", len(ranges), MaxNumberRanges))
		return NumberPool{}, errs.err()
	}
	// valid holds the indexes of the ranges that are well formed, which
	// are then checked against each other.
	valid := make([]int, 0, len(ranges))
	for i, r := range ranges {
		field := fmt.Sprintf("ranges[%d]", i)
		ok := true
		for _, end := range []struct {
			name string
			v    int64
		}{{"start", r.Start}, {"end", r.End}} {
			if end.v < MinNumber || end.v > MaxNumber {
				errs.add(field+"."+end.name, fmt.Sprintf("%s.%s %d is out of range; a pool's numbers are from %d to %d", field, end.name, end.v, int64(MinNumber), int64(MaxNumber)))
				ok = false
			}
		}
		if ok && r.Start > r.End {
			errs.add(field, fmt.Sprintf("%s start %d is after its end %d", field, r.Start, r.End))
			ok = false
		}
		if r.Weight < 1 {
			errs.add(field+".weight", fmt.Sprintf("%s.weight %d is less than 1; a range's weight is 1 or more (%d when not given)", field, r.Weight, DefaultWeight))
			ok = false
		}
		if ok {
			valid = append(valid, i)
		}
	}
	// Taken in ascending order of their starts, a range overlaps an
	// earlier one when it starts at or before the furthest end of those
	// before it: one message for each such range, naming that one.
	slices.SortStableFunc(valid, func(i, j int) int { return cmp.Compare(ranges[i].Start, ranges[j].Start) })
	for k, reach := 1, -1; k < len(valid); k++ {
		if reach < 0 || ranges[valid[k-1]].End > ranges[reach].End {
			reach = valid[k-1]
		}
		if i := valid[k]; ranges[i].Start <= ranges[reach].End {
			a, b := min(i, reach), max(i, reach)
			errs.add("ranges", fmt.Sprintf("ranges %s and %s overlap", ranges[a], ranges[b]))
		}
	}
	if err := errs.err(); err != nil {
		return NumberPool{}, err
	}
	p := NumberPool{ranges: slices.Clone(ranges), tried: make([]numSpan, 0, len(ranges))}
	order := make([]int, len(ranges))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(ranges[j].Weight, ranges[i].Weight) })
	for _, i := range order {
		r := ranges[i]
		p.tried = append(p.tried, numSpan{num(r.Start), num(r.End)})
		p.size += r.End - r.Start + 1
	}
	return p, nil
}

// Ranges returns the pool's ranges in the order given.
func (p NumberPool) Ranges() []NumberRange { return slices.Clone(p.ranges) }

// Size returns the count of numbers in the pool's ranges, taken or not.
func (p NumberPool) Size() int64 { return p.size }

// Used returns, for each range in the order given, the count of its numbers
// that are in taken. It costs a binary search per range and a step per run
// of taken inside it, never a step per number.
func (p NumberPool) Used(taken NumberSet) []int64 {
	out := make([]int64, len(p.ranges))
	for i, r := range p.ranges {
		out[i] = countIn(taken.spans, num(r.Start), num(r.End))
	}
	return out
}

// Free returns the count of numbers in the pool's ranges that are not in
// taken.
func (p NumberPool) Free(taken NumberSet) int64 {
	free := p.size
	for _, r := range p.tried {
		free -= countIn(taken.spans, r.lo, r.hi)
	}
	return free
}

// countIn returns the count of numbers of spans inside lo..hi.
func countIn(spans []numSpan, lo, hi num) int64 {
	var n int64
	for i := seek(spans, lo); i < len(spans) && spans[i].lo <= hi; i++ {
		n += int64(min(spans[i].hi, hi) - max(spans[i].lo, lo) + 1)
	}
	return n
}

// First returns the number the pool hands out next: the lowest number not
// in taken of the first range, in the order ranges are tried, that has
// one. It costs a binary search of taken per range tried.
func (p NumberPool) First(taken NumberSet) (int64, bool) {
	it := p.Iter(taken)
	return it.Next()
}

// NextN returns up to n numbers not in taken, in the order the pool hands
// them out: what a claim that loses a race tries next.
func (p NumberPool) NextN(taken NumberSet, n int) []int64 {
	out := make([]int64, 0, min(max(n, 0), 256))
	it := p.Iter(taken)
	for len(out) < n {
		v, ok := it.Next()
		if !ok {
			break
		}
		out = append(out, v)
	}
	return out
}

// Iter returns an iterator over the numbers not in taken, in the order the
// pool hands them out.
func (p NumberPool) Iter(taken NumberSet) NumberIterator {
	it := NumberIterator{ranges: p.tried, taken: taken.spans}
	it.enter(0)
	return it
}

// A NumberIterator walks the free numbers of a pool in the order they are
// handed out. Next allocates nothing, and jumps over a run of taken
// numbers in one step.
type NumberIterator struct {
	ranges, taken []numSpan
	ri            int // the range being walked
	ti            int // the first taken span that ends at or after cur
	cur           num // the next number of ranges[ri] to look at
}

// enter starts walking the range ri, if there is one.
func (it *NumberIterator) enter(ri int) {
	it.ri = ri
	if ri < len(it.ranges) {
		it.cur = it.ranges[ri].lo
		it.ti = seek(it.taken, it.cur)
	}
}

// Next returns the next free number, or false when there is none.
func (it *NumberIterator) Next() (int64, bool) {
	for it.ri < len(it.ranges) {
		r := it.ranges[it.ri]
		if it.ti < len(it.taken) && it.taken[it.ti].lo <= it.cur {
			// cur is taken: the number after its run is free, as runs
			// never touch, unless the run reaches the range's end.
			if it.taken[it.ti].hi >= r.hi {
				it.enter(it.ri + 1)
				continue
			}
			it.cur = it.taken[it.ti].hi + 1
			it.ti++
		}
		n := it.cur
		if n == r.hi {
			it.enter(it.ri + 1)
		} else {
			it.cur++
		}
		return int64(n), true
	}
	return 0, false
}

// seek returns the index of the first span of spans that ends at or after
// n: find's answer, searched with num's own operators, as the enumerator
// searches once per range tried and a generic search calls num's methods
// through a dictionary, at three times the cost (BenchmarkNumberFirst).
func seek(spans []numSpan, n num) int {
	lo, hi := 0, len(spans)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if spans[m].hi < n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// NoFreeNumber is the message of a claim that finds no free number in a
// number pool: pool names it, division is the display label of the
// division claimed in, "" for a pool without an allocation scope.
func NoFreeNumber(pool, division string) string {
	msg := "pool " + pool + " has no free number"
	if pool == "" {
		msg = "the pool has no free number"
	}
	if division != "" {
		msg += " in " + division
	}
	return msg
}
