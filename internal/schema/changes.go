package schema

import (
	"slices"
	"strconv"
	"strings"
)

// An Op is what a load did to an element.
type Op string

// The ops, in the order Changes lists them.
const (
	Added   Op = "added"
	Changed Op = "changed"
	Removed Op = "removed"
)

// A Change is what a load did to one kind, attribute or relationship. The
// element is the one of ID in the schema Apply returns (added, changed)
// or in the one it was called on (changed, removed): Schema.Element reads
// its flags before and after.
type Change struct {
	Op   Op
	Type ElementType
	ID   string
	// Kind is the full name of the kind, or of the kind that declares the
	// attribute or relationship: after the load, before it for a removal.
	Kind string
	// Name is the attribute's or relationship's name, after the load
	// (before it for a removal); "" for a kind.
	Name string
	// Fields are the fields a change changed, in the order of the file's
	// form.
	Fields []FieldChange
}

// A FieldChange is a field's value before and after a load, as a file
// writes it; "" is none.
type FieldChange struct {
	Field         string // namespace, name, kind, optional, peer…
	Before, After string
}

// Changes are what a load did: added, then changed, then removed, each in
// the schema's order, a kind before its elements. An added or removed kind
// comes with each of its elements. What a node inherits is not repeated:
// an element added to a generic is one change, of the generic.
type Changes []Change

