package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/schema/schematest"
	"pivirt.hu/ipam/internal/store"
)

// gql posts a GraphQL operation with a bearer token and returns data, or
// fails the test on any error.
func gql(t *testing.T, base, token, query string, vars map[string]any) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer resp.Body.Close()
	var out struct {
		Data   map[string]any `json:"data"`
		Errors []any          `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Errors) > 0 {
		t.Errorf("POST /graphql %.60s: status %d, %v %v", query, resp.StatusCode, err, out.Errors)
	}
	return out.Data
}

const attachMutation = `mutation($vm: String!) { attachInterface(input: {namespace: "acme/prod", vpc: "main", subnet: "web", vm: {uid: $vm, hostname: $vm}, nic: 0}) { address } }`

// TestTwoServeProcessesOneSubnet runs two ipam serve processes on one
// database and hammers one subnet through both: no address twice, no owner
// twice, the taken set exactly the lowest candidates, and one owner racing
// itself across both processes holds one address.
func TestTwoServeProcessesOneSubnet(t *testing.T) {
	url := pgtest.NewURL(t)
	env := []string{"DATABASE_URL=" + url}
	mustRun(t, "a long tenant password\n", env, "user", "add", "acme", "--role", "tenant", "--namespace", "acme/*", "--password-stdin")
	token := string(bytes.TrimSpace([]byte(mustRun(t, "", env, "token", "create", "acme"))))
	var bases []string
	for range 2 {
		p := start(t, env, "serve", "--listen", "127.0.0.1:0")
		bases = append(bases, p.waitServing(t))
	}
	setupWeb(t, bases, token)

	const clients, each = 16, 25
	attachAll(t, bases, token, clients, each)
	racing := make([]string, 8)
	var wg sync.WaitGroup
	for i := range racing {
		wg.Go(func() {
			data := gql(t, bases[i%2], token, attachMutation, map[string]any{"vm": "racer"})
			a, _ := data["attachInterface"].(map[string]any)
			racing[i], _ = a["address"].(string)
		})
	}
	wg.Wait()
	for _, a := range racing {
		if a != racing[0] {
			t.Errorf("one owner racing itself through two processes got %v", racing)
			break
		}
	}

	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var taken []string
	if err := db.Select(&taken, `SELECT host(address) FROM allocations WHERE owner_kind = 'VirtualMachine' ORDER BY allocations.address`); err != nil {
		t.Fatal(err)
	}
	if len(taken) != clients*each+1 {
		t.Fatalf("%d allocations, want %d", len(taken), clients*each+1)
	}
	pool, _ := candidates.ParsePool(candidates.PoolSpec{CIDR: "10.42.0.0/16"})
	req, _ := pool.ParseRequest(candidates.RequestSpec{Within: "10.42.0.0/22", Reserved: []string{"10.42.0.1"}})
	for i, want := range pool.Space(req).NextN(candidates.Set{}, len(taken)) {
		if taken[i] != want.String() {
			t.Fatalf("the %d-th taken address is %s, want %s: not the lowest candidates", i, taken[i], want)
		}
	}
}

// gqlError is an error of a GraphQL answer.
type gqlError struct {
	Message    string `json:"message"`
	Extensions struct {
		Code string `json:"code"`
	} `json:"extensions"`
}

// gqlAnswer posts a GraphQL operation with a bearer token and returns its
// data and errors; it fails the test only when there is no answer, or
// one other than 200 with JSON.
func gqlAnswer(t *testing.T, base, token, query string, vars map[string]any) (map[string]any, []gqlError) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Error(err)
		return nil, nil
	}
	defer resp.Body.Close()
	var out struct {
		Data   map[string]any `json:"data"`
		Errors []gqlError     `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("POST /graphql %.60s: status %d, %v", query, resp.StatusCode, err)
	}
	return out.Data, out.Errors
}

