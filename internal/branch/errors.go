package branch

import (
	"fmt"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/refusal"
)

// The errors of this package are internal/refusal's (*refusal.InvalidError:
// INVALID_ARGUMENT, *refusal.NotFoundError: NOT_FOUND,
// *refusal.ConflictError: CONFLICT) and *MergeError (CONFLICT), which
// refusal.Classify classifies for every edge; or the database's
// (store.ErrUnavailable and the rest).

func invalid(field, format string, args ...any) error {
	return &refusal.InvalidError{Field: field, Message: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &refusal.NotFoundError{What: fmt.Sprintf(format, args...)}
}

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

// Unwrap makes errors.Is(err, refusal.ErrConflict) hold.
func (e *MergeError) Unwrap() error { return refusal.ErrConflict }

// empty reports whether nothing stands in the way.
func (e *MergeError) empty() bool {
	return len(e.Fields)+len(e.Elements)+len(e.Unique)+len(e.References)+len(e.Invalid) == 0
}
