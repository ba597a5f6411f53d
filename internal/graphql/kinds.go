package graphql

import (
	"encoding/json"
	"fmt"
	"strings"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/schema"
)

// The part of the schema generated from the schema of kinds of the branch
// addressed, in Infrahub's form. For every node kind K (IpamVLAN): the
// object type K, the query K(ids, <attribute>__value, <relationship>__ids,
// limit, offset) answering PaginatedK {count edges {node}}, and the
// mutations KCreate(data: KCreateInput!), KUpdate(data: KUpdateInput!) and
// KDelete(data: DeleteInput!) answering KCreate, KUpdate and KDelete {ok
// object}. For every generic G: the interface G, which the nodes that
// inherit from it implement, and the query G over their objects. An
// attribute is an object {value} typed by its kind; a relationship of
// cardinality one is EdgedP {node}, of cardinality many PaginatedP {count
// edges {node}}, P being its peer.

// An attributeType is how the API shows and takes the values of one kind
// of attribute.
type attributeType struct {
	// name is the type of the values shown: TextAttribute {value}. Its
	// inputs are name+"Create" and name+"Update".
	name string
	// value is the GraphQL type of the value.
	value string
	// what says what a value is, for descriptions.
	what string
}

// attributeTypes are the types of each attribute kind's values. Number
// values are BigInt, 64 bits, as the schema's Number is: GraphQL's Int has
// 32. List, JSON and Any values are any JSON value (GenericScalar, as
// Infrahub names it).
var attributeTypes = map[schema.AttributeKind]attributeType{
	schema.Text:     {"TextAttribute", "String", "a string"},
	schema.Number:   {"NumberAttribute", "BigInt", "a whole number of 64 bits, signed"},
	schema.Boolean:  {"BooleanAttribute", "Boolean", "true or false"},
	schema.Dropdown: {"DropdownAttribute", "String", "one of the attribute's choices"},
	schema.List:     {"ListAttribute", "GenericScalar", "a list of JSON values"},
	schema.JSON:     {"JSONAttribute", "GenericScalar", "any JSON value"},
	schema.Any:      {"AnyAttribute", "GenericScalar", "any JSON value"},
}

// attributeKindOrder lists the attribute kinds in the order their types
// are declared.
var attributeKindOrder = []schema.AttributeKind{schema.Text, schema.Number, schema.Boolean, schema.Dropdown, schema.List, schema.JSON, schema.Any}

// filterable reports whether objects can be filtered on an attribute's
// value (<attribute>__value): scalars only.
func filterable(k schema.AttributeKind) bool {
	switch k {
	case schema.Text, schema.Number, schema.Boolean, schema.Dropdown:
		return true
	}
	return false
}

// kindsCommonTypes are the types every schema of kinds uses; a Number
// attribute's inputs take from_pool.
func kindsCommonTypes() string {
	var b strings.Builder
	b.WriteString(`
"Any JSON value: the value of a List, JSON or Any attribute."
scalar GenericScalar

"A peer of a relationship, by its id."
input RelatedNodeInput {
	id: ID!
}

"The object to delete, by its id."
input DeleteInput {
	id: ID!
}

"The number pool a Number attribute takes its value from (from_pool): the pool's lowest free number in the object's division, as the write leaves the object."
input GenericPoolInput {
	"The pool's id."
	id: ID!
	"Names the request: asking again under it, in the same division, gives the same number. By default the object's id."
	identifier: String
}
`)
	for _, k := range attributeKindOrder {
		t := attributeTypes[k]
		fromPool := map[string]string{}
		if k == schema.Number {
			fromPool["Create"] = "\t" + gqlString("A pool to take the value from, when value is not given.") + "\n\tfrom_pool: GenericPoolInput\n"
			fromPool["Update"] = "\t" + gqlString("A pool to take the value from: an object that holds a number keeps it; with value: null, it is given the lowest free number of its division as the update leaves it, and its old number is freed.") + "\n\tfrom_pool: GenericPoolInput\n"
		}
		fmt.Fprintf(&b, "\n%s\ntype %s {\n\t%s\n\tvalue: %s\n}\n", gqlString(fmt.Sprintf("The value of a %s attribute: %s.", k, t.what)),
			t.name, gqlString("Null when the object holds none."), t.value)
		fmt.Fprintf(&b, "\n%s\ninput %sCreate {\n\tvalue: %s\n%s}\n", gqlString(fmt.Sprintf("The value of a %s attribute of a new object. Without one, the attribute takes its default value, if it has one.", k)),
			t.name, t.value, fromPool["Create"])
		fmt.Fprintf(&b, "\n%s\ninput %sUpdate {\n\tvalue: %s\n%s}\n", gqlString(fmt.Sprintf("A new value of a %s attribute; null removes an optional attribute's value.", k)),
			t.name, t.value, fromPool["Update"])
	}
	return b.String()
}

