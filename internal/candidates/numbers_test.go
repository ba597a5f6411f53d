package candidates

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func mustNumberPool(t testing.TB, ranges ...NumberRange) NumberPool {
	t.Helper()
	p, err := ParseNumberPool(ranges)
	if err != nil {
		t.Fatalf("ParseNumberPool(%v): %v", ranges, err)
	}
	return p
}

func mustNumbers(t testing.TB, list string) NumberSet {
	t.Helper()
	s, err := ParseNumberList("taken", list)
	if err != nil {
		t.Fatalf("ParseNumberList(%q): %v", list, err)
	}
	return s
}

func TestParseNumberPoolRefuses(t *testing.T) {
	tests := []struct {
		name   string
		ranges []NumberRange
		fields string
		msg    string
	}{
		{"no range", nil, "ranges", "ranges is empty; a number pool needs at least one start-end range"},
		{"overlap", []NumberRange{{100, 199, 1}, {150, 250, 1}}, "ranges", "ranges 100-199 and 150-250 overlap"},
		{"overlap named in the order given", []NumberRange{{150, 250, 1}, {1, 9, 1}, {100, 199, 1}}, "ranges", "ranges 150-250 and 100-199 overlap"},
		{"touching at one number", []NumberRange{{1, 10, 1}, {10, 20, 1}}, "ranges", "ranges 1-10 and 10-20 overlap"},
		{"inside another", []NumberRange{{1, 100, 1}, {40, 40, 2}}, "ranges", "ranges 1-100 and 40 overlap"},
		{"the same twice", []NumberRange{{5, 6, 1}, {5, 6, 3}}, "ranges", "ranges 5-6 and 5-6 overlap"},
		{"each overlap once, naming the range reaching furthest", []NumberRange{{1, 100, 1}, {10, 20, 1}, {30, 40, 1}, {100, 101, 1}}, "ranges ranges ranges",
			"ranges 1-100 and 10-20 overlap; ranges 1-100 and 30-40 overlap; ranges 1-100 and 100-101 overlap"},
		{"descending", []NumberRange{{200, 100, 1}}, "ranges[0]", "ranges[0] start 200 is after its end 100"},
		{"weight 0", []NumberRange{{1, 10, 1}, {20, 30, 0}}, "ranges[1].weight", "ranges[1].weight 0 is less than 1; a range's weight is 1 or more (1 when not given)"},
		{"negative weight", []NumberRange{{1, 10, -2}}, "ranges[0].weight", "ranges[0].weight -2 is less than 1; a range's weight is 1 or more (1 when not given)"},
		{"beyond the largest number", []NumberRange{{1, MaxNumber + 1, 1}}, "ranges[0].end",
			"ranges[0].end 9007199254740992 is out of range; a pool's numbers are from -9007199254740991 to 9007199254740991"},
		{"below the smallest number", []NumberRange{{math.MinInt64, 0, 1}}, "ranges[0].start",
			"ranges[0].start -9223372036854775808 is out of range; a pool's numbers are from -9007199254740991 to 9007199254740991"},
		{"every mistake, in field order; broken ranges are not checked for overlaps", []NumberRange{{10, 1, 0}, {1, 5, 1}, {3, 4, 1}}, "ranges[0] ranges[0].weight ranges",
			"ranges[0] start 10 is after its end 1; ranges[0].weight 0 is less than 1; a range's weight is 1 or more (1 when not given); ranges 1-5 and 3-4 overlap"},
		{"too many", make([]NumberRange, MaxNumberRanges+1), "ranges", "ranges has 1025 entries; at most 1024 are accepted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseNumberPool(tt.ranges)
			errs, ok := err.(Errors)
			if !ok {
				t.Fatalf("ParseNumberPool(%v) = %v (%T), want Errors", tt.ranges, err, err)
			}
			var fields []string
			for _, e := range errs {
				fields = append(fields, e.Field)
			}
			if got := strings.Join(fields, " "); got != tt.fields {
				t.Errorf("fields = %q, want %q", got, tt.fields)
			}
			if errs.Error() != tt.msg {
				t.Errorf("ParseNumberPool(%v) error\n got %q\nwant %q", tt.ranges, errs.Error(), tt.msg)
			}
		})
	}
}

