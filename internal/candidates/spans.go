package candidates

import (
	"slices"
	"sort"
)

// A width is the type of the values of a span set: ip4 (an IPv4 address
// as a 32-bit number) and ip6 (an IPv6 address as a 128-bit number), the
// two span sets of a Set, and num (a whole number, NumberSet). Another
// kind of space is one more type with these methods: the set's code below
// takes its order and its steps from them and from nothing else.
type width[V any] interface {
	comparable
	// less reports whether the value comes before w.
	less(w V) bool
	// next and prev return the value after and before. They wrap around
	// at the ends of the type: the set asks for the value after its last
	// or before its first only where a wrap cannot matter (touches).
	next() V
	prev() V
}

// A span is the run of values lo..hi, both inclusive, lo <= hi.
type span[V width[V]] struct{ lo, hi V }

// vmin and vmax return the lower and the higher of a and b.
func vmin[V width[V]](a, b V) V {
	if b.less(a) {
		return b
	}
	return a
}

func vmax[V width[V]](a, b V) V {
	if a.less(b) {
		return b
	}
	return a
}

// touches reports whether a run ending at hi and a later one starting at
// lo overlap or are adjacent. hi.next() wraps only when hi is the highest
// value, and then lo is not above it.
func touches[V width[V]](hi, lo V) bool { return !hi.less(lo) || hi.next() == lo }

// find returns the index of the first span of spans (sorted, disjoint)
// that ends at or after v, and whether that span holds v.
func find[V width[V]](spans []span[V], v V) (int, bool) {
	lo, hi := 0, len(spans)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if spans[m].hi.less(v) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(spans) && !v.less(spans[lo].lo)
}

// within returns the spans clipped to lo..hi, in a new slice.
func within[V width[V]](spans []span[V], lo, hi V) []span[V] {
	i, _ := find(spans, lo)
	j := sort.Search(len(spans), func(j int) bool { return hi.less(spans[j].lo) })
	if i >= j {
		return nil
	}
	out := slices.Clone(spans[i:j])
	out[0].lo = vmax(out[0].lo, lo)
	out[len(out)-1].hi = vmin(out[len(out)-1].hi, hi)
	return out
}

// normalize sorts spans, merges those that overlap or touch, and returns
// the result in spans' array, clipped.
func normalize[V width[V]](spans []span[V]) []span[V] {
	if len(spans) == 0 {
		return nil
	}
	slices.SortFunc(spans, func(x, y span[V]) int {
		switch {
		case x.lo.less(y.lo):
			return -1
		case y.lo.less(x.lo):
			return 1
		}
		return 0
	})
	out := spans[:1]
	for _, s := range spans[1:] {
		last := &out[len(out)-1]
		if touches(last.hi, s.lo) {
			last.hi = vmax(last.hi, s.hi)
			continue
		}
		out = append(out, s)
	}
	return slices.Clip(out)
}

// A spanBuilder is a mutable span set: sorted, disjoint, non-adjacent
// spans. Its zero value is empty. Adding after the last value, as a pool
// fills from its lowest, costs O(1); adding elsewhere and removing cost a
// binary search and at most one move of the spans after it.
type spanBuilder[V width[V]] struct {
	spans []span[V]
}

// add adds v.
func (b *spanBuilder[V]) add(v V) {
	last := len(b.spans) - 1
	switch {
	case last < 0 || !touches(b.spans[last].hi, v):
		b.spans = append(b.spans, span[V]{v, v})
		return
	case b.spans[last].hi.less(v):
		// v extends the last span by one.
		b.spans[last].hi = v
		return
	}
	i, held := find(b.spans, v)
	if held {
		return
	}
	// v is in the gap before span i, which it may close.
	switch joinsPrev, joinsNext := i > 0 && b.spans[i-1].hi.next() == v, b.spans[i].lo == v.next(); {
	case joinsPrev && joinsNext:
		b.spans[i-1].hi = b.spans[i].hi
		b.spans = slices.Delete(b.spans, i, i+1)
	case joinsPrev:
		b.spans[i-1].hi = v
	case joinsNext:
		b.spans[i].lo = v
	default:
		b.spans = slices.Insert(b.spans, i, span[V]{v, v})
	}
}

// insert adds the values of s, merging it with the spans it overlaps or
// touches.
func (b *spanBuilder[V]) insert(s span[V]) {
	n := len(b.spans)
	if n == 0 || !touches(b.spans[n-1].hi, s.lo) {
		b.spans = append(b.spans, s)
		return
	}
	// The first span that ends at or after the value before s.lo, and the
	// first that starts after the value after s.hi.
	i := sort.Search(n, func(i int) bool { return touches(b.spans[i].hi, s.lo) })
	j := sort.Search(n, func(j int) bool { return !touches(s.hi, b.spans[j].lo) })
	if i == j {
		b.spans = slices.Insert(b.spans, i, s)
		return
	}
	b.spans[i] = span[V]{vmin(s.lo, b.spans[i].lo), vmax(s.hi, b.spans[j-1].hi)}
	b.spans = slices.Delete(b.spans, i+1, j)
}

// remove removes v.
func (b *spanBuilder[V]) remove(v V) {
	i, held := find(b.spans, v)
	if !held {
		return
	}
	sp := b.spans[i]
	switch {
	case sp.lo == v && sp.hi == v:
		b.spans = slices.Delete(b.spans, i, i+1)
	case sp.lo == v:
		b.spans[i].lo = v.next()
	case sp.hi == v:
		b.spans[i].hi = v.prev()
	default:
		b.spans[i].hi = v.prev()
		b.spans = slices.Insert(b.spans, i+1, span[V]{v.next(), sp.hi})
	}
}
