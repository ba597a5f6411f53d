package graphql

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
)

// nested returns a query of depth fields, each the only field of its
// parent: { f { f { … } } }.
func nested(depth int) string {
	return strings.Repeat("{ f ", depth) + strings.Repeat("} ", depth)
}

// ofTypes returns an introspection query of depth fields: __schema, types,
// fields, type, then ofType down to name.
func ofTypes(depth int) string {
	return "{ __schema { types { fields { type " + strings.Repeat("{ ofType ", depth-5) + "{ name }" + strings.Repeat(" }", depth-5) + " } } } }"
}

// aliases returns a query selecting vpcs n times, each with its name:
// 2n fields.
func aliases(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, " v%d: vpcs { name }", i)
	}
	b.WriteString(" }")
	return b.String()
}

// TestLimits checks the bounds of a query's depth and size, through
// fragments too.
func TestLimits(t *testing.T) {
	e := newEnv(t)
	e.seed()
	refused := []struct {
		name, query, message string
	}{
		{"depth 12", nested(12), "query depth 12 exceeds the limit of 10"},
		{"introspection depth 16", ofTypes(16), "query depth 16 exceeds the limit of 15"},
		{"depth through fragments", `query { ...A } fragment A on Query { f { f { f { ...B } } } }
			fragment B on Query { f { f { ... on Query { f { f { f { f { f { f } } } } } } } } }`,
			"query depth 11 exceeds the limit of 10"},
		{"introspection depth through fragments", `query { __schema { types { ...T } } }
			fragment T on __Type { fields { type { ...R } } }
			fragment R on __Type { ofType { ofType { ofType { ... on __Type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } } } }`,
			"query depth 16 exceeds the limit of 15"},
		{"depth of a mutation", "mutation " + nested(11), "mutation depth 11 exceeds the limit of 10"},
		{"300 fields", aliases(150), "query selects 300 fields, more than the limit of 200"},
		{"fields through fragments", `{ ...A ...A } fragment A on Query { ...B ...B } fragment B on Query { ...C ...C }
			fragment C on Query { ...D ...D } fragment D on Query { ...E ...E } fragment E on Query { ...F ...F }
			fragment F on Query { vpcs { name uid cidr } }`,
			"query selects 256 fields, more than the limit of 200"},
		{"fragments multiplying beyond any count", `{ ...F0 }` + doubling(70),
			"query selects too many fields to count, more than the limit of 200"},
		{"an unused fragment", `{ vpcs { name } } fragment Deep on Query ` + nested(11),
			"fragment Deep depth 11 exceeds the limit of 10"},
		{"a fragment cycle", `{ ...A } fragment A on Query { vpcs { name } ...B } fragment B on Query { ...A }`,
			"fragment A spreads itself, directly or through other fragments"},
		{"a fragment spreading itself", `{ ...A } fragment A on Query { vpcs { name ...A } }`,
			"fragment A spreads itself, directly or through other fragments"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			res := e.with(t).query("acme", tt.query)
			if code := res.code(t); code != codeInvalidArgument || res.Errors[0].Message != tt.message {
				t.Errorf("answered %s, want INVALID_ARGUMENT %q", res.body, tt.message)
			}
			if res.Data != nil {
				t.Errorf("a refused query answered data %s", res.Data)
			}
		})
	}

	var intro struct {
		Schema struct{ Types []struct{ Name string } } `json:"__schema"`
	}
	e.ok("acme", ofTypes(15), &intro)
	if len(intro.Schema.Types) == 0 {
		t.Errorf("an introspection query of depth 15 answered no types")
	}
	intro.Schema.Types = nil
	e.ok("acme", standardIntrospection, &intro)
	if len(intro.Schema.Types) < 20 {
		t.Errorf("the standard introspection query of GraphQL tools answered %d types", len(intro.Schema.Types))
	}
	var many map[string][]vpc
	e.ok("acme", aliases(100), &many)
	if len(many) != 100 || len(many["v99"]) != 1 || many["v99"][0].Name != "main" {
		t.Errorf("a query of 200 fields answered %v", many)
	}
	e.ok("acme", `{ vpcs { ...V } } fragment V on VPC { subnets { allocations { edges { node { owner { kind } } } } } }`, nil)
}

