package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/validator"
)

// coerceVariableValues is CoerceVariableValues: gqlparser checks the
// values against the variables' types and applies their defaults, and
// coerceInputValue then turns them into the values resolvers are given,
// refusing what gqlparser lets through and the spec does not (a string
// for an Int, an enum value in the wrong case, an Int beyond 32 bits).
func (s *Schema) coerceVariableValues(op *ast.OperationDefinition, values map[string]any) (map[string]any, *gqlerror.Error) {
	if values == nil {
		values = map[string]any{}
	}
	coerced, err := validator.VariableValues(s.ast, op, values)
	if err != nil {
		var ge *gqlerror.Error
		if !errors.As(err, &ge) {
			ge = gqlerror.Wrap(err)
		}
		return nil, variableError(op, ge.Path, ge.Message)
	}
	for _, def := range op.VariableDefinitions {
		v, ok := coerced[def.Variable]
		if !ok {
			continue
		}
		if coerced[def.Variable], err = s.coerceInputValue(v, def.Type); err != nil {
			return nil, variableError(op, ast.Path{ast.PathName("variable"), ast.PathName(def.Variable)}, err.Error())
		}
	}
	return coerced, nil
}

// variableError words the refusal of a variable's value, at path
// (variable, its name, then where in its value), as graphql-js does.
func variableError(op *ast.OperationDefinition, path ast.Path, msg string) *gqlerror.Error {
	if len(path) < 2 {
		return gqlerror.Errorf("Variable values are invalid: %s", msg)
	}
	name := fmt.Sprint(path[1])
	typ := ""
	if def := op.VariableDefinitions.ForName(name); def != nil {
		typ = def.Type.String()
	}
	switch {
	case len(path) == 2 && msg == "must be defined":
		return gqlerror.Errorf("Variable \"$%s\" of required type %q was not provided.", name, typ)
	case len(path) == 2 && msg == "cannot be null":
		return gqlerror.Errorf("Variable \"$%s\" of non-null type %q must not be null.", name, typ)
	case len(path) == 2:
		return gqlerror.Errorf("Variable \"$%s\" got invalid value: %s", name, msg)
	}
	return gqlerror.Errorf("Variable \"$%s\" got invalid value at %q: %s", name, path[1:].String(), msg)
}

// coerceArgumentValues is CoerceArgumentValues: the field's arguments as
// the resolver reads them, defaults applied.
func (s *Schema) coerceArgumentValues(def *ast.FieldDefinition, node *ast.Field, variables map[string]any) (map[string]any, error) {
	args := make(map[string]any, len(def.Arguments))
	for _, a := range def.Arguments {
		n := node.Arguments.ForName(a.Name)
		var v any
		given := n != nil && !unsetVariable(n.Value, variables)
		switch {
		case !given && a.DefaultValue != nil:
			var err error
			if v, err = valueFromAST(a.DefaultValue, a.Type, s, nil); err != nil {
				return nil, err
			}
		case !given && a.Type.NonNull:
			return nil, graphQLError("Argument %q of required type %q was not provided.", a.Name, a.Type)
		case !given:
			continue
		default:
			var err error
			if v, err = valueFromAST(n.Value, a.Type, s, variables); err != nil {
				return nil, graphQLError("Argument %q has invalid value: %w", a.Name, err)
			}
		}
		if v == nil && a.Type.NonNull {
			return nil, graphQLError("Argument %q of non-null type %q must not be null.", a.Name, a.Type)
		}
		args[a.Name] = v
	}
	return args, nil
}

// unsetVariable reports whether v is a variable the request gives no
// value (gqlparser has applied the defaults).
func unsetVariable(v *ast.Value, variables map[string]any) bool {
	if v.Kind != ast.Variable {
		return false
	}
	_, ok := variables[v.Raw]
	return !ok
}

// valueFromAST is ValueFromAST: a literal as a value of its type, with
// the variables it names (coerced already).
func valueFromAST(v *ast.Value, t *ast.Type, schema *Schema, variables map[string]any) (any, error) {
	switch {
	case v.Kind == ast.Variable:
		return variables[v.Raw], nil
	case v.Kind == ast.NullValue:
		if t.NonNull {
			return nil, errors.New("null for a non-null type")
		}
		return nil, nil
	case t.Elem != nil:
		if v.Kind != ast.ListValue {
			item, err := valueFromAST(v, t.Elem, schema, variables)
			return []any{item}, err
		}
		out := make([]any, len(v.Children))
		for i, c := range v.Children {
			item, err := valueFromAST(c.Value, t.Elem, schema, variables)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = item
		}
		return out, nil
	}
	def := schema.ast.Types[t.NamedType]
	if def.Kind == ast.InputObject {
		return inputObjectFromAST(v, def, schema, variables)
	}
	return leafFromAST(v, t.NamedType, def, variables)
}