func TestParseNumberPoolAccepts(t *testing.T) {
	ranges := []NumberRange{{1000, 1999, 1}, {100, 199, 10}, {MinNumber, -1, 1}, {MaxNumber, MaxNumber, 1}}
	p := mustNumberPool(t, ranges...)
	ranges[0].Start = 5 // the pool keeps its own copy
	want := []NumberRange{{1000, 1999, 1}, {100, 199, 10}, {MinNumber, -1, 1}, {MaxNumber, MaxNumber, 1}}
	if got := p.Ranges(); !slices.Equal(got, want) {
		t.Errorf("Ranges() = %#v, want %#v", got, want)
	}
	if got, want := p.Size(), int64(1000+100+MaxNumber+1); got != want {
		t.Errorf("Size() = %d, want %d", got, want)
	}
}

func TestNumberPool(t *testing.T) {
	tests := []struct {
		name   string
		ranges []NumberRange
		taken  string
		first  string // "" when none
		next4  string
		used   string // per range, in the order given
		free   int64
	}{
		{"empty division", []NumberRange{{100, 199, 1}}, "", "100", "100 101 102 103", "[0]", 100},
		{"lowest free", []NumberRange{{100, 199, 1}}, "100-102,104", "103", "103 105 106 107", "[4]", 96},
		{"taken outside the ranges is ignored", []NumberRange{{100, 199, 1}}, "1-99,200-300", "100", "100 101 102 103", "[0]", 100},
		{"heavier range first", []NumberRange{{1000, 1999, 1}, {100, 199, 10}}, "", "100", "100 101 102 103", "[0 0]", 1100},
		{"then the next by weight", []NumberRange{{1000, 1999, 1}, {100, 199, 10}}, "100-199,1000", "1001", "1001 1002 1003 1004", "[1 100]", 999},
		{"ties in the order given", []NumberRange{{500, 501, 2}, {10, 11, 2}, {1, 2, 1}}, "", "500", "500 501 10 11", "[0 0 0]", 6},
		{"ties in the order given, first full", []NumberRange{{500, 501, 2}, {10, 11, 2}, {1, 2, 1}}, "501,500,11", "10", "10 1 2", "[2 1 0]", 3},
		{"a full range is skipped whole", []NumberRange{{1, 4094, 5}, {5000, 5001, 1}}, "0-4094", "5000", "5000 5001", "[4094 0]", 2},
		{"exhausted", []NumberRange{{1, 3, 1}, {7, 7, 2}}, "1-3,7", "", "", "[3 1]", 0},
		{"one number", []NumberRange{{42, 42, 1}}, "41,43", "42", "42", "[0]", 1},
		{"negative numbers", []NumberRange{{-10, -8, 1}}, "-10", "-9", "-9 -8", "[1]", 2},
		{"at the largest number", []NumberRange{{MaxNumber - 2, MaxNumber, 1}}, "9007199254740990-9223372036854775807", "9007199254740989", "9007199254740989", "[2]", 1},
		{"at the smallest number", []NumberRange{{MinNumber, MinNumber + 1, 1}}, "-9223372036854775808--9007199254740991", "-9007199254740990", "-9007199254740990", "[1]", 1},
		{"a pool of 2^32 numbers", []NumberRange{{0, 1<<32 - 1, 1}}, "0-4294967000,4294967002", "4294967001", "4294967001 4294967003 4294967004 4294967005", "[4294967002]", 294},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustNumberPool(t, tt.ranges...)
			taken := mustNumbers(t, tt.taken)
			first, ok := p.First(taken)
			got := ""
			if ok {
				got = fmt.Sprint(first)
			}
			if got != tt.first {
				t.Errorf("(%v).First(%s) = %q, want %q", tt.ranges, tt.taken, got, tt.first)
			}
			if got := strings.Trim(fmt.Sprint(p.NextN(taken, 4)), "[]"); got != tt.next4 {
				t.Errorf("(%v).NextN(%s, 4) = %q, want %q", tt.ranges, tt.taken, got, tt.next4)
			}
			if got := fmt.Sprint(p.Used(taken)); got != tt.used {
				t.Errorf("(%v).Used(%s) = %s, want %s", tt.ranges, tt.taken, got, tt.used)
			}
			if got := p.Free(taken); got != tt.free {
				t.Errorf("(%v).Free(%s) = %d, want %d", tt.ranges, tt.taken, got, tt.free)
			}
		})
	}
}

