package candidates

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"testing"
)

// A widthCase places the 256 values the span set tests use: from, from+1,
// …, from+255 of one width, some at an end of the type.
type widthCase[V width[V]] struct {
	name string
	from V
}

// values returns the 256 values of c.
func (c widthCase[V]) values() *[256]V {
	var out [256]V
	out[0] = c.from
	for i := 1; i < len(out); i++ {
		out[i] = out[i-1].next()
	}
	return &out
}

// The places the tests of span sets run at, for each width: the lowest
// values of the type, values around zero or inside it, the highest.
var (
	ip4Cases = []widthCase[ip4]{{"ip4/lowest", 0}, {"ip4/10.0.0.0", 0x0a000000}, {"ip4/highest", math.MaxUint32 - 255}}
	numCases = []widthCase[num]{{"num/lowest", math.MinInt64}, {"num/around-0", -128}, {"num/highest", math.MaxInt64 - 255}}
	ip6Cases = []widthCase[ip6]{{"ip6/lowest", ip6{}}, {"ip6/across-64-bits", ip6{7, math.MaxUint64 - 127}}, {"ip6/highest", ip6{math.MaxUint64, math.MaxUint64 - 255}}}
)

// checkSpans checks spans against a brute-force model, the set of values
// they must hold: sorted, disjoint and non-adjacent runs, one for each run
// of consecutive values of model, and find holding each value of model
// and neither neighbour of a run.
func checkSpans[V width[V]](t *testing.T, spans []span[V], model map[V]bool) {
	t.Helper()
	for i := 1; i < len(spans); i++ {
		if !spans[i-1].hi.less(spans[i].lo) || touches(spans[i-1].hi, spans[i].lo) {
			t.Fatalf("spans %v and %v overlap or touch", spans[i-1], spans[i])
		}
	}
	values := make([]V, 0, len(model))
	for v, in := range model {
		if in {
			values = append(values, v)
		}
	}
	slices.SortFunc(values, func(a, b V) int {
		if a.less(b) {
			return -1
		}
		return 1
	})
	var want []span[V]
	for _, v := range values {
		if n := len(want); n > 0 && want[n-1].hi.next() == v && want[n-1].hi.less(v) {
			want[n-1].hi = v
			continue
		}
		want = append(want, span[V]{v, v})
	}
	if !slices.Equal(spans, want) {
		t.Fatalf("spans = %v, want %v", spans, want)
	}
	for _, sp := range spans {
		for _, v := range []V{sp.lo, sp.hi, sp.lo.prev(), sp.hi.next()} {
			if _, ok := find(spans, v); ok != model[v] {
				t.Fatalf("spans %v hold %v: %v, want %v", spans, v, ok, model[v])
			}
		}
	}
	for v, in := range model {
		if _, ok := find(spans, v); ok != in {
			t.Fatalf("spans %v hold %v: %v, want %v", spans, v, ok, in)
		}
	}
}

// fuzzSpans applies ops to a spanBuilder at the place c and to a model,
// three bytes an operation (insert a run, add, remove; a value; the run's
// length), and checks that they agree (checkSpans); then that normalize
// makes the same set of the runs inserted and the values added, given in
// any order, and that within clips the set to any bounds as the model
// says.
func fuzzSpans[V width[V]](t *testing.T, c widthCase[V], ops []byte) {
	at := c.values()
	var b spanBuilder[V]
	model := map[V]bool{}
	var added []span[V]
	addedModel := map[V]bool{}
	for i := 0; i+2 < len(ops); i += 3 {
		lo := ops[i+1]
		hi := byte(min(int(lo)+int(ops[i+2]%8), 255))
		switch ops[i] % 3 {
		case 0:
			b.insert(span[V]{at[lo], at[hi]})
			added = append(added, span[V]{at[lo], at[hi]})
			for v := int(lo); v <= int(hi); v++ {
				model[at[byte(v)]], addedModel[at[byte(v)]] = true, true
			}
		case 1:
			b.add(at[lo])
			added = append(added, span[V]{at[lo], at[lo]})
			model[at[lo]], addedModel[at[lo]] = true, true
		case 2:
			b.remove(at[lo])
			delete(model, at[lo])
		}
	}
	checkSpans(t, b.spans, model)
	slices.Reverse(added)
	checkSpans(t, normalize(added), addedModel)
	if len(ops) >= 2 {
		lo, hi := min(ops[0], ops[1]), max(ops[0], ops[1])
		clipped := map[V]bool{}
		for v := int(lo); v <= int(hi); v++ {
			clipped[at[byte(v)]] = model[at[byte(v)]]
		}
		checkSpans(t, within(b.spans, at[lo], at[hi]), clipped)
	}
}

