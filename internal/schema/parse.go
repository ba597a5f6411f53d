package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Version is the version of the schema files' form.
const Version = "1.0"

// A File is a schema file as Parse reads it: the kinds it declares, changes
// to a schema that Schema.Apply makes.
//
// A file is incremental, as Infrahub's: a kind written changes the fields
// it writes (an empty value clears one) and the elements it lists; the
// kinds, attributes and relationships a file omits stay, and only
// state: absent removes one. An attribute or a relationship written is
// whole: the fields it omits take their defaults.
type File struct {
	// Name is the file's name, which messages begin with.
	Name string
	// Kinds are the file's generics, then its nodes, in its order.
	Kinds []KindSpec
}

// A KindSpec is a generic or a node as a file writes it.
type KindSpec struct {
	// ID is the kind's id, "" when the file gives none: Apply then finds
	// the kind by its name. An id names the kind to rename.
	ID string
	// Absent removes the kind (state: absent).
	Absent    bool
	Generic   bool
	Namespace string
	Name      string
	// Label is how people read the kind's name ("VLAN"); nil when the
	// file does not write it, "" to clear it.
	Label *string
	// DisplayLabel is nil when the file does not write it.
	DisplayLabel *string
	// InheritFrom are the full names of generics; nil when the file does
	// not write inherit_from, empty when it writes an empty list.
	InheritFrom   []string
	Attributes    []AttributeSpec
	Relationships []RelationshipSpec
	// UniquenessConstraints are nil when the file does not write them.
	UniquenessConstraints [][]string
}

// An AttributeSpec is an attribute as a file writes it.
type AttributeSpec struct {
	ID     string
	Absent bool
	Name   string
	// Label is how people read the name ("VLAN ID"); "" for none.
	Label    string
	Kind     AttributeKind
	Optional bool
	Unique   bool
	Choices  []string
	// DefaultValue is JSON; "" for none.
	DefaultValue string
}

// A RelationshipSpec is a relationship as a file writes it; Parse sets the
// defaults, cardinality many and optional.
type RelationshipSpec struct {
	ID     string
	Absent bool
	Name   string
	// Label is how people read the name; "" for none.
	Label       string
	Peer        string
	Cardinality Cardinality
	Optional    bool
}