// operatorToken adds an operator and returns a token of theirs.
func operatorToken(t *testing.T, env []string) string {
	t.Helper()
	mustRun(t, "a long operator password\n", env, "user", "add", "op", "--role", "operator", "--password-stdin")
	return strings.TrimSpace(mustRun(t, "", env, "token", "create", "op"))
}

// TestTwoServeProcessesSchemaOfKinds runs two ipam serve processes on one
// database: a schema loaded with ipam schema load while both run is served
// by both within seconds, and creates racing through both for one unique
// value, of a unique attribute or of a uniqueness constraint, make one
// object, every other answer being CONFLICT.
func TestTwoServeProcessesSchemaOfKinds(t *testing.T) {
	url := pgtest.NewURL(t)
	env := []string{"DATABASE_URL=" + url}
	token := operatorToken(t, env)
	var bases []string
	for range 2 {
		p := start(t, env, "serve", "--listen", "127.0.0.1:0")
		bases = append(bases, p.waitServing(t))
	}
	const mutations = `{ __type(name: "Mutation") { fields { name } } }`
	serves := func(base, mutation string) bool {
		data := gql(t, base, token, mutations, nil)
		typ, _ := data["__type"].(map[string]any)
		fields, _ := typ["fields"].([]any)
		for _, f := range fields {
			if f, _ := f.(map[string]any); f["name"] == mutation {
				return true
			}
		}
		return false
	}
	for _, base := range bases {
		if serves(base, "IpamVLANCreate") {
			t.Fatalf("%s serves IpamVLANCreate before any schema is loaded", base)
		}
	}

	mustRun(t, "", env, "schema", "load", writeFile(t, t.TempDir(), "vlans.yaml", schematest.Example))
	loaded := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for _, base := range bases {
		if !waitFor(ctx, func() bool { return serves(base, "IpamVLANCreate") }) {
			t.Fatalf("%s does not serve IpamVLANCreate %v after ipam schema load", base, time.Since(loaded).Round(time.Millisecond))
		}
	}
	t.Logf("both processes serve the schema loaded %v after ipam schema load", time.Since(loaded).Round(time.Millisecond))

	// race has every client create, at once, through both processes, an
	// object of the same values for the constraint, with the mutation
	// field; it wants one object made and every other create refused.
	const clients = 16
	race := func(field, mutation string, vars func(i int) map[string]any, constraint string) (id string) {
		t.Helper()
		ids := make([]string, clients)
		errs := make([][]gqlError, clients)
		begin := make(chan struct{})
		var wg sync.WaitGroup
		for i := range clients {
			wg.Go(func() {
				<-begin
				data, e := gqlAnswer(t, bases[i%2], token, mutation, vars(i))
				errs[i] = e
				res, _ := data[field].(map[string]any)
				if obj, _ := res["object"].(map[string]any); res["ok"] == true {
					ids[i], _ = obj["id"].(string)
				}
			})
		}
		close(begin)
		wg.Wait()
		want := "Violates uniqueness constraint '" + constraint + "'"
		for i := range clients {
			switch {
			case ids[i] != "" && len(errs[i]) == 0:
				if id != "" {
					t.Errorf("%s made two objects: %s and %s", field, id, ids[i])
				}
				id = ids[i]
			case len(errs[i]) != 1 || errs[i][0].Extensions.Code != "CONFLICT" || !strings.Contains(errs[i][0].Message, want):
				t.Errorf("%s answered %+v, want one error CONFLICT: %s…", field, errs[i], want)
			}
		}
		if id == "" {
			t.Errorf("%s made no object among %d", field, clients)
		}
		return id
	}
	count := func(base, query string) float64 {
		t.Helper()
		data := gql(t, base, token, query, nil)
		for _, v := range data {
			c, _ := v.(map[string]any)["count"].(float64)
			return c
		}
		return -1
	}

	site := race("LocationSiteCreate", `mutation($name: String!) { LocationSiteCreate(data: {name: {value: $name}}) { ok object { id } } }`,
		func(int) map[string]any { return map[string]any{"name": "site-a"} }, "name")
	race("IpamVLANCreate", `mutation($site: ID!, $name: String!) { IpamVLANCreate(data: {name: {value: $name}, vlan_id: {value: 100}, site: {id: $site}}) { ok object { id } } }`,
		func(i int) map[string]any { return map[string]any{"site": site, "name": fmt.Sprintf("users-%d", i)} }, "site-vlan_id")
	for _, base := range bases {
		if n := count(base, `{ LocationSite(name__value: "site-a") { count } }`); n != 1 {
			t.Errorf("%s counts %v sites named site-a, want 1", base, n)
		}
		if n := count(base, fmt.Sprintf(`{ IpamVLAN(site__ids: [%q]) { count } }`, site)); n != 1 {
			t.Errorf("%s counts %v VLANs of site-a, want 1", base, n)
		}
	}
}