func TestNumberPoolZero(t *testing.T) {
	var p NumberPool
	if n, ok := p.First(NumberSet{}); ok || p.Size() != 0 || p.Free(NumberSet{}) != 0 || len(p.NextN(NumberSet{}, 3)) != 0 {
		t.Errorf("the zero NumberPool: First = %d %v, Size = %d, want no number", n, ok, p.Size())
	}
	if got := p.NextN(NumberSet{}, -1); len(got) != 0 {
		t.Errorf("NextN(-1) = %v, want none", got)
	}
}

// TestNumberIterationAllocatesNothing walks every free number of a VLAN
// division with 4 000 of 4 094 taken in fragments, and asks for the first.
func TestNumberIterationAllocatesNothing(t *testing.T) {
	p := mustNumberPool(t, NumberRange{1, 4094, 1})
	taken := spreadTaken(4094, 4000)
	var n int64
	allocs := testing.AllocsPerRun(5, func() {
		n = 0
		it := p.Iter(taken)
		for _, ok := it.Next(); ok; _, ok = it.Next() {
			n++
		}
	})
	if allocs != 0 {
		t.Errorf("iterating %d free numbers allocated %.0f times, want 0", n, allocs)
	}
	if n != 94 || p.Free(taken) != 94 {
		t.Errorf("iterated %d free numbers, Free() = %d, want 94", n, p.Free(taken))
	}
	allocs = testing.AllocsPerRun(5, func() { p.First(taken); p.Free(taken) })
	if allocs != 0 {
		t.Errorf("First() and Free() allocated %.0f times, want 0", allocs)
	}
}

// spreadTaken returns count of the numbers 1..size taken, the free ones
// spread evenly among them: the most fragmented such set.
func spreadTaken(size, count int64) NumberSet {
	var b NumberSetBuilder
	free := size - count
	next := int64(1)
	for i := int64(0); i < free; i++ {
		hole := (i + 1) * size / (free + 1)
		for ; next < hole; next++ {
			b.Add(next)
		}
		next = hole + 1
	}
	for ; next <= size; next++ {
		b.Add(next)
	}
	return b.Set()
}

func TestNumberSetBuilder(t *testing.T) {
	var b NumberSetBuilder
	steps := []struct {
		add  bool
		n    int64
		want string
	}{
		{true, 5, "5"},
		{true, 6, "5-6"},
		{true, 9, "5-6,9"},
		{true, 8, "5-6,8-9"},
		{true, 7, "5-9"},
		{true, 7, "5-9"},
		{true, 1, "1,5-9"},
		{true, 3, "1,3,5-9"},
		{true, 4, "1,3-9"},
		{true, 2, "1-9"},
		{false, 5, "1-4,6-9"},
		{false, 1, "2-4,6-9"},
		{false, 9, "2-4,6-8"},
		{false, 9, "2-4,6-8"},
		{false, 3, "2,4,6-8"},
		{false, 2, "4,6-8"},
		{true, math.MaxInt64, "4,6-8,9223372036854775807"},
		{true, math.MaxInt64 - 1, "4,6-8,9223372036854775806-9223372036854775807"},
		{true, math.MinInt64, "-9223372036854775808,4,6-8,9223372036854775806-9223372036854775807"},
		{true, math.MinInt64 + 1, "-9223372036854775808--9223372036854775807,4,6-8,9223372036854775806-9223372036854775807"},
		{false, math.MinInt64, "-9223372036854775807,4,6-8,9223372036854775806-9223372036854775807"},
		{false, math.MaxInt64, "-9223372036854775807,4,6-8,9223372036854775806"},
		{true, 5, "-9223372036854775807,4-8,9223372036854775806"},
	}
	for _, s := range steps {
		if s.add {
			b.Add(s.n)
		} else {
			b.Remove(s.n)
		}
		if got := b.Set().String(); got != s.want {
			t.Fatalf("after %v %d: set = %s, want %s", map[bool]string{true: "Add", false: "Remove"}[s.add], s.n, got, s.want)
		}
		if !b.Contains(s.n) != !s.add {
			t.Fatalf("after %v %d: Contains(%d) = %v", map[bool]string{true: "Add", false: "Remove"}[s.add], s.n, s.n, b.Contains(s.n))
		}
	}
	view, copied := b.View(), b.Set()
	b.Remove(6)
	if view.Contains(6) || !copied.Contains(6) {
		t.Errorf("after Remove(6): View().Contains(6) = %v, Set().Contains(6) = %v; want false (the view is shared), true (the set is a copy)", view.Contains(6), copied.Contains(6))
	}
}