// An Error is one mistake of a schema file, or of the schema a load would
// make.
type Error struct {
	// File is the name of the file.
	File string
	// Kind is the full name of the kind, or its place in the file, such
	// as nodes[2], while it has none; "" for the file as a whole.
	Kind string
	// Element is the name of the attribute or relationship, or its place,
	// such as attributes[3]; "" for the kind as a whole.
	Element string
	// Field is the field the mistake is in (kind, peer, inherit_from…);
	// "" for the element as a whole.
	Field string
	// Message is the whole message; it starts with the field.
	Message string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File + ": ")
	}
	if e.Kind != "" {
		b.WriteString(e.Kind)
		if e.Element != "" {
			b.WriteString("." + e.Element)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Errors are the mistakes of a load, one a line.
type Errors []*Error

func (errs Errors) Error() string {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap lets errors.As find each Error.
func (errs Errors) Unwrap() []error {
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return out
}

// The known fields of each mapping, in the order messages list them.
var (
	fileFields         = []string{"version", "generics", "nodes"}
	kindFields         = []string{"id", "state", "name", "namespace", "label", "inherit_from", "display_label", "attributes", "relationships", "uniqueness_constraints"}
	attributeFields    = []string{"id", "state", "name", "label", "kind", "optional", "unique", "choices", "default_value"}
	relationshipFields = []string{"id", "state", "name", "label", "peer", "cardinality", "optional"}
	choiceFields       = []string{"name"}
)

// Parse reads a schema file, YAML or JSON, named file in messages. It
// returns the file's kinds, each checked by the rules that need neither the
// schema it will change nor data; or, when any is refused, an Errors naming
// every mistake (up to MaxErrors) by file, kind, element and field.
func Parse(file string, data []byte) (File, error) {
	p := &parser{file: file, budget: MaxValues}
	if len(data) > MaxBytes {
		p.add(where{}, "", "the file is larger than %d MiB; split it into several files", MaxBytes>>20)
		return File{}, p.errs
	}
	root, msg := p.decode(data)
	if msg != "" {
		p.add(where{}, "", "%s", msg)
	}
	if root == nil {
		return File{}, p.errs
	}
	f := p.schemaFile(root)
	if len(p.errs) > 0 {
		if p.full {
			p.errs = append(p.errs, &Error{File: file, Message: fmt.Sprintf("stopped after %d mistakes; correct these first", MaxErrors)})
		}
		return File{}, p.errs
	}
	return f, nil
}

// where is the kind and the element a mistake is in.
type where struct {
	kind, element string
}

// parser collects the mistakes of a file.
type parser struct {
	file   string
	errs   Errors
	full   bool // MaxErrors reached: the rest is not reported
	budget int  // values left to read; at 0 the file is refused
}

// add records a mistake, up to MaxErrors, and none once the file holds
// too many values: what follows was read in part.
func (p *parser) add(w where, field, format string, args ...any) {
	if p.budget < 0 {
		return
	}
	if len(p.errs) == MaxErrors {
		p.full = true
		return
	}
	p.errs = append(p.errs, &Error{File: p.file, Kind: w.kind, Element: w.element, Field: field, Message: fmt.Sprintf(format, args...)})
}

// problems records the problems whose field had no mistake since before:
// a field that could not be read is not checked.
func (p *parser) problems(w where, before int, ps ...problem) {
	reported := p.errs[before:]
	for _, pr := range ps {
		if !slices.ContainsFunc(reported, func(e *Error) bool {
			return e.Kind == w.kind && e.Element == w.element && e.Field == pr.field
		}) {
			p.add(w, pr.field, "%s", pr.message)
		}
	}
}

// stopped reports whether the file is refused whatever follows.
func (p *parser) stopped() bool { return p.full || p.budget < 0 }

// read counts a value read; it reports false when the file holds more
// than MaxValues, and refuses the file.
func (p *parser) read() bool {
	if p.budget == 0 {
		p.add(where{}, "", "the file holds more than %d values, its aliases expanded; write it without aliases or split it", MaxValues)
	}
	p.budget--
	return p.budget >= 0
}

// decode returns the root of the file's one document.
func (p *parser) decode(data []byte) (*yaml.Node, string) {
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
		// JSON has escapes YAML lacks (\/), so JSON is read as JSON.
		return jsonNode(json.NewDecoder(bytes.NewReader(trimmed))), ""
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root *yaml.Node
	for p.read() {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")
		}
		if len(doc.Content) == 0 || isNull(resolve(doc.Content[0])) {
			continue
		}
		if root != nil {
			return nil, "the file holds more than one YAML document; write one schema a file"
		}
		root = resolve(doc.Content[0])
	}
	if p.stopped() {
		return nil, ""
	}
	if root == nil {
		return nil, `the file holds no schema; write version: "1.0", then generics: and nodes:`
	}
	return root, ""
}

// jsonNode reads the next JSON value of dec, which is valid, as a YAML
// node: JSON is read in its own order, its numbers as written.
func jsonNode(dec *json.Decoder) *yaml.Node {
	dec.UseNumber()
	tok, _ := dec.Token()
	switch t := tok.(type) {
	case json.Delim:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if t == '{' {
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
		}
		for dec.More() {
			if n.Kind == yaml.MappingNode {
				key, _ := dec.Token()
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key.(string)})
			}
			n.Content = append(n.Content, jsonNode(dec))
		}
		dec.Token() // the closing delimiter
		return n
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t}
	case json.Number:
		tag := "!!float"
		if _, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			tag = "!!int"
		} else if _, err := strconv.ParseUint(string(t), 10, 64); err == nil {
			tag = "!!int"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(t)}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(t)}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}

