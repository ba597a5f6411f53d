package graphql

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// The bounds every answer to bad input must keep.
const (
	// callLimit is how long one request may take.
	callLimit = 5 * time.Second
	// allocLimit is how much one request may allocate.
	allocLimit = 256 << 20
)

// clientCodes are the codes of answers to a request that was wrong or not
// allowed. Anything else (INTERNAL above all) is a bug when the database
// is up.
var clientCodes = map[string]bool{
	codeInvalidArgument: true, codeNotFound: true, codeForbidden: true,
	codeUnauthenticated: true, codeConflict: true, codePoolExhausted: true, codeQuotaExceeded: true,
}

// fuzzTokens are the actors a fuzzed request is sent as, "" for none.
var fuzzTokens = []string{"op", "acme", "acmecorp", ""}

// operation is one operation of the schema, as a seed of the fuzz targets:
// its text and its variables.
type operation struct {
	name, query string
	vars        map[string]any
}

// operations holds every query and mutation of the schema, valid against
// fuzzData.
var operations = []operation{
	{"pools", `query($kind: PoolKind, $namespace: String) { pools(kind: $kind, namespace: $namespace) { uid name namespace kind cidr gateway exclude zone usage { size used free utilization } } }`,
		map[string]any{"kind": "PRIVATE", "namespace": "acme/prod"}},
	{"pool", `query($namespace: String, $name: String!, $first: Int, $after: String, $search: String) {
		pool(namespace: $namespace, name: $name) { name usage { used } allocations(first: $first, after: $after, search: $search) {
			totalCount pageInfo { endCursor hasNextPage } edges { cursor node { name namespace pool address owner { kind uid name } createdAt } } nodes { address } } } }`,
		map[string]any{"namespace": "acme/prod", "name": "vpc-main", "first": 2, "after": "10.42.1.1", "search": "web"}},
	{"vpcs", `query($namespace: String) { vpcs(namespace: $namespace) { uid namespace name cidr zone defaultRoute router { address } pool { name } subnets { name cidr gateway usage { free } } } }`,
		map[string]any{"namespace": "acme/prod"}},
	{"vpc", `query($namespace: String!, $name: String!) { vpc(namespace: $namespace, name: $name) { name subnets { name allocations(first: 5) { nodes { address owner { kind name } } } } } }`,
		map[string]any{"namespace": "acme/prod", "name": "main"}},
	{"floatingIps", `query($namespace: String) { floatingIps(namespace: $namespace) { uid namespace name address pool zone } }`,
		map[string]any{"namespace": "acme/prod"}},
	{"quotas", `query($namespace: String!) { quotas(namespace: $namespace) { pattern namespace vpcs { limit used remaining } subnets { limit }
		floatingIps { used } addresses { remaining } } }`,
		map[string]any{"namespace": "acme/prod"}},
	{"previewAllocation", `query($namespace: String, $pool: String!, $within: String, $reserved: [String!], $count: Int) {
		previewAllocation(namespace: $namespace, pool: $pool, within: $within, reserved: $reserved, count: $count) }`,
		map[string]any{"namespace": "acme/prod", "pool": "vpc-main", "within": "10.42.1.0/24", "reserved": []string{"10.42.1.5"}, "count": 3}},
	{"createPublicPool", createPublicPool,
		map[string]any{"name": "public-zone-b", "cidr": "198.51.100.0/24", "gateway": "198.51.100.1", "exclude": []string{"198.51.100.2", "198.51.100.10-198.51.100.20"}, "zone": "zone-b"}},
	{"deletePublicPool", deletePublicPool, map[string]any{"name": "spare"}},
	{"createVpc", createVpc, map[string]any{"namespace": "acme/dev", "name": "lab", "cidr": "10.7.0.0/16", "zone": "zone-a"}},
	{"deleteVpc", deleteVpc, map[string]any{"namespace": "acme/prod", "name": "empty"}},
	{"createSubnet", createSubnet, map[string]any{"namespace": "acme/prod", "vpc": "main", "name": "db", "cidr": "10.42.2.0/24", "gateway": "10.42.2.254"}},
	{"deleteSubnet", deleteSubnet, map[string]any{"namespace": "acme/prod", "vpc": "main", "name": "spare"}},
	{"attachInterface", attachInterface, map[string]any{"namespace": "acme/prod", "vpc": "main", "subnet": "web", "uid": "vm-2", "hostname": "web-02", "nic": 1}},
	{"attachNic", attachNic, map[string]any{"namespace": "acme/prod", "vpc": "main", "subnet": "web", "uid": "vm-3", "hostname": "web-03", "nic": 0}},
	{"detachInterface", detachInterface, map[string]any{"namespace": "acme/prod", "vpc": "main", "uid": "vm-1", "hostname": "web-01", "nic": 0}},
	{"attachNode", attachNode, map[string]any{"namespace": "acme/prod", "vpc": "main", "subnet": "web", "uid": "node-2", "name": "hv-2"}},
	{"claimFloatingIp", claimFloatingIp, map[string]any{"namespace": "acme/prod", "name": "api", "zone": "zone-a"}},
	{"releaseFloatingIp", releaseFloatingIp, map[string]any{"namespace": "acme/prod", "name": "web"}},
	{"allocate", allocate, map[string]any{"namespace": "acme/prod", "pool": "vpc-main", "within": "10.42.3.0/24", "reserved": []string{"10.42.3.1"},
		"kind": "Node", "uid": "node-3", "name": "web"}},
	{"release", release, map[string]any{"namespace": "acme/prod", "pool": "vpc-main", "address": "10.42.1.2"}},
}

