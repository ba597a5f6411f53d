package branch

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"pivirt.hu/ipam/internal/schema"
)

// sameSchema reports whether two schemas are the same, ids included.
func sameSchema(a, b schema.Schema) bool { return bytes.Equal(a.JSON(), b.JSON()) }

// schemaDiff works out, element by element (by id), what a branch changed
// in its schema (ours) since the branch point (base), as a file to apply to
// main's schema (theirs), and the elements main changed as well.
type schemaDiff struct {
	base, ours, theirs          schema.Schema
	baseKinds, oursKinds, their map[string]schema.Kind
	conflicts                   []ElementConflict
}

// diffSchemas returns the file that applies ours' changes since base to
// theirs, and the elements changed on both sides to different ends.
func diffSchemas(base, ours, theirs schema.Schema) (schema.File, []ElementConflict) {
	d := &schemaDiff{base: base, ours: ours, theirs: theirs,
		baseKinds: kindsByID(base), oursKinds: kindsByID(ours), their: kindsByID(theirs)}
	file := schema.File{Name: "the branch's schema"}
	var ids []string
	for _, k := range base.Kinds() {
		ids = append(ids, k.ID)
	}
	for _, k := range ours.Kinds() {
		if _, ok := d.baseKinds[k.ID]; !ok {
			ids = append(ids, k.ID)
		}
	}
	var generics, nodes []schema.KindSpec
	for _, id := range ids {
		spec, ok := d.kind(id)
		if !ok {
			continue
		}
		if spec.Generic {
			generics = append(generics, spec)
		} else {
			nodes = append(nodes, spec)
		}
	}
	file.Kinds = slices.Concat(generics, nodes)
	return file, d.conflicts
}

func kindsByID(s schema.Schema) map[string]schema.Kind {
	out := map[string]schema.Kind{}
	for _, k := range s.Kinds() {
		out[k.ID] = k
	}
	return out
}

