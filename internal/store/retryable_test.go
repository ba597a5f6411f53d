package store_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"

	"pivirt.hu/ipam/internal/store"
)

// TestRetryable: a change refused by a stale version or by a deadlock,
// however wrapped, is to be tried again; nothing else is.
func TestRetryable(t *testing.T) {
	t.Parallel()
	pqErr := func(code string) error { return &pq.Error{Severity: "ERROR", Code: pqerror.Code(code)} }
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"stale", fmt.Errorf("store: unable to write the object o: %w", store.ErrStale), true},
		{"deadlock", fmt.Errorf("store: unable to record the numbers of 1 objects: %w", pqErr("40P01")), true},
		{"deadlock, wrapped twice", fmt.Errorf("numbers: %w", fmt.Errorf("store: x: %w", pqErr("40P01"))), true},
		{"unique violation", pqErr("23505"), false},
		{"serialization failure", pqErr("40001"), false},
		{"not found", store.ErrNotFound, false},
		{"unavailable", store.ErrUnavailable, false},
		{"a plain error", errors.New("deadlock detected"), false},
	} {
		if got := store.Retryable(c.err); got != c.want {
			t.Errorf("Retryable(%s: %v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}