// schemaFile reads the file's root.
func (p *parser) schemaFile(root *yaml.Node) File {
	f := File{Name: p.file}
	if root.Kind != yaml.MappingNode {
		p.add(where{}, "", "the file must be a mapping of version, generics and nodes, got %s", describe(root))
		return f
	}
	fields := p.fields(where{}, root, fileFields, "a schema file")
	switch v := fields["version"]; {
	case isNull(v):
		p.add(where{}, "version", `version is required; write version: "1.0"`)
	case v.Kind != yaml.ScalarNode || v.Value != Version:
		p.add(where{}, "version", `version must be "1.0", got %s`, describe(v))
	case v.Tag != "!!str":
		p.add(where{}, "version", `version must be the string "1.0"; quote it`)
	}
	generics := p.list(where{}, "generics", fields["generics"], "a list of generics")
	nodes := p.list(where{}, "nodes", fields["nodes"], "a list of nodes")
	if n := len(generics) + len(nodes); n > MaxKinds {
		p.add(where{}, "", "the file declares %d kinds, more than %d", n, MaxKinds)
		return f
	}
	kinds := map[string]string{} // full name → where the file declares it
	ids := map[string]string{}   // id → what holds it
	for i, n := range generics {
		if p.stopped() {
			break
		}
		f.Kinds = append(f.Kinds, p.kind(n, fmt.Sprintf("generics[%d]", i), true, kinds, ids))
	}
	for i, n := range nodes {
		if p.stopped() {
			break
		}
		f.Kinds = append(f.Kinds, p.kind(n, fmt.Sprintf("nodes[%d]", i), false, kinds, ids))
	}
	return f
}

// kind reads a generic or a node at place (generics[1]).
func (p *parser) kind(n *yaml.Node, place string, generic bool, kinds, ids map[string]string) KindSpec {
	ks := KindSpec{Generic: generic}
	w := where{kind: place}
	what := "a node"
	if generic {
		what = "a generic"
	}
	if n.Kind != yaml.MappingNode {
		p.add(w, "", "must be %s, a mapping such as {name: VLAN, namespace: Ipam}, got %s", what, describe(n))
		return ks
	}
	// Mistakes are named by the kind's full name when it has one.
	ns, nsOK := plainString(lookup(n, "namespace"))
	name, nameOK := plainString(lookup(n, "name"))
	_, badNS := namespaceProblem(ns)
	_, badName := kindNameProblem(name)
	if full := ns + name; nsOK && nameOK && !badNS && !badName {
		if other, twice := kinds[full]; twice {
			p.add(w, "name", "%s is declared twice, as %s and %s; declare each kind once", full, other, place)
		} else {
			kinds[full] = place
			w.kind = full
		}
	}
	before := len(p.errs)
	fields := p.fields(w, n, kindFields, what)
	ks.Namespace = p.str(w, "namespace", fields["namespace"])
	ks.Name = p.str(w, "name", fields["name"])
	if pr, bad := namespaceProblem(ks.Namespace); bad {
		p.problems(w, before, pr)
	}
	if pr, bad := kindNameProblem(ks.Name); bad {
		p.problems(w, before, pr)
	}
	ks.ID = p.id(w, fields["id"], ids)
	ks.Absent = p.state(w, fields["state"])
	if v := fields["label"]; !isNull(v) {
		label := p.humanLabel(w, before, v)
		ks.Label = &label
	}
	if v := fields["display_label"]; !isNull(v) {
		label := p.str(w, "display_label", v)
		if _, pr := parseLabel(label); pr != nil {
			p.problems(w, before, *pr)
		}
		ks.DisplayLabel = &label
	}
	ks.InheritFrom = p.kindNames(w, "inherit_from", fields["inherit_from"])
	attributes := p.list(w, "attributes", fields["attributes"], "a list of attributes")
	relationships := p.list(w, "relationships", fields["relationships"], "a list of relationships")
	if n := len(attributes) + len(relationships); n > MaxElements {
		p.add(w, "", "declares %d attributes and relationships, more than %d", n, MaxElements)
		return ks
	}
	names := map[string]string{} // element name → where the kind declares it
	for i, a := range attributes {
		if p.stopped() {
			return ks
		}
		ks.Attributes = append(ks.Attributes, p.attribute(w, a, i, names, ids))
	}
	for i, r := range relationships {
		if p.stopped() {
			return ks
		}
		ks.Relationships = append(ks.Relationships, p.relationship(w, r, i, names, ids))
	}
	ks.UniquenessConstraints = p.constraints(w, fields["uniqueness_constraints"], generic)
	return ks
}

