package ipam

import (
	"context"
	"errors"
	"testing"

	"pivirt.hu/ipam/internal/refusal"
)

// TestVMIsItsUID: a VM renamed keeps its addresses, renamed in one audited
// change; two VMs of one hostname are two owners; a VM detaches under any
// hostname.
func TestVMIsItsUID(t *testing.T) {
	svc, db, _ := newService(t)
	setupSubnet(t, svc, "10.42.1.0/24")
	ctx := context.Background()
	attach := func(uid, host string, nic int) Allocation {
		t.Helper()
		a, err := svc.AttachInterface(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: VMRef{UID: uid, Hostname: host}, NIC: nic})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	nic0, nic1 := attach("vm-1", "web-01", 0), attach("vm-1", "web-01", 1)
	renamed := attach("vm-1", "web-01.new", 0)
	if renamed.Address != nic0.Address || renamed.Owner.Name != "web-01.new/0" || renamed.Name != nic0.Name {
		t.Errorf("vm-1 renamed web-01.new got %s as %s, want %s kept, named web-01.new/0", renamed.Address, renamed.Owner.Name, nic0.Address)
	}
	var names []string
	if err := db.Select(&names, `SELECT owner_name FROM allocations WHERE owner_uid = 'vm-1' ORDER BY address`); err != nil {
		t.Fatal(err)
	}
	if len(names) != 2 || names[0] != "web-01.new/0" || names[1] != "web-01.new/1" {
		t.Errorf("vm-1 holds %v, want both NICs named after web-01.new", names)
	}
	var audits []string
	if err := db.Select(&audits, `SELECT object_name || ': ' || (before->'owner'->>'name') || ' -> ' || (after->'owner'->>'name')
		FROM audit_log WHERE action = 'rename' ORDER BY object_name`); err != nil {
		t.Fatal(err)
	}
	if want := []string{nic0.Name + ": web-01/0 -> web-01.new/0", nic1.Name + ": web-01/1 -> web-01.new/1"}; len(audits) != 2 || audits[0] != want[0] || audits[1] != want[1] {
		t.Errorf("rename audit entries %v, want %v", audits, want)
	}
	if again := attach("vm-1", "web-01.new", 0); again.Address != nic0.Address {
		t.Errorf("asking again after the rename got %s", again.Address)
	}

	twin := attach("vm-2", "web-01.new", 0)
	if twin.Address == nic0.Address {
		t.Errorf("vm-2 of the same hostname got vm-1's %s", twin.Address)
	}
	released, err := svc.DetachInterface(ctx, acme, DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: VMRef{UID: "vm-1", Hostname: "web-01"}, NIC: 1})
	if err != nil || !released {
		t.Errorf("detaching vm-1's NIC 1 under its old hostname = %v, %v; want released", released, err)
	}
}