// doubling returns fragments F0 … Fn-1, each spreading the next twice, and
// Fn selecting one field: F0 selects 2ⁿ fields.
func doubling(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, " fragment F%d on Query { ...F%d ...F%d }", i, i+1, i+1)
	}
	fmt.Fprintf(&b, " fragment F%d on Query { vpcs { name } }", n)
	return b.String()
}

// TestHTTP checks the answers to requests that are not executed, and to
// those that are but fail.
func TestHTTP(t *testing.T) {
	e := newEnv(t)
	e.seed()
	valid := `{"query": "{ vpcs { name } }"}`
	tests := []struct {
		name        string
		method      string
		token       string
		contentType string
		body        string
		status      int
		code        string
		message     string // a part of the message
	}{
		{"GET", http.MethodGet, "acme", "application/json", "", http.StatusMethodNotAllowed, codeInvalidArgument, "use POST"},
		{"PUT", http.MethodPut, "acme", "application/json", valid, http.StatusMethodNotAllowed, codeInvalidArgument, "use POST"},
		{"no credentials", http.MethodPost, "", "application/json", valid, http.StatusUnauthorized, codeUnauthenticated, "unauthenticated"},
		{"unknown token", http.MethodPost, "nobody", "application/json", valid, http.StatusUnauthorized, codeUnauthenticated, "unauthenticated"},
		{"form body", http.MethodPost, "acme", "application/x-www-form-urlencoded", "query=x", http.StatusUnsupportedMediaType, codeInvalidArgument, "Content-Type: application/json"},
		{"2 MiB body", http.MethodPost, "acme", "application/json", `{"query": "{ vpcs { name } }", "x": "` + strings.Repeat("a", 2<<20) + `"}`,
			http.StatusRequestEntityTooLarge, codeInvalidArgument, "larger than the limit of 1048576 bytes"},
		{"not JSON", http.MethodPost, "acme", "application/json", `{query`, http.StatusBadRequest, codeInvalidArgument, "not a JSON object"},
		{"a batch", http.MethodPost, "acme", "application/json", `[` + valid + `]`, http.StatusBadRequest, codeInvalidArgument, "not a JSON object"},
		{"variables not an object", http.MethodPost, "acme", "application/json", `{"query": "{ vpcs { name } }", "variables": [1]}`, http.StatusBadRequest, codeInvalidArgument, "not a JSON object"},
		{"no query", http.MethodPost, "acme", "application/json", `{"variables": {}}`, http.StatusBadRequest, codeInvalidArgument, "query is required"},
		{"query too long", http.MethodPost, "acme", "application/json", `{"query": "{ vpcs { name } }` + strings.Repeat(" ", 64<<10) + `"}`,
			http.StatusBadRequest, codeInvalidArgument, "more than the limit of 65536"},
		{"syntax error", http.MethodPost, "acme", "application/json", `{"query": "{ vpcs { name }"}`, http.StatusOK, codeInvalidArgument, "Syntax Error"},
		{"wrong variable", http.MethodPost, "acme", "application/json", `{"query": "query($n: Int!) { previewAllocation(pool: \"public-zone-a\", count: $n) }", "variables": {"n": "many"}}`,
			http.StatusOK, codeInvalidArgument, "$n"},
		{"missing variable", http.MethodPost, "acme", "application/json", `{"query": "query($n: String!) { vpcs(namespace: $n) { name } }"}`,
			http.StatusOK, codeInvalidArgument, "$n"},
		{"unknown operation", http.MethodPost, "acme", "application/json", `{"query": "query A { vpcs { name } } query B { pools { name } }", "operationName": "C"}`,
			http.StatusOK, codeInvalidArgument, "C"},
		{"subscription", http.MethodPost, "acme", "application/json", `{"query": "subscription { vpcs { name } }"}`,
			http.StatusOK, codeInvalidArgument, "ubscription"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e.with(t)
			r := httptest.NewRequestWithContext(t.Context(), tt.method, "/graphql", strings.NewReader(tt.body))
			r.Header.Set("Content-Type", tt.contentType)
			if tt.token != "" {
				r.Header.Set("Authorization", "Bearer "+tt.token)
			}
			res := e.serve(r)
			if res.status != tt.status {
				t.Errorf("status %d, want %d; answer %s", res.status, tt.status, res.body)
			}
			if code := res.code(t); code != tt.code || !strings.Contains(res.Errors[0].Message, tt.message) {
				t.Errorf("answered %s, want %s with %q", res.body, tt.code, tt.message)
			}
			if res.Data != nil {
				t.Errorf("a request that was not executed answered data %s", res.Data)
			}
			switch tt.status {
			case http.StatusMethodNotAllowed:
				if allow := res.header.Get("Allow"); allow != http.MethodPost {
					t.Errorf("Allow = %q, want POST", allow)
				}
			case http.StatusUnauthorized:
				if !strings.HasPrefix(res.header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("WWW-Authenticate = %q, want Bearer", res.header.Get("WWW-Authenticate"))
				}
			}
		})
	}

	t.Run("2 MiB body of unknown length", func(t *testing.T) {
		body := io.MultiReader(strings.NewReader(`{"query": "{ vpcs { name } }", "x": "`), strings.NewReader(strings.Repeat("a", 2<<20)), strings.NewReader(`"}`))
		r := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/graphql", body)
		r.ContentLength = -1
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer acme")
		if res := e.with(t).serve(r); res.status != http.StatusRequestEntityTooLarge || res.code(t) != codeInvalidArgument {
			t.Errorf("answered %d %s, want 413", res.status, res.body)
		}
	})
	t.Run("operationName", func(t *testing.T) {
		body, _ := json.Marshal(map[string]any{"query": "query A { vpcs { name } } query B { pools { name } }", "operationName": "B"})
		res := e.with(t).post("acme", "application/json; charset=utf-8", bytes.NewReader(body))
		if res.status != http.StatusOK || len(res.Errors) != 0 || !strings.Contains(string(res.Data), `"pools"`) || strings.Contains(string(res.Data), `"vpcs"`) {
			t.Errorf("operation B answered %d %s", res.status, res.body)
		}
	})
	t.Run("errors beside data", func(t *testing.T) {
		res := e.with(t).query("acme", `{ vpcs { name } pool(namespace: "acme/prod", name: "vpc-main") { allocations(first: 5000) { totalCount } } }`)
		if res.code(t) != codeInvalidArgument || !strings.Contains(string(res.Data), `"name":"main"`) {
			t.Errorf("answered %s, want the VPCs and an INVALID_ARGUMENT error", res.body)
		}
		if path := fmt.Sprint(res.Errors[0].Path); path != "[pool allocations]" {
			t.Errorf("error path %s, want [pool allocations]", path)
		}
	})
}