// element returns where the mistakes of the attribute or relationship n,
// at place (attributes[2]) of the kind at kw, are: its name when it has
// one, else its place.
func (p *parser) element(kw where, n *yaml.Node, place, what string, names map[string]string) where {
	name, ok := plainString(lookup(n, "name"))
	if _, bad := elementNameProblem(what, name); !ok || bad {
		return where{kw.kind, place}
	}
	if other, twice := names[name]; twice {
		p.add(where{kw.kind, place}, "name", "%s is the name of %s and %s; name each element of a kind once", name, other, place)
		return where{kw.kind, place}
	}
	names[name] = place
	return where{kw.kind, name}
}

// attribute reads the attribute at index i of the kind at w.
func (p *parser) attribute(kw where, n *yaml.Node, i int, names, ids map[string]string) AttributeSpec {
	var a AttributeSpec
	place := fmt.Sprintf("attributes[%d]", i)
	if n.Kind != yaml.MappingNode {
		p.add(where{kw.kind, place}, "", "must be an attribute, a mapping such as {name: vlan_id, kind: Number}, got %s", describe(n))
		return a
	}
	w := p.element(kw, n, place, "an attribute", names)
	before := len(p.errs)
	fields := p.fields(w, n, attributeFields, "an attribute")
	a.Name = p.str(w, "name", fields["name"])
	if pr, bad := elementNameProblem("an attribute", a.Name); bad {
		p.problems(w, before, pr)
	}
	a.ID = p.id(w, fields["id"], ids)
	a.Absent = p.state(w, fields["state"])
	a.Label = p.humanLabel(w, before, fields["label"])
	a.Kind = AttributeKind(p.str(w, "kind", fields["kind"]))
	a.Optional = p.boolean(w, "optional", fields["optional"], false)
	a.Unique = p.boolean(w, "unique", fields["unique"], false)
	a.Choices = p.choices(w, fields["choices"])
	if v := fields["default_value"]; !isNull(v) {
		a.DefaultValue = p.value(w, v)
	}
	if a.Absent && a.Kind == "" {
		return a
	}
	if pr, bad := attributeKindProblem(a.Kind); bad {
		p.problems(w, before, pr)
		return a
	}
	p.problems(w, before, attributeProblems(a.Kind, a.Choices, a.DefaultValue)...)
	return a
}

// relationship reads the relationship at index i of the kind at w.
func (p *parser) relationship(kw where, n *yaml.Node, i int, names, ids map[string]string) RelationshipSpec {
	r := RelationshipSpec{Cardinality: Many, Optional: true}
	place := fmt.Sprintf("relationships[%d]", i)
	if n.Kind != yaml.MappingNode {
		p.add(where{kw.kind, place}, "", "must be a relationship, a mapping such as {name: site, peer: LocationSite}, got %s", describe(n))
		return r
	}
	w := p.element(kw, n, place, "a relationship", names)
	before := len(p.errs)
	fields := p.fields(w, n, relationshipFields, "a relationship")
	r.Name = p.str(w, "name", fields["name"])
	if pr, bad := elementNameProblem("a relationship", r.Name); bad {
		p.problems(w, before, pr)
	}
	r.ID = p.id(w, fields["id"], ids)
	r.Absent = p.state(w, fields["state"])
	r.Label = p.humanLabel(w, before, fields["label"])
	r.Peer = p.str(w, "peer", fields["peer"])
	if v := fields["cardinality"]; !isNull(v) {
		r.Cardinality = Cardinality(p.str(w, "cardinality", v))
	}
	r.Optional = p.boolean(w, "optional", fields["optional"], true)
	switch {
	case r.Peer == "" && !r.Absent:
		p.problems(w, before, problemf("peer", "peer is required: the full name of a node or a generic, such as LocationSite"))
	case r.Peer != "":
		if pr, bad := fullNameProblem("peer", r.Peer); bad {
			p.problems(w, before, pr)
		}
	}
	if pr, bad := cardinalityProblem(r.Cardinality); bad {
		p.problems(w, before, pr)
	}
	return r
}

