package candidates

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// numSpan is a run of numbers lo..hi, both inclusive, lo <= hi.
type numSpan struct{ lo, hi int64 }

// touches reports whether a run ending at hi and a later one starting at
// lo overlap or are adjacent, without overflowing at the ends of int64.
func touches(hi, lo int64) bool { return lo <= hi || lo-1 <= hi }

// A NumberSet is an immutable set of whole numbers (int64), kept as sorted,
// disjoint, non-adjacent runs. Its zero value is the empty set. A NumberSet
// costs 16 bytes per run, whatever the count of numbers in it: the numbers
// taken in a division of a number pool, which fills from its lowest
// numbers, are a few runs.
type NumberSet struct {
	spans []numSpan
}

// NumberSetOf returns the set of the given numbers, in any order, repeated
// or not.
func NumberSetOf(nums ...int64) NumberSet {
	var b NumberSetBuilder
	b.spans = make([]numSpan, 0, len(nums))
	for _, n := range nums {
		b.spans = append(b.spans, numSpan{n, n})
	}
	return b.normalized()
}

// Contains reports whether n is in s.
func (s NumberSet) Contains(n int64) bool {
	i := findNumber(s.spans, n)
	return i < len(s.spans) && s.spans[i].lo <= n
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
		b = appendRun(b, sp.lo, sp.hi)
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
	var b NumberSetBuilder
	b.spans = make([]numSpan, 0, len(s.spans)+len(t.spans))
	b.spans = append(append(b.spans, s.spans...), t.spans...)
	return b.normalized()
}

// findNumber returns the index of the first span that ends at or after n:
// the span holding n, if any holds it.
func findNumber(spans []numSpan, n int64) int {
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

// A NumberSetBuilder is a mutable set of whole numbers: a process's view
// of the numbers taken in one division of a pool. Its zero value is empty
// and ready to use. Adding after the highest number, as a pool fills from
// its lowest, costs O(1); adding elsewhere and removing cost a binary
// search and at most one move of the runs after it.
type NumberSetBuilder struct {
	spans []numSpan
}

// Add adds n to the set.
func (b *NumberSetBuilder) Add(n int64) {
	last := len(b.spans) - 1
	switch {
	case last < 0 || !touches(b.spans[last].hi, n):
		b.spans = append(b.spans, numSpan{n, n})
		return
	case b.spans[last].hi < n:
		// n extends the last run by one.
		b.spans[last].hi = n
		return
	}
	i := findNumber(b.spans, n)
	if b.spans[i].lo <= n {
		return
	}
	// n is in the gap before span i, which it may close.
	switch joinsPrev, joinsNext := i > 0 && b.spans[i-1].hi == n-1, b.spans[i].lo == n+1; {
	case joinsPrev && joinsNext:
		b.spans[i-1].hi = b.spans[i].hi
		b.spans = slices.Delete(b.spans, i, i+1)
	case joinsPrev:
		b.spans[i-1].hi = n
	case joinsNext:
		b.spans[i].lo = n
	default:
		b.spans = slices.Insert(b.spans, i, numSpan{n, n})
	}
}

// Remove removes n from the set.
func (b *NumberSetBuilder) Remove(n int64) {
	i := findNumber(b.spans, n)
	if i == len(b.spans) || b.spans[i].lo > n {
		return
	}
	sp := b.spans[i]
	switch {
	case sp.lo == n && sp.hi == n:
		b.spans = slices.Delete(b.spans, i, i+1)
	case sp.lo == n:
		b.spans[i].lo++
	case sp.hi == n:
		b.spans[i].hi--
	default:
		b.spans[i].hi = n - 1
		b.spans = slices.Insert(b.spans, i+1, numSpan{n + 1, sp.hi})
	}
}

// Contains reports whether n is in the set.
func (b *NumberSetBuilder) Contains(n int64) bool { return NumberSet{b.spans}.Contains(n) }

// Set returns the current set. It is a copy: later changes to b do not
// show in it.
func (b *NumberSetBuilder) Set() NumberSet { return NumberSet{slices.Clone(b.spans)} }

// View returns the current set without copying it. It is valid only until
// the next change to b; use it for a lookup under the caller's own lock.
func (b *NumberSetBuilder) View() NumberSet { return NumberSet{b.spans} }

// normalized sorts and merges b's spans and returns them as a NumberSet.
func (b *NumberSetBuilder) normalized() NumberSet {
	if len(b.spans) == 0 {
		return NumberSet{}
	}
	slices.SortFunc(b.spans, func(x, y numSpan) int {
		switch {
		case x.lo < y.lo:
			return -1
		case x.lo > y.lo:
			return 1
		}
		return 0
	})
	out := b.spans[:1]
	for _, s := range b.spans[1:] {
		last := &out[len(out)-1]
		if touches(last.hi, s.lo) {
			last.hi = max(last.hi, s.hi)
			continue
		}
		out = append(out, s)
	}
	return NumberSet{slices.Clip(out)}
}

// ParseNumberList parses whole numbers and a-b runs separated by commas,
// the compact form of a taken set ("1-4000,4010"; spaces around entries
// and dashes allowed, negative numbers written with their sign: "-5--1"),
// into a NumberSet. field names the list in messages ("takenRanges");
// entries are counted from 0. The empty string is the empty set.
func ParseNumberList(field, list string) (NumberSet, error) {
	var errs errorList
	var b NumberSetBuilder
	b.spans = make([]numSpan, 0, strings.Count(list, ",")+1)
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
		b.spans = append(b.spans, numSpan{lo, hi})
	}
	if err := errs.err(); err != nil {
		return NumberSet{}, err
	}
	return b.normalized(), nil
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
