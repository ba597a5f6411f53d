package candidates

// A gapSlice is a slice that keeps a gap of unused elements where it was
// last changed: the elements before the gap, the gap, then the elements
// after it. A change moves the gap to its place first, so a change costs
// the elements between it and the one before, not every element after it.
// A pool's claims, each of the lowest free address, change its taken set
// one span after another: in a /64 holding 1 000 000 allocations in
// 90 000 spans, each claim moved a megabyte in a plain slice (measured:
// the slowest part of a claim's own work, docs/benchmarks.md). Its zero
// value is empty.
type gapSlice[T any] struct {
	buf []T
	gap int // the index in buf of the gap's first element
	n   int // the gap's length
}

// gapGrowth is the least gap a change that needs room leaves.
const gapGrowth = 16

// len returns the number of elements.
func (g *gapSlice[T]) len() int { return len(g.buf) - g.n }

// at returns a pointer to the element i, valid until the next change.
func (g *gapSlice[T]) at(i int) *T {
	if i >= g.gap {
		i += g.n
	}
	return &g.buf[i]
}

// push appends v.
func (g *gapSlice[T]) push(v T) {
	if g.n > 0 && g.gap+g.n == len(g.buf) {
		g.buf[g.gap] = v
		g.gap++
		g.n--
		return
	}
	g.buf = append(g.buf, v)
}

// moveGap moves the gap to before the element i.
func (g *gapSlice[T]) moveGap(i int) {
	switch {
	case g.n == 0:
	case i < g.gap:
		copy(g.buf[i+g.n:g.gap+g.n], g.buf[i:g.gap])
	case i > g.gap:
		copy(g.buf[g.gap:i], g.buf[g.gap+g.n:i+g.n])
	}
	g.gap = i
}

// replace replaces the elements i to j−1 with repl, as slices.Replace.
func (g *gapSlice[T]) replace(i, j int, repl ...T) {
	g.moveGap(j)
	g.gap, g.n = i, g.n+j-i
	if g.n < len(repl) {
		// Room for repl and a gap after it: the elements after the gap
		// move to the end of a larger buffer.
		extra := max(gapGrowth, g.len()/16) + len(repl)
		buf := make([]T, len(g.buf)+extra)
		copy(buf, g.buf[:g.gap])
		copy(buf[g.gap+g.n+extra:], g.buf[g.gap+g.n:])
		g.buf, g.n = buf, g.n+extra
	}
	copy(g.buf[g.gap:], repl)
	g.gap += len(repl)
	g.n -= len(repl)
}

// slice returns the elements as a new slice.
func (g *gapSlice[T]) slice() []T {
	out := make([]T, 0, g.len())
	out = append(out, g.buf[:g.gap]...)
	return append(out, g.buf[g.gap+g.n:]...)
}
