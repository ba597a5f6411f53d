package graphql

import (
	"testing"

	"pivirt.hu/ipam/internal/ipam"
)

// TestTwoProcessesSeeTheSameObjects serves one database from two services,
// as two ipam serve processes do (SPEC §8: nothing is kept in a process
// that another process needs): a VPC deleted and made again through one is
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
	h, err := NewHandler(svc, pools.Branches(), testAuthenticate, e.logger, WithNumbers(pools))
	if err != nil {
		e.t.Fatal(err)
	}
	sib := *e
	sib.svc, sib.branches, sib.pools, sib.handler = svc, pools.Branches(), pools, h.(*handler)
	return &sib
}