func TestNumberSetOf(t *testing.T) {
	s := NumberSetOf(9, 3, 4, 4, 5, -1, math.MaxInt64, 0, math.MaxInt64-1)
	if got, want := s.String(), "-1-0,3-5,9,9223372036854775806-9223372036854775807"; got != want {
		t.Errorf("NumberSetOf(…) = %s, want %s", got, want)
	}
	if s.RangeCount() != 4 || !s.Contains(4) || s.Contains(6) || s.Contains(-2) {
		t.Errorf("NumberSetOf(…): RangeCount() = %d, Contains(4, 6, -2) = %v %v %v", s.RangeCount(), s.Contains(4), s.Contains(6), s.Contains(-2))
	}
	if got := NumberSetOf().String(); got != "" {
		t.Errorf("NumberSetOf() = %q, want the empty set", got)
	}
}

func TestParseNumberList(t *testing.T) {
	tests := []struct {
		list, want, err string
	}{
		{"", "", ""},
		{"1-4000,4010", "1-4000,4010", ""},
		{" 7 , 3 - 5 ,6,1", "1,3-7", ""},
		{"-5--1,-7,+2", "-7,-5--1,2", ""},
		{"5--1", "", `taken[0] "5--1" is a descending range; write -1-5`},
		{"9-3,x,,1.5,1-", "", `taken[0] "9-3" is a descending range; write 3-9; ` +
			`taken[1] "x" is not a number or an a-b range such as 100-199 (numbers from -9223372036854775808 to 9223372036854775807); ` +
			`taken[2] is empty; write a number or an a-b range such as 100-199; ` +
			`taken[3] "1.5" is not a number or an a-b range such as 100-199 (numbers from -9223372036854775808 to 9223372036854775807); ` +
			`taken[4] "1-" is not a number or an a-b range such as 100-199 (numbers from -9223372036854775808 to 9223372036854775807)`},
		{"9223372036854775808", "", `taken[0] "9223372036854775808" is not a number or an a-b range such as 100-199 (numbers from -9223372036854775808 to 9223372036854775807)`},
		{"1,", "", "taken[1] is empty; write a number or an a-b range such as 100-199"},
	}
	for _, tt := range tests {
		s, err := ParseNumberList("taken", tt.list)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if s.String() != tt.want || gotErr != tt.err {
			t.Errorf("ParseNumberList(%q) = %q, %q\nwant %q, %q", tt.list, s.String(), gotErr, tt.want, tt.err)
		}
	}
	_, err := ParseNumberList("taken", strings.Repeat("x,", 30))
	if n := len(err.(Errors)); n != 20 {
		t.Errorf("ParseNumberList of 30 mistakes reported %d, want the first 20", n)
	}
}