// setupWeb makes, through two processes, the tenant's VPC acme/prod/main
// (10.42.0.0/16) and its subnet web (10.42.0.0/22).
func setupWeb(t *testing.T, bases []string, token string) {
	t.Helper()
	gql(t, bases[0], token, `mutation { createVpc(input: {namespace: "acme/prod", name: "main", cidr: "10.42.0.0/16"}) { name } }`, nil)
	gql(t, bases[1], token, `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "main", name: "web", cidr: "10.42.0.0/22"}) { gateway } }`, nil)
}

// attachAll attaches VMs vm-<client>-<i> in subnet web, clients at once,
// each client through bases[client % len(bases)], and returns who got
// each address, failing the test on an address handed out twice.
func attachAll(t *testing.T, bases []string, token string, clients, each int) map[string]string {
	t.Helper()
	var mu sync.Mutex
	got := map[string]string{}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range each {
				vm := fmt.Sprintf("vm-%d-%d", c, i)
				a, _ := gql(t, bases[c%len(bases)], token, attachMutation, map[string]any{"vm": vm})["attachInterface"].(map[string]any)
				addr, _ := a["address"].(string)
				mu.Lock()
				if other, dup := got[addr]; dup {
					t.Errorf("%s handed to %s and %s", addr, other, vm)
				}
				got[addr] = vm
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return got
}

// TestStoppedOwner: the process that owns a pool's claims is stopped
// (SIGSTOP: alive to its connections, answering nothing); a claim the
// other process forwards to it is made by that process after the
// forwarded call's own deadline, with the address the owner would have
// given, and its request succeeds.
func TestStoppedOwner(t *testing.T) {
	url := pgtest.NewURL(t)
	env := []string{"DATABASE_URL=" + url}
	mustRun(t, "a long tenant password\n", env, "user", "add", "acme", "--role", "tenant", "--namespace", "acme/*", "--password-stdin")
	token := strings.TrimSpace(mustRun(t, "", env, "token", "create", "acme"))
	owner := start(t, env, "serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0")
	other := start(t, env, "serve", "--listen", "127.0.0.1:0")
	bases := []string{owner.waitServing(t), other.waitServing(t)}
	ownerMetrics := owner.metricsURL(t)
	setupWeb(t, bases, token)
	attach := func(base, vm string) string {
		a, _ := gql(t, base, token, attachMutation, map[string]any{"vm": vm})["attachInterface"].(map[string]any)
		addr, _ := a["address"].(string)
		return addr
	}
	// The first claim makes the first process the owner; the second is
	// forwarded to it.
	if got := attach(bases[0], "vm-0"); got != "10.42.0.2" {
		t.Fatalf("vm-0 got %q, want 10.42.0.2", got)
	}
	if got := attach(bases[1], "vm-1"); got != "10.42.0.3" {
		t.Fatalf("vm-1 got %q, want 10.42.0.3", got)
	}

	if err := owner.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { owner.cmd.Process.Signal(syscall.SIGCONT) })
	// The signal is delivered when the owner's threads next run: on a
	// loaded machine it could still answer the next claim.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if !waitFor(ctx, func() bool { return processState(owner.cmd.Process.Pid) == 'T' }) {
		t.Fatal("the owner did not stop within 10 s of SIGSTOP")
	}
	if got := attach(bases[1], "vm-2"); got != "10.42.0.4" {
		t.Errorf("vm-2, claimed while the owner was stopped, got %q; want 10.42.0.4", got)
	}
	// The forwarding process logged the timeout before it claimed; the
	// test reads its log through a pipe, which may not have caught up.
	logged := func() bool {
		log := other.stderr.String()
		return strings.Contains(log, "the owner of a pool did not answer; claiming in this process") && strings.Contains(log, "context deadline exceeded")
	}
	if !waitFor(ctx, logged) {
		log := other.stderr.String()
		// The owner may have given its pools up before it was stopped (its
		// lock check timed out): its log says so.
		t.Errorf("the forwarding process did not log the stopped owner's timeout:\n%s\nthe owner's log:\n%s", log, owner.stderr.String())
	}

	if err := owner.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	// The owner read vm-2's forwarded claim before it was stopped, or
	// reads it now, and makes it although its sender gave up (vm-2 holds
	// 10.42.0.4 by then: it is answered that): vm-3, claimed meanwhile,
	// would find 10.42.0.5 reserved by it and get 10.42.0.6
	// (docs/scaling.md, "An owner alive but silent"). The owner has served both
	// forwarded claims, vm-1's and vm-2's, before vm-3 is claimed.
	ctx, cancel = context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if !waitFor(ctx, func() bool { return metric(t, ownerMetrics, "ipam_claims_served_total") >= 2 }) {
		t.Fatalf("the owner served %v forwarded claims, want 2: vm-1's and vm-2's", metric(t, ownerMetrics, "ipam_claims_served_total"))
	}
	if got := attach(bases[0], "vm-3"); got != "10.42.0.5" {
		t.Errorf("vm-3, claimed once the owner went on, got %q; want 10.42.0.5", got)
	}
}