// kind returns the spec of what ours changed of the kind id, and false when
// it changed nothing (or it conflicts).
func (d *schemaDiff) kind(id string) (schema.KindSpec, bool) {
	b, inBase := d.baseKinds[id]
	o, inOurs := d.oursKinds[id]
	t, inTheirs := d.their[id]
	conflict := func(name string) (schema.KindSpec, bool) {
		d.conflicts = append(d.conflicts, ElementConflict{Kind: name})
		return schema.KindSpec{}, false
	}
	switch {
	case inBase && !inOurs:
		if !inTheirs {
			return schema.KindSpec{}, false // removed on both sides
		}
		if d.kindDef(d.theirs, t) != d.kindDef(d.base, b) || !d.sameElements(d.theirs, t, d.base, b) {
			return conflict(t.FullName())
		}
		return schema.KindSpec{ID: id, Absent: true, Generic: t.Generic, Namespace: t.Namespace, Name: t.Name}, true
	case !inBase:
		spec := schema.KindSpec{ID: id, Generic: o.Generic, Namespace: o.Namespace, Name: o.Name, Label: &o.Label, DisplayLabel: &o.DisplayLabel,
			InheritFrom: d.kindNames(o.InheritFrom), UniquenessConstraints: d.paths(o, o.UniquenessConstraints)}
		for _, a := range o.Attributes {
			spec.Attributes = append(spec.Attributes, attributeSpec(a))
		}
		for _, r := range o.Relationships {
			spec.Relationships = append(spec.Relationships, d.relationshipSpec(r))
		}
		return spec, true
	}
	oursChanged := d.kindDef(d.ours, o) != d.kindDef(d.base, b)
	if !inTheirs {
		if oursChanged || !d.sameElements(d.ours, o, d.base, b) {
			return conflict(o.FullName())
		}
		return schema.KindSpec{}, false
	}
	if oursChanged && d.kindDef(d.theirs, t) != d.kindDef(d.base, b) && d.kindDef(d.theirs, t) != d.kindDef(d.ours, o) {
		return conflict(t.FullName())
	}
	spec := schema.KindSpec{ID: id, Generic: t.Generic, Namespace: t.Namespace, Name: t.Name}
	if oursChanged {
		spec.Namespace, spec.Name, spec.Label, spec.DisplayLabel = o.Namespace, o.Name, &o.Label, &o.DisplayLabel
		spec.InheritFrom = d.kindNames(o.InheritFrom)
		spec.UniquenessConstraints = d.paths(o, o.UniquenessConstraints)
	}
	elements := 0
	for _, aid := range elementIDs(b.Attributes, o.Attributes, func(a schema.Attribute) string { return a.ID }) {
		ba, inB := find(b.Attributes, aid, func(a schema.Attribute) string { return a.ID })
		oa, inO := find(o.Attributes, aid, func(a schema.Attribute) string { return a.ID })
		ta, inT := find(t.Attributes, aid, func(a schema.Attribute) string { return a.ID })
		bd, od, td := presentDef(inB, attributeDef(ba)), presentDef(inO, attributeDef(oa)), presentDef(inT, attributeDef(ta))
		if od == bd {
			continue
		}
		if td != bd && td != od {
			name := oa.Name
			if !inO {
				name = ba.Name
			}
			d.conflicts = append(d.conflicts, ElementConflict{Kind: t.FullName(), Element: name})
			continue
		}
		elements++
		if !inO {
			spec.Attributes = append(spec.Attributes, schema.AttributeSpec{ID: aid, Absent: true, Name: ba.Name})
		} else {
			spec.Attributes = append(spec.Attributes, attributeSpec(oa))
		}
	}
	for _, rid := range elementIDs(b.Relationships, o.Relationships, func(r schema.Relationship) string { return r.ID }) {
		br, inB := find(b.Relationships, rid, func(r schema.Relationship) string { return r.ID })
		or, inO := find(o.Relationships, rid, func(r schema.Relationship) string { return r.ID })
		tr, inT := find(t.Relationships, rid, func(r schema.Relationship) string { return r.ID })
		bd, od, td := presentDef(inB, d.relationshipDef(d.base, br)), presentDef(inO, d.relationshipDef(d.ours, or)), presentDef(inT, d.relationshipDef(d.theirs, tr))
		if od == bd {
			continue
		}
		if td != bd && td != od {
			name := or.Name
			if !inO {
				name = br.Name
			}
			d.conflicts = append(d.conflicts, ElementConflict{Kind: t.FullName(), Element: name})
			continue
		}
		elements++
		if !inO {
			spec.Relationships = append(spec.Relationships, schema.RelationshipSpec{ID: rid, Absent: true, Name: br.Name})
		} else {
			spec.Relationships = append(spec.Relationships, d.relationshipSpec(or))
		}
	}
	return spec, oursChanged || elements > 0
}

// elementIDs returns the ids of the elements of a and b, a's first, each
// once.
func elementIDs[E any](a, b []E, id func(E) string) []string {
	var out []string
	for _, e := range slices.Concat(a, b) {
		if !slices.Contains(out, id(e)) {
			out = append(out, id(e))
		}
	}
	return out
}

// find returns the element of the id.
func find[E any](es []E, want string, id func(E) string) (E, bool) {
	for _, e := range es {
		if id(e) == want {
			return e, true
		}
	}
	var zero E
	return zero, false
}

// presentDef is def for an element that exists, "" (absent) otherwise.
func presentDef(present bool, def string) string {
	if !present {
		return ""
	}
	return def
}

// attributeDef writes what an attribute is, to compare it across
// schemas.
func attributeDef(a schema.Attribute) string {
	a.DeclaredBy = ""
	return definition(a)
}

// relationshipDef writes what a relationship of s is, its peer by id.
func (d *schemaDiff) relationshipDef(s schema.Schema, r schema.Relationship) string {
	r.DeclaredBy = ""
	r.Peer = kindID(s, r.Peer)
	return definition(r)
}

