package main

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/schema/schematest"
)

// TestTwoServeProcessesNumberPool runs two ipam serve processes on one
// database: 16 clients creating VLANs through both, at once, from one pool
// scoped by site, get the 16 lowest numbers of their site, each once; and
// ipam schema load, guarded by the pools as ipam serve is, refuses a change
// that the pool forbids, in its words.
func TestTwoServeProcessesNumberPool(t *testing.T) {
	url := pgtest.NewURL(t)
	env := []string{"DATABASE_URL=" + url}
	token := operatorToken(t, env)
	dir := t.TempDir()
	mustRun(t, "", env, "schema", "load", writeFile(t, dir, "vlans.yaml", schematest.Example))
	var bases []string
	for range 2 {
		p := start(t, env, "serve", "--listen", "127.0.0.1:0")
		bases = append(bases, p.waitServing(t))
	}
	site, _ := field(gql(t, bases[0], token, `mutation { LocationSiteCreate(data: {name: {value: "site-a"}}) { object { id } } }`, nil),
		"LocationSiteCreate", "object", "id").(string)
	pool, _ := field(gql(t, bases[1], token, `mutation { CoreNumberPoolCreate(data: {name: {value: "per site"}, node: {value: "IpamVLAN"},
		node_attribute: {value: "vlan_id"}, start_range: {value: 100}, end_range: {value: 4193}, allocation_scope: {value: ["site"]}}) { object { id } } }`, nil),
		"CoreNumberPoolCreate", "object", "id").(string)
	if site == "" || pool == "" {
		t.Fatalf("the site (%q) or the pool (%q) was not created", site, pool)
	}

	const clients = 16
	numbers := make([]float64, clients)
	begin := make(chan struct{})
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			<-begin
			data, errs := gqlAnswer(t, bases[i%2], token, `mutation($site: ID!, $pool: ID!, $name: String!) {
				IpamVLANCreate(data: {name: {value: $name}, site: {id: $site}, vlan_id: {from_pool: {id: $pool}}}) { object { vlan_id { value } } } }`,
				map[string]any{"site": site, "pool": pool, "name": fmt.Sprint("vlan-", i)})
			if len(errs) > 0 {
				t.Errorf("client %d: %+v", i, errs)
				return
			}
			numbers[i], _ = field(data, "IpamVLANCreate", "object", "vlan_id", "value").(float64)
		})
	}
	close(begin)
	wg.Wait()
	slices.Sort(numbers)
	for i, n := range numbers {
		if n != float64(100+i) {
			t.Fatalf("%d clients through two processes got %v, want each of 100 to %d once", clients, numbers, 100+clients-1)
		}
	}

	unique := writeFile(t, dir, "unique.yaml", "version: \"1.0\"\nnodes:\n  - {name: VLAN, namespace: Ipam, attributes: [{name: vlan_id, kind: Number, unique: true}]}\n")
	code, _, stderr := runWithStdin(t, "", env, "schema", "load", unique)
	if want := "pool per site allocates IpamVLAN.vlan_id per division; a globally unique number cannot be allocated per division"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("ipam schema load of a unique vlan_id exited %d, %q; want 1, %q", code, stderr, want)
	}
}

// field returns the value at the path of keys in v, a JSON object decoded;
// nil when there is none.
func field(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}