// FuzzSetBuilder runs fuzzSpans for every width at every place: the span
// sets of IPv4 and IPv6 addresses (Set) and of numbers (NumberSet) are
// one.
func FuzzSetBuilder(f *testing.F) {
	f.Add([]byte{0, 10, 3, 0, 14, 2, 1, 11})
	f.Add([]byte{0, 255, 0, 0, 0, 0, 1, 0, 1, 255})
	f.Add([]byte{0, 1, 0, 0, 3, 0, 2, 0, 1, 2})
	f.Add([]byte{1, 0, 0, 1, 255, 0, 2, 0, 0, 2, 255, 0, 0, 0, 7, 1, 128, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		for _, c := range ip4Cases {
			fuzzSpans(t, c, ops)
		}
		for _, c := range numCases {
			fuzzSpans(t, c, ops)
		}
		for _, c := range ip6Cases {
			fuzzSpans(t, c, ops)
		}
	})
}

// testSpansAllocateNothing checks that a lookup, an add after the last
// value and a remove at the end of a run allocate nothing, at the place c.
func testSpansAllocateNothing[V width[V]](t *testing.T, c widthCase[V]) {
	at := c.values()
	var b spanBuilder[V]
	for i := byte(0); i < 200; i += 2 {
		b.add(at[i])
	}
	b.spans = slices.Grow(b.spans, 8)
	allocs := testing.AllocsPerRun(10, func() {
		find(b.spans, at[101])
		b.add(at[201])
		b.remove(at[201])
		b.remove(at[198])
		b.add(at[198])
	})
	if allocs != 0 {
		t.Errorf("%s: a lookup, adds and removes allocated %.0f times, want 0", c.name, allocs)
	}
}

func TestSpansAllocateNothing(t *testing.T) {
	for _, c := range ip4Cases {
		testSpansAllocateNothing(t, c)
	}
	for _, c := range numCases {
		testSpansAllocateNothing(t, c)
	}
	for _, c := range ip6Cases {
		testSpansAllocateNothing(t, c)
	}
}

