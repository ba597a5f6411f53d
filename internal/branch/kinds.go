package branch

import (
	"crypto/sha256"
	"encoding/json"
	"slices"
	"strings"

	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

// compiled is a schema with what objects need of it worked out once: each
// node kind's elements by name and by id, its constraints and its label.
type compiled struct {
	schema schema.Schema
	nodes  map[string]*nodeKind // by full name
	byID   map[string]*nodeKind // by the kind's id
}

// A nodeKind is a node of the schema, as objects are written and read.
type nodeKind struct {
	kind          schema.Kind
	attributes    []schema.Attribute // inherited ones first
	relationships []schema.Relationship
	attrByName    map[string]schema.Attribute
	relByName     map[string]schema.Relationship
	attrByID      map[string]schema.Attribute
	relByID       map[string]schema.Relationship
	constraints   []constraint
	label         []labelPart
	// ancestry is the node's id and those of the generics it inherits
	// from (schema.Schema.Ancestry).
	ancestry []string
}

// A constraint is a unique attribute or a uniqueness constraint of a node:
// no two of its objects on a branch hold the same values of its elements.
type constraint struct {
	// id is the node's id and the elements' ids: a rename keeps it.
	id string
	// name is what the refusal quotes: the constraint's paths without
	// __value, joined by - ("site-vlan_id"), or the unique attribute's name.
	name     string
	elements []string // ids, in the constraint's order
	fields   []string // names, in the same order
}

// A labelPart is text of a display label, or the id of the attribute
// whose value takes its place.
type labelPart struct {
	text      string
	attribute string
}

func compile(s schema.Schema) *compiled {
	c := &compiled{schema: s, nodes: map[string]*nodeKind{}, byID: map[string]*nodeKind{}}
	for _, k := range s.Kinds() {
		if k.Generic {
			continue
		}
		name := k.FullName()
		n := &nodeKind{kind: k, attributes: s.Attributes(name), relationships: s.Relationships(name),
			attrByName: map[string]schema.Attribute{}, relByName: map[string]schema.Relationship{},
			attrByID: map[string]schema.Attribute{}, relByID: map[string]schema.Relationship{}}
		for _, a := range n.attributes {
			n.attrByName[a.Name], n.attrByID[a.ID] = a, a
		}
		for _, r := range n.relationships {
			n.relByName[r.Name], n.relByID[r.ID] = r, r
		}
		n.constraints = n.compileConstraints(s)
		n.label = n.compileLabel()
		n.ancestry = s.Ancestry(k.ID)
		c.nodes[name], c.byID[k.ID] = n, n
	}
	return c
}

// compileConstraints returns the node's unique attributes and uniqueness
// constraints (its own and its generics'), each once.
func (n *nodeKind) compileConstraints(s schema.Schema) []constraint {
	var out []constraint
	seen := map[string]bool{}
	add := func(c constraint) {
		if !seen[c.id] {
			seen[c.id] = true
			out = append(out, c)
		}
	}
	for _, a := range n.attributes {
		if a.Unique {
			add(constraint{id: n.kind.ID + "/" + a.ID, name: a.Name, elements: []string{a.ID}, fields: []string{a.Name}})
		}
	}
	lists := slices.Clone(n.kind.UniquenessConstraints)
	for _, g := range n.kind.InheritFrom {
		if gk, ok := s.Kind(g); ok {
			lists = append(lists, gk.UniquenessConstraints...)
		}
	}
	for _, paths := range lists {
		c := constraint{}
		ok := true
		for _, p := range paths {
			name := strings.TrimSuffix(p, "__value")
			var id string
			if a, found := n.attrByName[name]; found {
				id = a.ID
			} else if r, found := n.relByName[name]; found {
				id = r.ID
			} else {
				ok = false
				break
			}
			c.elements, c.fields = append(c.elements, id), append(c.fields, name)
		}
		if !ok || len(c.elements) == 0 {
			continue
		}
		c.id = n.kind.ID + "/" + strings.Join(c.elements, "+")
		c.name = strings.Join(c.fields, "-")
		add(c)
	}
	return out
}

// compileLabel splits the node's display_label template into text and the
// attributes' ids whose values take the place of {{ <name>__value }}.
func (n *nodeKind) compileLabel() []labelPart {
	var parts []labelPart
	rest := n.kind.DisplayLabel
	for rest != "" {
		text, after, found := strings.Cut(rest, "{{")
		if text != "" {
			parts = append(parts, labelPart{text: text})
		}
		if !found {
			break
		}
		inner, tail, _ := strings.Cut(after, "}}")
		name := strings.TrimSuffix(strings.TrimSpace(inner), "__value")
		if a, ok := n.attrByName[name]; ok {
			parts = append(parts, labelPart{attribute: a.ID})
		}
		rest = tail
	}
	return parts
}

// displayLabel is the object's label: the kind's template filled with its
// values, else its name attribute's value, else its id.
func (n *nodeKind) displayLabel(id string, data map[string]json.RawMessage) string {
	if len(n.label) > 0 {
		var b strings.Builder
		for _, p := range n.label {
			if p.attribute == "" {
				b.WriteString(p.text)
			} else if raw, ok := data[p.attribute]; ok {
				b.WriteString(labelValue(raw))
			}
		}
		return b.String()
	}
	if a, ok := n.attrByName["name"]; ok {
		if raw, ok := data[a.ID]; ok {
			return labelValue(raw)
		}
	}
	return id
}

// labelValue writes a value in a label: a string as it is, anything else
// as JSON.
func labelValue(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// uniqueValues returns the values of the constraints that data holds (a
// constraint of which data lacks an element holds none), ordered by
// constraint and hash.
func (n *nodeKind) uniqueValues(data map[string]json.RawMessage) []store.UniqueValue {
	var out []store.UniqueValue
	for _, c := range n.constraints {
		if h, ok := c.hash(data); ok {
			out = append(out, store.UniqueValue{Constraint: c.id, Hash: h})
		}
	}
	slices.SortFunc(out, func(a, b store.UniqueValue) int {
		if a.Constraint != b.Constraint {
			return strings.Compare(a.Constraint, b.Constraint)
		}
		return strings.Compare(string(a.Hash), string(b.Hash))
	})
	return out
}

// hash returns the SHA-256 of the constraint's values in data, written as
// a JSON list of canonical values; false when data lacks one.
func (c constraint) hash(data map[string]json.RawMessage) ([]byte, bool) {
	vals := make([]json.RawMessage, len(c.elements))
	for i, e := range c.elements {
		raw, ok := data[e]
		if !ok {
			return nil, false
		}
		vals[i] = raw
	}
	b, _ := json.Marshal(vals)
	h := sha256.Sum256(b)
	return h[:], true
}

// constraint returns the node's constraint of the id.
func (n *nodeKind) constraint(id string) (constraint, bool) {
	for _, c := range n.constraints {
		if c.id == id {
			return c, true
		}
	}
	return constraint{}, false
}

// node returns the node kind of the full name.
func (c *compiled) node(name string) (*nodeKind, bool) {
	n, ok := c.nodes[name]
	return n, ok
}

// kindIDs returns the ids of the nodes whose objects a query of the kind
// (a node or a generic) lists.
func (c *compiled) kindIDs(name string) ([]string, bool) {
	if n, ok := c.nodes[name]; ok {
		return []string{n.kind.ID}, true
	}
	k, ok := c.schema.Kind(name)
	if !ok || !k.Generic {
		return nil, false
	}
	var ids []string
	for _, node := range c.schema.Inheritors(name) {
		if n, ok := c.nodes[node]; ok {
			ids = append(ids, n.kind.ID)
		}
	}
	return ids, true
}

// peerAccepts reports whether an object of the node kind may be a peer of
// the relationship r: r's peer is the node or a generic it inherits from.
func (c *compiled) peerAccepts(r schema.Relationship, node *nodeKind) bool {
	name := node.kind.FullName()
	return r.Peer == name || slices.Contains(c.schema.Inheritors(r.Peer), name)
}