// fuzzData stores what the operations act on: public pools public-zone-a
// (zone-a) and spare, acme's VPC main with subnets web (a VM, a node) and
// spare, its empty VPC empty and floating IP web, acme-corp's VPC main,
// and a quota of acme/*.
func fuzzData(ctx context.Context, svc *ipam.Service) error {
	op, acme, corp := testActors["op"], testActors["acme"], testActors["acmecorp"]
	steps := []func() error{
		func() error {
			_, err := svc.CreatePublicPool(ctx, op, ipam.CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Exclude: []string{"203.0.113.2"}, Zone: "zone-a"})
			return err
		},
		func() error {
			_, err := svc.CreatePublicPool(ctx, op, ipam.CreatePublicPoolInput{Name: "spare", CIDR: "192.0.2.0/24"})
			return err
		},
		func() error {
			_, err := svc.CreateVPC(ctx, acme, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"})
			return err
		},
		func() error {
			_, err := svc.CreateVPC(ctx, acme, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "empty", CIDR: "10.43.0.0/16"})
			return err
		},
		func() error {
			_, err := svc.CreateSubnet(ctx, acme, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"})
			return err
		},
		func() error {
			_, err := svc.CreateSubnet(ctx, acme, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "spare", CIDR: "10.42.9.0/24"})
			return err
		},
		func() error {
			_, err := svc.AttachInterface(ctx, acme, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: ipam.VMRef{UID: "vm-1", Hostname: "web-01"}})
			return err
		},
		func() error {
			_, err := svc.AttachNode(ctx, acme, ipam.AttachNodeInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", Node: ipam.NodeRef{UID: "node-1", Name: "hv-1"}})
			return err
		},
		func() error {
			_, err := svc.ClaimFloatingIP(ctx, acme, ipam.ClaimFloatingIPInput{Namespace: "acme/prod", Name: "web", Zone: "zone-a"})
			return err
		},
		func() error {
			_, err := svc.CreateVPC(ctx, corp, ipam.CreateVPCInput{Namespace: "acme-corp/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"})
			return err
		},
		func() error {
			_, err := svc.SetQuota(ctx, op, ipam.QuotaChange{Pattern: "acme/*", Set: map[ipam.QuotaKind]int64{ipam.QuotaFloatingIPs: 2, ipam.QuotaAddresses: 100}})
			return err
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// newFuzzEnv returns an env whose service holds fuzzData, for tb, which
// may be a fuzz target; report through env.with(t).
func newFuzzEnv(tb testing.TB) *env {
	tb.Helper()
	url := pgtest.NewURL(tb)
	db, err := store.Open(context.Background(), url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	logs := &bytes.Buffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	svc, err := ipam.New(context.Background(), ipam.Config{DB: db, URL: url, Logger: logger})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(svc.Close)
	if err := fuzzData(context.Background(), svc); err != nil {
		tb.Fatal(err)
	}
	pools := newPools(tb, db, url, logger)
	h, err := NewHandler(svc, pools, testAuthenticate, logger)
	if err != nil {
		tb.Fatal(err)
	}
	return &env{db: db, url: url, svc: svc, branches: pools.Branches(), pools: pools, handler: h.(*handler), logger: logger, logs: logs}
}

// requestBody is the body of a request of query and variables: the
// variables as they are when they are JSON, as a string otherwise.
func requestBody(query, variables string) []byte {
	q, _ := json.Marshal(query)
	v := []byte(variables)
	if !json.Valid(v) {
		v, _ = json.Marshal(variables)
	}
	return []byte(`{"query":` + string(q) + `,"variables":` + string(v) + `}`)
}

// seedVariants are ways of breaking an operation's variables.
var seedVariants = []func(map[string]any) map[string]any{
	func(map[string]any) map[string]any { return map[string]any{} },
	func(v map[string]any) map[string]any { return replaceStrings(v, "'; DROP TABLE pools; --") },
	func(v map[string]any) map[string]any { return replaceStrings(v, "ma\u0000in") },
	func(v map[string]any) map[string]any { return replaceStrings(v, "mäin\u202e") },
	func(v map[string]any) map[string]any { return replaceStrings(v, "%_") },
	func(v map[string]any) map[string]any { return replaceStrings(v, strings.Repeat("a", 300)) },
	func(v map[string]any) map[string]any {
		out := map[string]any{}
		for k := range v {
			out[k] = 1e300
		}
		return out
	},
}

func replaceStrings(v map[string]any, s string) map[string]any {
	out := map[string]any{}
	for k, x := range v {
		switch x.(type) {
		case string:
			out[k] = s
		case []string:
			out[k] = []string{s, s}
		default:
			out[k] = x
		}
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// FuzzGraphQL sends random and mutated requests, seeded with every
// operation of the schema, valid and broken, to the handler on a service
// holding fuzzData, as an operator, two tenants or no one. Every answer
// is JSON, not 5xx, within callLimit and allocLimit, and carries data or
// errors, every error with a code a client's mistake has; a refused
// request stores nothing.
func FuzzGraphQL(f *testing.F) {
	for i, op := range operations {
		who := uint8(i % 3)
		f.Add(who, op.query, mustJSON(op.vars))
		f.Add(uint8(3), op.query, mustJSON(op.vars))
		f.Add(who, op.query[:len(op.query)/2], mustJSON(op.vars))
		f.Add(who, strings.Replace(op.query, "String", "Int", 1), mustJSON(op.vars))
		for _, variant := range seedVariants {
			f.Add(who, op.query, mustJSON(variant(op.vars)))
		}
	}
	for _, q := range []string{
		nested(12), aliases(150), `{ ...F0 }` + doubling(40), `{ __schema { types { name fields { name } } } }`,
		`query A { vpcs { name } } mutation B { deleteVpc(namespace: "acme/prod", name: "empty") }`,
		`mutation { a: deletePublicPool(name: "spare") b: deletePublicPool(name: "spare") }`,
		`mutation { createVpc(input: {namespace: "acme/x", name: "y", cidr: "10.0.0.0/16"}) { pool { allocations(first: 0) { totalCount } } } }`,
		`{ pool(name: "public-zone-a") { allocations(search: "%") { totalCount } } }`,
	} {
		f.Add(uint8(0), q, "{}")
	}
	e := newFuzzEnv(f)
	f.Fuzz(func(t *testing.T, who uint8, query, variables string) {
		e := e.with(t)
		token := fuzzTokens[int(who)%len(fuzzTokens)]
		before := e.counts()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		start := time.Now()
		res := e.post(token, "application/json", bytes.NewReader(requestBody(query, variables)))
		took := time.Since(start)
		runtime.ReadMemStats(&m1)
		checkAnswer(t, res, took, m1.TotalAlloc-m0.TotalAlloc)
		if !mayHaveStored(query, variables, res) {
			if after := e.counts(); !reflect.DeepEqual(before, after) {
				t.Errorf("a refused request changed the database: %v, then %v\nquery %q\nvariables %q\nanswer %s", before, after, query, variables, res.body)
			}
		}
	})
}

// checkAnswer checks what every answer must be.
func checkAnswer(t *testing.T, res result, took time.Duration, allocated uint64) {
	t.Helper()
	if res.status >= 500 {
		t.Errorf("status %d: %s", res.status, res.body)
	}
	if took > callLimit {
		t.Errorf("the request took %v, more than %v", took, callLimit)
	}
	if allocated > allocLimit {
		t.Errorf("the request allocated %d MiB, more than %d", allocated>>20, allocLimit>>20)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(res.body, &raw); err != nil {
		t.Fatalf("the answer is not a JSON object: %v", err)
	}
	for k := range raw {
		if k != "data" && k != "errors" {
			t.Errorf("the answer has a member %q: %s", k, res.body)
		}
	}
	_, hasData := raw["data"]
	if !hasData && len(res.Errors) == 0 {
		t.Errorf("the answer has neither data nor errors: %s", res.body)
	}
	if res.status != http.StatusOK && (hasData || len(res.Errors) == 0) {
		t.Errorf("status %d with data or without errors: %s", res.status, res.body)
	}
	for _, e := range res.Errors {
		if !clientCodes[e.Extensions.Code] || e.Message == "" {
			t.Errorf("an error with code %q and message %q, want a client's error with a message: %s", e.Extensions.Code, e.Message, res.body)
		}
	}
}

// mayHaveStored reports whether a request answered res may have changed
// the database: only a mutation that began to run, and whose first field
// did not fail by itself. (Mutation fields run in order; the first that
// fails stops them, and the fields before it are done.)
func mayHaveStored(query, variables string, res result) bool {
	var raw map[string]json.RawMessage
	var req request
	if json.Unmarshal(res.body, &raw) != nil || json.Unmarshal(requestBody(query, variables), &req) != nil {
		return false
	}
	if _, executed := raw["data"]; len(res.Errors) == 0 || !executed {
		return len(res.Errors) == 0
	}
	doc, err := parser.ParseQuery(&ast.Source{Input: req.Query})
	if err != nil {
		return false
	}
	var op *ast.OperationDefinition
	for _, d := range doc.Operations {
		if req.OperationName == "" || d.Name == req.OperationName {
			op = d
		}
	}
	if op == nil || op.Operation != ast.Mutation {
		return false
	}
	fields, ok := topFields(op.SelectionSet, doc.Fragments, map[string]bool{})
	if !ok || len(fields) == 0 {
		return true
	}
	for _, e := range res.Errors {
		if len(e.Path) == 1 && e.Path[0] == fields[0] {
			return false
		}
	}
	return true
}

// topFields lists the response names of a selection set in order,
// through its fragments; false when directives make it uncertain.
func topFields(set ast.SelectionSet, fragments ast.FragmentDefinitionList, seen map[string]bool) ([]string, bool) {
	var out []string
	for _, sel := range set {
		var sub []string
		ok := true
		switch s := sel.(type) {
		case *ast.Field:
			if len(s.Directives) > 0 {
				return nil, false
			}
			name := s.Name
			if s.Alias != "" {
				name = s.Alias
			}
			sub = []string{name}
		case *ast.InlineFragment:
			if len(s.Directives) > 0 {
				return nil, false
			}
			sub, ok = topFields(s.SelectionSet, fragments, seen)
		case *ast.FragmentSpread:
			f := fragments.ForName(s.Name)
			if len(s.Directives) > 0 || f == nil || seen[s.Name] {
				return nil, false
			}
			seen[s.Name] = true
			sub, ok = topFields(f.SelectionSet, fragments, seen)
			delete(seen, s.Name)
		}
		if !ok {
			return nil, false
		}
		out = append(out, sub...)
	}
	return out, true
}

// addresses returns n addresses of the /16 prefix ("10.42"), in order.
func addresses(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s.%d.%d", prefix, i>>8, i&255)
	}
	return out
}

// TestBadInput sends the named kinds of bad input: each is answered by a
// client's error within callLimit, nothing stored.
func TestBadInput(t *testing.T) {
	e := newFuzzEnv(t).with(t)
	excludes := make([]string, 10000)
	for i := range excludes {
		excludes[i] = fmt.Sprintf("198.51.%d.%d", 100+i/256, i%256)
	}
	deepList := strings.Repeat("[", 5000) + `"10.42.1.1"` + strings.Repeat("]", 5000)
	tests := []struct {
		name      string
		token     string
		body      string
		status    int
		code      string // of the first error; "" when the request succeeds
		message   string // a part of the first error's message
		wantData  string // a part of the data
		dataUnset bool
		stores    bool // the request is valid and changes the database
	}{
		// Oversized bodies: the limit is 1 MiB (TestHTTP has 2 MiB, and
		// 2 MiB of unknown length).
		{name: "a body of 1 MiB and a byte", token: "acme", body: bodyOfSize(maxBodyBytes + 1),
			status: http.StatusRequestEntityTooLarge, code: codeInvalidArgument, message: "larger than the limit of 1048576 bytes"},
		{name: "a body of 1 MiB", token: "acme", body: bodyOfSize(maxBodyBytes), status: http.StatusOK, wantData: `"name":"main"`},

		// Deeply nested.
		{name: "selections nested 5000 deep", token: "acme", body: mustJSON(map[string]string{"query": nested(5000)}),
			status: http.StatusOK, code: codeInvalidArgument, message: "query depth 5000 exceeds the limit of 10"},
		{name: "a list argument nested 5000 deep", token: "acme", body: mustJSON(map[string]string{"query": `{ previewAllocation(pool: "public-zone-a", reserved: ` + deepList + `) }`}),
			status: http.StatusOK, code: codeInvalidArgument, message: "argument reserved nests lists and objects deeper than the limit of 8"},
		{name: "an input object nested 3000 deep", token: "op", body: mustJSON(map[string]string{"query": `mutation { createPublicPool(input: ` + strings.Repeat("{name: ", 3000) + `"x"` + strings.Repeat("}", 3000) + `) { name } }`}),
			status: http.StatusOK, code: codeInvalidArgument, message: "argument input nests lists and objects deeper than the limit of 8"},
		{name: "a default value nested 3000 deep", token: "acme", body: mustJSON(map[string]string{"query": `query($r: [String!] = ` + deepList[2000:len(deepList)-2000] + `) { vpcs { name } }`}),
			status: http.StatusOK, code: codeInvalidArgument, message: "the default value of a variable nests lists and objects deeper than the limit of 8"},
		{name: "a directive's argument nested 3000 deep", token: "acme", body: mustJSON(map[string]string{"query": `{ vpcs @skip(if: ` + deepList[2000:len(deepList)-2000] + `) { name } }`}),
			status: http.StatusOK, code: codeInvalidArgument, message: "argument if nests lists and objects deeper than the limit of 8"},
		{name: "a type definition with nested values", token: "acme", body: mustJSON(map[string]string{"query": `type Q @d(a: ` + deepList + `) { f: Int } { vpcs { name } }`}),
			status: http.StatusOK, code: codeInvalidArgument, message: "the document holds a ObjectDefinition: only operations and fragments are accepted"},
		{name: "variables nested 20000 deep", token: "acme", body: `{"query": "{ vpcs { name } }", "variables": {"a": ` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}`,
			status: http.StatusBadRequest, code: codeInvalidArgument, message: "not a JSON object"},
		{name: "a fragment cycle 500 long", token: "acme", body: mustJSON(map[string]string{"query": `{ ...F0 }` + fragmentCycle(500)}),
			status: http.StatusOK, code: codeInvalidArgument, message: "spreads itself"},

		// Very wide.
		{name: "4000 aliases", token: "acme", body: mustJSON(map[string]string{"query": "{" + strings.Repeat(" a: __typename", 4000) + " }"}),
			status: http.StatusOK, code: codeInvalidArgument, message: "selects 4000 fields, more than the limit of 200"},
		{name: "2000 operations", token: "acme", body: mustJSON(map[string]string{"query": operationsOf(2000)}),
			status: http.StatusOK, code: codeInvalidArgument, message: "operation"},
		{name: "3000 arguments", token: "acme", body: mustJSON(map[string]string{"query": "{ vpcs(" + strings.Repeat(`namespace: "a" `, 3000) + ") { name } }"}),
			status: http.StatusOK, code: codeInvalidArgument, message: "field vpcs has 3000 arguments, more than the limit of 16"},
		{name: "3000 arguments of a directive", token: "acme", body: mustJSON(map[string]string{"query": "{ vpcs @skip(" + strings.Repeat(`if: true `, 3000) + ") { name } }"}),
			status: http.StatusOK, code: codeInvalidArgument, message: "directive @skip has 3000 arguments, more than the limit of 16"},
		{name: "3000 fields of an input object", token: "op", body: mustJSON(map[string]string{"query": `mutation { createPublicPool(input: {` + strings.Repeat(`name: "a" `, 3000) + `}) { name } }`}),
			status: http.StatusOK, code: codeInvalidArgument, message: "an input object of argument input has 3000 fields, more than the limit of 16"},
		{name: "3000 variables", token: "acme", body: mustJSON(map[string]string{"query": "query(" + strings.Repeat(`$a: Int `, 3000) + ") { vpcs { name } }"}),
			status: http.StatusOK, code: codeInvalidArgument, message: "query defines 3000 variables, more than the limit of 100"},
		{name: "900 directives", token: "acme", body: mustJSON(map[string]string{"query": "{ vpcs " + strings.Repeat("@skip(if: false) ", 900) + "{ name } }"}),
			status: http.StatusOK, wantData: `"vpcs":[`},
		{name: "3000 directives", token: "acme", body: mustJSON(map[string]string{"query": "{ vpcs " + strings.Repeat("@skip(if: false) ", 3000) + "{ name } }"}),
			status: http.StatusOK, code: codeInvalidArgument, message: "the document writes more than 1000 values"},
		{name: "20000 values of the wrong type", token: "acme", body: mustJSON(map[string]string{"query": `{ previewAllocation(pool: "public-zone-a", reserved: [` + strings.Repeat("1,", 20000) + `]) }`}),
			status: http.StatusOK, code: codeInvalidArgument, message: "the document writes more than 1000 values, the limit: send long lists as variables"},
		{name: "1000 values in a list for an Int", token: "acme", body: mustJSON(map[string]string{"query": `{ a: pool(name: "public-zone-a") { allocations(first: [` + strings.Repeat(`"a",`, 997) + `]) { totalCount } } }`}),
			status: http.StatusOK, code: codeInvalidArgument, message: `Argument "first" has invalid value`},
		{name: "4096 excludes written in the query", token: "op", body: mustJSON(map[string]string{"query": `mutation { createPublicPool(input: {name: "wide", cidr: "10.0.0.0/16", exclude: [` + quoted(addresses("10.0", 4096)) + `]}) { name } }`}),
			status: http.StatusOK, code: codeInvalidArgument, message: "send long lists as variables"},
		{name: "4096 excludes as variables", token: "op", body: mustJSON(map[string]any{"query": createPublicPool, "variables": map[string]any{"name": "wide", "cidr": "10.0.0.0/16", "exclude": addresses("10.0", 4096)}}),
			status: http.StatusOK, wantData: `"name":"wide"`, stores: true},
		{name: "60000 reserved addresses", token: "acme",
			body:   mustJSON(map[string]any{"query": `query($r: [String!]) { previewAllocation(namespace: "acme/prod", pool: "vpc-main", within: "10.42.1.0/24", reserved: $r) }`, "variables": map[string]any{"r": addresses("10.42", 60000)}}),
			status: http.StatusOK, code: codeInvalidArgument, message: "reserved has 60000 entries; at most 4096 are accepted", dataUnset: true},
		{name: "10 000 excludes", token: "op",
			body:   mustJSON(map[string]any{"query": createPublicPool, "variables": map[string]any{"name": "big", "cidr": "198.51.0.0/16", "exclude": excludes}}),
			status: http.StatusOK, code: codeInvalidArgument, message: "exclude has 10000 entries; at most 4096 are accepted", dataUnset: true},

		// Unicode and control characters in names.
		{name: "a name with an umlaut", token: "acme", body: createVPCBody("acme/prod", "mäin"), status: http.StatusOK, code: codeInvalidArgument, message: `name "mäin" is not a valid name`},
		{name: "a name of fullwidth letters", token: "acme", body: createVPCBody("acme/prod", "ｍａｉｎ"), status: http.StatusOK, code: codeInvalidArgument, message: "is not a valid name"},
		{name: "a name with a right-to-left override", token: "acme", body: createVPCBody("acme/prod", "ma\u202ein"), status: http.StatusOK, code: codeInvalidArgument, message: `\u202e`},
		{name: "a name with an emoji", token: "acme", body: createVPCBody("acme/prod", "main🙂"), status: http.StatusOK, code: codeInvalidArgument, message: "is not a valid name"},
		{name: "a name with a tab", token: "acme", body: createVPCBody("acme/prod", "ma\tin"), status: http.StatusOK, code: codeInvalidArgument, message: `name "ma\tin"`},
		{name: "a name with a NUL", token: "acme", body: createVPCBody("acme/prod", "ma\x00in"), status: http.StatusOK, code: codeInvalidArgument, message: `name "ma\x00in"`},
		{name: "a name with an escape sequence", token: "acme", body: createVPCBody("acme/prod", "\x1b[31mred"), status: http.StatusOK, code: codeInvalidArgument, message: `\x1b[31mred`},
		{name: "a namespace with a newline", token: "acme", body: createVPCBody("acme/prod\n", "main"), status: http.StatusOK, code: codeInvalidArgument, message: `namespace "acme/prod\n"`},
		{name: "a hostname in unicode", token: "acme", body: mustJSON(map[string]any{"query": attachInterface, "variables": map[string]any{
			"namespace": "acme/prod", "vpc": "main", "subnet": "web", "uid": "vm-9", "hostname": "wéb-01", "nic": 0}}),
			status: http.StatusOK, code: codeInvalidArgument, message: "vm.hostname"},
		{name: "a uid with a control character", token: "acme", body: mustJSON(map[string]any{"query": attachInterface, "variables": map[string]any{
			"namespace": "acme/prod", "vpc": "main", "subnet": "web", "uid": "vm\x07", "hostname": "web-09", "nic": 0}}),
			status: http.StatusOK, code: codeInvalidArgument, message: "vm.uid"},
		{name: "a pool looked up by a name with a NUL", token: "acme", body: mustJSON(map[string]string{"query": `{ pool(name: "a\u0000b") { name } }`}),
			status: http.StatusOK, wantData: `"pool":null`},
		{name: "a private pool looked up by a name with a NUL", token: "acme", body: mustJSON(map[string]string{"query": `{ pool(namespace: "acme/prod", name: "vpc-main\u0000") { name } }`}),
			status: http.StatusOK, wantData: `"pool":null`},
		{name: "a VPC looked up by a name with a NUL", token: "op", body: mustJSON(map[string]string{"query": `{ vpc(namespace: "acme/prod", name: "main\u0000") { name } }`}),
			status: http.StatusOK, wantData: `"vpc":null`},
		{name: "a preview of a pool named with a NUL", token: "op", body: mustJSON(map[string]string{"query": `{ previewAllocation(namespace: "acme\u0000", pool: "vpc-main") }`}),
			status: http.StatusOK, code: codeNotFound},
		{name: "a release in a namespace with a NUL", token: "op", body: mustJSON(map[string]string{"query": `mutation { release(input: {namespace: "acme/prod\u0000", pool: "vpc-main", address: "10.42.1.2"}) }`}),
			status: http.StatusOK, code: codeNotFound},
		{name: "a search with a NUL", token: "acme", body: mustJSON(map[string]string{"query": `{ pool(namespace: "acme/prod", name: "vpc-main") { allocations(search: "web\u0000") { totalCount } } }`}),
			status: http.StatusOK, code: codeInvalidArgument, message: "search"},

		// SQL metacharacters.
		{name: "SQL as a pool name", token: "op", body: mustJSON(map[string]any{"query": createPublicPool, "variables": map[string]any{"name": "'; DROP TABLE pools; --", "cidr": "198.51.100.0/24"}}),
			status: http.StatusOK, code: codeInvalidArgument, message: `name "'; DROP TABLE pools; --" is not a valid name`},
		{name: "SQL as a VPC name", token: "acme", body: createVPCBody("acme/prod", "x' OR '1'='1"), status: http.StatusOK, code: codeInvalidArgument, message: "is not a valid name"},
		{name: "SQL as a namespace", token: "op", body: createVPCBody("acme/prod'; DELETE FROM vpcs; --", "main"), status: http.StatusOK, code: codeInvalidArgument, message: "is not a valid namespace"},
		{name: "SQL as a lookup", token: "op", body: mustJSON(map[string]string{"query": `{ vpc(namespace: "acme/prod", name: "main' OR '1'='1") { name } }`}),
			status: http.StatusOK, wantData: `"vpc":null`},
		{name: "SQL as a search", token: "acme", body: searchBody("'; DROP TABLE pools; --"), status: http.StatusOK, wantData: `"totalCount":0`},
		{name: "% as a search", token: "acme", body: searchBody("%"), status: http.StatusOK, wantData: `"totalCount":0`},
		{name: "_ as a search", token: "acme", body: searchBody("_"), status: http.StatusOK, wantData: `"totalCount":0`},
		{name: "a LIKE pattern as a search", token: "acme", body: searchBody("10.42.1._"), status: http.StatusOK, wantData: `"totalCount":0`},
		{name: "a backslash as a search", token: "acme", body: searchBody(`\`), status: http.StatusOK, wantData: `"totalCount":0`},
		{name: "a search that matches", token: "acme", body: searchBody("10.42.1."), status: http.StatusOK, wantData: `"totalCount":2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e.with(t)
			before := e.counts()
			start := time.Now()
			r, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, "/graphql", strings.NewReader(tt.body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Authorization", "Bearer "+tt.token)
			res := e.serve(r)
			checkAnswer(t, res, time.Since(start), 0)
			if res.status != tt.status {
				t.Errorf("status %d, want %d: %.2000s", res.status, tt.status, res.body)
			}
			switch {
			case tt.code == "" && len(res.Errors) > 0:
				t.Errorf("answered errors, want none: %.2000s", res.body)
			case tt.code != "" && (len(res.Errors) == 0 || res.Errors[0].Extensions.Code != tt.code || !strings.Contains(res.Errors[0].Message, tt.message)):
				t.Errorf("answered %.2000s, want %s with %q", res.body, tt.code, tt.message)
			}
			if !strings.Contains(string(res.Data), tt.wantData) {
				t.Errorf("data %.2000s, want it to contain %s", res.Data, tt.wantData)
			}
			if tt.dataUnset && string(res.Data) != "null" {
				t.Errorf("a refused mutation answered data %s", res.Data)
			}
			if after := e.counts(); reflect.DeepEqual(before, after) == tt.stores {
				t.Errorf("the database was %v, then %v; want it changed: %v", before, after, tt.stores)
			}
		})
	}
	var n int
	if err := e.db.Get(&n, `SELECT count(*) FROM pools`); err != nil || n != 6 {
		t.Errorf("pools holds %d rows (%v) after the bad input, want the 5 of fuzzData and wide", n, err)
	}
}

// quoted writes strings as GraphQL string literals, separated by commas.
func quoted(ss []string) string {
	return `"` + strings.Join(ss, `", "`) + `"`
}

func createVPCBody(namespace, name string) string {
	return mustJSON(map[string]any{"query": createVpc, "variables": map[string]any{"namespace": namespace, "name": name, "cidr": "10.9.0.0/16"}})
}

func searchBody(search string) string {
	return mustJSON(map[string]any{
		"query":     `query($s: String) { pool(namespace: "acme/prod", name: "vpc-main") { allocations(search: $s) { totalCount } } }`,
		"variables": map[string]any{"s": search},
	})
}

// fragmentCycle returns fragments F0 … Fn-1, each spreading the next, and
// the last spreading F0.
func fragmentCycle(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, " fragment F%d on Query { vpcs { name } ...F%d }", i, (i+1)%n)
	}
	return b.String()
}

// bodyOfSize returns a request body of n bytes that reads acme's VPCs.
func bodyOfSize(n int) string {
	const prefix, suffix = `{"query": "{ vpcs { name } }", "x": "`, `"}`
	return prefix + strings.Repeat("a", n-len(prefix)-len(suffix)) + suffix
}

// operationsOf returns a document of n named queries, sent without an
// operation name to pick one.
func operationsOf(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "query Q%d { vpcs { name } } ", i)
	}
	return b.String()
}