// humanLabel reads a label (label:), "" when n is missing or null.
func (p *parser) humanLabel(w where, before int, n *yaml.Node) string {
	label := p.str(w, "label", n)
	if pr, bad := humanLabelProblem(label); bad {
		p.problems(w, before, pr)
	}
	return label
}

// id reads an id and refuses one that the file gives twice.
func (p *parser) id(w where, n *yaml.Node, ids map[string]string) string {
	if isNull(n) {
		return ""
	}
	before := len(p.errs)
	id := p.str(w, "id", n)
	if len(p.errs) > before {
		return ""
	}
	if pr, bad := idProblem(id); bad {
		p.add(w, pr.field, "%s", pr.message)
		return ""
	}
	holder := w.kind
	if w.element != "" {
		holder += "." + w.element
	}
	if other, twice := ids[id]; twice {
		p.add(w, "id", "id %s is also the id of %s; give each element its own", quote(id), other)
		return ""
	}
	ids[id] = holder
	return id
}

// state reads state: present (the default) or absent.
func (p *parser) state(w where, n *yaml.Node) (absent bool) {
	if isNull(n) {
		return false
	}
	switch s := p.str(w, "state", n); s {
	case "present", "":
		return false
	case "absent":
		return true
	default:
		p.add(w, "state", "state %s is not one of present, absent", quote(s))
		return false
	}
}

// kindNames reads a list of kinds' full names; nil when n is missing,
// empty when it is an empty list.
func (p *parser) kindNames(w where, field string, n *yaml.Node) []string {
	if isNull(n) {
		return nil
	}
	items := p.list(w, field, n, "a list of generics such as [DcimEndpoint]")
	if items == nil && n.Kind != yaml.SequenceNode {
		return nil
	}
	if len(items) > MaxInheritFrom {
		p.add(w, field, "%s names %d generics, more than %d", field, len(items), MaxInheritFrom)
		return nil
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		f := fmt.Sprintf("%s[%d]", field, i)
		before := len(p.errs)
		name := p.item(w, field, f, item)
		switch pr, bad := fullNameProblem(f, name); {
		case len(p.errs) > before:
		case name == "":
			p.add(w, field, "%s is empty; name a generic such as DcimEndpoint", f)
		case bad:
			p.add(w, field, "%s", pr.message)
		case slices.Contains(out, name):
			p.add(w, field, "%s %s is given twice", f, quote(name))
		default:
			out = append(out, name)
		}
	}
	return out
}

// choices reads a Dropdown's choices, [{name: user}, …].
func (p *parser) choices(w where, n *yaml.Node) []string {
	items := p.list(w, "choices", n, "a list of choices such as [{name: user}, {name: voice}]")
	if len(items) > MaxChoices {
		p.add(w, "choices", "choices are %d, more than %d", len(items), MaxChoices)
		return nil
	}
	var out []string
	for i, item := range items {
		if item.Kind != yaml.MappingNode {
			p.add(w, "choices", "choices[%d] must be a mapping such as {name: user}, got %s", i, describe(item))
			continue
		}
		fields := p.fields(w, item, choiceFields, "a choice")
		if name := p.item(w, "choices", fmt.Sprintf("choices[%d].name", i), fields["name"]); name != "" {
			out = append(out, name)
		} else if isNull(fields["name"]) {
			p.add(w, "choices", "choices[%d] has no name; write {name: user}", i)
		}
	}
	return out
}

