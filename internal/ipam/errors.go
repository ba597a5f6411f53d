package ipam

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/store"
)

// Sentinel errors callers branch on. Each error the package returns wraps
// exactly one of them; the edges map them to HTTP statuses, GraphQL codes
// and console messages.
var (
	// ErrInvalid: the request is malformed; an *InvalidError says which field.
	ErrInvalid = errors.New("invalid argument")
	// ErrNotFound: the object does not exist or the actor may not see it.
	ErrNotFound = errors.New("not found")
	// ErrForbidden: the actor sees the object but may not do this.
	ErrForbidden = errors.New("forbidden")
	// ErrConflict: the request contradicts what is stored (overlaps, names
	// in use, objects still in use).
	ErrConflict = errors.New("conflict")
	// ErrPoolExhausted: no candidate is left; the database confirmed it.
	ErrPoolExhausted = errors.New("pool exhausted")
	// ErrQuotaExceeded: the namespace holds the limit of a quota already; a
	// *QuotaError says which.
	ErrQuotaExceeded = errors.New("quota exceeded")
)

// An InvalidError is a mistake in one field of a request.
type InvalidError struct {
	Field   string
	Message string // starts with the field's name
}

func (e *InvalidError) Error() string { return e.Message }

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

func invalid(field, format string, args ...any) error {
	return &InvalidError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// InvalidErrors are every mistake of one request, an *InvalidError each,
// in the order of the request's fields: a form shows them all at once,
// each beside its field (Refusal.Fields). errors.Is(err, ErrInvalid)
// holds, and errors.As finds the first, whose field and message Classify
// answers with.
type InvalidErrors []*InvalidError

// Error says every mistake, separated by "; ".
func (errs InvalidErrors) Error() string {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Message
	}
	return strings.Join(msgs, "; ")
}

// Unwrap lets errors.Is and errors.As see each mistake.
func (errs InvalidErrors) Unwrap() []error {
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return out
}

// collect returns the mistakes of errs (nil ones left out) as one error:
// nil when there is none, the mistake itself when there is one, or
// InvalidErrors. The enumerator's field errors count one each. An error
// that is no mistake of the request (the database's) is returned alone.
func collect(errs ...error) error {
	var out InvalidErrors
	for _, err := range errs {
		var fields candidates.Errors
		var invalids InvalidErrors
		var one *InvalidError
		switch {
		case err == nil:
		case errors.As(err, &invalids):
			out = append(out, invalids...)
		case errors.As(err, &fields):
			for _, f := range fields {
				out = append(out, &InvalidError{Field: f.Field, Message: f.Message})
			}
		case errors.As(err, &one):
			out = append(out, one)
		default:
			return err
		}
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return out
}

// A NotFoundError names what was not found.
type NotFoundError struct {
	Kind, Namespace, Name string
}

func (e *NotFoundError) Error() string {
	if e.Namespace == "" {
		return fmt.Sprintf("%s %s not found", e.Kind, e.Name)
	}
	return fmt.Sprintf("%s %s/%s not found", e.Kind, e.Namespace, e.Name)
}

// Unwrap makes errors.Is(err, ErrNotFound) hold.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

func notFound(kind, namespace, name string) error {
	return &NotFoundError{Kind: kind, Namespace: namespace, Name: name}
}

// A ConflictError says what the request contradicts and, when one field
// of the request is at fault (a cidr that overlaps), which.
type ConflictError struct {
	Field   string // "" when no one field is
	Message string
}

func (e *ConflictError) Error() string { return e.Message }

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *ConflictError) Unwrap() error { return ErrConflict }

func conflict(format string, args ...any) error {
	return &ConflictError{Message: fmt.Sprintf(format, args...)}
}

// fieldConflict is a conflict of one field of the request.
func fieldConflict(field, format string, args ...any) error {
	return &ConflictError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// An ExhaustedError says which pool and which range have no free address,
// which zone has none in any of its public pools, or which VPC has no free
// prefix of a length for a subnet.
type ExhaustedError struct {
	Pool  string
	Scope netip.Prefix // the request's within, or the pool's (or the VPC's) cidr
	Zone  string       // set when every pool of the zone is exhausted
	VPC   string       // set when the VPC has no free prefix of length Bits
	Bits  int
}

// Error says it in the words the browser's predictions use.
func (e *ExhaustedError) Error() string {
	switch {
	case e.Zone != "":
		return candidates.NoFreeAddressInZone(e.Zone)
	case e.VPC != "":
		return candidates.NoFreePrefix(e.VPC, e.Bits, e.Scope)
	}
	return candidates.NoFreeAddress(e.Pool, e.Scope)
}

// Unwrap makes errors.Is(err, ErrPoolExhausted) hold.
func (e *ExhaustedError) Unwrap() error { return ErrPoolExhausted }

// forbidden says what the actor may not do.
func forbidden(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrForbidden}, args...)...)
}

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
		case *branch.InvalidError:
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
// command line): the errors of this package and of internal/branch
// (branches, the schema of kinds, objects). The messages of the domains'
// refusals are meant for users; for CodeUnavailable and CodeInternal the
// message is err's, to be logged, not shown.
func Classify(err error) Refusal {
	var invalid *InvalidError
	var conflicting *ConflictError
	var branchInvalid *branch.InvalidError
	var branchConflict *branch.ConflictError
	switch {
	case errors.As(err, &invalid):
		return Refusal{Code: CodeInvalidArgument, Field: invalid.Field, Message: invalid.Message, Fields: fieldRefusals(err)}
	case errors.As(err, &branchInvalid):
		return Refusal{Code: CodeInvalidArgument, Field: branchInvalid.Field, Message: branchInvalid.Message, Fields: fieldRefusals(err)}
	case errors.Is(err, ErrInvalid), errors.Is(err, branch.ErrInvalid):
		return Refusal{Code: CodeInvalidArgument, Message: err.Error()}
	case errors.Is(err, ErrNotFound), errors.Is(err, branch.ErrNotFound):
		return Refusal{Code: CodeNotFound, Message: err.Error()}
	case errors.Is(err, ErrForbidden):
		return Refusal{Code: CodeForbidden, Message: err.Error()}
	case errors.As(err, &conflicting):
		return Refusal{Code: CodeConflict, Field: conflicting.Field, Message: conflicting.Message, Fields: conflictField(conflicting.Field, conflicting.Message)}
	case errors.As(err, &branchConflict):
		return Refusal{Code: CodeConflict, Field: branchConflict.Field, Message: branchConflict.Message, Fields: conflictField(branchConflict.Field, branchConflict.Message)}
	case errors.Is(err, branch.ErrConflict):
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
