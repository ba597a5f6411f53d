package refusal

import (
	"errors"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/store"
)

// A Code says what kind of refusal or failure an error is, for the edges
// to turn into an HTTP status, a GraphQL extensions.code or a console
// message.
type Code string

// The codes, as GraphQL's extensions.code spells them.
const (
	CodeInvalidArgument Code = "INVALID_ARGUMENT"
	CodeNotFound        Code = "NOT_FOUND"
	CodeForbidden       Code = "FORBIDDEN"
	CodeConflict        Code = "CONFLICT"
	CodePoolExhausted   Code = "POOL_EXHAUSTED"
	CodeQuotaExceeded   Code = "QUOTA_EXCEEDED"
	// CodeUnavailable: the database could not serve the request now; the
	// same request may succeed in a moment.
	CodeUnavailable Code = "UNAVAILABLE"
	// CodeInternal: anything else; its message is not for users.
	CodeInternal Code = "INTERNAL"
)

// A Refusal is an error as a user reads it: its code, the field of the
// request at fault (if one is) and the message.
type Refusal struct {
	Code    Code
	Field   string
	Message string
	// Fields are the mistakes of the request's fields, every one of an
	// invalid request (InvalidErrors) and the field of a conflict, each in
	// the plain words a form shows beside the field (candidates.Plain);
	// the first is Field's. Nil when no field is at fault.
	Fields []FieldRefusal
}

// A FieldRefusal is the mistake of one field of a request, in plain
// words ("Exclude 192.0.3.10 is outside 192.0.2.0/24").
type FieldRefusal struct {
	Field, Message string
}

// fieldRefusals are the mistakes of the fields of err, in plain words.
func fieldRefusals(err error) []FieldRefusal {
	var out []FieldRefusal
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case *InvalidError:
			out = append(out, FieldRefusal{Field: e.Field, Message: candidates.Plain(e.Field, e.Message)})
			return
		case interface{ Unwrap() []error }:
			for _, inner := range e.Unwrap() {
				walk(inner)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	return out
}

// Retryable reports whether the same request may succeed if sent again.
func (r Refusal) Retryable() bool { return r.Code == CodeUnavailable }

// Classify says what err is, for every edge alike (console, GraphQL,
// command line): the refusals of every domain (pools and addresses,
// branches, the schema of kinds, objects, number pools) and the database's
// failures. The messages of the domains' refusals are meant for users; for
// CodeUnavailable and CodeInternal the message is err's, to be logged, not
// shown.
func Classify(err error) Refusal {
	var invalid *InvalidError
	var conflicting *ConflictError
	switch {
	case errors.As(err, &invalid):
		return Refusal{Code: CodeInvalidArgument, Field: invalid.Field, Message: invalid.Message, Fields: fieldRefusals(err)}
	case errors.Is(err, ErrInvalid):
		return Refusal{Code: CodeInvalidArgument, Message: err.Error()}
	case errors.Is(err, ErrNotFound):
		return Refusal{Code: CodeNotFound, Message: err.Error()}
	case errors.Is(err, ErrForbidden):
		return Refusal{Code: CodeForbidden, Message: err.Error()}
	case errors.As(err, &conflicting):
		return Refusal{Code: CodeConflict, Field: conflicting.Field, Message: conflicting.Message, Fields: conflictField(conflicting.Field, conflicting.Message)}
	case errors.Is(err, ErrConflict):
		return Refusal{Code: CodeConflict, Message: err.Error()}
	case errors.Is(err, ErrPoolExhausted):
		return Refusal{Code: CodePoolExhausted, Message: err.Error()}
	case errors.Is(err, ErrQuotaExceeded):
		return Refusal{Code: CodeQuotaExceeded, Message: err.Error()}
	case store.Unavailable(err):
		return Refusal{Code: CodeUnavailable, Message: err.Error()}
	}
	return Refusal{Code: CodeInternal, Message: err.Error()}
}

// conflictField is the field of a conflict, when one is at fault.
func conflictField(field, message string) []FieldRefusal {
	if field == "" {
		return nil
	}
	return []FieldRefusal{{Field: field, Message: candidates.Plain(field, message)}}
}
