package numbers

import (
	"fmt"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
)

// The errors of this package are internal/branch's (*branch.InvalidError:
// INVALID_ARGUMENT, *branch.NotFoundError: NOT_FOUND, *branch.ConflictError:
// CONFLICT) and *ExhaustedError (POOL_EXHAUSTED), which ipam.Classify
// classifies for every edge; or the database's.

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

// Unwrap makes errors.Is(err, ipam.ErrPoolExhausted) hold.
func (e *ExhaustedError) Unwrap() error { return ipam.ErrPoolExhausted }

func invalid(field, format string, args ...any) error {
	return &branch.InvalidError{Field: field, Message: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &branch.NotFoundError{What: fmt.Sprintf(format, args...)}
}

func conflict(field, format string, args ...any) error {
	return &branch.ConflictError{Field: field, Message: fmt.Sprintf(format, args...)}
}
