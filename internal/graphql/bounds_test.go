package graphql

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestResolverCallsBound sends a request that resolves more fields than
// maxResolverCalls (the introspection of tools, 40 times over, under
// aliases): it is answered with one INVALID_ARGUMENT error, at the field
// where resolving stopped.
func TestResolverCallsBound(t *testing.T) {
	e := newEnv(t)
	query, err := os.ReadFile("testdata/introspection.graphql")
	if err != nil {
		t.Fatal(err)
	}
	_, fragments, _ := strings.Cut(string(query), "fragment ")
	var b strings.Builder
	b.WriteString("{")
	for i := range 40 {
		fmt.Fprintf(&b, " s%d: __schema { types { ...FullType } }", i)
	}
	b.WriteString(" }\nfragment " + fragments)
	res := e.query("acme", b.String())
	if code := res.code(t); code != codeInvalidArgument || res.Errors[0].Message != "the request resolves more than 100000 fields, the limit: select fewer fields, or smaller pages" {
		t.Errorf("answered %.500s, want INVALID_ARGUMENT", res.body)
	}
	if len(res.Errors[0].Path) == 0 || string(res.Data) != "null" {
		t.Errorf("the error has path %v and the data is %.100s; want a path, and null (__schema is non-null)", res.Errors[0].Path, res.Data)
	}
}
