package candidates

import (
	"fmt"
	"math"
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
