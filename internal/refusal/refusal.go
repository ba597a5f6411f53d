// Package refusal holds what the domains (internal/ipam, internal/branch,
// internal/numbers) answer when they refuse a request: the sentinels
// callers branch on, the typed errors they read, and Classify, the one
// function that the edges (the console, GraphQL, the command line) turn
// every error into a code and a message with.
package refusal

import (
	"errors"
	"strings"

	"pivirt.hu/ipam/internal/candidates"
)

// Sentinel errors callers branch on. Each refusal of a domain wraps
// exactly one of them; Classify maps them to the codes of every edge.
var (
	// ErrInvalid: the request is malformed; an *InvalidError says which
	// field.
	ErrInvalid = errors.New("invalid argument")
	// ErrNotFound: the object does not exist or the actor may not see it
	// (tenants see no branch, schema or object of a kind).
	ErrNotFound = errors.New("not found")
	// ErrForbidden: the actor sees the object but may not do this.
	ErrForbidden = errors.New("forbidden")
	// ErrConflict: the request contradicts what is stored: an overlap, a
	// name in use, a unique value held, an object still in use or pointed
	// at (a *ConflictError), or a merge or a rebase that would lose or
	// break something (a *branch.MergeError).
	ErrConflict = errors.New("conflict")
	// ErrPoolExhausted: no candidate is left; the database confirmed it
	// (an *ipam.ExhaustedError, a *numbers.ExhaustedError).
	ErrPoolExhausted = errors.New("pool exhausted")
	// ErrQuotaExceeded: the namespace holds the limit of a quota already;
	// an *ipam.QuotaError says which.
	ErrQuotaExceeded = errors.New("quota exceeded")
)

// An InvalidError is a mistake in one field of a request, or a schema
// change that the data refuses.
type InvalidError struct {
	// Field is the field at fault ("cidr", "vlan_id", "name" for a
	// branch's name, "schema" for a schema file); "" when none is.
	Field   string
	Message string // starts with the field's name
	// Cause is the error refused, when another package's (a schema
	// file's schema.Errors); nil else.
	Cause error
}

func (e *InvalidError) Error() string { return e.Message }

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// As lets errors.As find the cause (schema.Errors for a refused schema
// file).
func (e *InvalidError) As(target any) bool { return e.Cause != nil && errors.As(e.Cause, target) }

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

// Collect returns the mistakes of errs (nil ones left out) as one error:
// nil when there is none, the mistake itself when there is one, or
// InvalidErrors. The enumerator's field errors count one each. An error
// that is no mistake of the request (the database's) is returned alone.
func Collect(errs ...error) error {
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

// A NotFoundError names what was not found: "pool acme/prod/vpc-main",
// "branch add-vlans", "object 0190… on branch main".
type NotFoundError struct {
	What string
}

func (e *NotFoundError) Error() string { return e.What + " not found" }

// Unwrap makes errors.Is(err, ErrNotFound) hold.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// A ConflictError says what a request contradicts: a cidr that overlaps,
// a name in use, a unique value another object holds (Constraint and
// Objects set), an object a required relationship points at (Objects: the
// objects pointing).
type ConflictError struct {
	// Field is the field of the request at fault, when one is (a cidr
	// that overlaps, the first element of the constraint violated); ""
	// when no one field is.
	Field string
	// Constraint is the name of the constraint violated, as the message
	// quotes it ("site-vlan_id", "name"); "" for other conflicts.
	Constraint string
	// Objects are the ids of the other objects involved.
	Objects []string
	Message string
}

func (e *ConflictError) Error() string { return e.Message }

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *ConflictError) Unwrap() error { return ErrConflict }
