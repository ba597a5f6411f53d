// Package engine runs GraphQL requests against a schema built at run time:
// gqlparser (github.com/vektah/gqlparser/v2) parses and validates, and an
// executor written after graphql-js's execution/execute.ts resolves. Its
// functions are named after the algorithms of the GraphQL specification
// (https://spec.graphql.org/October2021/#sec-Execution) so that it reads
// beside it.
//
// The engine knows nothing of what it serves: a schema is the SDL of its
// types, queries and mutations, and a resolver for every field, looked up
// by the name of its type and of the field. Introspection (__schema,
// __type, __typename) registers the same way.
package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// Params are what a resolver is given: the value of the object whose field
// it resolves, and the field's arguments, coerced to their types (Int an
// int, Float a float64, ID, String and enum values strings, lists []any,
// input objects map[string]any; an argument neither given nor defaulted is
// absent, one given null is nil).
type Params struct {
	Source any
	Args   map[string]any
	// Path is the field's path in the response.
	Path ast.Path
}

// A Resolver returns the value of a field. A nil value (untyped, or a nil
// pointer or map) is null; an error is the field's, with its path.
type Resolver func(ctx context.Context, p Params) (any, error)

// A TypeResolver names the object type of a value of an interface or a
// union.
type TypeResolver func(value any) string

// A Schema is a built schema: immutable, so that any number of requests
// may run against it while another one is built.
type Schema struct {
	ast           *ast.Schema
	resolvers     map[fieldKey]Resolver
	typeResolvers map[string]TypeResolver
	// types are the schema's named types in name order, for introspection.
	types []*ast.Definition
}

type fieldKey struct{ typ, field string }

// AST returns the schema's definitions, which must not be changed.
func (s *Schema) AST() *ast.Schema { return s.ast }

// A Builder assembles a schema from parts: type definitions in SDL, the
// fields of Query and of Mutation each with its resolver, and resolvers of
// the fields of the types.
type Builder struct {
	sources         []*ast.Source
	query, mutation []string
	resolvers       map[fieldKey]Resolver
	typeResolvers   map[string]TypeResolver
	errs            []error
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{resolvers: map[fieldKey]Resolver{}, typeResolvers: map[string]TypeResolver{}}
}

// Types adds type definitions, written in SDL; name names them in errors.
func (b *Builder) Types(name, sdl string) {
	b.sources = append(b.sources, &ast.Source{Name: name, Input: sdl})
}

// Query adds a field of the query type, written in SDL with its
// description and arguments, and its resolver.
func (b *Builder) Query(sdl string, r Resolver) { b.rootField("Query", &b.query, sdl, r) }

// Mutation adds a field of the mutation type, as Query does.
func (b *Builder) Mutation(sdl string, r Resolver) { b.rootField("Mutation", &b.mutation, sdl, r) }

func (b *Builder) rootField(typ string, fields *[]string, sdl string, r Resolver) {
	doc, err := parser.ParseSchema(&ast.Source{Name: typ, Input: "type " + typ + " {\n" + sdl + "\n}"})
	if err != nil || len(doc.Definitions) != 1 || len(doc.Definitions[0].Fields) != 1 {
		b.errs = append(b.errs, fmt.Errorf("%s field %q is not one field definition: %v", typ, sdl, err))
		return
	}
	*fields = append(*fields, sdl)
	b.Resolve(typ, doc.Definitions[0].Fields[0].Name, r)
}

// Resolve sets the resolver of the field of the type.
func (b *Builder) Resolve(typ, field string, r Resolver) {
	k := fieldKey{typ, field}
	if _, ok := b.resolvers[k]; ok {
		b.errs = append(b.errs, fmt.Errorf("%s.%s has two resolvers", typ, field))
	}
	b.resolvers[k] = r
}

// ResolveType sets the type resolver of an interface or a union.
func (b *Builder) ResolveType(abstract string, r TypeResolver) {
	b.typeResolvers[abstract] = r
}

// Build validates the parts together and returns the schema: every field
// of an object type has a resolver, every resolver a field, every
// interface and union a type resolver.
func (b *Builder) Build() (*Schema, error) {
	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}
	root := "type Query {\n" + strings.Join(b.query, "\n") + "\n}\n"
	if len(b.mutation) > 0 {
		root += "type Mutation {\n" + strings.Join(b.mutation, "\n") + "\n}\n"
	}
	schema, err := gqlparser.LoadSchema(append([]*ast.Source{{Name: "root", Input: root}}, b.sources...)...)
	if err != nil {
		return nil, err
	}
	// @defer is declared by gqlparser's prelude; this executor does not
	// defer, so a client must not be told that it does.
	delete(schema.Directives, "defer")
	s := &Schema{ast: schema, resolvers: map[fieldKey]Resolver{}, typeResolvers: b.typeResolvers}
	for k, r := range b.resolvers {
		s.resolvers[k] = r
	}
	for k, r := range introspectionResolvers(s) {
		s.resolvers[k] = r
	}
	for _, def := range schema.Types {
		s.types = append(s.types, def)
	}
	slices.SortFunc(s.types, func(a, b *ast.Definition) int { return strings.Compare(a.Name, b.Name) })
	if err := s.checkResolvers(); err != nil {
		return nil, err
	}
	return s, nil
}

// checkResolvers refuses a schema with a field that has no resolver, a
// resolver of no field, or an abstract type without a type resolver.
func (s *Schema) checkResolvers() error {
	var errs []error
	for _, def := range s.types {
		switch {
		case def.Kind == ast.Object:
			for _, f := range def.Fields {
				if _, ok := s.resolvers[fieldKey{def.Name, f.Name}]; !ok {
					errs = append(errs, fmt.Errorf("%s.%s has no resolver", def.Name, f.Name))
				}
			}
		case def.IsAbstractType() && s.typeResolvers[def.Name] == nil:
			errs = append(errs, fmt.Errorf("%s %s has no type resolver", strings.ToLower(string(def.Kind)), def.Name))
		}
	}
	for k := range s.resolvers {
		def := s.ast.Types[k.typ]
		if def == nil || def.Kind != ast.Object || def.Fields.ForName(k.field) == nil {
			errs = append(errs, fmt.Errorf("a resolver is set for %s.%s, which is not a field of an object type", k.typ, k.field))
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}