// inputObjectFromAST reads an input object literal: its fields given, and
// the defaults of those not given.
func inputObjectFromAST(v *ast.Value, def *ast.Definition, schema *Schema, variables map[string]any) (any, error) {
	if v.Kind != ast.ObjectValue {
		return nil, fmt.Errorf("%s is not an input object %s", v, def.Name)
	}
	out := map[string]any{}
	for _, f := range def.Fields {
		c := v.Children.ForName(f.Name)
		var err error
		switch {
		case c != nil && !unsetVariable(c, variables):
			out[f.Name], err = valueFromAST(c, f.Type, schema, variables)
		case f.DefaultValue != nil:
			out[f.Name], err = valueFromAST(f.DefaultValue, f.Type, schema, nil)
		case f.Type.NonNull:
			err = fmt.Errorf("field %s of required type %s was not provided", f.Name, f.Type)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return out, nil
}

// leafFromAST reads a scalar or enum literal. The literal of a scalar
// other than the built-in ones is read as gqlparser reads values (Int an
// int64, lists []any, objects map[string]any), with the variables it
// names.
func leafFromAST(v *ast.Value, typeName string, def *ast.Definition, variables map[string]any) (any, error) {
	if def.Kind == ast.Enum {
		if v.Kind != ast.EnumValue || def.EnumValues.ForName(v.Raw) == nil {
			return nil, graphQLError("Value %s does not exist in %q enum.", v, def.Name)
		}
		return v.Raw, nil
	}
	switch {
	case typeName == "Int" && v.Kind == ast.IntValue:
		return coerceInt(v.Raw)
	case typeName == "Float" && (v.Kind == ast.IntValue || v.Kind == ast.FloatValue):
		return strconv.ParseFloat(v.Raw, 64)
	case (typeName == "String" || typeName == "ID") && (v.Kind == ast.StringValue || v.Kind == ast.BlockValue):
		return v.Raw, nil
	case typeName == "ID" && v.Kind == ast.IntValue:
		return v.Raw, nil
	case typeName == "Boolean" && v.Kind == ast.BooleanValue:
		return v.Raw == "true", nil
	case !isBuiltinScalar(typeName):
		return v.Value(variables)
	}
	return nil, fmt.Errorf("%s cannot represent %s", typeName, v)
}

// coerceInt reads an Int: a 32-bit signed integer.
func coerceInt(raw string) (any, error) {
	n, err := strconv.ParseInt(raw, 10, 32)
	if err != nil {
		return nil, graphQLError("Int cannot represent non 32-bit signed integer value: %s", raw)
	}
	return int(n), nil
}

func isBuiltinScalar(name string) bool {
	switch name {
	case "Int", "Float", "String", "Boolean", "ID":
		return true
	}
	return false
}

// coerceInputValue is CoerceInputValue of a variable's value, decoded from
// JSON: the value resolvers are given.
func (s *Schema) coerceInputValue(v any, t *ast.Type) (any, error) {
	switch {
	case v == nil && t.NonNull:
		return nil, errors.New("cannot be null")
	case v == nil:
		return nil, nil
	case t.Elem != nil:
		return s.coerceInputList(v, t.Elem)
	}
	def := s.ast.Types[t.NamedType]
	switch def.Kind {
	case ast.Enum:
		name, ok := v.(string)
		if !ok || def.EnumValues.ForName(name) == nil {
			return nil, graphQLError("Value %s does not exist in %q enum.", jsonText(v), def.Name)
		}
		return name, nil
	case ast.InputObject:
		return s.coerceInputObject(v, def)
	}
	return coerceScalar(def.Name, v)
}

func (s *Schema) coerceInputList(v any, itemType *ast.Type) (any, error) {
	items, ok := v.([]any)
	if rv := reflect.ValueOf(v); !ok && rv.Kind() == reflect.Slice {
		// gqlparser makes a single value a list of its own type.
		items = make([]any, rv.Len())
		for i := range items {
			items[i] = rv.Index(i).Interface()
		}
	} else if !ok {
		item, err := s.coerceInputValue(v, itemType)
		return []any{item}, err
	}
	out := make([]any, len(items))
	for i, item := range items {
		c, err := s.coerceInputValue(item, itemType)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out[i] = c
	}
	return out, nil
}

func (s *Schema) coerceInputObject(v any, def *ast.Definition) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not an input object %s", jsonText(v), def.Name)
	}
	out := make(map[string]any, len(m))
	for _, f := range def.Fields {
		fv, given := m[f.Name]
		var err error
		switch {
		case given:
			out[f.Name], err = s.coerceInputValue(fv, f.Type)
		case f.DefaultValue != nil:
			out[f.Name], err = valueFromAST(f.DefaultValue, f.Type, s, nil)
		case f.Type.NonNull:
			err = errors.New("must be defined")
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return out, nil
}

// coerceScalar coerces a JSON value to a built-in scalar; the values of
// other scalars are given as they are, their numbers json.Numbers when the
// request was decoded with them (no precision lost beyond 2^53).
func coerceScalar(name string, v any) (any, error) {
	if !isBuiltinScalar(name) {
		return v, nil
	}
	if n, ok := v.(json.Number); ok {
		v = n.String()
		if f, err := n.Float64(); err == nil && name != "ID" {
			v = f
		}
	}
	switch name {
	case "Int":
		f, number := floatOf(v)
		switch {
		case !number || f != math.Trunc(f):
			return nil, graphQLError("Int cannot represent non-integer value: %s", jsonText(v))
		case f < math.MinInt32 || f > math.MaxInt32:
			return nil, graphQLError("Int cannot represent non 32-bit signed integer value: %s", jsonText(v))
		}
		return int(f), nil
	case "Float":
		if f, ok := floatOf(v); ok {
			return f, nil
		}
	case "String":
		if s, ok := v.(string); ok {
			return s, nil
		}
	case "ID":
		switch v := v.(type) {
		case string:
			return v, nil
		case float64:
			if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
				return strconv.FormatInt(int64(v), 10), nil
			}
		}
	case "Boolean":
		if b, ok := v.(bool); ok {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%s cannot represent %s", name, jsonText(v))
}

// jsonText is v as JSON, cut short, for messages.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	if s := string(b); len(s) <= 80 {
		return s
	}
	return strings.TrimSpace(string(b[:77])) + "..."
}
