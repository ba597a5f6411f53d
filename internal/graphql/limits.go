package graphql

import (
	"strings"

	"github.com/graphql-go/graphql/language/ast"
)

// The bounds of one request. graphql-go validates a document in time
// quadratic, or worse, in the arguments of a field, the fields of an input
// object, the variables of an operation and the values of a list it
// refuses (it prints the list for each), and in the depth of nested lists
// and input objects: a 40 KiB document could keep it busy for minutes. So
// these are bounded before validation, well above what the schema takes
// (fields have at most 5 arguments, input objects 6 fields). Values are
// what a document writes in arguments and default values; longer lists,
// such as a pool's 4096 excludes, belong in variables.
const (
	maxBodyBytes    = 1 << 20
	maxQueryBytes   = 64 << 10
	maxDepth        = 10
	maxFields       = 200
	maxValues       = 1000
	maxValueDepth   = 8
	maxArguments    = 16
	maxObjectFields = 16
	maxVariables    = 100
	// maxIntrospectionDepth bounds a query that asks only for the schema:
	// the standard introspection query of GraphQL tools nests 13 deep,
	// through a type reference's ofType chain.
	maxIntrospectionDepth = 15
)

// A cost is what a selection set asks for once its fragments are expanded:
// how many fields it selects in all, and how deep the fields nest.
type cost struct {
	fields int
	depth  int
}

// costs measures the operations of a document before it is validated or
// executed, so that an oversized request costs little. A fragment is
// measured once and its cost reused at every spread, which keeps the
// measure linear in the size of the document however the fragments
// multiply.
type costs struct {
	fragments map[string]*ast.FragmentDefinition
	measured  map[string]cost
	measuring map[string]bool
	// values counts the values written in the document.
	values int
}

// checkLimits refuses a document that defines anything but operations
// and fragments; any of whose operations or fragments nests deeper than
// maxDepth or selects more than maxFields fields; that writes more than
// maxValues values or nests one deeper than maxValueDepth; and a fragment
// that spreads itself.
func checkLimits(doc *ast.Document) *codedError {
	c := &costs{fragments: map[string]*ast.FragmentDefinition{}, measured: map[string]cost{}, measuring: map[string]bool{}}
	for _, d := range doc.Definitions {
		switch d := d.(type) {
		case *ast.FragmentDefinition:
			if d.Name != nil {
				c.fragments[d.Name.Value] = d
			}
		case *ast.OperationDefinition:
		default:
			return invalidArgument("the document holds a %s: only operations and fragments are accepted", d.GetKind())
		}
	}
	for _, d := range doc.Definitions {
		op, ok := d.(*ast.OperationDefinition)
		if !ok {
			continue
		}
		if err := c.directives(op.Directives); err != nil {
			return err
		}
		if n := len(op.VariableDefinitions); n > maxVariables {
			return invalidArgument("%s defines %d variables, more than the limit of %d", op.Operation, n, maxVariables)
		}
		for _, v := range op.VariableDefinitions {
			if err := c.value("the default value of a variable", v.DefaultValue); err != nil {
				return err
			}
		}
		got, err := c.selectionSet(op.SelectionSet)
		if err != nil {
			return err
		}
		limit := maxDepth
		if introspectionOnly(op.SelectionSet) {
			limit = maxIntrospectionDepth
		}
		if err := got.check(op.Operation, limit); err != nil {
			return err
		}
	}
	for _, d := range doc.Definitions {
		f, ok := d.(*ast.FragmentDefinition)
		if !ok || f.Name == nil {
			continue
		}
		got, err := c.fragment(f.Name.Value)
		if err != nil {
			return err
		}
		limit := maxDepth
		if f.TypeCondition != nil && f.TypeCondition.Name != nil && strings.HasPrefix(f.TypeCondition.Name.Value, "__") {
			limit = maxIntrospectionDepth
		}
		if err := got.check("fragment "+f.Name.Value, limit); err != nil {
			return err
		}
	}
	return nil
}

// introspectionOnly reports whether every field of ss asks for the schema
// (__schema, __type, __typename).
func introspectionOnly(ss *ast.SelectionSet) bool {
	if ss == nil || len(ss.Selections) == 0 {
		return false
	}
	for _, sel := range ss.Selections {
		f, ok := sel.(*ast.Field)
		if !ok || f.Name == nil || !strings.HasPrefix(f.Name.Value, "__") {
			return false
		}
	}
	return true
}

// check refuses a cost beyond the bounds; what names the operation.
func (c cost) check(what string, maxDepth int) *codedError {
	if c.depth > maxDepth {
		return invalidArgument("%s depth %d exceeds the limit of %d", what, c.depth, maxDepth)
	}
	switch {
	case c.fields >= fieldsCeiling:
		return invalidArgument("%s selects too many fields to count, more than the limit of %d", what, maxFields)
	case c.fields > maxFields:
		return invalidArgument("%s selects %d fields, more than the limit of %d", what, c.fields, maxFields)
	}
	return nil
}

