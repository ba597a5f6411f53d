package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// Introspection (the spec's section 4) is resolved like any other part of
// a schema: resolvers of the fields of __Schema, __Type, __Field,
// __InputValue, __EnumValue and __Directive, whose sources are the
// schema's own definitions, and of Query.__schema and Query.__type.

// A typeRef is the source of a __Type: a named type, or a list or
// non-null wrapper of another.
type typeRef struct {
	kind   string
	def    *ast.Definition
	ofType *typeRef
}

// An inputValue is the source of an __InputValue: an argument or a field
// of an input object.
type inputValue struct {
	name, description string
	typ               *ast.Type
	defaultValue      *ast.Value
	directives        ast.DirectiveList
}

func introspectionResolvers(s *Schema) map[fieldKey]Resolver {
	out := map[fieldKey]Resolver{
		{"Query", "__schema"}: func(context.Context, Params) (any, error) { return s, nil },
		{"Query", "__type"}: func(_ context.Context, p Params) (any, error) {
			name, _ := p.Args["name"].(string)
			return s.named(s.ast.Types[name]), nil
		},
	}
	for typ, fields := range map[string]map[string]Resolver{
		"__Schema":     schemaFields(s),
		"__Type":       typeFields(s),
		"__Field":      fieldFields(s),
		"__InputValue": inputValueFields(s),
		"__EnumValue":  enumValueFields(),
		"__Directive":  directiveFields(s),
	} {
		for name, r := range fields {
			out[fieldKey{typ, name}] = r
		}
	}
	return out
}

// get is a resolver that reads the field from its source, a T.
func get[T any](read func(T) any) Resolver {
	return func(_ context.Context, p Params) (any, error) { return read(p.Source.(T)), nil }
}

// getArgs is a resolver that reads the field from its source, a T, and
// its arguments.
func getArgs[T any](read func(T, map[string]any) any) Resolver {
	return func(_ context.Context, p Params) (any, error) { return read(p.Source.(T), p.Args), nil }
}

func schemaFields(s *Schema) map[string]Resolver {
	return map[string]Resolver{
		"description": get(func(*Schema) any { return description(s.ast.Description) }),
		"types": get(func(*Schema) any {
			out := make([]*typeRef, len(s.types))
			for i, def := range s.types {
				out[i] = s.named(def)
			}
			return out
		}),
		"queryType":        get(func(*Schema) any { return s.named(s.ast.Query) }),
		"mutationType":     get(func(*Schema) any { return s.named(s.ast.Mutation) }),
		"subscriptionType": get(func(*Schema) any { return s.named(s.ast.Subscription) }),
		"directives": get(func(*Schema) any {
			out := make([]*ast.DirectiveDefinition, 0, len(s.ast.Directives))
			for _, d := range s.ast.Directives {
				out = append(out, d)
			}
			slices.SortFunc(out, func(a, b *ast.DirectiveDefinition) int { return strings.Compare(a.Name, b.Name) })
			return out
		}),
	}
}

func typeFields(s *Schema) map[string]Resolver {
	kindIs := func(t *typeRef, kinds ...ast.DefinitionKind) bool {
		return t.def != nil && slices.Contains(kinds, t.def.Kind)
	}
	return map[string]Resolver{
		"kind": get(func(t *typeRef) any { return t.kind }),
		"name": get(func(t *typeRef) any {
			if t.def == nil {
				return nil
			}
			return t.def.Name
		}),
		"description": get(func(t *typeRef) any {
			if t.def == nil {
				return nil
			}
			return description(t.def.Description)
		}),
		"specifiedByURL": get(func(t *typeRef) any {
			if !kindIs(t, ast.Scalar) {
				return nil
			}
			return directiveArg(t.def.Directives, "specifiedBy", "url")
		}),
		"fields": getArgs(func(t *typeRef, args map[string]any) any {
			if !kindIs(t, ast.Object, ast.Interface) {
				return nil
			}
			return visible(t.def.Fields, args, func(f *ast.FieldDefinition) (string, ast.DirectiveList) { return f.Name, f.Directives })
		}),
		"interfaces": get(func(t *typeRef) any {
			if !kindIs(t, ast.Object, ast.Interface) {
				return nil
			}
			out := make([]*typeRef, len(t.def.Interfaces))
			for i, name := range t.def.Interfaces {
				out[i] = s.named(s.ast.Types[name])
			}
			return out
		}),
		"possibleTypes": get(func(t *typeRef) any {
			if t.def == nil || !t.def.IsAbstractType() {
				return nil
			}
			var out []*typeRef
			for _, def := range s.ast.GetPossibleTypes(t.def) {
				out = append(out, s.named(def))
			}
			return out
		}),
		"enumValues": getArgs(func(t *typeRef, args map[string]any) any {
			if !kindIs(t, ast.Enum) {
				return nil
			}
			return visible(t.def.EnumValues, args, func(v *ast.EnumValueDefinition) (string, ast.DirectiveList) { return v.Name, v.Directives })
		}),
		"inputFields": getArgs(func(t *typeRef, args map[string]any) any {
			if !kindIs(t, ast.InputObject) {
				return nil
			}
			return inputValues(visible(t.def.Fields, args, func(f *ast.FieldDefinition) (string, ast.DirectiveList) { return f.Name, f.Directives }))
		}),
		"ofType": get(func(t *typeRef) any { return t.ofType }),
		"isOneOf": get(func(t *typeRef) any {
			if !kindIs(t, ast.InputObject) {
				return nil
			}
			return t.def.Directives.ForName("oneOf") != nil
		}),
	}
}

