package graphql

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/graphql-go/graphql/gqlerrors"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/store"
)

// ErrUnauthenticated is what an Authenticate wraps when a request carries
// no credentials or invalid ones.
var ErrUnauthenticated = errors.New("unauthenticated")

// The values of an error's extensions.code.
const (
	codeInvalidArgument = "INVALID_ARGUMENT"
	codeNotFound        = "NOT_FOUND"
	codeForbidden       = "FORBIDDEN"
	codeUnauthenticated = "UNAUTHENTICATED"
	codeConflict        = "CONFLICT"
	codePoolExhausted   = "POOL_EXHAUSTED"
	codeUnavailable     = "UNAVAILABLE"
	codeInternal        = "INTERNAL"
)

// A codedError is an error as the client reads it: a message, a code,
// for invalid arguments the field at fault, and whether the same request
// may succeed if sent again. graphql-go copies its Extensions into the
// response.
type codedError struct {
	code      string
	message   string
	field     string
	retryable bool
}

var _ gqlerrors.ExtendedError = (*codedError)(nil)

func (e *codedError) Error() string { return e.message }

// Extensions returns the error's extensions: its code, field and
// retryable.
func (e *codedError) Extensions() map[string]any {
	m := map[string]any{"code": e.code}
	if e.field != "" {
		m["field"] = e.field
	}
	if e.retryable {
		m["retryable"] = true
	}
	return m
}

// status is the HTTP status of a request refused with e before execution.
func (e *codedError) status() int {
	if e.code == codeUnavailable {
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

func invalidArgument(format string, args ...any) *codedError {
	return &codedError{code: codeInvalidArgument, message: fmt.Sprintf(format, args...)}
}

// domainError turns an error of the ipam service into what the client
// reads. The domain's messages are meant for users; anything else, but an
// error of this package, is logged and answered as an internal error.
func (st *requestState) domainError(ctx context.Context, err error) error {
	var coded *codedError
	var invalid *ipam.InvalidError
	switch {
	case errors.As(err, &coded):
		return coded
	case errors.As(err, &invalid):
		return &codedError{code: codeInvalidArgument, message: invalid.Message, field: invalid.Field}
	case errors.Is(err, ipam.ErrInvalid):
		return &codedError{code: codeInvalidArgument, message: err.Error()}
	case errors.Is(err, ipam.ErrNotFound):
		return &codedError{code: codeNotFound, message: err.Error()}
	case errors.Is(err, ipam.ErrForbidden):
		return &codedError{code: codeForbidden, message: err.Error()}
	case errors.Is(err, ipam.ErrConflict):
		return &codedError{code: codeConflict, message: err.Error()}
	case errors.Is(err, ipam.ErrPoolExhausted):
		return &codedError{code: codePoolExhausted, message: err.Error()}
	}
	return st.failure(ctx, err)
}

// failure answers an error that is not the client's: the database being
// unavailable, which the client may retry, or an internal error. A request
// that ran out of its own time or was canceled says so instead.
func (st *requestState) failure(ctx context.Context, err error) *codedError {
	if ctx.Err() != nil || !store.Unavailable(err) {
		return st.internalError(ctx, err)
	}
	st.log.WarnContext(ctx, "graphql request failed: the database is unavailable", "request_id", st.id, "actor", st.actor.Name, "err", err)
	return &codedError{code: codeUnavailable, retryable: true,
		message: fmt.Sprintf("the database is unavailable right now; retry in a moment (request id %s)", st.id)}
}

// internalError logs err and returns the answer that hides it: a request
// that ran out of time says so, anything else names the request id.
func (st *requestState) internalError(ctx context.Context, err error) *codedError {
	switch ctx.Err() {
	case context.DeadlineExceeded:
		st.log.WarnContext(ctx, "graphql request timed out", "request_id", st.id, "actor", st.actor.Name, "timeout", st.timeout, "err", err)
		return &codedError{code: codeInternal, message: fmt.Sprintf("the request exceeded its time limit of %s (request id %s)", st.timeout, st.id)}
	case context.Canceled:
		st.log.InfoContext(ctx, "graphql request canceled", "request_id", st.id, "actor", st.actor.Name, "err", err)
		return &codedError{code: codeInternal, message: fmt.Sprintf("the request was canceled (request id %s)", st.id)}
	}
	st.log.ErrorContext(ctx, "graphql request failed", "request_id", st.id, "actor", st.actor.Name, "err", err)
	return &codedError{code: codeInternal, message: fmt.Sprintf("internal error (request id %s)", st.id)}
}
