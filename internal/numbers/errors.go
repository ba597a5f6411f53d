package numbers

import (
	"fmt"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/refusal"
)

// The errors of this package are internal/refusal's
// (*refusal.InvalidError: INVALID_ARGUMENT, *refusal.NotFoundError:
// NOT_FOUND, *refusal.ConflictError: CONFLICT) and *ExhaustedError
// (POOL_EXHAUSTED), which refusal.Classify classifies for every edge; or
// the database's.

// An ExhaustedError says that a pool has no free number in a division.
type ExhaustedError struct {
	Pool string
	// Division is the division's display label; "" for a pool without a
	// scope.
	Division string
}

// Error says it in the words the browser's previews use
// (candidates.NoFreeNumber).
func (e *ExhaustedError) Error() string { return candidates.NoFreeNumber(e.Pool, e.Division) }

// Unwrap makes errors.Is(err, refusal.ErrPoolExhausted) hold.
func (e *ExhaustedError) Unwrap() error { return refusal.ErrPoolExhausted }

func invalid(field, format string, args ...any) error {
	return &refusal.InvalidError{Field: field, Message: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &refusal.NotFoundError{What: fmt.Sprintf(format, args...)}
}

func conflict(field, format string, args ...any) error {
	return &refusal.ConflictError{Field: field, Message: fmt.Sprintf(format, args...)}
}
