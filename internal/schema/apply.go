package schema

import (
	"fmt"
	"slices"
	"strings"
)

// A kind is a generic or a node as a schema keeps it: references by id,
// so that they follow renames.
type kind struct {
	id, namespace, name string
	generic             bool
	humanLabel          string      // label:
	label               []labelPart // placeholders by attribute id
	inherit             []string    // generics' ids
	attributes          []*attribute
	relationships       []*relationship
	constraints         [][]string // elements' ids
}

func (k *kind) fullName() string { return k.namespace + k.name }

type attribute struct {
	id, name         string
	humanLabel       string // label:
	kind             AttributeKind
	optional, unique bool
	choices          []string
	defaultValue     string
}

type relationship struct {
	id, name    string
	humanLabel  string // label:
	peer        string // a kind's id
	cardinality Cardinality
	optional    bool
}

// An owner is where an id is: a kind, or an attribute or a relationship
// of a kind.
type owner struct {
	kind         *kind
	attribute    *attribute
	relationship *relationship
}

// describe names what the id is for a message: "the node IpamVLAN", "the
// attribute IpamVLAN.vlan_id".
func (o owner) describe() string {
	switch {
	case o.attribute != nil:
		return "the attribute " + o.kind.fullName() + "." + o.attribute.name
	case o.relationship != nil:
		return "the relationship " + o.kind.fullName() + "." + o.relationship.name
	case o.kind.generic:
		return "the generic " + o.kind.fullName()
	}
	return "the node " + o.kind.fullName()
}

// A removal is an element a load removes: the file and its path then.
type removal struct {
	file, path string
}

// A written value is a reference by name that a file wrote, resolved once
// every file is merged.
type written[T any] struct {
	file  string
	value T
}

// An elementRef is an attribute or a relationship of a kind, its own or
// inherited, with the kind that declares it.
type elementRef struct {
	id, name     string
	declaredBy   *kind
	attribute    *attribute
	relationship *relationship
}

// Apply returns the schema with the files applied in order, and what
// changed; or, when the result would not be valid, the schema unchanged
// and an Errors naming every mistake (up to MaxErrors) by the file that
// made it, the kind, the element and the field. newID gives the ids of the
// new elements that the files give none.
//
// A kind or an element is found by its id when the file gives one, else by
// its name. Found, it takes the file's values (an attribute or a
// relationship whole, a kind the fields it writes; see File), its new name
// included: a rename keeps the id, and the references to it (peers,
// inherit_from, uniqueness constraints, display labels) follow. Not found,
// it is added, with the file's id or one of newID. state: absent removes
// it, and nothing when there is none. The references a file writes are
// names in the schema the load makes.
func (s Schema) Apply(newID func() string, files ...File) (Schema, Changes, error) {
	a := newApplier(s, newID)
	for _, f := range files {
		if a.stopped() {
			break
		}
		a.merge(f)
	}
	if a.internal != nil {
		return s, nil, a.internal
	}
	if len(a.errs) == 0 {
		a.validate()
	}
	if a.internal != nil {
		return s, nil, a.internal
	}
	if len(a.errs) > 0 {
		if a.full {
			a.errs = append(a.errs, &Error{Message: fmt.Sprintf("stopped after %d mistakes; correct these first", MaxErrors)})
		}
		return s, nil, a.errs
	}
	next := a.freeze()
	return next, changes(s.s, next.s), nil
}

// applier holds a load in progress: a copy of the schema's kinds that the
// files change.
type applier struct {
	old      *state
	newID    func() string
	lastFile string
	kinds    []*kind
	byName   map[string]*kind // may hold stale names; check fullName
	ids      map[string]owner
	// touched are the ids of what the files wrote, with the last file
	// that did; removed the ids of what they removed.
	touched map[string]string
	removed map[string]removal
	// removedNames are the full names of the kinds removed, with the file.
	removedNames map[string]string
	// What files wrote by name.
	inherits    map[*kind]written[[]string]
	labels      map[*kind]written[string]
	constraints map[*kind]written[[][]string]
	peers       map[*relationship]written[string]
	// resolved are each kind's elements, inherited first, once validated.
	resolved map[*kind][]elementRef
	errs     Errors
	full     bool  // MaxErrors reached
	halted   bool  // the load is refused whatever follows
	internal error // newID misbehaved
}

