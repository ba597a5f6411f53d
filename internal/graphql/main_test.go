package graphql

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// The codes of the domain's refusals, as the tests expect them.
const (
	codeNotFound      = string(refusal.CodeNotFound)
	codeForbidden     = string(refusal.CodeForbidden)
	codeConflict      = string(refusal.CodeConflict)
	codePoolExhausted = string(refusal.CodePoolExhausted)
)

// The test bearer tokens and their actors; real tokens are the auth
// package's.
var testActors = map[string]auth.Actor{
	"op":       {Name: "op", Role: auth.Operator},
	"acme":     {Name: "acme", Role: auth.Tenant, Namespaces: []string{"acme/*"}},
	"globex":   {Name: "globex", Role: auth.Tenant, Namespaces: []string{"globex/*"}},
	"acmecorp": {Name: "acmecorp", Role: auth.Tenant, Namespaces: []string{"acme-corp/*"}},
}

func testAuthenticate(r *http.Request) (auth.Actor, error) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return auth.Actor{}, fmt.Errorf("%w: no bearer token", ErrUnauthenticated)
	}
	a, ok := testActors[token]
	if !ok {
		return auth.Actor{}, fmt.Errorf("%w: unknown token", ErrUnauthenticated)
	}
	return a, nil
}

// env is a GraphQL handler over a service on a fresh database.
type env struct {
	t        *testing.T
	db       *store.DB
	url      string
	svc      *ipam.Service
	branches *branch.Service
	pools    *numbers.Service
	handler  *handler
	logger   *slog.Logger
	logs     *bytes.Buffer
	// path is where requests are posted: /graphql unless at set another.
	path string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	url := pgtest.NewURL(t)
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	logs := &bytes.Buffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	svc, err := ipam.New(t.Context(), ipam.Config{DB: db, URL: url, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	pools := newPools(t, db, url, logger)
	h, err := NewHandler(svc, pools, testAuthenticate, logger)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, db: db, url: url, svc: svc, branches: pools.Branches(), pools: pools, handler: h.(*handler), logger: logger, logs: logs}
}

// newPools returns the service of number pools on db with its service of
// branches and objects (which follow the other processes when url is not
// empty), guarded as ipam serve's are.
func newPools(tb testing.TB, db *store.DB, url string, logger *slog.Logger) *numbers.Service {
	tb.Helper()
	pools, err := numbers.New(context.Background(), numbers.Config{DB: db, URL: url, Logger: logger,
		Branch: branch.Config{Guard: branch.SchemaGuard(CheckSchema)}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pools.Close)
	return pools
}

// with returns e reporting to the subtest t.
func (e *env) with(t *testing.T) *env {
	sub := *e
	sub.t = t
	return &sub
}

// at returns e posting to /graphql/<branch>.
func (e *env) at(branch string) *env {
	sub := *e
	sub.path = "/graphql/" + branch
	return &sub
}

// gqlError is an error of a response.
type gqlError struct {
	Message    string `json:"message"`
	Path       []any  `json:"path"`
	Extensions struct {
		Code  string `json:"code"`
		Field string `json:"field"`
	} `json:"extensions"`
}

// result is a decoded response.
type result struct {
	status int
	header http.Header
	body   []byte
	Data   json.RawMessage `json:"data"`
	Errors []gqlError      `json:"errors"`
}

// code returns the code of the only error, failing the test unless there
// is exactly one.
func (r result) code(t *testing.T) string {
	t.Helper()
	if len(r.Errors) != 1 {
		t.Fatalf("got errors %s, want exactly one", r.body)
	}
	return r.Errors[0].Extensions.Code
}

// post sends body with the token's credentials (none when token is "").
func (e *env) post(token, contentType string, body io.Reader) result {
	e.t.Helper()
	path := e.path
	if path == "" {
		path = "/graphql"
	}
	r := httptest.NewRequestWithContext(e.t.Context(), http.MethodPost, path, body)
	r.Header.Set("Content-Type", contentType)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return e.serve(r)
}

// serve answers r as web mounts the handler: at /graphql and
// /graphql/{branch...}.
func (e *env) serve(r *http.Request) result {
	e.t.Helper()
	w := httptest.NewRecorder()
	mux := http.NewServeMux()
	mux.Handle("/graphql", e.handler)
	mux.Handle("/graphql/{branch...}", e.handler)
	mux.ServeHTTP(w, r)
	res := result{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
	if ct := w.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
		e.t.Fatalf("Content-Type = %q, want JSON; body %s", ct, res.body)
	}
	if err := json.Unmarshal(res.body, &res); err != nil {
		e.t.Fatalf("the response %s is not JSON: %v", res.body, err)
	}
	return res
}

// query runs a GraphQL request as token's actor; vars alternate names and
// values.
func (e *env) query(token, query string, vars ...any) result {
	e.t.Helper()
	variables := map[string]any{}
	for i := 0; i+1 < len(vars); i += 2 {
		variables[vars[i].(string)] = vars[i+1]
	}
	body, err := json.Marshal(map[string]any{"query": query, "variables": variables})
	if err != nil {
		e.t.Fatal(err)
	}
	res := e.post(token, "application/json", bytes.NewReader(body))
	if res.status != http.StatusOK {
		e.t.Fatalf("status %d, want 200; body %s", res.status, res.body)
	}
	return res
}

// ok runs a request that must succeed and decodes its data into out.
func (e *env) ok(token, query string, out any, vars ...any) {
	e.t.Helper()
	res := e.query(token, query, vars...)
	if len(res.Errors) > 0 {
		e.t.Fatalf("%s\nanswered errors %s", query, res.body)
	}
	if out != nil {
		if err := json.Unmarshal(res.Data, out); err != nil {
			e.t.Fatalf("unable to decode %s: %v", res.Data, err)
		}
	}
}

// fails runs a request that must fail with one error of code, and returns
// that error.
func (e *env) fails(token, code, query string, vars ...any) gqlError {
	e.t.Helper()
	res := e.query(token, query, vars...)
	if got := res.code(e.t); got != code {
		e.t.Fatalf("%s\nanswered %s, want code %s", query, res.body, code)
	}
	return res.Errors[0]
}

// counts returns the number of rows of every table a request may change.
func (e *env) counts() map[string]int {
	e.t.Helper()
	out := map[string]int{}
	for _, table := range []string{"pools", "vpcs", "subnets", "allocations", "floating_ips", "audit_log"} {
		var n int
		if err := e.db.GetContext(e.t.Context(), &n, "SELECT count(*) FROM "+table); err != nil {
			e.t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

// The mutations of the tests, with their variables.
const (
	createPublicPool = `mutation($name: String!, $cidr: String!, $gateway: String, $exclude: [String!], $zone: String) {
		createPublicPool(input: {name: $name, cidr: $cidr, gateway: $gateway, exclude: $exclude, zone: $zone}) {
			uid name namespace kind cidr gateway exclude zone usage { size used free utilization }
		}
	}`
	createVpc = `mutation($namespace: String!, $name: String!, $cidr: String!, $zone: String) {
		createVpc(input: {namespace: $namespace, name: $name, cidr: $cidr, zone: $zone}) {
			uid namespace name cidr zone defaultRoute
			router { name namespace pool address owner { kind uid name } createdAt }
			pool { name namespace kind cidr }
			subnets { name }
		}
	}`
	createSubnet = `mutation($namespace: String!, $vpc: String!, $name: String!, $cidr: String!, $gateway: String) {
		createSubnet(input: {namespace: $namespace, vpc: $vpc, name: $name, cidr: $cidr, gateway: $gateway}) {
			uid name cidr gateway usage { size used free utilization }
		}
	}`
	attachInterface = `mutation($namespace: String!, $vpc: String!, $subnet: String!, $uid: String!, $hostname: String!, $nic: Int!) {
		attachInterface(input: {namespace: $namespace, vpc: $vpc, subnet: $subnet, vm: {uid: $uid, hostname: $hostname}, nic: $nic}) {
			name namespace pool address owner { kind uid name } createdAt
		}
	}`
	detachInterface = `mutation($namespace: String!, $vpc: String!, $uid: String!, $hostname: String!, $nic: Int!) {
		detachInterface(input: {namespace: $namespace, vpc: $vpc, vm: {uid: $uid, hostname: $hostname}, nic: $nic})
	}`
	attachNode = `mutation($namespace: String!, $vpc: String!, $subnet: String!, $uid: String!, $name: String!) {
		attachNode(input: {namespace: $namespace, vpc: $vpc, subnet: $subnet, node: {uid: $uid, name: $name}}) {
			name pool address owner { kind uid name }
		}
	}`
	claimFloatingIp = `mutation($namespace: String!, $name: String!, $zone: String, $pool: String) {
		claimFloatingIp(input: {namespace: $namespace, name: $name, zone: $zone, pool: $pool}) {
			uid namespace name address pool zone
		}
	}`
	allocate = `mutation($namespace: String, $pool: String!, $within: String, $reserved: [String!], $kind: String!, $uid: String!, $name: String!, $ownerNamespace: String) {
		allocate(input: {namespace: $namespace, pool: $pool, within: $within, reserved: $reserved,
			owner: {kind: $kind, uid: $uid, name: $name}, ownerNamespace: $ownerNamespace}) {
			name namespace pool address owner { kind uid name }
		}
	}`
	release = `mutation($namespace: String, $pool: String!, $address: String) {
		release(input: {namespace: $namespace, pool: $pool, address: $address})
	}`
	releaseFloatingIp = `mutation($namespace: String!, $name: String!) { releaseFloatingIp(namespace: $namespace, name: $name) }`
	deleteSubnet      = `mutation($namespace: String!, $vpc: String!, $name: String!) { deleteSubnet(namespace: $namespace, vpc: $vpc, name: $name) }`
	deleteVpc         = `mutation($namespace: String!, $name: String!) { deleteVpc(namespace: $namespace, name: $name) }`
	deletePublicPool  = `mutation($name: String!) { deletePublicPool(name: $name) }`
)

// The objects of the answers.
type (
	usageAnswer struct {
		Size        int     `json:"size"`
		Used        int     `json:"used"`
		Free        int     `json:"free"`
		Utilization float64 `json:"utilization"`
	}
	ownerRef struct {
		Kind string `json:"kind"`
		UID  string `json:"uid"`
		Name string `json:"name"`
	}
	allocation struct {
		Name      string   `json:"name"`
		Namespace *string  `json:"namespace"`
		Pool      string   `json:"pool"`
		Address   string   `json:"address"`
		Owner     ownerRef `json:"owner"`
		CreatedAt string   `json:"createdAt"`
	}
	pool struct {
		UID       string      `json:"uid"`
		Name      string      `json:"name"`
		Namespace *string     `json:"namespace"`
		Kind      string      `json:"kind"`
		CIDR      string      `json:"cidr"`
		Gateway   *string     `json:"gateway"`
		Exclude   []string    `json:"exclude"`
		Zone      *string     `json:"zone"`
		Usage     usageAnswer `json:"usage"`
	}
	subnet struct {
		UID     string      `json:"uid"`
		Name    string      `json:"name"`
		CIDR    string      `json:"cidr"`
		Gateway string      `json:"gateway"`
		Usage   usageAnswer `json:"usage"`
	}
	vpc struct {
		UID          string      `json:"uid"`
		Namespace    string      `json:"namespace"`
		Name         string      `json:"name"`
		CIDR         string      `json:"cidr"`
		Zone         *string     `json:"zone"`
		DefaultRoute *string     `json:"defaultRoute"`
		Router       *allocation `json:"router"`
		Pool         pool        `json:"pool"`
		Subnets      []subnet    `json:"subnets"`
	}
	floatingIP struct {
		UID       string `json:"uid"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
		Address   string `json:"address"`
		Pool      string `json:"pool"`
		Zone      string `json:"zone"`
	}
	connection struct {
		Edges []struct {
			Cursor string     `json:"cursor"`
			Node   allocation `json:"node"`
		} `json:"edges"`
		Nodes    []allocation `json:"nodes"`
		PageInfo struct {
			EndCursor   *string `json:"endCursor"`
			HasNextPage bool    `json:"hasNextPage"`
		} `json:"pageInfo"`
		TotalCount int `json:"totalCount"`
	}
)

// seed makes the walk-through's public pool and acme's VPC main with
// subnet web (10.42.1.0/24), as operator and tenant acme.
func (e *env) seed() {
	e.t.Helper()
	e.ok("op", createPublicPool, nil, "name", "public-zone-a", "cidr", "203.0.113.0/24", "gateway", "203.0.113.1",
		"exclude", []string{"203.0.113.2", "203.0.113.3"}, "zone", "zone-a")
	e.ok("acme", createVpc, nil, "namespace", "acme/prod", "name", "main", "cidr", "10.42.0.0/16", "zone", "zone-a")
	e.ok("acme", createSubnet, nil, "namespace", "acme/prod", "vpc", "main", "name", "web", "cidr", "10.42.1.0/24")
}

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}