func TestNoFreeNumber(t *testing.T) {
	for _, tt := range [][3]string{
		{"VLAN IDs per site", "Site A", "pool VLAN IDs per site has no free number in Site A"},
		{"VLAN IDs", "", "pool VLAN IDs has no free number"},
		{"", "Site A / user", "the pool has no free number in Site A / user"},
	} {
		if got := NoFreeNumber(tt[0], tt[1]); got != tt[2] {
			t.Errorf("NoFreeNumber(%q, %q) = %q, want %q", tt[0], tt[1], got, tt[2])
		}
	}
}

func TestNumberPreviewJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"ranges":[{"start":1000,"end":1999},{"start":100,"end":199,"weight":10}],"taken":[100,101,5],"takenRanges":"102-104","next":3}`,
			`{"valid":true,"size":1100,"used":5,"free":1095,"first":105,"next":[105,106,107],"ranges":[{"start":1000,"end":1999,"weight":1,"size":1000,"used":0},{"start":100,"end":199,"weight":10,"size":100,"used":5}]}`},
		{`{"ranges":[{"start":1,"end":2}],"taken":[1,2],"pool":"VLAN IDs per site","division":"Site A"}`,
			`{"valid":true,"size":2,"used":2,"free":0,"noFree":"pool VLAN IDs per site has no free number in Site A","ranges":[{"start":1,"end":2,"weight":1,"size":2,"used":2}]}`},
		{`{"ranges":[{"start":100,"end":199},{"start":150,"end":250,"weight":0}],"takenRanges":"x","next":300}`,
			`{"valid":false,"errors":[{"field":"ranges[1].weight","message":"ranges[1].weight 0 is less than 1; a range's weight is 1 or more (1 when not given)",` +
				`"plain":"Range 2's weight 0 is less than 1; a range's weight is 1 or more (1 when not given)"},` +
				`{"field":"takenRanges[0]","message":"takenRanges[0] \"x\" is not a number or an a-b range such as 100-199 (numbers from -9223372036854775808 to 9223372036854775807)",` +
				`"plain":"Taken \"x\" is not a number or an a-b range such as 100-199 (numbers from -9223372036854775808 to 9223372036854775807)"},` +
				`{"field":"next","message":"next 300 is out of range; ask for 1 to 256 numbers","plain":"Next 300 is out of range; ask for 1 to 256 numbers"}],"size":0,"used":0,"free":0}`},
		{`{"ranges":[{"start":1,"end":2,"step":1}]}`,
			`{"valid":false,"errors":[{"field":"input","message":"input is not a number preview request: json: unknown field \"step\"","plain":"Input is not a number preview request: json: unknown field \"step\""}],"size":0,"used":0,"free":0}`},
		{`{"ranges":[],"taken":[1.5]}`,
			`{"valid":false,"errors":[{"field":"input","message":"input is not a number preview request: json: cannot unmarshal number 1.5 into Go struct field NumberPreviewInput.taken of type int64","plain":"Input is not a number preview request: json: cannot unmarshal number 1.5 into Go struct field NumberPreviewInput.taken of type int64"}],"size":0,"used":0,"free":0}`},
		{`{}`, `{"valid":false,"errors":[{"field":"ranges","message":"ranges is empty; a number pool needs at least one start-end range","plain":"Ranges is empty; a number pool needs at least one start-end range"}],"size":0,"used":0,"free":0}`},
	}
	for _, tt := range tests {
		if got := string(NumberPreviewJSON([]byte(tt.in))); got != tt.want {
			t.Errorf("NumberPreviewJSON(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
	// Taken numbers parsed beforehand answer as the same list in takenRanges.
	in := `{"ranges":[{"start":1,"end":10}],"takenRanges":"1-2","next":2}`
	got := string(NumberPreviewJSONWithTaken([]byte(in), mustNumbers(t, "3,5")))
	want := string(NumberPreviewJSON([]byte(`{"ranges":[{"start":1,"end":10}],"takenRanges":"1-2,3,5","next":2}`)))
	if got != want {
		t.Errorf("NumberPreviewJSONWithTaken:\n got %s\nwant %s", got, want)
	}
}
