package graphql

import (
	"context"
	"encoding/json"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/schema"
)

// The schema of kinds of the branch addressed: the query schema, and
// schemaLoad, which applies a schema file to it. Operators only.
const schemaOfKindsTypes = `
"The schema of kinds of a branch: its generics and nodes, each with its elements and their ids."
type Schema {
	"The generics, then the nodes."
	kinds: [SchemaKind!]!
	"The schema as a schema file in YAML, with every id: schemaLoad and ipam schema load take it back."
	yaml: String!
	"The schema as a schema file in JSON, with every id."
	json: String!
}

"A generic or a node."
type SchemaKind {
	id: ID!
	"The full name, namespace then name: IpamVLAN."
	kind: String!
	namespace: String!
	name: String!
	generic: Boolean!
	"The template of its objects' labels, such as {{ name__value }}."
	display_label: String
	inherit_from: [String!]!
	"Of a generic: the nodes that inherit from it, directly or not."
	inheritors: [String!]!
	"Its attributes, the inherited ones first."
	attributes: [SchemaAttribute!]!
	"Its relationships, the inherited ones first."
	relationships: [SchemaRelationship!]!
	"Its own uniqueness constraints: relationships and <attribute>__value paths."
	uniqueness_constraints: [[String!]!]!
}

type SchemaAttribute {
	id: ID!
	name: String!
	"Text, Number, Boolean, Dropdown, List, JSON or Any."
	kind: String!
	optional: Boolean!
	unique: Boolean!
	choices: [String!]!
	default_value: GenericScalar
	"The kind that declares it: the kind itself, or a generic it inherits from."
	declared_by: String!
}

type SchemaRelationship {
	id: ID!
	name: String!
	peer: String!
	"one or many."
	cardinality: String!
	optional: Boolean!
	declared_by: String!
}

"What a schema load did, element by element: added, then changed, then removed."
type SchemaLoadResult {
	added: [SchemaChange!]!
	changed: [SchemaChange!]!
	removed: [SchemaChange!]!
}

type SchemaChange {
	"generic, node, attribute or relationship."
	element: String!
	id: ID!
	"The full name of the kind, or of the kind that declares the attribute or relationship."
	kind: String!
	"The attribute's or relationship's name; null for a kind."
	name: String
	"The fields changed."
	fields: [SchemaFieldChange!]!
	"The change on one line, as ipam schema load prints it."
	summary: String!
}

type SchemaFieldChange {
	field: String!
	before: String
	after: String
}
`

// A kindView is a kind with the schema it is of, which knows its inherited
// elements and inheritors.
type kindView struct {
	kind    schema.Kind
	schemas schema.Schema
}

