package candidates

import (
	"slices"
	"testing"
)

// FuzzGapSlice checks a gapSlice against a plain slice changed by
// slices.Replace: each three bytes of ops are a change (i, j and how many
// new elements; or a push), and after each every element is read back.
func FuzzGapSlice(f *testing.F) {
	f.Add([]byte{0, 0, 5, 2, 2, 0, 1, 3, 1, 0, 4, 0})
	f.Add([]byte{7, 7, 1, 6, 6, 1, 5, 5, 1, 4, 4, 1, 3, 4, 0, 9, 9, 200})
	f.Add([]byte{0, 0, 40, 39, 40, 0, 0, 1, 0, 20, 21, 2, 255, 255, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var g gapSlice[int]
		var want []int
		next := 0
		for k := 0; k+2 < len(ops); k += 3 {
			if ops[k+2] >= 200 {
				g.push(next)
				want = append(want, next)
				next++
				continue
			}
			i := int(ops[k]) % (len(want) + 1)
			j := i + int(ops[k+1])%(len(want)-i+1)
			repl := make([]int, ops[k+2]%40)
			for x := range repl {
				repl[x] = next
				next++
			}
			g.replace(i, j, repl...)
			want = slices.Replace(want, i, j, repl...)
			if g.len() != len(want) {
				t.Fatalf("len = %d, want %d", g.len(), len(want))
			}
			for x, w := range want {
				if got := *g.at(x); got != w {
					t.Fatalf("element %d = %d, want %d (of %v)", x, got, w, want)
				}
			}
		}
		if got := g.slice(); !slices.Equal(got, want) {
			t.Fatalf("slice = %v, want %v", got, want)
		}
	})
}

// TestClaimsMoveFewSpans: claims of the lowest free address, one after
// another, in a set of spans with single free addresses between them,
// each join the first span to the second: the gap stays after the first,
// and a claim moves one run, not the runs after it.
func TestClaimsMoveFewSpans(t *testing.T) {
	var s spans6
	for i := range uint64(10_000) {
		s.push(addr6Span{ip6{1, 3 * i}, ip6{1, 3*i + 1}})
	}
	for i := range uint64(1_000) {
		s.add(ip6{1, 3*i + 2})
		if s.runs.gap != 1 {
			t.Fatalf("after claim %d the gap is before run %d, want 1", i, s.runs.gap)
		}
	}
	if got, want := s.at(0), (addr6Span{ip6{1, 0}, ip6{1, 3001}}); got != want || s.len() != 9_000 {
		t.Fatalf("first span %v of %d, want %v of 9000", got, s.len(), want)
	}
}