func newApplier(s Schema, newID func() string) *applier {
	a := &applier{
		old: s.s, newID: newID,
		byName: map[string]*kind{}, ids: map[string]owner{},
		touched: map[string]string{}, removed: map[string]removal{}, removedNames: map[string]string{},
		inherits: map[*kind]written[[]string]{}, labels: map[*kind]written[string]{},
		constraints: map[*kind]written[[][]string]{}, peers: map[*relationship]written[string]{},
		resolved: map[*kind][]elementRef{},
	}
	if s.s == nil {
		return a
	}
	for _, old := range s.s.kinds {
		k := *old
		k.attributes = make([]*attribute, len(old.attributes))
		for i, at := range old.attributes {
			c := *at
			k.attributes[i] = &c
		}
		k.relationships = make([]*relationship, len(old.relationships))
		for i, r := range old.relationships {
			c := *r
			k.relationships[i] = &c
		}
		a.addKind(&k)
	}
	return a
}

// addKind adds k and its elements to the load.
func (a *applier) addKind(k *kind) {
	a.kinds = append(a.kinds, k)
	a.byName[k.fullName()] = k
	a.ids[k.id] = owner{kind: k}
	for _, at := range k.attributes {
		a.ids[at.id] = owner{kind: k, attribute: at}
	}
	for _, r := range k.relationships {
		a.ids[r.id] = owner{kind: k, relationship: r}
	}
}

