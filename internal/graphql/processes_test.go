package graphql

import (
	"fmt"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/ipam"
)

// TestTwoProcessesSeeTheSameObjects serves one database from two services,
// as two ipam serve processes do (docs/scaling.md: nothing is kept in a
// process that another process needs): a VPC deleted and made again through one is
// what the other answers about.
func TestTwoProcessesSeeTheSameObjects(t *testing.T) {
	a := newEnv(t)
	b := a.sibling()
	a.seed()

	b.ok("acme", attachInterface, nil, "namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", "vm-1", "hostname", "web-01", "nic", 0)
	var old struct{ Pool pool }
	b.ok("acme", `{ pool(namespace: "acme/prod", name: "vpc-main") { uid } }`, &old)

	a.ok("acme", detachInterface, nil, "namespace", "acme/prod", "vpc", "main", "uid", "vm-1", "hostname", "web-01", "nic", 0)
	a.ok("acme", deleteVpc, nil, "namespace", "acme/prod", "name", "main")

	var gone struct{ Pool *pool }
	b.ok("acme", `{ pool(namespace: "acme/prod", name: "vpc-main") { uid name } }`, &gone)
	if gone.Pool != nil {
		t.Errorf("after deleteVpc through one process, the other still answers its pool: %+v", *gone.Pool)
	}

	a.ok("acme", createVpc, nil, "namespace", "acme/prod", "name", "main", "cidr", "10.42.0.0/16")
	a.ok("acme", createSubnet, nil, "namespace", "acme/prod", "vpc", "main", "name", "web", "cidr", "10.42.1.0/24")
	var fresh struct{ Pool pool }
	a.ok("acme", `{ pool(namespace: "acme/prod", name: "vpc-main") { uid } }`, &fresh)
	var seen struct{ Pool pool }
	b.ok("acme", `{ pool(namespace: "acme/prod", name: "vpc-main") { uid } }`, &seen)
	if seen.Pool.UID != fresh.Pool.UID {
		t.Errorf("the other process answers pool uid %s, the deleted pool's was %s, the new one's is %s", seen.Pool.UID, old.Pool.UID, fresh.Pool.UID)
	}
	res := b.query("acme", attachInterface, "namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", "vm-2", "hostname", "web-02", "nic", 0)
	if len(res.Errors) > 0 {
		t.Errorf("attachInterface through the other process, to the VPC made again: %s", res.body)
	}
}

// sibling returns an env over the same database with its own service, as
// another process would have.
func (e *env) sibling() *env {
	e.t.Helper()
	svc, err := ipam.New(e.t.Context(), ipam.Config{DB: e.db, URL: e.url, Logger: e.logger})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(svc.Close)
	pools := newPools(e.t, e.db, e.url, e.logger)
	h, err := NewHandler(svc, pools, testAuthenticate, e.logger)
	if err != nil {
		e.t.Fatal(err)
	}
	sib := *e
	sib.svc, sib.branches, sib.pools, sib.handler = svc, pools.Branches(), pools, h.(*handler)
	return &sib
}

// TestVPCSubnetsUsage: vpc { subnets { usage } } counts what the
// subnet holds from the process's view of the VPC's pool, without counting
// its rows: this process's claims at once, and another process's releases
// once their notification arrives.
func TestVPCSubnetsUsage(t *testing.T) {
	a := newEnv(t)
	b := a.sibling()
	a.seed()
	used := func(e *env) int {
		t.Helper()
		var out struct {
			VPC struct{ Subnets []struct{ Usage usageAnswer } }
		}
		e.ok("acme", `{ vpc(namespace: "acme/prod", name: "main") { subnets { usage { size used free utilization } } } }`, &out)
		if len(out.VPC.Subnets) != 1 || out.VPC.Subnets[0].Usage.Size != 253 {
			t.Fatalf("vpc { subnets { usage } } = %+v, want subnet web of 253", out.VPC.Subnets)
		}
		return out.VPC.Subnets[0].Usage.Used
	}
	for i := range 3 {
		a.ok("acme", attachInterface, nil, "namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", fmt.Sprint("vm-", i), "hostname", fmt.Sprint("web-", i), "nic", 0)
	}
	if got := used(a); got != 3 {
		t.Errorf("after 3 claims, the claiming process counts %d", got)
	}
	if got := used(b); got != 3 {
		t.Errorf("the other process, whose view was read after the claims, counts %d, want 3", got)
	}
	b.ok("acme", detachInterface, nil, "namespace", "acme/prod", "vpc", "main", "uid", "vm-0", "hostname", "web-0", "nic", 0)
	deadline := time.Now().Add(5 * time.Second)
	for used(a) != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("5 s after a release in the other process, vpc { subnets { usage } } still counts %d, want 2", used(a))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