func fieldFields(s *Schema) map[string]Resolver {
	return map[string]Resolver{
		"name":        get(func(f *ast.FieldDefinition) any { return f.Name }),
		"description": get(func(f *ast.FieldDefinition) any { return description(f.Description) }),
		"args": getArgs(func(f *ast.FieldDefinition, args map[string]any) any {
			return arguments(visible(f.Arguments, args, func(a *ast.ArgumentDefinition) (string, ast.DirectiveList) { return a.Name, a.Directives }))
		}),
		"type":              get(func(f *ast.FieldDefinition) any { return s.typeOf(f.Type) }),
		"isDeprecated":      get(func(f *ast.FieldDefinition) any { return f.Directives.ForName("deprecated") != nil }),
		"deprecationReason": get(func(f *ast.FieldDefinition) any { return deprecationReason(f.Directives) }),
	}
}

func inputValueFields(s *Schema) map[string]Resolver {
	return map[string]Resolver{
		"name":        get(func(v inputValue) any { return v.name }),
		"description": get(func(v inputValue) any { return description(v.description) }),
		"type":        get(func(v inputValue) any { return s.typeOf(v.typ) }),
		"defaultValue": get(func(v inputValue) any {
			if v.defaultValue == nil {
				return nil
			}
			return v.defaultValue.String()
		}),
		"isDeprecated":      get(func(v inputValue) any { return v.directives.ForName("deprecated") != nil }),
		"deprecationReason": get(func(v inputValue) any { return deprecationReason(v.directives) }),
	}
}

func enumValueFields() map[string]Resolver {
	return map[string]Resolver{
		"name":              get(func(v *ast.EnumValueDefinition) any { return v.Name }),
		"description":       get(func(v *ast.EnumValueDefinition) any { return description(v.Description) }),
		"isDeprecated":      get(func(v *ast.EnumValueDefinition) any { return v.Directives.ForName("deprecated") != nil }),
		"deprecationReason": get(func(v *ast.EnumValueDefinition) any { return deprecationReason(v.Directives) }),
	}
}

func directiveFields(s *Schema) map[string]Resolver {
	return map[string]Resolver{
		"name":         get(func(d *ast.DirectiveDefinition) any { return d.Name }),
		"description":  get(func(d *ast.DirectiveDefinition) any { return description(d.Description) }),
		"isRepeatable": get(func(d *ast.DirectiveDefinition) any { return d.IsRepeatable }),
		"locations": get(func(d *ast.DirectiveDefinition) any {
			out := make([]string, len(d.Locations))
			for i, l := range d.Locations {
				out[i] = string(l)
			}
			return out
		}),
		"args": getArgs(func(d *ast.DirectiveDefinition, args map[string]any) any {
			return arguments(visible(d.Arguments, args, func(a *ast.ArgumentDefinition) (string, ast.DirectiveList) { return a.Name, a.Directives }))
		}),
	}
}

// named is the __Type of a named type; nil for none.
func (s *Schema) named(def *ast.Definition) *typeRef {
	if def == nil {
		return nil
	}
	return &typeRef{kind: string(def.Kind), def: def}
}

// typeOf is the __Type of a type reference, its wrappers included.
func (s *Schema) typeOf(t *ast.Type) *typeRef {
	switch {
	case t.NonNull:
		nullable := *t
		nullable.NonNull = false
		return &typeRef{kind: "NON_NULL", ofType: s.typeOf(&nullable)}
	case t.Elem != nil:
		return &typeRef{kind: "LIST", ofType: s.typeOf(t.Elem)}
	}
	return s.named(s.ast.Types[t.NamedType])
}

// visible returns the items but the introspection's own fields (__schema,
// __type on the query type) and, unless includeDeprecated, the deprecated.
func visible[T any](items []T, args map[string]any, of func(T) (string, ast.DirectiveList)) []T {
	include, _ := args["includeDeprecated"].(bool)
	out := make([]T, 0, len(items))
	for _, item := range items {
		name, directives := of(item)
		if strings.HasPrefix(name, "__") || !include && directives.ForName("deprecated") != nil {
			continue
		}
		out = append(out, item)
	}
	return out
}

func arguments(args []*ast.ArgumentDefinition) []inputValue {
	out := make([]inputValue, len(args))
	for i, a := range args {
		out[i] = inputValue{name: a.Name, description: a.Description, typ: a.Type, defaultValue: a.DefaultValue, directives: a.Directives}
	}
	return out
}

func inputValues(fields []*ast.FieldDefinition) []inputValue {
	out := make([]inputValue, len(fields))
	for i, f := range fields {
		out[i] = inputValue{name: f.Name, description: f.Description, typ: f.Type, defaultValue: f.DefaultValue, directives: f.Directives}
	}
	return out
}

// description is d, or null when empty.
func description(d string) any {
	if d == "" {
		return nil
	}
	return d
}

// deprecationReason is the reason of a @deprecated among directives, its
// default when it gives none, or null when there is no @deprecated.
func deprecationReason(directives ast.DirectiveList) any {
	if directives.ForName("deprecated") == nil {
		return nil
	}
	if r := directiveArg(directives, "deprecated", "reason"); r != nil {
		return r
	}
	return "No longer supported"
}

// directiveArg is the literal string value of the argument of the
// directive among directives, or null.
func directiveArg(directives ast.DirectiveList, directive, arg string) any {
	d := directives.ForName(directive)
	if d == nil {
		return nil
	}
	a := d.Arguments.ForName(arg)
	if a == nil || a.Value == nil || a.Value.Kind != ast.StringValue {
		return nil
	}
	return a.Value.Raw
}