// TestClusterRotateSecret rotates the cluster secret with ipam cluster
// rotate-secret, twice, while claims run through two ipam serve processes
// whose pool's claims go to one of them: every claim is answered, no
// address twice, and the secret changed.
func TestClusterRotateSecret(t *testing.T) {
	url := pgtest.NewURL(t)
	env := []string{"DATABASE_URL=" + url}
	mustRun(t, "a long tenant password\n", env, "user", "add", "acme", "--role", "tenant", "--namespace", "acme/*", "--password-stdin")
	token := strings.TrimSpace(mustRun(t, "", env, "token", "create", "acme"))
	var bases []string
	for range 2 {
		bases = append(bases, start(t, env, "serve", "--listen", "127.0.0.1:0").waitServing(t))
	}
	setupWeb(t, bases, token)
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	before, err := store.ClusterSecrets(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}

	const clients, each = 8, 20
	claimed := make(chan map[string]string)
	go func() { claimed <- attachAll(t, bases, token, clients, each) }()
	for range 2 {
		if out := mustRun(t, "", env, "cluster", "rotate-secret"); !strings.HasPrefix(out, "rotated the cluster secret") {
			t.Errorf("ipam cluster rotate-secret printed %q", out)
		}
	}
	if got := <-claimed; len(got) != clients*each {
		t.Errorf("%d addresses handed out, want %d", len(got), clients*each)
	}
	var held int
	if err := db.Get(&held, `SELECT count(DISTINCT address) FROM allocations WHERE owner_kind = 'VirtualMachine'`); err != nil || held != clients*each {
		t.Errorf("%d addresses held, %v; want %d", held, err, clients*each)
	}
	after, err := store.ClusterSecrets(t.Context(), db)
	if err != nil || after[0] == before[0] || slices.Contains(after, before[0]) {
		t.Errorf("the secrets after two rotations = %q, %v; want neither the first", after, err)
	}
}

// processState returns the state of the process pid as /proc shows it
// ('T' when stopped), or 0 when it cannot be read.
func processState(pid int) byte {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The state follows the command's name, in parentheses that the name
	// itself may hold.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2]
	}
	return 0
}