// addKindsCommon adds the types every schema of kinds uses, with the
// resolvers of the attributes' values; a Number attribute's inputs take
// from_pool.
func addKindsCommon(b *engine.Builder) {
	b.Types("kinds", kindsCommonTypes())
	for _, t := range attributeTypes {
		properties(b, t.name, map[string]func(attributeValue) any{"value": func(v attributeValue) any { return v.value }})
	}
}

// attributeValue is an attribute of an object, as its type's value field
// reads it: nil when the object holds none.
type attributeValue struct{ value any }

// kindsPart is the part of the schema generated from one schema of kinds,
// as it is being added to a builder.
type kindsPart struct {
	b        *engine.Builder
	branches *branch.Service
	// pools fills the attributes given from_pool.
	pools *numbers.Service
	kinds schema.Schema
	// implements lists, for each node, the generics it inherits from,
	// directly or not.
	implements map[string][]string
}

// addKinds adds the types, queries and mutations of the kinds of the
// schema, with their resolvers, which call branches on the branch of the
// request, and pools for the values asked from a pool.
func addKinds(b *engine.Builder, branches *branch.Service, pools *numbers.Service, kinds schema.Schema) {
	p := &kindsPart{b: b, branches: branches, pools: pools, kinds: kinds, implements: map[string][]string{}}
	all := kinds.Kinds()
	for _, k := range all {
		if k.Generic {
			for _, node := range kinds.Inheritors(k.FullName()) {
				p.implements[node] = append(p.implements[node], k.FullName())
			}
		}
	}
	for _, k := range all {
		p.addKind(k)
	}
}

// addKind adds what the kind k brings to the schema.
func (p *kindsPart) addKind(k schema.Kind) {
	name := k.FullName()
	var sdl strings.Builder
	p.objectType(&sdl, k)
	fmt.Fprintf(&sdl, "\n%s\ntype Paginated%s {\n\t%s\n\tcount: Int!\n\tedges: [Edged%[2]s!]!\n}\n",
		gqlString("A page of objects of "+name+"."), name, gqlString("How many objects match, in all pages."))
	fmt.Fprintf(&sdl, "\n%s\ntype Edged%s {\n\tnode: %[2]s!\n}\n", gqlString("An object of "+name+"."), name)
	if !k.Generic {
		p.mutationTypes(&sdl, k)
	}
	p.b.Types(name, sdl.String())
	p.addQuery(k)
	p.addListResolvers(name)
	if k.Generic {
		p.b.ResolveType(name, func(v any) string { return v.(branch.Object).Kind })
		return
	}
	p.addObjectResolvers(name)
	p.addMutations(k)
}

