package auth

import "errors"

var (
	// ErrUnauthenticated means an unknown user, a wrong password, or an
	// unknown, revoked or malformed token: which of them is not told.
	ErrUnauthenticated = errors.New("auth: not authenticated")
	// ErrForbidden means the actor may not do that.
	ErrForbidden = errors.New("auth: forbidden")
)

// An InvalidError is a refused value of a user's field.
type InvalidError struct {
	Field  string // name, role, namespace or password
	Reason string
}

func (e *InvalidError) Error() string {
	return "invalid " + e.Field + ": " + e.Reason
}