// TestAuthenticatorFailure checks that an authenticator that fails for
// another reason than credentials is answered as an internal error.
func TestAuthenticatorFailure(t *testing.T) {
	e := newEnv(t)
	h, err := NewHandler(e.svc, e.pools, func(*http.Request) (auth.Actor, error) {
		return auth.Actor{}, errors.New("pq: connection refused")
	}, e.logger)
	if err != nil {
		t.Fatal(err)
	}
	e.handler = h.(*handler)
	res := e.post("acme", "application/json", strings.NewReader(`{"query": "{ vpcs { name } }"}`))
	if res.status != http.StatusInternalServerError || res.code(t) != codeInternal ||
		!strings.HasPrefix(res.Errors[0].Message, "internal error (request id ") || strings.Contains(string(res.body), "pq") {
		t.Errorf("answered %d %s, want 500 INTERNAL", res.status, res.body)
	}
	if !strings.Contains(e.logs.String(), "connection refused") {
		t.Errorf("the authenticator's error is not logged:\n%s", e.logs)
	}
}

// standardIntrospection is the introspection query GraphQL tools (GraphiQL,
// code generators) send: it nests 13 deep through ofType.
const standardIntrospection = `query IntrospectionQuery {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types { ...FullType }
    directives { name description locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
}`