// TestOwnersMadeByTheirOperations: tenants allocate for VirtualMachine
// owners only; a VPC's router, a node's address and a floating IP are made
// by createVpc, attachNode and claimFloatingIp, and what looks them up by
// owner sees only its own namespace's.
func TestOwnersMadeByTheirOperations(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	if _, err := svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	victim, err := svc.CreateVPC(ctx, operator, CreateVPCInput{Namespace: "victim/prod", Name: "main", CIDR: "10.1.0.0/16", Zone: "zone-a"})
	if err != nil {
		t.Fatal(err)
	}
	uplink, _, _, err := svc.Router(ctx, operator, victim)
	if err != nil {
		t.Fatal(err)
	}
	setupSubnet(t, svc, "10.42.1.0/24")
	for _, c := range []struct {
		owner Owner
		want  string
	}{
		{Owner{Kind: OwnerVPC, UID: victim.UID, Name: "router"}, "forbidden: tenants allocate for VirtualMachine owners only: createVpc claims a VPC's router uplink"},
		{Owner{Kind: OwnerNode, UID: "node-1", Name: "web"}, "forbidden: tenants allocate for VirtualMachine owners only: attachNode gives a host its address in a subnet"},
		{Owner{Kind: OwnerFloatingIP, UID: "fip-1", Name: "web"}, "forbidden: tenants allocate for VirtualMachine owners only: claimFloatingIp claims a floating IP"},
	} {
		_, err := svc.Allocate(ctx, acme, AllocateInput{Namespace: "acme/prod", Pool: "vpc-main", Within: "10.42.1.0/24", Owner: c.owner})
		if !errors.Is(err, refusal.ErrForbidden) || err.Error() != c.want {
			t.Errorf("a tenant's Allocate for %s = %v, want %q", c.owner.Kind, err, c.want)
		}
	}

	// An operator may, but an owner of another namespace is another owner:
	// the victim's router and deletion do not see it.
	if _, err := svc.Allocate(ctx, operator, AllocateInput{Pool: "public-zone-a", OwnerNamespace: "acme/prod", Owner: Owner{Kind: OwnerVPC, UID: victim.UID, Name: "router"}}); err != nil {
		t.Fatal(err)
	}
	again, _, ok, err := svc.Router(ctx, operator, victim)
	if err != nil || !ok || again.Address != uplink.Address || again.OwnerNamespace != "victim/prod" {
		t.Errorf("the victim's router = %v (%s), %v; want %s", again.Address, again.OwnerNamespace, err, uplink.Address)
	}
	if err := svc.DeleteVPC(ctx, operator, "victim/prod", "main"); err != nil {
		t.Fatal(err)
	}
	page, err := svc.PoolAllocations(ctx, operator, Pool{Name: "public-zone-a"}, Page{})
	if err != nil || page.Total != 1 || page.Allocations[0].OwnerNamespace != "acme/prod" {
		t.Errorf("after the victim's deletion, public-zone-a holds %+v, %v; want only acme's allocation", page.Allocations, err)
	}
	_, err = svc.Allocate(ctx, operator, AllocateInput{Pool: "public-zone-a", OwnerNamespace: "acme/prod", Owner: Owner{Kind: OwnerVPC, UID: "x", Name: "gw"}})
	var invalid *refusal.InvalidError
	if !errors.As(err, &invalid) || invalid.Field != "owner.name" || err.Error() != `owner.name "gw" of a VPC must be router` {
		t.Errorf("Allocate for a VPC owner not named router = %v", err)
	}
}

// TestZones: a VPC's uplink comes from the zone's public pools in name
// order, the next when one is full; a pool without a gateway gives no
// default route.
func TestZones(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	for _, p := range []CreatePublicPoolInput{
		{Name: "b-zone-a", CIDR: "198.51.100.0/30", Gateway: "198.51.100.1", Zone: "zone-a"},
		{Name: "a-zone-a", CIDR: "203.0.113.0/30", Gateway: "203.0.113.1", Zone: "zone-a"},
		{Name: "c-zone-a", CIDR: "192.0.2.7/32", Zone: "zone-a"},
	} {
		if _, err := svc.CreatePublicPool(ctx, operator, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ vpc, uplink, route string }{
		{"one", "203.0.113.2", "203.0.113.1"}, // a-zone-a first, in name order
		{"two", "198.51.100.2", "198.51.100.1"},
		{"three", "192.0.2.7", ""}, // c-zone-a has no gateway
	} {
		v, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: c.vpc, CIDR: "10.0.0.0/16", Zone: "zone-a"})
		if err != nil {
			t.Fatal(err)
		}
		uplink, route, ok, err := svc.Router(ctx, acme, v)
		gotRoute := ""
		if route.IsValid() {
			gotRoute = route.String()
		}
		if err != nil || !ok || uplink.Address.String() != c.uplink || gotRoute != c.route {
			t.Errorf("VPC %s: uplink %v via %q, %v; want %s via %q", c.vpc, uplink.Address, gotRoute, err, c.uplink, c.route)
		}
	}
	_, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "four", CIDR: "10.0.0.0/16", Zone: "zone-a"})
	if !errors.Is(err, refusal.ErrPoolExhausted) || err.Error() != "zone zone-a has no free address in its public pools" {
		t.Errorf("a fourth VPC = %v", err)
	}
}

// TestVPCNameFitsItsPool: a VPC name whose pool name vpc-<name> would be
// too long is refused, with the limit.
func TestVPCNameFitsItsPool(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	name := "n123456789012345678901234567890123456789012345678901234567890"[:60]
	_, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: name, CIDR: "10.0.0.0/16"})
	want := `name "` + name + `" is too long for a VPC: at most 59 characters, since its pool is named vpc-<name>`
	var invalid *refusal.InvalidError
	if !errors.As(err, &invalid) || invalid.Field != "name" || err.Error() != want {
		t.Errorf("CreateVPC with a 60-character name = %v, want %q", err, want)
	}
	if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: name[:59], CIDR: "10.0.0.0/16"}); err != nil {
		t.Errorf("CreateVPC with a 59-character name: %v", err)
	}
}