func addSchemaOfKinds(b *engine.Builder, branches *branch.Service) {
	b.Types("schema", schemaOfKindsTypes)
	b.Query(`"The schema of kinds of the branch addressed."
		schema: Schema!`,
		resolve(func(ctx context.Context, st *requestState, _ engine.Params) (any, error) {
			return branches.Schema(ctx, st.branch)
		}))
	b.Mutation(`"Applies a schema file (YAML or JSON, in Infrahub's form) to the schema of kinds of the branch addressed, all or nothing: new elements are added, an element given with its id and a new name is renamed, one with state: absent removed. A change that the branch's objects would violate is refused, naming the object and the field."
		schemaLoad(schema: String!): SchemaLoadResult!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			f, err := schema.Parse("schema", []byte(stringArg(p.Args, "schema")))
			if err != nil {
				return nil, invalidField("schema", "%s", err.Error())
			}
			return branches.LoadSchema(ctx, st.actor, st.branch, f)
		}))
	addSchemaFields(b)
	addSchemaChangeFields(b)
}

func addSchemaFields(b *engine.Builder) {
	properties(b, "Schema", map[string]func(schema.Schema) any{
		"kinds": func(s schema.Schema) any {
			var out []kindView
			for _, k := range s.Kinds() {
				out = append(out, kindView{k, s})
			}
			return out
		},
		"yaml": func(s schema.Schema) any { return string(s.YAML()) },
		"json": func(s schema.Schema) any { return string(s.JSON()) },
	})
	properties(b, "SchemaKind", map[string]func(kindView) any{
		"id":                     func(v kindView) any { return v.kind.ID },
		"kind":                   func(v kindView) any { return v.kind.FullName() },
		"namespace":              func(v kindView) any { return v.kind.Namespace },
		"name":                   func(v kindView) any { return v.kind.Name },
		"generic":                func(v kindView) any { return v.kind.Generic },
		"display_label":          func(v kindView) any { return optional(v.kind.DisplayLabel) },
		"inherit_from":           func(v kindView) any { return v.kind.InheritFrom },
		"inheritors":             func(v kindView) any { return v.schemas.Inheritors(v.kind.FullName()) },
		"attributes":             func(v kindView) any { return v.schemas.Attributes(v.kind.FullName()) },
		"relationships":          func(v kindView) any { return v.schemas.Relationships(v.kind.FullName()) },
		"uniqueness_constraints": func(v kindView) any { return v.kind.UniquenessConstraints },
	})
	properties(b, "SchemaAttribute", map[string]func(schema.Attribute) any{
		"id":            func(a schema.Attribute) any { return a.ID },
		"name":          func(a schema.Attribute) any { return a.Name },
		"kind":          func(a schema.Attribute) any { return string(a.Kind) },
		"optional":      func(a schema.Attribute) any { return a.Optional },
		"unique":        func(a schema.Attribute) any { return a.Unique },
		"choices":       func(a schema.Attribute) any { return a.Choices },
		"default_value": func(a schema.Attribute) any { return defaultValue(a.DefaultValue) },
		"declared_by":   func(a schema.Attribute) any { return a.DeclaredBy },
	})
	properties(b, "SchemaRelationship", map[string]func(schema.Relationship) any{
		"id":          func(r schema.Relationship) any { return r.ID },
		"name":        func(r schema.Relationship) any { return r.Name },
		"peer":        func(r schema.Relationship) any { return r.Peer },
		"cardinality": func(r schema.Relationship) any { return string(r.Cardinality) },
		"optional":    func(r schema.Relationship) any { return r.Optional },
		"declared_by": func(r schema.Relationship) any { return r.DeclaredBy },
	})
}

// defaultValue is an attribute's default value, canonical JSON, as the
// JSON value it is; null when there is none.
func defaultValue(text string) any {
	if text == "" {
		return nil
	}
	return json.RawMessage(text)
}

func addSchemaChangeFields(b *engine.Builder) {
	byOp := func(op schema.Op) func(schema.Changes) any {
		return func(cs schema.Changes) any {
			out := []schema.Change{}
			for _, c := range cs {
				if c.Op == op {
					out = append(out, c)
				}
			}
			return out
		}
	}
	properties(b, "SchemaLoadResult", map[string]func(schema.Changes) any{
		"added": byOp(schema.Added), "changed": byOp(schema.Changed), "removed": byOp(schema.Removed),
	})
	properties(b, "SchemaChange", map[string]func(schema.Change) any{
		"element": func(c schema.Change) any { return c.Type.String() },
		"id":      func(c schema.Change) any { return c.ID },
		"kind":    func(c schema.Change) any { return c.Kind },
		"name":    func(c schema.Change) any { return optional(c.Name) },
		"fields":  func(c schema.Change) any { return c.Fields },
		"summary": func(c schema.Change) any { return c.String() },
	})
	properties(b, "SchemaFieldChange", map[string]func(schema.FieldChange) any{
		"field":  func(f schema.FieldChange) any { return f.Field },
		"before": func(f schema.FieldChange) any { return optional(f.Before) },
		"after":  func(f schema.FieldChange) any { return optional(f.After) },
	})
}