// constraints reads a kind's uniqueness constraints; nil when n is
// missing.
func (p *parser) constraints(w where, n *yaml.Node, generic bool) [][]string {
	const field = "uniqueness_constraints"
	if isNull(n) {
		return nil
	}
	items := p.list(w, field, n, `a list of lists such as [["site", "vlan_id__value"]]`)
	if items == nil && n.Kind != yaml.SequenceNode {
		return nil
	}
	switch {
	case generic && len(items) > 0:
		p.add(w, field, "uniqueness_constraints are declared on nodes; a generic has none")
		return nil
	case len(items) > MaxConstraints:
		p.add(w, field, "uniqueness_constraints are %d, more than %d", len(items), MaxConstraints)
		return nil
	}
	out := make([][]string, 0, len(items))
	var places []int // each constraint's index in the file
	for i, item := range items {
		paths := p.listAt(w, field, fmt.Sprintf("uniqueness_constraints[%d]", i), item, `a list of relationships and attribute paths such as ["site", "vlan_id__value"]`)
		if item.Kind != yaml.SequenceNode {
			continue
		}
		switch {
		case len(paths) == 0:
			p.add(w, field, "uniqueness_constraints[%d] is empty; name relationships and attribute paths such as [site, vlan_id__value]", i)
			continue
		case len(paths) > MaxConstraintElements:
			p.add(w, field, "uniqueness_constraints[%d] names %d elements, more than %d", i, len(paths), MaxConstraintElements)
			continue
		}
		var constraint []string
		for j, path := range paths {
			before := len(p.errs)
			s := p.item(w, field, fmt.Sprintf("uniqueness_constraints[%d][%d]", i, j), path)
			name, _, ok := constraintPath(s)
			switch {
			case len(p.errs) > before:
			case s == "":
				p.add(w, field, "uniqueness_constraints[%d][%d] is empty; name a relationship such as site or an attribute's path such as vlan_id__value", i, j)
			case !ok:
				p.add(w, field, "uniqueness_constraints[%d][%d] %s is not a relationship's name such as site or an attribute's path such as vlan_id__value", i, j, quote(s))
			case slices.ContainsFunc(constraint, func(c string) bool { n, _, _ := constraintPath(c); return n == name }):
				p.add(w, field, "uniqueness_constraints[%d] names %s twice", i, name)
			default:
				constraint = append(constraint, s)
			}
		}
		if len(constraint) != len(paths) {
			continue
		}
		if j := slices.IndexFunc(out, func(c []string) bool { return sameConstraint(c, constraint) }); j >= 0 {
			p.add(w, field, "uniqueness_constraints[%d] is uniqueness_constraints[%d] again", i, places[j])
			continue
		}
		out = append(out, constraint)
		places = append(places, i)
	}
	return out
}

// sameConstraint reports whether two constraints name the same elements,
// in any order.
func sameConstraint(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(s string) bool { return !slices.Contains(b, s) })
}

// value reads a default value, any JSON value, as canonical JSON.
func (p *parser) value(w where, n *yaml.Node) string {
	v, msg := p.goValue(n, 1)
	if msg != "" {
		p.add(w, "default_value", "default_value %s", msg)
		return ""
	}
	data, err := json.Marshal(v)
	if err != nil {
		p.add(w, "default_value", "default_value cannot be written as JSON: %v", err)
		return ""
	}
	out, pr := canonicalValue(string(data))
	if pr != nil {
		p.add(w, pr.field, "%s", pr.message)
		return ""
	}
	return out
}

// goValue returns the value of n as JSON's types, or what keeps it from
// being one.
func (p *parser) goValue(n *yaml.Node, depth int) (any, string) {
	n = resolve(n)
	switch {
	case !p.read():
		return nil, "is too large"
	case depth > MaxValueDepth:
		return nil, fmt.Sprintf("is nested more than %d deep", MaxValueDepth)
	}
	switch n.Kind {
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			v, msg := p.goValue(item, depth+1)
			if msg != "" {
				return nil, msg
			}
			out = append(out, v)
		}
		return out, ""
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := resolve(n.Content[i])
			if key.Kind != yaml.ScalarNode || key.Tag != "!!str" {
				return nil, fmt.Sprintf("has the key %s, which is not a string; quote it", describe(key))
			}
			if _, twice := out[key.Value]; twice {
				return nil, fmt.Sprintf("has the key %s twice", quote(key.Value))
			}
			v, msg := p.goValue(n.Content[i+1], depth+1)
			if msg != "" {
				return nil, msg
			}
			out[key.Value] = v
		}
		return out, ""
	case yaml.ScalarNode:
		return scalarValue(n)
	}
	return nil, "is an alias to nothing"
}