// String writes a change on one line, as ipam schema load prints it:
// "changed attribute IpamVLAN.role (id 7f3c…): optional true → false".
func (c Change) String() string {
	var b strings.Builder
	b.WriteString(string(c.Op) + " " + c.Type.String() + " " + c.Kind)
	if c.Name != "" {
		b.WriteString("." + c.Name)
	}
	b.WriteString(" (id " + c.ID + ")")
	for i, f := range c.Fields {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		b.WriteString(sep + f.Field + " " + orNone(f.Before) + " → " + orNone(f.After))
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// String writes the changes one a line.
func (cs Changes) String() string {
	lines := make([]string, len(cs))
	for i, c := range cs {
		lines[i] = c.String()
	}
	return strings.Join(lines, "\n")
}

// Diff lists what differs from before to after, matched by id, as Apply
// lists what it did: a branch's schema against its branch point's.
func Diff(before, after Schema) Changes {
	next := after.s
	if next == nil {
		next = &state{}
	}
	return changes(before.s, next)
}

// changes lists what differs from old to next, matched by id.
func changes(old, next *state) Changes {
	before := map[string]*kind{}
	var oldKinds []*kind
	if old != nil {
		oldKinds = old.kinds
	}
	for _, k := range oldKinds {
		before[k.id] = k
	}
	after := map[string]bool{}
	var added, changed, removed Changes
	for i, k := range next.kinds {
		after[k.id] = true
		v := next.views[i]
		o, existed := before[k.id]
		if !existed {
			added = append(added, kindChange(Added, v))
			for _, at := range v.Attributes {
				added = append(added, attributeChange(Added, at, nil))
			}
			for _, r := range v.Relationships {
				added = append(added, relationshipChange(Added, r, nil))
			}
			continue
		}
		ov := old.views[old.byName[o.fullName()]]
		if fields := kindDiff(o, k, ov, v); len(fields) > 0 {
			c := kindChange(Changed, v)
			c.Fields = fields
			changed = append(changed, c)
		}
		for _, at := range v.Attributes {
			if l, ok := old.byID[at.ID]; ok {
				if fields := attributeDiff(ov.Attributes[l.index], at); len(fields) > 0 {
					c := attributeChange(Changed, at, fields)
					changed = append(changed, c)
				}
			} else {
				added = append(added, attributeChange(Added, at, nil))
			}
		}
		for _, r := range v.Relationships {
			if l, ok := old.byID[r.ID]; ok {
				if fields := relationshipDiff(ov.Relationships[l.index], r, old, next); len(fields) > 0 {
					changed = append(changed, relationshipChange(Changed, r, fields))
				}
			} else {
				added = append(added, relationshipChange(Added, r, nil))
			}
		}
		for _, at := range ov.Attributes {
			if _, ok := next.byID[at.ID]; !ok {
				removed = append(removed, attributeChange(Removed, at, nil))
			}
		}
		for _, r := range ov.Relationships {
			if _, ok := next.byID[r.ID]; !ok {
				removed = append(removed, relationshipChange(Removed, r, nil))
			}
		}
	}
	for i, k := range oldKinds {
		if after[k.id] {
			continue
		}
		v := old.views[i]
		removed = append(removed, kindChange(Removed, v))
		for _, at := range v.Attributes {
			removed = append(removed, attributeChange(Removed, at, nil))
		}
		for _, r := range v.Relationships {
			removed = append(removed, relationshipChange(Removed, r, nil))
		}
	}
	return slices.Concat(added, changed, removed)
}

func kindChange(op Op, v Kind) Change {
	typ := NodeElement
	if v.Generic {
		typ = GenericElement
	}
	return Change{Op: op, Type: typ, ID: v.ID, Kind: v.FullName()}
}

func attributeChange(op Op, at Attribute, fields []FieldChange) Change {
	return Change{Op: op, Type: AttributeElement, ID: at.ID, Kind: at.DeclaredBy, Name: at.Name, Fields: fields}
}

func relationshipChange(op Op, r Relationship, fields []FieldChange) Change {
	return Change{Op: op, Type: RelationshipElement, ID: r.ID, Kind: r.DeclaredBy, Name: r.Name, Fields: fields}
}

// fieldChanges collects the fields that differ.
type fieldChanges []FieldChange

func (fs *fieldChanges) add(differ bool, field, before, after string) {
	if differ {
		*fs = append(*fs, FieldChange{field, before, after})
	}
}

// kindDiff compares a kind before (o, ov) and after (k, v); references
// compare by id, so that a rename of what they name is not a change.
func kindDiff(o, k *kind, ov, v Kind) []FieldChange {
	var fs fieldChanges
	fs.add(o.namespace != k.namespace, "namespace", o.namespace, k.namespace)
	fs.add(o.name != k.name, "name", o.name, k.name)
	fs.add(o.humanLabel != k.humanLabel, "label", quoteOrNone(o.humanLabel), quoteOrNone(k.humanLabel))
	fs.add(!slices.Equal(o.inherit, k.inherit), "inherit_from", listText(ov.InheritFrom), listText(v.InheritFrom))
	fs.add(!slices.Equal(o.label, k.label), "display_label", quoteOrNone(ov.DisplayLabel), quoteOrNone(v.DisplayLabel))
	fs.add(!slices.EqualFunc(o.constraints, k.constraints, slices.Equal), "uniqueness_constraints", constraintsText(ov.UniquenessConstraints), constraintsText(v.UniquenessConstraints))
	return fs
}

func attributeDiff(o, a Attribute) []FieldChange {
	var fs fieldChanges
	fs.add(o.Name != a.Name, "name", o.Name, a.Name)
	fs.add(o.Label != a.Label, "label", quoteOrNone(o.Label), quoteOrNone(a.Label))
	fs.add(o.Kind != a.Kind, "kind", string(o.Kind), string(a.Kind))
	fs.add(o.Optional != a.Optional, "optional", strconv.FormatBool(o.Optional), strconv.FormatBool(a.Optional))
	fs.add(o.Unique != a.Unique, "unique", strconv.FormatBool(o.Unique), strconv.FormatBool(a.Unique))
	fs.add(!slices.Equal(o.Choices, a.Choices), "choices", listText(o.Choices), listText(a.Choices))
	fs.add(o.DefaultValue != a.DefaultValue, "default_value", o.DefaultValue, a.DefaultValue)
	return fs
}

// relationshipDiff compares a relationship before and after; its peer
// by id.
func relationshipDiff(o, r Relationship, old, next *state) []FieldChange {
	var fs fieldChanges
	fs.add(o.Name != r.Name, "name", o.Name, r.Name)
	fs.add(o.Label != r.Label, "label", quoteOrNone(o.Label), quoteOrNone(r.Label))
	oldPeer := old.views[old.byName[o.Peer]].ID
	newPeer := next.views[next.byName[r.Peer]].ID
	fs.add(oldPeer != newPeer, "peer", o.Peer, r.Peer)
	fs.add(o.Cardinality != r.Cardinality, "cardinality", string(o.Cardinality), string(r.Cardinality))
	fs.add(o.Optional != r.Optional, "optional", strconv.FormatBool(o.Optional), strconv.FormatBool(r.Optional))
	return fs
}

// listText writes a list as a flow sequence, "" when empty.
func listText(items []string) string {
	if len(items) == 0 {
		return ""
	}
	return "[" + strings.Join(items, ", ") + "]"
}

func constraintsText(cs [][]string) string {
	if len(cs) == 0 {
		return ""
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = constraintText(c)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func quoteOrNone(s string) string {
	if s == "" {
		return ""
	}
	return strconv.Quote(s)
}
