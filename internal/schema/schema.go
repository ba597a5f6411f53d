// Package schema holds the schema of kinds: the generics and nodes that
// operators define (LocationSite, IpamVLAN…), their attributes,
// relationships and uniqueness constraints, each with a stable id, and
// every rule of them that needs no data.
//
// Parse reads a schema file, YAML or JSON, in Infrahub's form (version
// "1.0", generics:, nodes:). Schema.Apply applies files to a schema, all or
// nothing: it adds, renames by id and removes (state: absent), validates
// the result (names, peers, inheritance, uniqueness constraints, default
// values, bounds) and lists the Changes, which the domain checks against
// the objects. Schema.YAML and Schema.JSON print a schema with its ids in
// the form Parse reads back. The accessors answer what objects, the
// GraphQL API and number pools ask: a kind by its name, its own and
// inherited elements, the nodes of a generic, an element by its id.
//
// Standard library and the YAML parser only: no storage, no HTTP.
package schema

import "slices"

// An AttributeKind is the type of an attribute's values.
type AttributeKind string

// The attribute kinds.
const (
	Text     AttributeKind = "Text"    // a string
	Number   AttributeKind = "Number"  // a whole number, 64 bits signed
	Boolean  AttributeKind = "Boolean" // true or false
	Dropdown AttributeKind = "Dropdown"
	List     AttributeKind = "List" // a list of JSON values
	JSON     AttributeKind = "JSON" // any JSON value
	Any      AttributeKind = "Any"  // any JSON value
)

// attributeKinds are the attribute kinds in the order messages list them.
var attributeKinds = []AttributeKind{Text, Number, Boolean, Dropdown, List, JSON, Any}

// A Cardinality is how many peers a relationship holds.
type Cardinality string

// The cardinalities.
const (
	One  Cardinality = "one"
	Many Cardinality = "many"
)

// A Kind is a generic or a node. Its full name, Namespace then Name
// (IpamVLAN), names it everywhere.
type Kind struct {
	ID        string
	Namespace string
	Name      string
	Generic   bool
	// Label is how people read its name ("VLAN"), as the schema writes it
	// (label:); "" when it gives none.
	Label string
	// DisplayLabel is the template of its objects' labels, such as
	// "{{ name__value }}"; "" when it has none.
	DisplayLabel string
	// InheritFrom are the full names of the generics it inherits from.
	InheritFrom []string
	// Attributes and Relationships are its own, in order; Schema's
	// accessors of the same names add the inherited ones.
	Attributes    []Attribute
	Relationships []Relationship
	// UniquenessConstraints are combinations of relationship names and
	// attribute paths (<attribute>__value) unique among its objects.
	UniquenessConstraints [][]string
}

// FullName is the kind's namespace and name: IpamVLAN.
func (k Kind) FullName() string { return k.Namespace + k.Name }

// An Attribute is a value each object of a kind may hold.
type Attribute struct {
	ID   string
	Name string
	// Label is how people read its name ("VLAN ID"); "" when the schema
	// gives none.
	Label    string
	Kind     AttributeKind
	Optional bool
	Unique   bool
	// Choices are a Dropdown's values.
	Choices []string
	// DefaultValue is the default as canonical JSON (100, "user", true,
	// ["a"]); "" when there is none.
	DefaultValue string
	// DeclaredBy is the full name of the kind that declares it: the kind
	// itself, or a generic it inherits from.
	DeclaredBy string
}

// A Relationship links each object of a kind to objects of its peer.
type Relationship struct {
	ID   string
	Name string
	// Label is how people read its name; "" when the schema gives none.
	Label string
	// Peer is the full name of a node or a generic.
	Peer        string
	Cardinality Cardinality
	Optional    bool
	// DeclaredBy is the full name of the kind that declares it.
	DeclaredBy string
}

// An ElementType says what an element is.
type ElementType int

// The element types.
const (
	GenericElement ElementType = iota + 1
	NodeElement
	AttributeElement
	RelationshipElement
)

func (t ElementType) String() string {
	switch t {
	case GenericElement:
		return "generic"
	case NodeElement:
		return "node"
	case AttributeElement:
		return "attribute"
	case RelationshipElement:
		return "relationship"
	}
	return "element"
}

// An Element is a kind, an attribute or a relationship, as Schema.Element
// finds it by its id.
type Element struct {
	Type ElementType
	// Kind is the full name of the kind, or of the kind that declares the
	// attribute or relationship.
	Kind         string
	Attribute    Attribute    // when Type is AttributeElement
	Relationship Relationship // when Type is RelationshipElement
}

// A Schema is a set of kinds, valid as a whole. It is immutable: Apply
// returns another. The zero Schema is the empty one.
type Schema struct {
	s *state
}

// state is a schema: its kinds as Apply works on them (by id) and the
// views the accessors return (by name).
type state struct {
	// kinds are generics first, then nodes, each in the order they were
	// added.
	kinds  []*kind
	byName map[string]int // full name → index in kinds
	byID   map[string]location
	// Per kind, as kinds: the view, the attributes and relationships with
	// the inherited ones, and for a generic the nodes that inherit from it.
	views         []Kind
	attributes    [][]Attribute
	relationships [][]Relationship
	inheritors    [][]string
}

