package branch

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sentinel errors callers branch on. Each error the package returns wraps
// one of them (or is the database's: store.ErrUnavailable and the rest);
// ipam.Classify turns them into the codes of every edge: INVALID_ARGUMENT,
// NOT_FOUND, CONFLICT.
var (
	// ErrInvalid: the request is malformed; an *InvalidError says which
	// field.
	ErrInvalid = errors.New("invalid argument")
	// ErrNotFound: no such branch or object, or the actor may not see it
	// (tenants see no branch, schema or object).
	ErrNotFound = errors.New("not found")
	// ErrConflict: the request contradicts what is stored: a name in use,
	// a unique value held, an object still pointed at (a *ConflictError),
	// or a merge or a rebase that would lose or break something (a
	// *MergeError).
	ErrConflict = errors.New("conflict")
)

// An InvalidError is a mistake in one field of a request, or a schema
// change that the data refuses.
type InvalidError struct {
	// Field is the attribute or relationship at fault ("vlan_id"), "name"
	// for a branch's name, "schema" for a schema file; "" when none is.
	Field   string
	Message string
	// cause is the error refused, when another package's (a schema
	// file's schema.Errors).
	cause error
}

func (e *InvalidError) Error() string { return e.Message }

// Unwrap makes errors.Is(err, ErrInvalid) hold, and errors.As find the
// cause (schema.Errors for a refused schema file).
func (e *InvalidError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrInvalid}
	}
	return []error{ErrInvalid, e.cause}
}

