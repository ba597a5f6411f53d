package candidates

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// num is a whole number of a number pool: the width of a NumberSet (see
// width).
type num int64

func (v num) less(w num) bool { return v < w }
func (v num) next() num       { return v + 1 }
func (v num) prev() num       { return v - 1 }

// numSpan is a run of numbers.
type numSpan = span[num]

// A NumberSet is an immutable set of whole numbers (int64), kept as sorted,
// disjoint, non-adjacent runs (a span set, spans.go). Its zero value is
// the empty set. A NumberSet costs 16 bytes per run, whatever the count of
// numbers in it: the numbers taken in a division of a number pool, which
// fills from its lowest numbers, are a few runs.
type NumberSet struct {
	spans []numSpan
}

// NumberSetOf returns the set of the given numbers, in any order, repeated
// or not.
func NumberSetOf(nums ...int64) NumberSet {
	spans := make([]numSpan, 0, len(nums))
	for _, n := range nums {
		spans = append(spans, numSpan{num(n), num(n)})
	}
	return NumberSet{normalize(spans)}
}

// Contains reports whether n is in s.
func (s NumberSet) Contains(n int64) bool {
	_, ok := find(s.spans, num(n))
	return ok
}

// RangeCount returns the number of runs s is made of.
func (s NumberSet) RangeCount() int { return len(s.spans) }

// String writes s as the compact list ParseNumberList reads, runs
// ascending: "1-4000,4010,4012-4020"; the empty set is "".
func (s NumberSet) String() string {
	b := make([]byte, 0, len(s.spans)*10)
	for i, sp := range s.spans {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendRun(b, int64(sp.lo), int64(sp.hi))
	}
	return string(b)
}

// appendRun writes "lo" or "lo-hi".
func appendRun(b []byte, lo, hi int64) []byte {
	b = strconv.AppendInt(b, lo, 10)
	if hi != lo {
		b = append(b, '-')
		b = strconv.AppendInt(b, hi, 10)
	}
	return b
}

// union returns the numbers in s or in t.
func (s NumberSet) union(t NumberSet) NumberSet {
	return NumberSet{normalize(append(append(make([]numSpan, 0, len(s.spans)+len(t.spans)), s.spans...), t.spans...))}
}

// A NumberSetBuilder is a mutable set of whole numbers (a spanBuilder): a
// process's view of the numbers taken in one division of a pool. Its zero
// value is empty and ready to use. Adding after the highest number, as a
// pool fills from its lowest, costs O(1); adding elsewhere and removing
// cost a binary search and at most one move of the runs after it.
type NumberSetBuilder struct {
	b spanBuilder[num]
}

// Add adds n to the set.
func (b *NumberSetBuilder) Add(n int64) { b.b.add(num(n)) }

// Remove removes n from the set.
func (b *NumberSetBuilder) Remove(n int64) { b.b.remove(num(n)) }

// Contains reports whether n is in the set.
func (b *NumberSetBuilder) Contains(n int64) bool { return b.View().Contains(n) }

// Set returns the current set. It is a copy: later changes to b do not
// show in it.
func (b *NumberSetBuilder) Set() NumberSet { return NumberSet{slices.Clone(b.b.spans)} }

// View returns the current set without copying it. It is valid only until
// the next change to b; use it for a lookup under the caller's own lock.
func (b *NumberSetBuilder) View() NumberSet { return NumberSet{b.b.spans} }

// ParseNumberList parses whole numbers and a-b runs separated by commas,
// the compact form of a taken set ("1-4000,4010"; spaces around entries
// and dashes allowed, negative numbers written with their sign: "-5--1"),
// into a NumberSet. field names the list in messages ("takenRanges");
// entries are counted from 0. The empty string is the empty set.
func ParseNumberList(field, list string) (NumberSet, error) {
	var errs errorList
	spans := make([]numSpan, 0, strings.Count(list, ",")+1)
	for i, more := 0, list != ""; more; i++ {
		var entry string
		entry, list, more = strings.Cut(list, ",")
		lo, hi, msg := parseNumberRun(entry)
		if msg != "" {
			f := fmt.Sprintf("%s[%d]", field, i)
			errs.add(f, f+" "+msg)
			if len(errs.errs) >= 20 {
				break
			}
			continue
		}
		spans = append(spans, numSpan{num(lo), num(hi)})
	}
	if err := errs.err(); err != nil {
		return NumberSet{}, err
	}
	return NumberSet{normalize(spans)}, nil
}

// parseNumberRun parses "n" or "a-b", or says what is wrong with it.
func parseNumberRun(entry string) (lo, hi int64, problem string) {
	s := strings.TrimSpace(entry)
	if s == "" {
		return 0, 0, "is empty; write a number or an a-b range such as 100-199"
	}
	// The dash of a range is the first one after the first character,
	// which may be the sign of a negative start.
	from, to, isRange := s, s, false
	if i := strings.IndexByte(s[1:], '-'); i >= 0 {
		from, to, isRange = s[:i+1], s[i+2:], true
	}
	lo, errLo := strconv.ParseInt(strings.TrimSpace(from), 10, 64)
	hi, errHi := strconv.ParseInt(strings.TrimSpace(to), 10, 64)
	switch {
	case errLo != nil || errHi != nil:
		return 0, 0, fmt.Sprintf("%s is not a number or an a-b range such as 100-199 (numbers from %d to %d)", quote(entry), int64(math.MinInt64), int64(math.MaxInt64))
	case isRange && hi < lo:
		return 0, 0, fmt.Sprintf("%s is a descending range; write %d-%d", quote(entry), hi, lo)
	}
	return lo, hi, ""
}