// A location is where an id is: a kind (index in kinds) and, for an
// attribute or a relationship, its index among the kind's own.
type location struct {
	kind, index int
	typ         ElementType
}

// Kinds returns every kind, generics first, then nodes.
func (s Schema) Kinds() []Kind {
	if s.s == nil {
		return nil
	}
	out := make([]Kind, len(s.s.views))
	for i, k := range s.s.views {
		out[i] = cloneKind(k)
	}
	return out
}

// Kind returns the kind of the full name.
func (s Schema) Kind(name string) (Kind, bool) {
	i, ok := s.index(name)
	if !ok {
		return Kind{}, false
	}
	return cloneKind(s.s.views[i]), true
}

// Attributes returns the attributes of the kind, the inherited ones first
// (in the order of inherit_from), then its own; nil for no such kind.
func (s Schema) Attributes(kind string) []Attribute {
	i, ok := s.index(kind)
	if !ok {
		return nil
	}
	return cloneAttributes(s.s.attributes[i])
}

// Relationships returns the relationships of the kind, the inherited ones
// first, then its own; nil for no such kind.
func (s Schema) Relationships(kind string) []Relationship {
	i, ok := s.index(kind)
	if !ok {
		return nil
	}
	return slices.Clone(s.s.relationships[i])
}

// Attribute returns the attribute of the kind by its name, inherited or
// its own.
func (s Schema) Attribute(kind, name string) (Attribute, bool) {
	i, ok := s.index(kind)
	if !ok {
		return Attribute{}, false
	}
	for _, a := range s.s.attributes[i] {
		if a.Name == name {
			return cloneAttribute(a), true
		}
	}
	return Attribute{}, false
}

// Relationship returns the relationship of the kind by its name, inherited
// or its own.
func (s Schema) Relationship(kind, name string) (Relationship, bool) {
	i, ok := s.index(kind)
	if !ok {
		return Relationship{}, false
	}
	for _, r := range s.s.relationships[i] {
		if r.Name == name {
			return r, true
		}
	}
	return Relationship{}, false
}

// Inheritors returns the full names of the nodes that inherit from the
// generic, directly or through other generics, in the schema's order; nil
// for a node or no such kind.
func (s Schema) Inheritors(generic string) []string {
	i, ok := s.index(generic)
	if !ok {
		return nil
	}
	return slices.Clone(s.s.inheritors[i])
}

// Ancestry returns the stable ids of the kind id and of the generics it
// inherits from, directly or not: a node's objects are objects of each
// (number pools of any of them record the numbers the objects hold). Just
// id when it is no kind of s.
func (s Schema) Ancestry(id string) []string {
	e, ok := s.Element(id)
	if !ok {
		return []string{id}
	}
	out := []string{id}
	queue := []string{e.Kind}
	for len(queue) > 0 {
		k, ok := s.Kind(queue[0])
		queue = queue[1:]
		if !ok {
			continue
		}
		for _, g := range k.InheritFrom {
			if gk, ok := s.Kind(g); ok && !slices.Contains(out, gk.ID) {
				out = append(out, gk.ID)
				queue = append(queue, g)
			}
		}
	}
	return out
}

// Element returns the kind, attribute or relationship of the id.
func (s Schema) Element(id string) (Element, bool) {
	if s.s == nil {
		return Element{}, false
	}
	l, ok := s.s.byID[id]
	if !ok {
		return Element{}, false
	}
	k := s.s.views[l.kind]
	e := Element{Type: l.typ, Kind: k.FullName()}
	switch l.typ {
	case AttributeElement:
		e.Attribute = cloneAttribute(k.Attributes[l.index])
	case RelationshipElement:
		e.Relationship = k.Relationships[l.index]
	}
	return e, true
}

// index returns the index of the kind of the full name.
func (s Schema) index(name string) (int, bool) {
	if s.s == nil {
		return 0, false
	}
	i, ok := s.s.byName[name]
	return i, ok
}

// cloneKind returns k with slices of its own.
func cloneKind(k Kind) Kind {
	k.InheritFrom = slices.Clone(k.InheritFrom)
	k.Attributes = cloneAttributes(k.Attributes)
	k.Relationships = slices.Clone(k.Relationships)
	if k.UniquenessConstraints != nil {
		cs := make([][]string, len(k.UniquenessConstraints))
		for i, c := range k.UniquenessConstraints {
			cs[i] = slices.Clone(c)
		}
		k.UniquenessConstraints = cs
	}
	return k
}

func cloneAttributes(as []Attribute) []Attribute {
	if as == nil {
		return nil
	}
	out := make([]Attribute, len(as))
	for i, a := range as {
		out[i] = cloneAttribute(a)
	}
	return out
}

func cloneAttribute(a Attribute) Attribute {
	a.Choices = slices.Clone(a.Choices)
	return a
}
