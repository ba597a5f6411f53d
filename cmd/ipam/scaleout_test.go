package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/pgtest"
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
	gql(t, bases[0], token, `mutation { createVpc(input: {namespace: "acme/prod", name: "main", cidr: "10.42.0.0/16"}) { name } }`, nil)
	gql(t, bases[1], token, `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "main", name: "web", cidr: "10.42.0.0/22"}) { gateway } }`, nil)

	const clients, each = 16, 25
	var mu sync.Mutex
	got := map[string]string{}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range each {
				vm := fmt.Sprintf("vm-%d-%d", c, i)
				data := gql(t, bases[c%2], token, attachMutation, map[string]any{"vm": vm})
				a, _ := data["attachInterface"].(map[string]any)
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
	racing := make([]string, 8)
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