func invalid(field, format string, args ...any) error {
	return &InvalidError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// A NotFoundError names what was not found: "branch add-vlans", "object
// 0190… on branch main", "kind IpamVLAN on branch main".
type NotFoundError struct {
	What string
}

func (e *NotFoundError) Error() string { return e.What + " not found" }

// Unwrap makes errors.Is(err, ErrNotFound) hold.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

func notFound(format string, args ...any) error {
	return &NotFoundError{What: fmt.Sprintf(format, args...)}
}

// A ConflictError says what a write contradicts: a branch name in use, a
// unique value another object holds (Constraint and Objects set), an
// object a required relationship points at (Objects: the objects pointing).
type ConflictError struct {
	// Field is the element of the request at fault, when one is: the
	// first element of the constraint violated.
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

// A MergeError refuses a merge or a rebase, listing everything that stands
// in its way; main and the branch are as they were.
type MergeError struct {
	Branch string
	Action string // "merge" or "rebase"
	// Fields are the attributes and relationships changed on both sides
	// since the branch point, and the objects deleted on one side and
	// changed on the other.
	Fields []FieldConflict
	// Elements are the schema's kinds and elements changed on both sides.
	Elements []ElementConflict
	// Unique are the unique values two objects would hold.
	Unique []UniqueConflict
	// References are relationships that would point at an object that is
	// gone, or objects that would be gone while a required relationship
	// points at them.
	References []ReferenceConflict
	// Invalid are objects the merged schema refuses (a required value
	// missing, a value of the wrong kind), with why.
	Invalid []InvalidObject
}

// A FieldConflict is an attribute or relationship of one object changed
// on both sides to different values; Field is "" when the object was
// deleted on one side and changed on the other.
type FieldConflict struct {
	Object string // the object's id
	Kind   string // its kind's full name
	Field  string // the element's name
	// Label is the object's display label: its branch's version's.
	Label string
	// Main and Branch are the field's values on main's head and on the
	// branch; for a conflict of the whole object (Field ""), one of them
	// is Deleted.
	Main, Branch Value
}

// A Value is an attribute's or a relationship's value as people read it.
type Value struct {
	// Set says that the field has a value.
	Set bool
	// Text is the value: a Text or a Dropdown as it is, a Number's
	// digits, true or false, a List's or JSON's value as JSON, a
	// relationship's peers' display labels joined by ", "; "" when not Set.
	Text string
	// Peers are a relationship's peers, with their display labels.
	Peers []Ref
	// Deleted says that the object is deleted on this side (a conflict of
	// a whole object).
	Deleted bool
}

// A Ref names an object: its id, its kind's full name and its display
// label.
type Ref struct {
	ID, Kind, Label string
}

// An ElementConflict is a kind, attribute or relationship of the schema
// changed on both sides.
type ElementConflict struct {
	Kind    string // the kind's full name
	Element string // the attribute's or relationship's name; "" for the kind itself
}

// A UniqueConflict is a value of a constraint that two objects (or more)
// would hold.
type UniqueConflict struct {
	Kind       string
	Constraint string // as messages quote it: "site-vlan_id", "name"
	Objects    []string
	// Labels are the objects' display labels, in the order of Objects.
	Labels []string
}

// A ReferenceConflict is a relationship of an object pointing at a peer
// that would be gone.
type ReferenceConflict struct {
	Object, Kind, Field string
	Peer                string
	// Label and PeerLabel are the display labels of the object and of its
	// peer.
	Label, PeerLabel string
}

// An InvalidObject is an object the merged schema refuses; Object is ""
// when the message names the objects (or the schema itself is at fault).
type InvalidObject struct {
	Object, Kind, Field string
	Message             string
	// Label is the object's display label; "" with Object.
	Label string
}

func (e *MergeError) Error() string {
	head := fmt.Sprintf("cannot merge branch %s into main: ", e.Branch)
	if e.Action == "rebase" {
		head = fmt.Sprintf("cannot rebase branch %s onto main: ", e.Branch)
	}
	msg := head + strings.Join(e.Conflicts(), "; ")
	if len(e.Fields) > 0 {
		msg += fmt.Sprintf("; keep one side of each conflict on the branch's page (/branches/%s) or change one side, then %s again", e.Branch, e.Action)
	}
	return msg
}

// named names the object of a conflict for people and for the API: its
// display label, then its id, which the API takes ("users (id 0191…)").
func named(label, id string) string {
	if label == "" || label == id {
		return id
	}
	return label + " (id " + id + ")"
}

// wholeText is a side of a conflict of a whole object.
func wholeText(v Value) string {
	if v.Deleted {
		return "deleted"
	}
	return "changed"
}

// sideText is a side's value of a conflict as a message quotes it.
func sideText(v Value) string {
	switch {
	case v.Deleted:
		return "deleted"
	case !v.Set:
		return "none"
	}
	return strconv.Quote(v.Text)
}

// Conflicts lists everything that stands in the way, one line each, as the
// error says them: field conflicts, schema conflicts, uniqueness
// constraints, references and invalid objects, in that order.
func (e *MergeError) Conflicts() []string {
	var out []string
	for _, c := range e.Fields {
		if c.Field == "" {
			out = append(out, fmt.Sprintf("%s %s was deleted on one side and changed on the other (main: %s, branch: %s)",
				c.Kind, named(c.Label, c.Object), wholeText(c.Main), wholeText(c.Branch)))
		} else {
			out = append(out, fmt.Sprintf("%s %s: %s changed on both sides (main: %s, branch: %s)",
				c.Kind, named(c.Label, c.Object), c.Field, sideText(c.Main), sideText(c.Branch)))
		}
	}
	for _, c := range e.Elements {
		if c.Element == "" {
			out = append(out, fmt.Sprintf("schema: kind %s changed on both sides", c.Kind))
		} else {
			out = append(out, fmt.Sprintf("schema: %s.%s changed on both sides", c.Kind, c.Element))
		}
	}
	for _, c := range e.Unique {
		objects := make([]string, len(c.Objects))
		for i, id := range c.Objects {
			label := ""
			if i < len(c.Labels) {
				label = c.Labels[i]
			}
			objects[i] = named(label, id)
		}
		out = append(out, fmt.Sprintf("%s: Violates uniqueness constraint '%s' (objects %s)", c.Kind, c.Constraint, strings.Join(objects, ", ")))
	}
	for _, c := range e.References {
		out = append(out, fmt.Sprintf("%s %s: %s points at %s, which would be gone", c.Kind, named(c.Label, c.Object), c.Field, named(c.PeerLabel, c.Peer)))
	}
	for _, c := range e.Invalid {
		if c.Object == "" {
			out = append(out, c.Message)
		} else {
			out = append(out, fmt.Sprintf("%s %s: %s", c.Kind, named(c.Label, c.Object), c.Message))
		}
	}
	return out
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *MergeError) Unwrap() error { return ErrConflict }

// empty reports whether nothing stands in the way.
func (e *MergeError) empty() bool {
	return len(e.Fields)+len(e.Elements)+len(e.Unique)+len(e.References)+len(e.Invalid) == 0
}
