package graphql

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"pivirt.hu/ipam/internal/refusal"
)

// ErrUnauthenticated is what an Authenticate wraps when a request carries
// no credentials or invalid ones.
var ErrUnauthenticated = errors.New("unauthenticated")

// The values of extensions.code that this package gives itself; the
// domain's refusals carry theirs (refusal.Classify).
const (
	codeInvalidArgument = string(refusal.CodeInvalidArgument)
	codeUnauthenticated = "UNAUTHENTICATED"
	codeUnavailable     = string(refusal.CodeUnavailable)
	codeInternal        = string(refusal.CodeInternal)
)

// A codedError is an error as the client reads it: a message, a code,
// for invalid arguments the field at fault, and whether the same request
// may succeed if sent again.
type codedError struct {
	code      string
	message   string
	field     string
	retryable bool
	// details are more extensions: a refused merge's conflicts.
	details map[string]any
}

func (e *codedError) Error() string { return e.message }

// Extensions returns the error's extensions: its code, field and
// retryable.
func (e *codedError) Extensions() map[string]any {
	m := map[string]any{"code": e.code}
	for k, v := range e.details {
		m[k] = v
	}
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
	switch e.code {
	case codeUnavailable:
		return http.StatusServiceUnavailable
	case string(refusal.CodeNotFound):
		return http.StatusNotFound
	}
	return http.StatusInternalServerError
}

func invalidArgument(format string, args ...any) *codedError {
	return &codedError{code: codeInvalidArgument, message: fmt.Sprintf(format, args...)}
}

// invalidField is an invalid argument of the field, which
// extensions.field names.
func invalidField(field, format string, args ...any) *codedError {
	return &codedError{code: codeInvalidArgument, field: field, message: fmt.Sprintf(format, args...)}
}

// domainError turns an error of the ipam service into what the client
// reads (refusal.Classify). The domain's messages are meant for users;
// anything else, but an error of this package, is logged and answered as
// an internal error, or as the database being unavailable, which the
// client may retry.
func (st *requestState) domainError(ctx context.Context, err error) *codedError {
	var coded *codedError
	if errors.As(err, &coded) {
		return coded
	}
	r := refusal.Classify(err)
	switch {
	case r.Code == refusal.CodeInternal, r.Code == refusal.CodeUnavailable && ctx.Err() != nil:
		return st.internalError(ctx, err)
	case r.Code == refusal.CodeUnavailable:
		st.log.WarnContext(ctx, "graphql request failed: the database is unavailable", "request_id", st.id, "actor", st.actor.Name, "err", err)
		return &codedError{code: string(r.Code), retryable: true,
			message: fmt.Sprintf("the database is unavailable right now; retry in a moment (request id %s)", st.id)}
	}
	e := &codedError{code: string(r.Code), message: r.Message}
	if r.Code == refusal.CodeInvalidArgument {
		// extensions.field names the argument at fault of an invalid
		// request only.
		e.field = r.Field
	}
	return e
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
