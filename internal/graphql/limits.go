package graphql

import "strings"

// The bounds of one request: what makes a request costly is bounded, and
// what the introspection of GraphQL tools needs is not.
//
// The document is measured before it is parsed (its outline, outline.go),
// so that a request nested or repeated beyond any use is refused in time
// linear in its size: its depth, the fields it selects (with aliases, the
// same field selected again), the values it writes in arguments and
// default values, their nesting, the arguments of a field, the fields of
// an input object and the variables of an operation. Values are what a
// document writes; longer lists, such as a pool's 4096 excludes, belong in
// variables. Fields inside __schema and __type are not counted: they read
// the schema in memory, and the introspection query of GraphQL tools
// selects more than 200 of them. Executing, maxResolverCalls bounds how
// many fields are resolved in all (a list of objects resolves its fields
// once per item), and the domain bounds the sizes of lists (pages of at
// most 1000 allocations, at most 4096 reserved addresses).
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
	// maxResolverCalls bounds the fields one request resolves: the
	// introspection query of GraphQL tools resolves about 5000 of this
	// schema, a page of 1000 allocations with every field about 20 000.
	maxResolverCalls = 100_000
)

// A cost is what a selection set asks for once its fragments are expanded:
// how many fields it selects in all (but inside __schema and __type), and
// how deep the fields nest.
type cost struct {
	fields int
	depth  int
}

// costs measures the operations of a document before it is parsed, so
// that an oversized request costs little. A fragment is measured once and
// its cost reused at every spread, which keeps the measure linear in the
// size of the document however the fragments multiply.
type costs struct {
	fragments map[string]*outlineFragment
	measured  map[string]cost
	measuring map[string]bool
	// values counts the values written in the document.
	values int
}

// checkLimits refuses a document that defines anything but operations
// and fragments; any of whose operations or fragments nests deeper than
// maxDepth or selects more than maxFields fields; that writes more than
// maxValues values or nests one deeper than maxValueDepth; and a fragment
// that spreads itself. A document that does not parse passes: the parser
// then says what is wrong with it.
func checkLimits(query string) *codedError {
	doc := outlineOf(query)
	switch {
	case doc == nil:
		return nil
	case doc.typeSystem != "":
		return invalidArgument("the document holds a %s: only operations and fragments are accepted", doc.typeSystem)
	}
	c := &costs{fragments: map[string]*outlineFragment{}, measured: map[string]cost{}, measuring: map[string]bool{}}
	for _, f := range doc.fragments {
		c.fragments[f.name] = f
	}
	for _, op := range doc.operations {
		if err := c.operation(op); err != nil {
			return err
		}
	}
	for _, f := range doc.fragments {
		got, err := c.fragment(f.name)
		if err != nil {
			return err
		}
		limit := maxDepth
		if strings.HasPrefix(f.typeCondition, "__") {
			limit = maxIntrospectionDepth
		}
		if err := got.check("fragment "+f.name, limit); err != nil {
			return err
		}
	}
	return nil
}

// operation measures and bounds an operation.
func (c *costs) operation(op *outlineOperation) *codedError {
	if err := c.directives(op.directives); err != nil {
		return err
	}
	if n := len(op.variables); n > maxVariables {
		return invalidArgument("%s defines %d variables, more than the limit of %d", op.operation, n, maxVariables)
	}
	for _, v := range op.variables {
		if err := c.value("the default value of a variable", v.defaultValue); err != nil {
			return err
		}
		if err := c.directives(v.directives); err != nil {
			return err
		}
	}
	got, err := c.selectionSet(op.selections)
	if err != nil {
		return err
	}
	limit := maxDepth
	if introspectionOnly(op.selections) {
		limit = maxIntrospectionDepth
	}
	return got.check(op.operation, limit)
}

// introspectionOnly reports whether every field of a selection set asks
// for the schema (__schema, __type, __typename).
func introspectionOnly(set []*outlineSelection) bool {
	if len(set) == 0 {
		return false
	}
	for _, s := range set {
		if !strings.HasPrefix(s.field, "__") {
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

func (c *costs) selectionSet(set []*outlineSelection) (cost, *codedError) {
	var total cost
	for _, s := range set {
		sub, err := c.selection(s)
		if err != nil {
			return cost{}, err
		}
		total.fields = saturatingAdd(total.fields, sub.fields)
		total.depth = max(total.depth, sub.depth)
	}
	return total, nil
}

// selection measures a field, an inline fragment or a fragment spread.
func (c *costs) selection(s *outlineSelection) (cost, *codedError) {
	if s.field != "" {
		if err := c.arguments("field "+s.field, s.arguments); err != nil {
			return cost{}, err
		}
	}
	if err := c.directives(s.directives); err != nil {
		return cost{}, err
	}
	if s.spread != "" {
		return c.fragment(s.spread)
	}
	sub, err := c.selectionSet(s.selections)
	if err != nil || s.field == "" {
		return sub, err
	}
	if s.field == "__schema" || s.field == "__type" {
		sub.fields = 0
	}
	sub.fields++
	sub.depth++
	return sub, nil
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
	err := c.directives(f.directives)
	var got cost
	if err == nil {
		got, err = c.selectionSet(f.selections)
	}
	delete(c.measuring, name)
	if err != nil {
		return cost{}, err
	}
	if strings.HasPrefix(f.typeCondition, "__") {
		got.fields = 0
	}
	c.measured[name] = got
	return got, nil
}

// arguments bounds the arguments of a field or a directive, what, and
// counts and bounds their values.
func (c *costs) arguments(what string, args []outlineArgument) *codedError {
	if len(args) > maxArguments {
		return invalidArgument("%s has %d arguments, more than the limit of %d", what, len(args), maxArguments)
	}
	for _, a := range args {
		if err := c.value("argument "+a.name, a.value); err != nil {
			return err
		}
	}
	return nil
}

// directives counts and bounds the values of directives' arguments.
func (c *costs) directives(ds []outlineDirective) *codedError {
	for _, d := range ds {
		if err := c.arguments("directive @"+d.name, d.arguments); err != nil {
			return err
		}
	}
	return nil
}

// value counts the values of v, nil for none, and refuses it when they
// are too many or nest too deep; what names v for the message.
func (c *costs) value(what string, v *outlineValue) *codedError {
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
func (c *costs) count(what string, v *outlineValue, depth int) (int, *codedError) {
	c.values++
	if c.values > maxValues {
		return 0, invalidArgument("the document writes more than %d values, the limit: send long lists as variables", maxValues)
	}
	if v.object && len(v.items) > maxObjectFields {
		return 0, invalidArgument("an input object of %s has %d fields, more than the limit of %d", what, len(v.items), maxObjectFields)
	}
	if !v.list && !v.object {
		return depth, nil
	}
	deepest := depth + 1
	if deepest > maxValueDepth {
		return deepest, nil
	}
	for _, item := range v.items {
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