// objectType writes the object type of a node, or the interface of a
// generic, with its elements.
func (p *kindsPart) objectType(w *strings.Builder, k schema.Kind) {
	name := k.FullName()
	if k.Generic {
		fmt.Fprintf(w, "\n%s\ninterface %s {\n", gqlString(fmt.Sprintf("The objects of the nodes that inherit from the generic %s.", name)), name)
	} else {
		implements := ""
		if gs := p.implements[name]; len(gs) > 0 {
			implements = " implements " + strings.Join(gs, " & ")
		}
		fmt.Fprintf(w, "\n%s\ntype %s%s {\n", gqlString(kindDescription(k)), name, implements)
	}
	fmt.Fprintf(w, "\t%s\n\tid: ID!\n", gqlString("The object's id, a UUID."))
	fmt.Fprintf(w, "\t%s\n\tdisplay_label: String!\n", gqlString(labelDescription(k)))
	for _, a := range p.kinds.Attributes(name) {
		fmt.Fprintf(w, "\t%s\n\t%s: %s!\n", gqlString(attributeDescription(a)), a.Name, attributeTypes[a.Kind].name)
	}
	for _, r := range p.kinds.Relationships(name) {
		if r.Cardinality == schema.One {
			fmt.Fprintf(w, "\t%s\n\t%s: Edged%s\n", gqlString(relationshipDescription(r)+" Null when it has none."), r.Name, r.Peer)
		} else {
			fmt.Fprintf(w, "\t%s\n\t%s(limit: Int, offset: Int): Paginated%s!\n", gqlString(relationshipDescription(r)+pageDescription), r.Name, r.Peer)
		}
	}
	w.WriteString("}\n")
}

// pageDescription says how limit and offset page a list of objects.
var pageDescription = fmt.Sprintf(" In id order: limit of them (at most %d, the default) from offset.", branch.MaxPage)

// mutationTypes writes the inputs and the answers of a node's mutations.
func (p *kindsPart) mutationTypes(w *strings.Builder, k schema.Kind) {
	name := k.FullName()
	for _, op := range []string{"Create", "Update"} {
		var fields strings.Builder
		if op == "Update" {
			fmt.Fprintf(&fields, "\t%s\n\tid: ID!\n", gqlString("The id of the object to change."))
		}
		p.inputFields(&fields, name, op)
		if fields.Len() > 0 {
			fmt.Fprintf(w, "\n%s\ninput %s%sInput {\n%s}\n", gqlString(inputDescription(name, op)), name, op, fields.String())
		}
	}
	for _, op := range []string{"Create", "Update", "Delete"} {
		fmt.Fprintf(w, "\n%s\ntype %s%s {\n\tok: Boolean!\n\t%s\n\tobject: %[2]s\n}\n", gqlString(answerDescription(name, op)), name, op, gqlString(answerObjectDescription(op)))
	}
}

// inputFields writes the fields of the input of a node's create or update
// (op): each attribute's value and each relationship's peers.
func (p *kindsPart) inputFields(w *strings.Builder, kind, op string) {
	for _, a := range p.kinds.Attributes(kind) {
		fmt.Fprintf(w, "\t%s\n\t%s: %s%s\n", gqlString(attributeDescription(a)), a.Name, attributeTypes[a.Kind].name, op)
	}
	for _, r := range p.kinds.Relationships(kind) {
		d := relationshipDescription(r)
		if op == "Update" {
			d += " Null (or [] for cardinality many) removes an optional relationship's peers."
		}
		if r.Cardinality == schema.One {
			fmt.Fprintf(w, "\t%s\n\t%s: RelatedNodeInput\n", gqlString(d), r.Name)
		} else {
			if op == "Update" {
				d += " The list given replaces the peers."
			}
			fmt.Fprintf(w, "\t%s\n\t%s: [RelatedNodeInput!]\n", gqlString(d), r.Name)
		}
	}
}

// filterArguments are the arguments of the query of a kind.
func (p *kindsPart) filterArguments(kind string) string {
	args := []string{"ids: [ID!]"}
	for _, a := range p.kinds.Attributes(kind) {
		if filterable(a.Kind) {
			args = append(args, fmt.Sprintf("%s__value: %s", a.Name, attributeTypes[a.Kind].value))
		}
	}
	for _, r := range p.kinds.Relationships(kind) {
		args = append(args, r.Name+"__ids: [ID!]")
	}
	return strings.Join(append(args, "limit: Int", "offset: Int"), ", ")
}

// gqlString writes s as a GraphQL string: JSON's escapes are GraphQL's.
func gqlString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
