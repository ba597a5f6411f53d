package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The test schema: characters of a story, an interface and a union, and
// fields that fail on purpose.
const testTypes = `
interface Character { name: String! }
type Human implements Character { name: String! friends: [Character!]! }
type Droid implements Character { name: String! primaryFunction: String }
union SearchResult = Human | Droid
enum Color { RED GREEN }
input Filter { prefix: String = "R" colors: [Color!] limit: Int! }
type Item { id: Int! label: String! }
`

type human struct {
	name    string
	friends []any
}

type droid struct{ name, function string }

var (
	r2d2 = droid{"R2-D2", "Astromech"}
	luke = human{"Luke", []any{r2d2}}
)

// testSchema builds the test schema; log records the mutations in the
// order they run.
func testSchema(t *testing.T, log *[]string) *Schema {
	t.Helper()
	b := NewBuilder()
	b.Types("types", testTypes)
	value := func(v any) Resolver { return func(context.Context, Params) (any, error) { return v, nil } }
	b.Query("hero: Character", value(luke))
	b.Query("search: [SearchResult!]!", value([]any{luke, r2d2}))
	b.Query(`"Echoes its arguments as JSON." echo(s: String, n: Int = 7, f: Float, b: Boolean, c: Color, l: [String], in: Filter): String!`,
		func(_ context.Context, p Params) (any, error) {
			out, err := json.Marshal(p.Args)
			return string(out), err
		})
	b.Query("items(failAt: Int): [Item!]", items)
	b.Query("looseItems(failAt: Int): [Item]!", items)
	b.Query("broken: String!", func(context.Context, Params) (any, error) { return nil, errors.New("broken on purpose") })
	b.Query("missing: String!", value(nil))
	b.Query("panics: String", func(context.Context, Params) (any, error) { panic("on purpose") })
	b.Mutation("step(n: Int!): Int!", func(_ context.Context, p Params) (any, error) {
		*log = append(*log, fmt.Sprint("step ", p.Args["n"]))
		return p.Args["n"], nil
	})
	b.Mutation("fail: Int!", func(context.Context, Params) (any, error) {
		*log = append(*log, "fail")
		return nil, errors.New("refused")
	})
	b.Resolve("Human", "name", func(_ context.Context, p Params) (any, error) { return p.Source.(human).name, nil })
	b.Resolve("Human", "friends", func(_ context.Context, p Params) (any, error) { return p.Source.(human).friends, nil })
	b.Resolve("Droid", "name", func(_ context.Context, p Params) (any, error) { return p.Source.(droid).name, nil })
	b.Resolve("Droid", "primaryFunction", func(_ context.Context, p Params) (any, error) { return p.Source.(droid).function, nil })
	b.Resolve("Item", "id", func(_ context.Context, p Params) (any, error) { return p.Source.(int), nil })
	b.Resolve("Item", "label", func(_ context.Context, p Params) (any, error) {
		if p.Source.(int) < 0 {
			return nil, nil
		}
		return fmt.Sprintf("item <%d>", p.Source.(int)), nil
	})
	kind := func(v any) string {
		if _, ok := v.(human); ok {
			return "Human"
		}
		return "Droid"
	}
	b.ResolveType("Character", kind)
	b.ResolveType("SearchResult", kind)
	s, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// items returns 0, 1, 2, and -1 (an item whose label is null) at failAt.
func items(_ context.Context, p Params) (any, error) {
	out := []int{0, 1, 2}
	if at, ok := p.Args["failAt"].(int); ok {
		out[at] = -1
	}
	return out, nil
}

// run executes query on s and returns the answer as JSON: the data, and
// each error as its message and path.
func run(t *testing.T, s *Schema, query string, vars map[string]any, maxCalls int) string {
	t.Helper()
	doc, err := Parse(query)
	if err != nil {
		return "parse: " + err.Message
	}
	if errs := s.Validate(doc); len(errs) > 0 {
		return "invalid: " + errs.Error()
	}
	res := s.Execute(t.Context(), Request{Document: doc, Variables: vars, MaxResolverCalls: maxCalls})
	out := map[string]any{}
	if res.Executed {
		out["data"] = res.Data
	}
	var errs []string
	for _, e := range res.Errors {
		errs = append(errs, fmt.Sprintf("%s %s", e.Message, e.Path))
	}
	if errs != nil {
		out["errors"] = errs
	}
	b, jerr := json.Marshal(out)
	if jerr != nil {
		t.Fatal(jerr)
	}
	return string(b)
}

func TestExecute(t *testing.T) {
	var log []string
	s := testSchema(t, &log)
	tests := []struct {
		name, query string
		vars        map[string]any
		want        string
	}{
		{"fields in the order selected, aliases", `{ b: hero { name } a: hero { __typename } }`, nil,
			`{"data":{"b":{"name":"Luke"},"a":{"__typename":"Human"}}}`},
		{"fields of one response key merged", `{ hero { name } hero { ... on Human { friends { name } } } }`, nil,
			`{"data":{"hero":{"name":"Luke","friends":[{"name":"R2-D2"}]}}}`},
		{"@skip and @include, literal and variable", `query($no: Boolean!) { a: hero @skip(if: true) { name } b: hero @include(if: $no) { name } c: hero @skip(if: $no) { name } }`,
			map[string]any{"no": false}, `{"data":{"c":{"name":"Luke"}}}`},
		{"fragments, spread twice, collected once", `{ hero { ...N ...N ... on Droid { primaryFunction } } } fragment N on Character { name }`, nil,
			`{"data":{"hero":{"name":"Luke"}}}`},
		{"a union and an interface", `{ search { __typename ... on Character { name } ... on Droid { primaryFunction } } }`, nil,
			`{"data":{"search":[{"__typename":"Human","name":"Luke"},{"__typename":"Droid","name":"R2-D2","primaryFunction":"Astromech"}]}}`},
		{"an error of a non-null field nulls its nullable parent", `{ items(failAt: 1) { id } hero { name } }`, nil,
			`{"data":{"items":[{"id":0},{"id":-1},{"id":2}],"hero":{"name":"Luke"}}}`},
		{"a null in a list of non-null items nulls the list", `{ items(failAt: 1) { label } }`, nil,
			`{"data":{"items":null},"errors":["Cannot return null for non-nullable field Item.label. items[1].label"]}`},
		{"a null in a list of nullable items nulls the item", `{ looseItems(failAt: 2) { label } }`, nil,
			`{"data":{"looseItems":[{"label":"item \u003c0\u003e"},{"label":"item \u003c1\u003e"},null]},"errors":["Cannot return null for non-nullable field Item.label. looseItems[2].label"]}`},
		{"a null that reaches the root nulls the data", `{ hero { name } broken }`, nil,
			`{"data":null,"errors":["broken on purpose broken"]}`},
		{"a resolver that returns null for a non-null field", `{ missing }`, nil,
			`{"data":null,"errors":["Cannot return null for non-nullable field Query.missing. missing"]}`},
		{"a resolver that panics", `{ panics }`, nil,
			`{"data":{"panics":null},"errors":["the resolver of Query.panics panicked: on purpose panics"]}`},
		{"arguments: defaults, null, coercion of a single value to a list", `{ echo(s: null, l: "one", in: {limit: 3}, c: RED) }`, nil,
			`{"data":{"echo":"{\"c\":\"RED\",\"in\":{\"limit\":3,\"prefix\":\"R\"},\"l\":[\"one\"],\"n\":7,\"s\":null}"}}`},
		{"variables coerced: Int, Float, enum, input object with its default", `query($n: Int, $f: Float, $c: Color, $in: Filter) { echo(n: $n, f: $f, c: $c, in: $in) }`,
			map[string]any{"n": 3.0, "f": 2, "c": "GREEN", "in": map[string]any{"limit": 1, "colors": "RED"}},
			`{"data":{"echo":"{\"c\":\"GREEN\",\"f\":2,\"in\":{\"colors\":[\"RED\"],\"limit\":1,\"prefix\":\"R\"},\"n\":3}"}}`},
		{"an unset variable leaves the default", `query($n: Int) { echo(n: $n) }`, nil,
			`{"data":{"echo":"{\"n\":7}"}}`},
		{"a variable given null is null", `query($n: Int) { echo(n: $n) }`, map[string]any{"n": nil},
			`{"data":{"echo":"{\"n\":null}"}}`},
		{"a string for an Int is refused", `query($n: Int) { echo(n: $n) }`, map[string]any{"n": "5"},
			`{"errors":["Variable \"$n\" got invalid value: Int cannot represent non-integer value: \"5\" "]}`},
		{"an Int beyond 32 bits is refused", `query($n: Int) { echo(n: $n) }`, map[string]any{"n": 1e300},
			`{"errors":["Variable \"$n\" got invalid value: Int cannot represent non 32-bit signed integer value: 1e+300 "]}`},
		{"an enum value in the wrong case is refused", `query($c: Color) { echo(c: $c) }`, map[string]any{"c": "red"},
			`{"errors":["Variable \"$c\" got invalid value: Value \"red\" does not exist in \"Color\" enum. "]}`},
		{"a required variable not given", `query($n: Int!) { echo(n: $n) }`, nil,
			`{"errors":["Variable \"$n\" of required type \"Int!\" was not provided. "]}`},
		{"an unknown operation", `query A { hero { name } }`, nil, `{"data":{"hero":{"name":"Luke"}}}`},
		{"two operations, none named", `query A { hero { name } } query B { hero { name } }`, nil,
			`{"errors":["Must provide operation name if query contains multiple operations. "]}`},
		{"a null literal", `{ echo(s: null) }`, nil, `{"data":{"echo":"{\"n\":7,\"s\":null}"}}`},
		{"a syntax error", `{ hero { name }`, nil, `parse: Syntax Error: Expected Name, found <EOF>`},
		{"a value of the wrong type names its argument", `{ echo(in: {limit: "x"}) }`, nil,
			`invalid: input:1:21: Argument "in" has invalid value at "limit": Int cannot represent non-integer value: "x"` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := run(t, s, tt.query, tt.vars, 0); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestMutationsRunInOrder checks that mutation fields run one after the
// other, in order, and that the first whose null reaches the root stops
// those after it.
func TestMutationsRunInOrder(t *testing.T) {
	var log []string
	s := testSchema(t, &log)
	got := run(t, s, `mutation { c: step(n: 3) a: step(n: 1) fail b: step(n: 2) }`, nil, 0)
	if want := `{"data":null,"errors":["refused fail"]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if want := "step 3, step 1, fail"; strings.Join(log, ", ") != want {
		t.Errorf("ran %v, want %s", log, want)
	}
}

// TestResolverCalls checks that a request stops resolving at its bound and
// says so once.
func TestResolverCalls(t *testing.T) {
	s := testSchema(t, new([]string))
	got := run(t, s, `{ looseItems { id label } hero { name } }`, nil, 4)
	want := `{"data":{"looseItems":[{"id":0,"label":"item \u003c0\u003e"},null,null],"hero":null},"errors":["too many fields resolved looseItems[1].label"]}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := run(t, s, `{ looseItems { id label } }`, nil, 7); !strings.Contains(got, `"label":"item \u003c2\u003e"`) {
		t.Errorf("7 resolver calls for 7 fields: %s", got)
	}
}

// TestIntrospection reads the test schema back through introspection.
func TestIntrospection(t *testing.T) {
	s := testSchema(t, new([]string))
	got := run(t, s, `{
		human: __type(name: "Human") { kind name interfaces { name } fields { name type { kind ofType { kind name } } } }
		character: __type(name: "Character") { kind possibleTypes { name } fields { name } }
		filter: __type(name: "Filter") { inputFields { name defaultValue type { kind } } isOneOf }
		none: __type(name: "Nothing") { name }
		__schema { queryType { fields { name description args { name defaultValue } } } mutationType { name } subscriptionType { name } directives { name isRepeatable } }
	}`, nil, 0)
	for _, want := range []string{
		`"human":{"kind":"OBJECT","name":"Human","interfaces":[{"name":"Character"}],"fields":[{"name":"name","type":{"kind":"NON_NULL","ofType":{"kind":"SCALAR","name":"String"}}},{"name":"friends","type":{"kind":"NON_NULL","ofType":{"kind":"LIST","name":null}}}]}`,
		`"character":{"kind":"INTERFACE","possibleTypes":[{"name":"Human"},{"name":"Droid"}],"fields":[{"name":"name"}]}`,
		`"filter":{"inputFields":[{"name":"prefix","defaultValue":"\"R\"","type":{"kind":"SCALAR"}},{"name":"colors","defaultValue":null,"type":{"kind":"LIST"}},{"name":"limit","defaultValue":null,"type":{"kind":"NON_NULL"}}],"isOneOf":false}`,
		`"none":null`,
		`{"name":"echo","description":"Echoes its arguments as JSON.","args":[{"name":"s","defaultValue":null},{"name":"n","defaultValue":"7"}`,
		`"mutationType":{"name":"Mutation"},"subscriptionType":null`,
		`"directives":[{"name":"deprecated","isRepeatable":false},{"name":"include","isRepeatable":false},{"name":"oneOf","isRepeatable":false},{"name":"skip","isRepeatable":false},{"name":"specifiedBy","isRepeatable":false}]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the answer does not hold %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, `"__schema"},`) || strings.Contains(got, `{"name":"__type"`) {
		t.Errorf("the query type lists the introspection's own fields: %s", got)
	}
}

// TestBuilderRefuses checks that a schema with a field without resolver,
// a resolver without field or an abstract type without type resolver does
// not build.
func TestBuilderRefuses(t *testing.T) {
	nothing := func(context.Context, Params) (any, error) { return nil, nil }
	b := NewBuilder()
	b.Types("types", `type Thing { a: Int b: Int } union U = Thing`)
	b.Query("thing: Thing", nothing)
	b.Query("not a field", nothing)
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), `Query field "not a field" is not one field definition`) {
		t.Errorf("a query that is not a field definition: %v", err)
	}
	b = NewBuilder()
	b.Types("types", `type Thing { a: Int b: Int } union U = Thing`)
	b.Query("thing: Thing", nothing)
	b.Resolve("Thing", "a", nothing)
	b.Resolve("Thing", "c", nothing)
	_, err := b.Build()
	want := "Thing.b has no resolver\na resolver is set for Thing.c, which is not a field of an object type\nunion U has no type resolver"
	if err == nil || err.Error() != want {
		t.Errorf("Build = %v, want\n%s", err, want)
	}
}