// kindDef writes what a kind of s is, its elements aside, with the kinds
// it names by id and its constraints by elements' ids.
func (d *schemaDiff) kindDef(s schema.Schema, k schema.Kind) string {
	var inherits []string
	for _, g := range k.InheritFrom {
		inherits = append(inherits, kindID(s, g))
	}
	var constraints [][]string
	for _, c := range k.UniquenessConstraints {
		var ids []string
		for _, p := range c {
			ids = append(ids, elementID(s, k.FullName(), p))
		}
		constraints = append(constraints, ids)
	}
	return definition([]any{k.Generic, k.Namespace, k.Name, k.Label, k.DisplayLabel, inherits, constraints})
}

// sameElements reports whether the kinds a (of sa) and b (of sb) have the
// same attributes and relationships.
func (d *schemaDiff) sameElements(sa schema.Schema, a schema.Kind, sb schema.Schema, b schema.Kind) bool {
	if len(a.Attributes) != len(b.Attributes) || len(a.Relationships) != len(b.Relationships) {
		return false
	}
	for i := range a.Attributes {
		if attributeDef(a.Attributes[i]) != attributeDef(b.Attributes[i]) {
			return false
		}
	}
	for i := range a.Relationships {
		if d.relationshipDef(sa, a.Relationships[i]) != d.relationshipDef(sb, b.Relationships[i]) {
			return false
		}
	}
	return true
}

// kindNames writes kinds of ours by their names in theirs (a kind renamed
// on main keeps its place), or ours' names for kinds theirs lacks.
func (d *schemaDiff) kindNames(names []string) []string {
	out := []string{}
	for _, n := range names {
		out = append(out, d.kindName(n))
	}
	return out
}

func (d *schemaDiff) kindName(name string) string {
	if t, ok := d.their[kindID(d.ours, name)]; ok {
		return t.FullName()
	}
	return name
}

// paths writes the uniqueness constraints of the kind k of ours with the
// elements' names in theirs.
func (d *schemaDiff) paths(k schema.Kind, constraints [][]string) [][]string {
	out := [][]string{}
	for _, c := range constraints {
		var paths []string
		for _, p := range c {
			name, suffix := p, ""
			if n, ok := strings.CutSuffix(p, "__value"); ok {
				name, suffix = n, "__value"
			}
			if e, ok := d.theirs.Element(elementID(d.ours, k.FullName(), p)); ok {
				switch e.Type {
				case schema.AttributeElement:
					name = e.Attribute.Name
				case schema.RelationshipElement:
					name = e.Relationship.Name
				}
			}
			paths = append(paths, name+suffix)
		}
		out = append(out, paths)
	}
	return out
}

func attributeSpec(a schema.Attribute) schema.AttributeSpec {
	return schema.AttributeSpec{ID: a.ID, Name: a.Name, Label: a.Label, Kind: a.Kind, Optional: a.Optional, Unique: a.Unique,
		Choices: slices.Clone(a.Choices), DefaultValue: a.DefaultValue}
}

func (d *schemaDiff) relationshipSpec(r schema.Relationship) schema.RelationshipSpec {
	return schema.RelationshipSpec{ID: r.ID, Name: r.Name, Label: r.Label, Peer: d.kindName(r.Peer), Cardinality: r.Cardinality, Optional: r.Optional}
}

// kindID is the id of the kind of the full name in s; the name when s
// lacks it.
func kindID(s schema.Schema, name string) string {
	if k, ok := s.Kind(name); ok {
		return k.ID
	}
	return name
}

// elementID is the id of the element of a constraint's path of the kind
// in s; the path when s lacks it.
func elementID(s schema.Schema, kind, path string) string {
	name := strings.TrimSuffix(path, "__value")
	if a, ok := s.Attribute(kind, name); ok {
		return a.ID
	}
	if r, ok := s.Relationship(kind, name); ok {
		return r.ID
	}
	return path
}

// definition writes v as JSON.
func definition(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