// TestSpansAtTheEnds adds and removes the lowest and the highest value of
// each width, where a step past them wraps.
func TestSpansAtTheEnds(t *testing.T) {
	check := func(name string, got fmt.Stringer, want string) {
		t.Helper()
		if got.String() != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	var n NumberSetBuilder
	for _, v := range []int64{math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1} {
		n.Add(v)
	}
	check("numbers at both ends", n.View(), "-9223372036854775808--9223372036854775807,9223372036854775806-9223372036854775807")
	n.Remove(math.MinInt64)
	n.Remove(math.MaxInt64)
	check("numbers less the ends", n.View(), "-9223372036854775807,9223372036854775806")
	var a SetBuilder
	a.AddRange(Range{addr(math.MaxUint32 - 1), addr(math.MaxUint32)})
	a.AddRange(Range{addr(0), addr(1)})
	a.Add(addr(math.MaxUint32 - 2))
	check("addresses at both ends", rangesOf(a.View()), "[0.0.0.0-0.0.0.1 255.255.255.253-255.255.255.255]")
	top := ip6{math.MaxUint64, math.MaxUint64}
	a.AddRange(Range{addr6(top.prev()), addr6(top)})
	a.AddRange(Range{addr6(ip6{}), addr6(ip6{0, 1})})
	a.Add(addr6(top.prev().prev()))
	a.Add(addr6(ip6{0, math.MaxUint64}))
	a.Add(addr6(ip6{1, 0}))
	check("both families at both ends", rangesOf(a.View()), "[0.0.0.0-0.0.0.1 255.255.255.253-255.255.255.255 ::-::1 ::ffff:ffff:ffff:ffff-0:0:0:1:: ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffd-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]")
	if got := a.View().Count().String(); got != "12" {
		t.Errorf("the set counts %s addresses, want 12", got)
	}
	a.Remove(addr6(top))
	a.Remove(addr6(ip6{}))
	a.Remove(addr6(ip6{1, 0}))
	check("both families less the ends", rangesOf(a.View()), "[0.0.0.0-0.0.0.1 255.255.255.253-255.255.255.255 ::1 ::ffff:ffff:ffff:ffff ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffd-ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe]")
	whole := SetOfRanges(Range{addr6(ip6{}), addr6(top)})
	if got := whole.Count(); got != MaxCount || whole.Len() != math.MaxUint64 {
		t.Errorf("the whole IPv6 space counts %s (Len %d), want the largest Count", got, whole.Len())
	}
}

// rangesOf prints a Set's ranges.
type rangesOf Set

func (s rangesOf) String() string { return fmt.Sprint(Set(s).Ranges()) }

// FuzzSpans6 checks spans6, the IPv6 span set of a Set, against a
// brute-force model at any place and any scale: the 256 values it works
// on are base, base+step, … base+255·step, with step 2^shift, so that
// runs are as long as 2^32 addresses and more and cross /64 boundaries,
// one or many. The model is a row of atoms, each of the 256 values and
// each gap between two of them (step − 1 addresses): a run inserted
// covers the atoms from its first value to its last, a value added or
// removed its own atom, and the spans are the model's runs of atoms.
func FuzzSpans6(f *testing.F) {
	f.Add([]byte{0, 10, 3, 0, 14, 2, 1, 11, 0, 2, 12, 0}, uint64(7), uint64(math.MaxUint64-127), uint8(0))
	f.Add([]byte{0, 1, 7, 1, 9, 0, 2, 3, 0, 0, 100, 7, 2, 104, 0}, uint64(0x20010db8), uint64(0), uint8(32))
	f.Add([]byte{0, 0, 7, 2, 1, 0, 1, 8, 0, 2, 7, 0}, uint64(1), uint64(math.MaxUint64-(1<<33)), uint8(31))
	f.Add([]byte{0, 3, 7, 0, 20, 7, 2, 5, 0, 1, 11, 0, 2, 3, 0}, uint64(0xfd00004200000000), uint64(0), uint8(64))
	f.Add([]byte{0, 250, 5, 1, 0, 0, 2, 253, 0, 0, 2, 5}, uint64(math.MaxUint64), uint64(0), uint8(70))
	f.Fuzz(func(t *testing.T, ops []byte, baseHi, baseLo uint64, shift uint8) {
		step := ip6{}.plus(1)
		step = step.shiftLeft(int(shift % 72))
		// base + 256·step stays inside the address space.
		span := step.shiftLeft(8)
		base := ip6{baseHi, baseLo}
		if top := (ip6{maxUint64, maxUint64}).sub(span); top.less(base) {
			base = top
		}
		var at [256]ip6
		for i := range at {
			at[i] = base.add(step.mul(uint64(i)))
		}
		// atoms[2i] is at[i], atoms[2i+1] the gap after it (empty when
		// step is 1).
		var atoms [512]bool
		var s spans6
		for i := 0; i+2 < len(ops); i += 3 {
			lo := ops[i+1]
			hi := byte(min(int(lo)+int(ops[i+2]%8), 255))
			switch ops[i] % 3 {
			case 0:
				s.insert(addr6Span{at[lo], at[hi]})
				for a := 2 * int(lo); a <= 2*int(hi); a++ {
					atoms[a] = true
				}
			case 1:
				s.add(at[lo])
				atoms[2*int(lo)] = true
			case 2:
				s.remove(at[lo])
				atoms[2*int(lo)] = false
			}
		}
		// The model's spans, and the values each atom starts and ends at.
		first := func(a int) ip6 {
			if a%2 == 0 {
				return at[a/2]
			}
			return at[a/2].next()
		}
		last := func(a int) ip6 {
			if a%2 == 0 || a == 511 {
				return at[a/2]
			}
			return at[a/2+1].prev()
		}
		var want []addr6Span
		for a := range atoms {
			if !atoms[a] || a%2 == 1 && (step == (ip6{0, 1}) || a == 511) {
				continue
			}
			if n := len(want); n > 0 && want[n-1].hi.next() == first(a) {
				want[n-1].hi = last(a)
				continue
			}
			want = append(want, addr6Span{first(a), last(a)})
		}
		if got := s.all(); !slices.Equal(got, want) {
			t.Fatalf("spans = %v, want %v", got, want)
		}
		held := func(v ip6) bool {
			for _, sp := range want {
				if !v.less(sp.lo) && !sp.hi.less(v) {
					return true
				}
			}
			return false
		}
		for _, sp := range want {
			for _, v := range []ip6{sp.lo, sp.hi, sp.lo.prev(), sp.hi.next(), sp.lo.plus(1), sp.hi.prev()} {
				i, ok := s.find(v)
				if ok != held(v) || i < len(want) && want[i].hi.less(v) || i > 0 && !want[i-1].hi.less(v) {
					t.Fatalf("find(%v) in %v = %d, %v", v, want, i, ok)
				}
			}
		}
		// The Set made of the spans says the same, and within clips them.
		set := setOf(nil, slices.Clone(want))
		if c := s.clone(); !slices.Equal(set.spans6().all(), want) || !slices.Equal(c.all(), want) {
			t.Fatalf("pack6 and clone of %v: %v, %v", want, set.spans6().all(), c.all())
		}
		if len(ops) >= 2 {
			lo, hi := at[min(ops[0], ops[1])], at[max(ops[0], ops[1])]
			var clipped []addr6Span
			for _, sp := range want {
				if !hi.less(sp.lo) && !sp.hi.less(lo) {
					clipped = append(clipped, addr6Span{max6(sp.lo, lo), min6(sp.hi, hi)})
				}
			}
			if got := s.within(lo, hi); !slices.Equal(got, clipped) {
				t.Fatalf("within(%v, %v) = %v, want %v", lo, hi, got, clipped)
			}
		}
		var n Count
		for _, sp := range want {
			n = n.Add(size6(sp))
		}
		if got := s.sizes(0, s.len()); got != n {
			t.Fatalf("sizes of %v = %s, want %s", want, got, n)
		}
	})
}

// add, sub and mul are the sum, difference and product (by a 64-bit
// number) of 128-bit numbers, which the caller keeps from overflowing.
func (v ip6) add(w ip6) ip6 {
	lo, c := bits.Add64(v.lo, w.lo, 0)
	return ip6{v.hi + w.hi + c, lo}
}

func (v ip6) sub(w ip6) ip6 {
	lo, b := bits.Sub64(v.lo, w.lo, 0)
	return ip6{v.hi - w.hi - b, lo}
}

func (v ip6) mul(n uint64) ip6 {
	hi, lo := bits.Mul64(v.lo, n)
	return ip6{v.hi*n + hi, lo}
}