// add records a mistake, up to MaxErrors.
func (a *applier) add(file, kind, element, field, format string, args ...any) {
	if len(a.errs) == MaxErrors {
		a.full = true
		return
	}
	a.errs = append(a.errs, &Error{File: file, Kind: kind, Element: element, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (a *applier) stopped() bool { return a.full || a.halted || a.internal != nil }

// blame returns the file that last wrote or removed the first of ids that
// a file wrote or removed.
func (a *applier) blame(ids ...string) string {
	for _, id := range ids {
		if f, ok := a.touched[id]; ok {
			return f
		}
		if r, ok := a.removed[id]; ok {
			return r.file
		}
	}
	return a.lastFile
}

// makeID returns a new id from newID.
func (a *applier) makeID() string {
	id := a.newID()
	_, taken := a.ids[id]
	_, gone := a.removed[id]
	if _, bad := idProblem(id); bad || taken || gone {
		a.internal = fmt.Errorf("schema: newID returned %q, which is not a new id", id)
	}
	return id
}

// merge applies one file to the load.
func (a *applier) merge(f File) {
	a.lastFile = f.Name
	if len(f.Kinds) > MaxKinds {
		a.add(f.Name, "", "", "", "the file declares %d kinds, more than %d", len(f.Kinds), MaxKinds)
		return
	}
	given := map[string]bool{}
	for _, ks := range f.Kinds {
		if ks.ID != "" {
			given[ks.ID] = true
		}
	}
	for _, ks := range f.Kinds {
		if a.stopped() {
			return
		}
		k, ok := a.findKind(f.Name, ks, given)
		switch {
		case !ok:
			continue
		case ks.Absent:
			if k != nil {
				a.removeKind(f.Name, k)
			}
			continue
		case k == nil:
			id := ks.ID
			if id == "" {
				id = a.makeID()
			}
			k = &kind{id: id, generic: ks.Generic, namespace: ks.Namespace, name: ks.Name}
			a.addKind(k)
			if len(a.kinds) > MaxKinds {
				a.add(f.Name, k.fullName(), "", "", "the schema would hold more than %d kinds", MaxKinds)
				a.halted = true
				return
			}
		case k.generic != ks.Generic:
			was, is := "node", "generic"
			if k.generic {
				was, is = is, was
			}
			a.add(f.Name, ks.Namespace+ks.Name, "", "", "declared as a %s, but %s is a %s; a kind stays a node or a generic: remove it with state: absent, then declare the %s", is, k.fullName(), was, is)
			continue
		default:
			k.namespace, k.name = ks.Namespace, ks.Name
			a.byName[k.fullName()] = k
		}
		a.touched[k.id] = f.Name
		if ks.Label != nil {
			k.humanLabel = *ks.Label
		}
		if ks.DisplayLabel != nil {
			a.labels[k] = written[string]{f.Name, *ks.DisplayLabel}
		}
		if ks.InheritFrom != nil {
			a.inherits[k] = written[[]string]{f.Name, ks.InheritFrom}
		}
		if ks.UniquenessConstraints != nil {
			a.constraints[k] = written[[][]string]{f.Name, ks.UniquenessConstraints}
		}
		if n := len(ks.Attributes) + len(ks.Relationships); n > MaxElements {
			a.add(f.Name, k.fullName(), "", "", "declares %d attributes and relationships, more than %d", n, MaxElements)
			continue
		}
		a.mergeAttributes(f.Name, k, ks.Attributes)
		a.mergeRelationships(f.Name, k, ks.Relationships)
	}
}

// findKind returns the kind ks names, nil for a new one; ok is false when
// ks is refused. given are the ids the file gives its kinds, which are
// found by id only.
func (a *applier) findKind(file string, ks KindSpec, given map[string]bool) (k *kind, ok bool) {
	full := ks.Namespace + ks.Name
	if ks.ID == "" {
		if k := a.byName[full]; k != nil && k.fullName() == full && !given[k.id] {
			return k, true
		}
		return nil, true
	}
	if o, found := a.ids[ks.ID]; found {
		if o.attribute != nil || o.relationship != nil {
			a.add(file, full, "", "id", "id %s is the id of %s, not of a kind", quote(ks.ID), o.describe())
			return nil, false
		}
		return o.kind, true
	}
	if r, gone := a.removed[ks.ID]; gone {
		a.add(file, full, "", "id", "id %s is the id of %s, which this load removes; give the kind another id", quote(ks.ID), r.path)
		return nil, false
	}
	return nil, true
}

// removeKind removes k and its elements.
func (a *applier) removeKind(file string, k *kind) {
	a.kinds = slices.DeleteFunc(a.kinds, func(o *kind) bool { return o == k })
	a.forget(file, k.id, k.fullName())
	a.removedNames[k.fullName()] = file
	for _, at := range k.attributes {
		a.forget(file, at.id, k.fullName()+"."+at.name)
	}
	for _, r := range k.relationships {
		a.forget(file, r.id, k.fullName()+"."+r.name)
	}
}

// forget records the removal of the id.
func (a *applier) forget(file, id, path string) {
	delete(a.ids, id)
	delete(a.touched, id)
	a.removed[id] = removal{file, path}
}

// findElement returns the attribute or relationship of k that a spec
// names; nil for a new one; ok is false when the spec is refused. what is
// "an attribute" or "a relationship"; given are the ids of the kind's
// specs, found by id only.
func (a *applier) findElement(file string, k *kind, id, name, what string, given map[string]bool, byName func(string) (owner, bool)) (o owner, ok bool) {
	if id == "" {
		if o, found := byName(name); found && !given[o.id()] {
			return o, true
		}
		return owner{}, true
	}
	o, found := a.ids[id]
	switch {
	case !found:
		if r, gone := a.removed[id]; gone {
			a.add(file, k.fullName(), name, "id", "id %s is the id of %s, which this load removes; give the element another id", quote(id), r.path)
			return owner{}, false
		}
		return owner{}, true
	case o.kind != k && (o.attribute != nil || o.relationship != nil):
		a.add(file, k.fullName(), name, "id", "id %s is the id of %s; an element cannot move to another kind", quote(id), o.describe())
		return owner{}, false
	case what == "an attribute" && o.attribute == nil, what == "a relationship" && o.relationship == nil:
		a.add(file, k.fullName(), name, "id", "id %s is the id of %s, not of %s", quote(id), o.describe(), what)
		return owner{}, false
	}
	return o, true
}

// id returns the id of what o holds.
func (o owner) id() string {
	switch {
	case o.attribute != nil:
		return o.attribute.id
	case o.relationship != nil:
		return o.relationship.id
	}
	return o.kind.id
}

// mergeAttributes applies a kind's attribute specs.
func (a *applier) mergeAttributes(file string, k *kind, specs []AttributeSpec) {
	given := map[string]bool{}
	for _, s := range specs {
		if s.ID != "" {
			given[s.ID] = true
		}
	}
	byName := func(name string) (owner, bool) {
		i := slices.IndexFunc(k.attributes, func(at *attribute) bool { return at.name == name })
		if i < 0 {
			return owner{}, false
		}
		return owner{kind: k, attribute: k.attributes[i]}, true
	}
	for _, s := range specs {
		o, ok := a.findElement(file, k, s.ID, s.Name, "an attribute", given, byName)
		switch {
		case !ok:
			continue
		case s.Absent:
			if o.attribute != nil {
				k.attributes = slices.DeleteFunc(k.attributes, func(at *attribute) bool { return at == o.attribute })
				a.forget(file, o.attribute.id, k.fullName()+"."+o.attribute.name)
			}
			continue
		case o.attribute == nil:
			id := s.ID
			if id == "" {
				id = a.makeID()
			}
			o = owner{kind: k, attribute: &attribute{id: id}}
			k.attributes = append(k.attributes, o.attribute)
			a.ids[id] = o
		}
		*o.attribute = attribute{
			id: o.attribute.id, name: s.Name, humanLabel: s.Label, kind: s.Kind, optional: s.Optional, unique: s.Unique,
			choices: slices.Clone(s.Choices), defaultValue: s.DefaultValue,
		}
		a.touched[o.attribute.id] = file
	}
}

// mergeRelationships applies a kind's relationship specs.
func (a *applier) mergeRelationships(file string, k *kind, specs []RelationshipSpec) {
	given := map[string]bool{}
	for _, s := range specs {
		if s.ID != "" {
			given[s.ID] = true
		}
	}
	byName := func(name string) (owner, bool) {
		i := slices.IndexFunc(k.relationships, func(r *relationship) bool { return r.name == name })
		if i < 0 {
			return owner{}, false
		}
		return owner{kind: k, relationship: k.relationships[i]}, true
	}
	for _, s := range specs {
		o, ok := a.findElement(file, k, s.ID, s.Name, "a relationship", given, byName)
		switch {
		case !ok:
			continue
		case s.Absent:
			if o.relationship != nil {
				k.relationships = slices.DeleteFunc(k.relationships, func(r *relationship) bool { return r == o.relationship })
				a.forget(file, o.relationship.id, k.fullName()+"."+o.relationship.name)
			}
			continue
		case o.relationship == nil:
			id := s.ID
			if id == "" {
				id = a.makeID()
			}
			o = owner{kind: k, relationship: &relationship{id: id}}
			k.relationships = append(k.relationships, o.relationship)
			a.ids[id] = o
		}
		*o.relationship = relationship{id: o.relationship.id, name: s.Name, humanLabel: s.Label, cardinality: s.Cardinality, optional: s.Optional}
		a.peers[o.relationship] = written[string]{file, s.Peer}
		a.touched[o.relationship.id] = file
	}
}

// validate checks the schema the load makes, in steps: each step's
// mistakes would make the next one's misleading.
func (a *applier) validate() {
	for _, step := range []func(){a.checkElements, a.checkNames, a.checkReferences, a.checkInheritance, a.resolveElements, a.checkConstraintsAndLabels} {
		if step(); len(a.errs) > 0 || a.internal != nil {
			return
		}
	}
}

// checkElements checks what the files wrote by the rules of a file.
func (a *applier) checkElements() {
	for _, k := range a.kinds {
		file, ok := a.touched[k.id]
		if !ok {
			continue
		}
		full := k.fullName()
		ps := []problem{}
		if p, bad := namespaceProblem(k.namespace); bad {
			ps = append(ps, p)
		}
		if p, bad := kindNameProblem(k.name); bad {
			ps = append(ps, p)
		}
		if p, bad := idProblem(k.id); bad {
			ps = append(ps, p)
		}
		if p, bad := humanLabelProblem(k.humanLabel); bad {
			ps = append(ps, p)
		}
		if w, ok := a.labels[k]; ok {
			if _, p := parseLabel(w.value); p != nil {
				ps = append(ps, *p)
			}
		}
		if w, ok := a.inherits[k]; ok && len(w.value) > MaxInheritFrom {
			ps = append(ps, problemf("inherit_from", "inherit_from names %d generics, more than %d", len(w.value), MaxInheritFrom))
		}
		if w, ok := a.constraints[k]; ok {
			ps = append(ps, constraintProblems(k.generic, w.value)...)
		}
		for _, p := range ps {
			a.add(file, full, "", p.field, "%s", p.message)
		}
		for _, at := range k.attributes {
			if file, ok := a.touched[at.id]; ok {
				for _, p := range a.attributeProblems(at) {
					a.add(file, full, at.name, p.field, "%s", p.message)
				}
			}
		}
		for _, r := range k.relationships {
			if file, ok := a.touched[r.id]; ok {
				for _, p := range relationshipProblems(r) {
					a.add(file, full, r.name, p.field, "%s", p.message)
				}
			}
		}
	}
}

// attributeProblems checks an attribute a file wrote, and keeps its
// default value in canonical form.
func (a *applier) attributeProblems(at *attribute) []problem {
	var ps []problem
	if p, bad := elementNameProblem("an attribute", at.name); bad {
		ps = append(ps, p)
	}
	if p, bad := idProblem(at.id); bad {
		ps = append(ps, p)
	}
	if p, bad := humanLabelProblem(at.humanLabel); bad {
		ps = append(ps, p)
	}
	if p, bad := attributeKindProblem(at.kind); bad {
		return append(ps, p)
	}
	if at.defaultValue != "" {
		v, p := canonicalValue(at.defaultValue)
		if p != nil {
			return append(ps, *p)
		}
		at.defaultValue = v
	}
	return append(ps, attributeProblems(at.kind, at.choices, at.defaultValue)...)
}

// relationshipProblems checks a relationship a file wrote.
func relationshipProblems(r *relationship) []problem {
	var ps []problem
	if p, bad := elementNameProblem("a relationship", r.name); bad {
		ps = append(ps, p)
	}
	if p, bad := idProblem(r.id); bad {
		ps = append(ps, p)
	}
	if p, bad := humanLabelProblem(r.humanLabel); bad {
		ps = append(ps, p)
	}
	if p, bad := cardinalityProblem(r.cardinality); bad {
		ps = append(ps, p)
	}
	return ps
}

// constraintProblems checks the form of uniqueness constraints.
func constraintProblems(generic bool, constraints [][]string) []problem {
	const field = "uniqueness_constraints"
	switch {
	case generic && len(constraints) > 0:
		return []problem{problemf(field, "uniqueness_constraints are declared on nodes; a generic has none")}
	case len(constraints) > MaxConstraints:
		return []problem{problemf(field, "uniqueness_constraints are %d, more than %d", len(constraints), MaxConstraints)}
	}
	var ps []problem
	for i, c := range constraints {
		switch {
		case len(c) == 0:
			ps = append(ps, problemf(field, "uniqueness_constraints[%d] is empty; name relationships and attribute paths such as [site, vlan_id__value]", i))
			continue
		case len(c) > MaxConstraintElements:
			ps = append(ps, problemf(field, "uniqueness_constraints[%d] names %d elements, more than %d", i, len(c), MaxConstraintElements))
			continue
		}
		names := map[string]bool{}
		for j, path := range c {
			name, _, ok := constraintPath(path)
			switch {
			case !ok:
				ps = append(ps, problemf(field, "uniqueness_constraints[%d][%d] %s is not a relationship's name such as site or an attribute's path such as vlan_id__value", i, j, quote(path)))
			case names[name]:
				ps = append(ps, problemf(field, "uniqueness_constraints[%d] names %s twice", i, name))
			}
			names[name] = true
		}
		if j := slices.IndexFunc(constraints[:i], func(o []string) bool { return sameConstraint(o, c) }); j >= 0 {
			ps = append(ps, problemf(field, "uniqueness_constraints[%d] is uniqueness_constraints[%d] again", i, j))
		}
	}
	return ps
}

// checkNames refuses two kinds of one name, two elements of one name in a
// kind, and more than MaxKinds kinds.
func (a *applier) checkNames() {
	if len(a.kinds) > MaxKinds {
		a.add(a.lastFile, "", "", "", "the schema would hold %d kinds, more than %d", len(a.kinds), MaxKinds)
		return
	}
	a.byName = make(map[string]*kind, len(a.kinds))
	for _, k := range a.kinds {
		full := k.fullName()
		if other, twice := a.byName[full]; twice {
			a.add(a.blame(k.id, other.id), full, "", "name", "name %s is the name of two kinds, of ids %s and %s; name each kind once", quote(full), other.id, k.id)
			continue
		}
		a.byName[full] = k
		seen := map[string]owner{}
		for _, at := range k.attributes {
			if other, twice := seen[at.name]; twice {
				a.add(a.blame(at.id, other.id()), full, at.name, "name", "name %s is the name of two attributes, of ids %s and %s; name each element of a kind once", quote(at.name), other.id(), at.id)
			}
			seen[at.name] = owner{kind: k, attribute: at}
		}
		for _, r := range k.relationships {
			switch other, twice := seen[r.name]; {
			case twice && other.attribute != nil:
				a.add(a.blame(r.id, other.id()), full, r.name, "name", "name %s is the name of an attribute and of a relationship; name each element of a kind once", quote(r.name))
			case twice:
				a.add(a.blame(r.id, other.id()), full, r.name, "name", "name %s is the name of two relationships, of ids %s and %s; name each element of a kind once", quote(r.name), other.id(), r.id)
			}
			seen[r.name] = owner{kind: k, relationship: r}
		}
	}
}

// checkReferences resolves the generics and peers the files named, and
// refuses the removal of what other kinds still name.
func (a *applier) checkReferences() {
	for _, k := range a.kinds {
		full := k.fullName()
		if w, ok := a.inherits[k]; ok {
			ids := make([]string, 0, len(w.value))
			for i, name := range w.value {
				field := fmt.Sprintf("inherit_from[%d]", i)
				g := a.byName[name]
				switch {
				case g == nil:
					a.add(w.file, full, "", "inherit_from", "%s %s is not a generic%s", field, quote(name), a.removedBy(name))
				case !g.generic:
					a.add(w.file, full, "", "inherit_from", "%s %s is a node; a kind inherits from generics only", field, quote(name))
				default:
					ids = append(ids, g.id)
				}
			}
			k.inherit = ids
		} else {
			for _, id := range k.inherit {
				if r, gone := a.removed[id]; gone {
					a.add(r.file, r.path, "", "state", "cannot be removed: %s inherits from it; remove it from the inherit_from of %s in the same load", full, full)
				}
			}
		}
		for _, r := range k.relationships {
			if w, ok := a.peers[r]; ok {
				if peer := a.byName[w.value]; peer != nil {
					r.peer = peer.id
				} else {
					a.add(w.file, full, r.name, "peer", "peer %s is not a node or a generic%s", quote(w.value), a.removedBy(w.value))
				}
			} else if rm, gone := a.removed[r.peer]; gone {
				a.add(rm.file, rm.path, "", "state", "cannot be removed: it is the peer of %s.%s; remove or change that relationship in the same load", full, r.name)
			}
		}
	}
}

// removedBy says which file removes the kind of the full name, if one
// does.
func (a *applier) removedBy(name string) string {
	if file, ok := a.removedNames[name]; ok && a.byName[name] == nil {
		return "; " + file + " removes it"
	}
	return ""
}

// checkInheritance refuses cycles and chains deeper than MaxDepth.
func (a *applier) checkInheritance() {
	byID := make(map[string]*kind, len(a.kinds))
	for _, k := range a.kinds {
		byID[k.id] = k
	}
	const (
		unseen = iota
		visiting
		done
	)
	mark := make(map[*kind]int, len(a.kinds))
	depth := make(map[*kind]int, len(a.kinds))
	// A kind's depth is reported once every kind above it is visited,
	// when a cycle among them would have been found: depths count only
	// without one.
	cyclic := false
	var stack []*kind
	var visit func(k *kind)
	visit = func(k *kind) {
		mark[k] = visiting
		stack = append(stack, k)
		for _, id := range k.inherit {
			g := byID[id]
			switch mark[g] {
			case visiting:
				cyclic = true
				a.reportCycle(stack[slices.Index(stack, g):])
			case unseen:
				visit(g)
			}
			if d := depth[g] + 1; d > depth[k] {
				depth[k] = d
			}
		}
		if depth[k] == MaxDepth+1 && !cyclic {
			a.reportDepth(k, byID, depth)
		}
		stack = stack[:len(stack)-1]
		mark[k] = done
	}
	for _, k := range a.kinds {
		if mark[k] == unseen {
			visit(k)
		}
	}
}

// reportCycle refuses a cycle of inherit_from, at its first kind a file
// wrote.
func (a *applier) reportCycle(cycle []*kind) {
	start := slices.IndexFunc(cycle, func(k *kind) bool { _, ok := a.inherits[k]; return ok })
	start = max(start, 0)
	cycle = append(slices.Clone(cycle[start:]), cycle[:start]...)
	names := make([]string, 0, len(cycle)+1)
	for _, k := range cycle {
		names = append(names, k.fullName())
	}
	names = append(names, names[0])
	a.add(a.blame(cycle[0].id), names[0], "", "inherit_from", "inherit_from makes a cycle: %s", strings.Join(shortChain(names), " → "))
}

// shortChain cuts a long chain of kinds to its ends, for a message.
func shortChain(names []string) []string {
	if len(names) <= 6 {
		return names
	}
	return slices.Concat(names[:3], []string{fmt.Sprintf("… %d more …", len(names)-5)}, names[len(names)-2:])
}

// reportDepth refuses k, the first kind of a chain deeper than MaxDepth.
func (a *applier) reportDepth(k *kind, byID map[string]*kind, depth map[*kind]int) {
	chain := []string{k.fullName()}
	for g := k; len(g.inherit) > 0; {
		next := byID[g.inherit[0]]
		for _, id := range g.inherit {
			if depth[byID[id]] > depth[next] {
				next = byID[id]
			}
		}
		g = next
		chain = append(chain, g.fullName())
	}
	a.add(a.blame(k.id), k.fullName(), "", "inherit_from", "inherit_from is %d generics deep, more than %d: %s", depth[k], MaxDepth, strings.Join(shortChain(chain), " → "))
}

// resolveElements gives each kind its inherited elements, and refuses two
// elements of one name and kinds of more than MaxElements elements.
func (a *applier) resolveElements() {
	byID := make(map[string]*kind, len(a.kinds))
	for _, k := range a.kinds {
		byID[k.id] = k
	}
	var resolve func(k *kind) []elementRef
	resolve = func(k *kind) []elementRef {
		if out, ok := a.resolved[k]; ok {
			return out
		}
		var out []elementRef
		from := map[string]int{} // name → index in out
		put := func(e elementRef, via *kind) {
			i, seen := from[e.name]
			switch {
			case !seen:
				from[e.name] = len(out)
				out = append(out, e)
			case out[i].id == e.id:
			case via == nil:
				a.add(a.blame(e.id, k.id, out[i].id), k.fullName(), e.name, "name", "name %s is also inherited from %s; a kind cannot declare an element it inherits", quote(e.name), out[i].declaredBy.fullName())
			default:
				a.add(a.blame(k.id, e.id, out[i].id), k.fullName(), e.name, "", "inherited from both %s and %s, two elements of one name; a kind inherits one element of a name", out[i].declaredBy.fullName(), e.declaredBy.fullName())
			}
		}
		for _, id := range k.inherit {
			g := byID[id]
			for _, e := range resolve(g) {
				put(e, g)
			}
		}
		for _, at := range k.attributes {
			put(elementRef{id: at.id, name: at.name, declaredBy: k, attribute: at}, nil)
		}
		for _, r := range k.relationships {
			put(elementRef{id: r.id, name: r.name, declaredBy: k, relationship: r}, nil)
		}
		if len(out) > MaxElements {
			a.add(a.blame(k.id), k.fullName(), "", "", "has %d attributes and relationships with those it inherits, more than %d", len(out), MaxElements)
		}
		a.resolved[k] = out
		return out
	}
	for _, k := range a.kinds {
		resolve(k)
	}
}

// checkConstraintsAndLabels resolves the uniqueness constraints and
// display labels the files wrote against each kind's elements, and checks
// those the files left against the schema the load makes.
func (a *applier) checkConstraintsAndLabels() {
	for _, k := range a.kinds {
		_, writesConstraints := a.constraints[k]
		_, writesLabel := a.labels[k]
		if !writesConstraints && !writesLabel && len(k.constraints) == 0 && len(k.label) == 0 {
			continue
		}
		elements := map[string]elementRef{}
		byID := map[string]elementRef{}
		for _, e := range a.resolved[k] {
			elements[e.name] = e
			byID[e.id] = e
		}
		full := k.fullName()
		if w, ok := a.constraints[k]; ok {
			k.constraints = make([][]string, 0, len(w.value))
			for _, c := range w.value {
				ids := make([]string, 0, len(c))
				for _, path := range c {
					name, isAttribute, _ := constraintPath(path)
					e, found := elements[name]
					var msg string
					switch {
					case !found:
						msg = "which is not an attribute or a relationship of " + full
					case isAttribute && e.attribute == nil:
						msg = fmt.Sprintf("but %s is a relationship; write %s", name, name)
					case !isAttribute && e.attribute != nil:
						msg = fmt.Sprintf("but %s is an attribute; write %s__value", name, name)
					case e.relationship != nil && e.relationship.cardinality != One:
						msg = "a relationship of cardinality many; a uniqueness constraint names relationships of cardinality one"
					}
					if msg != "" {
						a.add(w.file, full, "", "uniqueness_constraints", "uniqueness_constraints %s names %s, %s", constraintText(c), path, msg)
						continue
					}
					ids = append(ids, e.id)
				}
				k.constraints = append(k.constraints, ids)
			}
		} else {
			for _, c := range k.constraints {
				a.checkKeptConstraint(k, c, byID)
			}
		}
		if w, ok := a.labels[k]; ok {
			parts, _ := parseLabel(w.value)
			for i, p := range parts {
				if p.attribute == "" {
					continue
				}
				if e, found := elements[p.attribute]; found && e.attribute != nil {
					parts[i].attribute = e.id
				} else {
					a.add(w.file, full, "", "display_label", "display_label %s names %s, which is not an attribute of %s", quote(w.value), p.attribute, full)
				}
			}
			k.label = parts
		} else {
			for _, p := range k.label {
				if _, found := byID[p.attribute]; p.attribute != "" && !found {
					a.refuseLost(k, p.attribute, "the display_label of "+full, "display_label")
				}
			}
		}
	}
}

// checkKeptConstraint checks a uniqueness constraint of k that no file
// wrote: its elements must still be k's, relationships of cardinality one.
func (a *applier) checkKeptConstraint(k *kind, c []string, byID map[string]elementRef) {
	for _, id := range c {
		e, found := byID[id]
		switch {
		case !found:
			a.refuseLost(k, id, "the uniqueness constraint "+a.constraintText(k, c)+" of "+k.fullName(), "uniqueness_constraints")
		case e.relationship != nil && e.relationship.cardinality != One:
			a.add(a.blame(id, k.id), k.fullName(), "", "uniqueness_constraints", "uniqueness_constraints %s names %s, now a relationship of cardinality many; change the constraint in the same load", a.constraintText(k, c), e.name)
		}
	}
}

// refuseLost refuses a load that takes away from k the element id, which
// what (a constraint, the display label) names: removed, or no longer
// inherited.
func (a *applier) refuseLost(k *kind, id, what, field string) {
	if r, gone := a.removed[id]; gone {
		kindPath, element, _ := strings.Cut(r.path, ".")
		a.add(r.file, kindPath, element, "state", "cannot be removed: %s names it; change it in the same load", what)
		return
	}
	a.add(a.blame(k.id, id), k.fullName(), "", field, "%s names %s, which %s no longer inherits; change it in the same load", what, a.elementName(id), k.fullName())
}

// elementName returns the name of an element by id, in the load or, when
// it removes it, before.
func (a *applier) elementName(id string) string {
	if o, ok := a.ids[id]; ok {
		switch {
		case o.attribute != nil:
			return o.attribute.name
		case o.relationship != nil:
			return o.relationship.name
		}
	}
	if a.old != nil {
		if l, ok := a.old.byID[id]; ok {
			k := a.old.views[l.kind]
			if l.typ == AttributeElement {
				return k.Attributes[l.index].Name
			}
			return k.Relationships[l.index].Name
		}
	}
	return id
}

// constraintText writes a constraint of k kept by id, as a file writes it.
func (a *applier) constraintText(k *kind, c []string) string {
	paths := make([]string, len(c))
	for i, id := range c {
		paths[i] = a.elementName(id)
		if o, ok := a.ids[id]; ok && o.attribute != nil {
			paths[i] += "__value"
		} else if a.old != nil && a.old.byID[id].typ == AttributeElement {
			paths[i] += "__value"
		}
	}
	return constraintText(paths)
}

// constraintText writes a constraint's paths as a file writes them.
func constraintText(paths []string) string {
	return "[" + strings.Join(paths, ", ") + "]"
}

// freeze returns the schema of the load.
func (a *applier) freeze() Schema {
	kinds := slices.Clone(a.kinds)
	slices.SortStableFunc(kinds, func(x, y *kind) int {
		switch {
		case x.generic == y.generic:
			return 0
		case x.generic:
			return -1
		}
		return 1
	})
	n := len(a.ids)
	st := &state{
		kinds:         kinds,
		byName:        make(map[string]int, len(kinds)),
		byID:          make(map[string]location, n),
		views:         make([]Kind, len(kinds)),
		attributes:    make([][]Attribute, len(kinds)),
		relationships: make([][]Relationship, len(kinds)),
		inheritors:    make([][]string, len(kinds)),
	}
	names := make(map[string]string, n) // id → name
	byID := make(map[string]*kind, len(kinds))
	for i, k := range kinds {
		st.byName[k.fullName()] = i
		byID[k.id] = k
		names[k.id] = k.fullName()
		for _, at := range k.attributes {
			names[at.id] = at.name
		}
		for _, r := range k.relationships {
			names[r.id] = r.name
		}
	}
	for i, k := range kinds {
		full := k.fullName()
		typ := NodeElement
		if k.generic {
			typ = GenericElement
		}
		st.byID[k.id] = location{kind: i, typ: typ}
		v := Kind{ID: k.id, Namespace: k.namespace, Name: k.name, Generic: k.generic, Label: k.humanLabel, DisplayLabel: labelText(k.label, names)}
		for _, id := range k.inherit {
			v.InheritFrom = append(v.InheritFrom, names[id])
		}
		for j, at := range k.attributes {
			v.Attributes = append(v.Attributes, Attribute{ID: at.id, Name: at.name, Label: at.humanLabel, Kind: at.kind, Optional: at.optional, Unique: at.unique,
				Choices: slices.Clone(at.choices), DefaultValue: at.defaultValue, DeclaredBy: full})
			st.byID[at.id] = location{kind: i, index: j, typ: AttributeElement}
		}
		for j, r := range k.relationships {
			v.Relationships = append(v.Relationships, Relationship{ID: r.id, Name: r.name, Label: r.humanLabel, Peer: names[r.peer], Cardinality: r.cardinality, Optional: r.optional, DeclaredBy: full})
			st.byID[r.id] = location{kind: i, index: j, typ: RelationshipElement}
		}
		for _, c := range k.constraints {
			paths := make([]string, len(c))
			for j, id := range c {
				paths[j] = names[id]
				if a.ids[id].attribute != nil {
					paths[j] += "__value"
				}
			}
			v.UniquenessConstraints = append(v.UniquenessConstraints, paths)
		}
		st.views[i] = v
	}
	for i, k := range kinds {
		for _, e := range a.resolved[k] {
			at := st.byID[e.id]
			own := st.views[at.kind]
			if e.attribute != nil {
				st.attributes[i] = append(st.attributes[i], own.Attributes[at.index])
			} else {
				st.relationships[i] = append(st.relationships[i], own.Relationships[at.index])
			}
		}
	}
	// Each node is an inheritor of every generic above it.
	for _, k := range kinds {
		if k.generic {
			continue
		}
		seen := map[string]bool{}
		var climb func(ids []string)
		climb = func(ids []string) {
			for _, id := range ids {
				if seen[id] {
					continue
				}
				seen[id] = true
				g := st.byName[names[id]]
				st.inheritors[g] = append(st.inheritors[g], k.fullName())
				climb(byID[id].inherit)
			}
		}
		climb(k.inherit)
	}
	return Schema{st}
}

// labelText writes a display label with the current names.
func labelText(parts []labelPart, names map[string]string) string {
	var b strings.Builder
	for _, p := range parts {
		if p.attribute == "" {
			b.WriteString(p.text)
		} else {
			b.WriteString("{{ " + names[p.attribute] + "__value }}")
		}
	}
	return b.String()
}
