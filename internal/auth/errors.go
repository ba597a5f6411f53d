package auth

import "errors"

var (
	// ErrUnauthenticated means an unknown user, a wrong password, or an
	// unknown, revoked or malformed token: which of them is not told.
	ErrUnauthenticated = errors.New("auth: not authenticated")
	// ErrForbidden means the actor may not do that.
	ErrForbidden = errors.New("auth: forbidden")
	// ErrSessionEnded means that a console session's user was deleted or
	// ended their sessions since it began.
	ErrSessionEnded = errors.New("auth: the session has ended")
)

// An InvalidError is a refused value of a user's field.
type InvalidError struct {
	Field  string // name, role, namespace or password
	Reason string
}

func (e *InvalidError) Error() string {
	return "invalid " + e.Field + ": " + e.Reason
}
