package store

import (
	"slices"
	"strings"
	"testing"
)

// TestSortKey: the keys of labels sort as bytes in the page's order: whole
// numbers of up to 18 digits first, by value, then text, case ignored
// first, then as written.
func TestSortKey(t *testing.T) {
	want := []string{"-999999999999999999", "-10", "-2", "0", "7", "10", "999999999999999999",
		"+5", "007", "1000000000000000000", "1e3", "Alpha", "alpha", "alpha-2", "beta", "Zulu", "ünder"}
	got := slices.Clone(want)
	slices.Reverse(got)
	slices.SortFunc(got, func(a, b string) int { return strings.Compare(sortKey(a), sortKey(b)) })
	if !slices.Equal(got, want) {
		t.Errorf("sorted by their keys: %q\nwant %q", got, want)
	}
}