// scalarValue returns a YAML scalar as a JSON value.
func scalarValue(n *yaml.Node) (any, string) {
	switch n.Tag {
	case "!!null":
		return nil, ""
	case "!!str", "!!timestamp":
		return n.Value, ""
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, fmt.Sprintf("holds %s, which is not true or false", quote(n.Value))
		}
		return b, ""
	case "!!int":
		var v any
		if err := n.Decode(&v); err == nil {
			switch i := v.(type) {
			case int:
				return json.Number(strconv.Itoa(i)), ""
			case int64:
				return json.Number(strconv.FormatInt(i, 10)), ""
			case uint64:
				return json.Number(strconv.FormatUint(i, 10)), ""
			}
		}
		return nil, fmt.Sprintf("holds %s, which is not a number of 64 bits", quote(n.Value))
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Sprintf("holds %s, which is not a finite number of 64 bits", quote(n.Value))
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), ""
	}
	return nil, fmt.Sprintf("holds %s of tag %s, which JSON has no value for", quote(n.Value), n.Tag)
}

// list returns the items of the list n, nil when n is missing or not a
// list (refused). what describes the list in hints.
func (p *parser) list(w where, field string, n *yaml.Node, what string) []*yaml.Node {
	return p.listAt(w, field, field, n, what)
}

// listAt is list for a list that is an item of field, written label in
// messages.
func (p *parser) listAt(w where, field, label string, n *yaml.Node, what string) []*yaml.Node {
	switch {
	case isNull(n):
		return nil
	case n.Kind != yaml.SequenceNode:
		p.add(w, field, "%s must be %s, got %s", label, what, describe(n))
		return nil
	}
	out := make([]*yaml.Node, 0, len(n.Content))
	for _, item := range n.Content {
		if !p.read() {
			return nil
		}
		out = append(out, resolve(item))
	}
	return out
}

// fields returns the value of each field of the mapping n, refusing
// unknown and repeated ones. what names the mapping in hints.
func (p *parser) fields(w where, n *yaml.Node, known []string, what string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !p.read() {
			return out
		}
		key := resolve(n.Content[i])
		switch {
		case key.Kind != yaml.ScalarNode:
			p.add(w, "", "a field's name must be a word, got %s", describe(key))
		case !slices.Contains(known, key.Value):
			p.add(w, key.Value, "%s is not a field of %s; its fields are %s", quote(key.Value), what, strings.Join(known, ", "))
		case out[key.Value] != nil:
			p.add(w, key.Value, "%s is given twice; give it once", key.Value)
		default:
			out[key.Value] = resolve(n.Content[i+1])
		}
	}
	return out
}

// str returns the string n holds; "" when n is missing, null or refused.
func (p *parser) str(w where, field string, n *yaml.Node) string {
	return p.item(w, field, field, n)
}

// item returns the string n, an item of field written label in messages
// (inherit_from[2]), holds; "" when n is missing, null or refused.
func (p *parser) item(w where, field, label string, n *yaml.Node) string {
	switch {
	case isNull(n):
		return ""
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		return n.Value
	case n.Kind == yaml.ScalarNode:
		p.add(w, field, "%s must be a string; quote it: %s", label, quote(n.Value))
	default:
		p.add(w, field, "%s must be a string, got %s", label, describe(n))
	}
	return ""
}

// boolean returns the boolean n holds, def when n is missing or refused.
func (p *parser) boolean(w where, field string, n *yaml.Node, def bool) bool {
	switch {
	case isNull(n):
		return def
	case n.Kind == yaml.ScalarNode && n.Tag == "!!bool":
		var b bool
		if err := n.Decode(&b); err == nil {
			return b
		}
	}
	p.add(w, field, "%s must be true or false, got %s", field, describe(n))
	return def
}

// lookup returns the first value of key in the mapping n; nil when there
// is none.
func lookup(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := resolve(n.Content[i]); k.Kind == yaml.ScalarNode && k.Value == key {
			return resolve(n.Content[i+1])
		}
	}
	return nil
}

// plainString returns the string n holds, if it is one.
func plainString(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return "", false
	}
	return n.Value, true
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// isNull reports whether n is missing or null.
func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// describe names what n is, for "got …".
func describe(n *yaml.Node) string {
	switch {
	case isNull(n):
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.ScalarNode:
		return quote(n.Value)
	}
	return "an alias"
}
