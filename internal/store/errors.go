package store

import (
	"errors"

	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"
)

var (
	// ErrObjectExists means that an object of that name, or holding that
	// unique value, is already stored.
	ErrObjectExists = errors.New("store: object exists")
	// ErrNotFound means that no such object is stored.
	ErrNotFound = errors.New("store: not found")
)

// isUniqueViolation reports whether err is PostgreSQL's refusal of a row that
// would break a unique constraint or index, and names that constraint (for
// a primary key "<table>_pkey"). It is where losing a race for a name or an
// address is recognised: callers turn it into ErrObjectExists or try the
// next candidate.
func isUniqueViolation(err error) (constraint string, ok bool) {
	pqErr := pq.As(err, pqerror.UniqueViolation)
	if pqErr == nil {
		return "", false
	}
	return pqErr.Constraint, true
}

// ErrInUse: the row is still referenced (a pool or a subnet that still
// holds allocations), or a referenced row is gone.
var ErrInUse = errors.New("store: still in use")

// isForeignKeyViolation reports whether err is PostgreSQL's
// foreign_key_violation (23503).
func isForeignKeyViolation(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && pqErr.Code == "23503"
}
