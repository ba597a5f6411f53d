package graphql

import (
	"strings"

	"github.com/graphql-go/graphql/language/ast"
)

// The bounds of one request.
const (
	maxBodyBytes  = 1 << 20
	maxQueryBytes = 64 << 10
	maxDepth      = 10
	maxFields     = 200
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
}

// checkLimits refuses a document any of whose operations or fragments
// nests deeper than maxDepth or selects more than maxFields fields, and a
// fragment that spreads itself.
func checkLimits(doc *ast.Document) *codedError {
	c := &costs{fragments: map[string]*ast.FragmentDefinition{}, measured: map[string]cost{}, measuring: map[string]bool{}}
	for _, d := range doc.Definitions {
		if f, ok := d.(*ast.FragmentDefinition); ok && f.Name != nil {
			c.fragments[f.Name.Value] = f
		}
	}
	for _, d := range doc.Definitions {
		op, ok := d.(*ast.OperationDefinition)
		if !ok {
			continue
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
			if sub, err = c.selectionSet(s.SelectionSet); err != nil {
				return cost{}, err
			}
			sub.fields++
			sub.depth++
		case *ast.InlineFragment:
			if sub, err = c.selectionSet(s.SelectionSet); err != nil {
				return cost{}, err
			}
		case *ast.FragmentSpread:
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
	got, err := c.selectionSet(f.SelectionSet)
	delete(c.measuring, name)
	if err != nil {
		return cost{}, err
	}
	c.measured[name] = got
	return got, nil
}

// fieldsCeiling is where counting fields stops: fragments that spread the
// next one twice double the count at each level, and would overflow it.
const fieldsCeiling = 1 << 40

// saturatingAdd adds two counts of fields, up to fieldsCeiling.
func saturatingAdd(a, b int) int {
	return min(a+b, fieldsCeiling)
}