func (c *costs) selectionSet(ss *ast.SelectionSet) (cost, *codedError) {
	var total cost
	if ss == nil {
		return total, nil
	}
	for _, sel := range ss.Selections {
		var sub cost
		var err *codedError
		switch s := sel.(type) {
		case *ast.Field:
			if err = c.arguments("field "+s.Name.Value, s.Arguments); err == nil {
				err = c.directives(s.Directives)
			}
			if err == nil {
				sub, err = c.selectionSet(s.SelectionSet)
			}
			if err != nil {
				return cost{}, err
			}
			sub.fields++
			sub.depth++
		case *ast.InlineFragment:
			if err = c.directives(s.Directives); err == nil {
				sub, err = c.selectionSet(s.SelectionSet)
			}
			if err != nil {
				return cost{}, err
			}
		case *ast.FragmentSpread:
			if err := c.directives(s.Directives); err != nil {
				return cost{}, err
			}
			if s.Name == nil {
				continue
			}
			if sub, err = c.fragment(s.Name.Value); err != nil {
				return cost{}, err
			}
		}
		total.fields = saturatingAdd(total.fields, sub.fields)
		total.depth = max(total.depth, sub.depth)
	}
	return total, nil
}

// fragment returns the cost of the fragment name. An unknown fragment
// costs nothing here: validation refuses it.
func (c *costs) fragment(name string) (cost, *codedError) {
	if got, ok := c.measured[name]; ok {
		return got, nil
	}
	f, ok := c.fragments[name]
	if !ok {
		return cost{}, nil
	}
	if c.measuring[name] {
		return cost{}, invalidArgument("fragment %s spreads itself, directly or through other fragments", name)
	}
	c.measuring[name] = true
	err := c.directives(f.Directives)
	var got cost
	if err == nil {
		got, err = c.selectionSet(f.SelectionSet)
	}
	delete(c.measuring, name)
	if err != nil {
		return cost{}, err
	}
	c.measured[name] = got
	return got, nil
}

// arguments bounds the arguments of a field or a directive, what, and
// counts and bounds their values.
func (c *costs) arguments(what string, args []*ast.Argument) *codedError {
	if len(args) > maxArguments {
		return invalidArgument("%s has %d arguments, more than the limit of %d", what, len(args), maxArguments)
	}
	for _, a := range args {
		what := "an argument"
		if a.Name != nil {
			what = "argument " + a.Name.Value
		}
		if err := c.value(what, a.Value); err != nil {
			return err
		}
	}
	return nil
}

// directives counts and bounds the values of directives' arguments.
func (c *costs) directives(ds []*ast.Directive) *codedError {
	for _, d := range ds {
		what := "a directive"
		if d.Name != nil {
			what = "directive @" + d.Name.Value
		}
		if err := c.arguments(what, d.Arguments); err != nil {
			return err
		}
	}
	return nil
}

// value counts the values of v, nil for none, and refuses it when they
// are too many or nest too deep; what names v for the message.
func (c *costs) value(what string, v ast.Value) *codedError {
	if v == nil {
		return nil
	}
	depth, err := c.count(what, v, 0)
	if err != nil {
		return err
	}
	if depth > maxValueDepth {
		return invalidArgument("%s nests lists and objects deeper than the limit of %d", what, maxValueDepth)
	}
	return nil
}

// count adds v and the values in it to c.values, down to a depth beyond
// maxValueDepth, bounds the fields of its input objects, and returns how
// deep lists and objects nest in v, a value of what.
func (c *costs) count(what string, v ast.Value, depth int) (int, *codedError) {
	c.values++
	if c.values > maxValues {
		return 0, invalidArgument("the document writes more than %d values, the limit: send long lists as variables", maxValues)
	}
	var items []ast.Value
	switch v := v.(type) {
	case *ast.ListValue:
		items = v.Values
	case *ast.ObjectValue:
		if len(v.Fields) > maxObjectFields {
			return 0, invalidArgument("an input object of %s has %d fields, more than the limit of %d", what, len(v.Fields), maxObjectFields)
		}
		for _, f := range v.Fields {
			items = append(items, f.Value)
		}
	default:
		return depth, nil
	}
	deepest := depth + 1
	if deepest > maxValueDepth {
		return deepest, nil
	}
	for _, item := range items {
		d, err := c.count(what, item, depth+1)
		if err != nil {
			return 0, err
		}
		deepest = max(deepest, d)
	}
	return deepest, nil
}

// fieldsCeiling is where counting fields stops: fragments that spread the
// next one twice double the count at each level, and would overflow it.
const fieldsCeiling = 1 << 40

// saturatingAdd adds two counts of fields, up to fieldsCeiling.
func saturatingAdd(a, b int) int {
	return min(a+b, fieldsCeiling)
}
