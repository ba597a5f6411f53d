package ipam

import (
	"context"
	"errors"
	"testing"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// TestAddress reads addresses as their own page shows them: who holds
// each (a VM, a node, a floating IP, a router's uplink), since when, in
// which pool, VPC and subnet, how the user may let it go; why nobody
// holds the others; and nothing of another tenant's.
func TestAddress(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	if _, err := svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/28"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVPC(ctx, globex, CreateVPCInput{Namespace: "globex/dev", Name: "lab", CIDR: "10.42.0.0/16"}); err != nil {
		t.Fatal(err)
	}
	vm, err := attachVM(ctx, svc, 0)
	if err != nil {
		t.Fatal(err)
	}
	node, err := svc.AttachNode(ctx, acme, AttachNodeInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", Node: NodeRef{UID: "node-1", Name: "host-1"}})
	if err != nil {
		t.Fatal(err)
	}
	fip, err := svc.ClaimFloatingIP(ctx, acme, ClaimFloatingIPInput{Namespace: "acme/prod", Name: "www", Zone: "zone-a"})
	if err != nil {
		t.Fatal(err)
	}

	d, err := svc.Address(ctx, acme, "acme/prod", "vpc-main", vm.Address.String())
	if err != nil {
		t.Fatal(err)
	}
	if d.Holder == nil || d.Holder.Owner.Name != "vm-0/0" || d.Holder.CreatedAt.IsZero() || d.Holder.CreatedBy != "acme" ||
		d.State != candidates.Taken || d.Pool.Name != "vpc-main" || d.VPC.Name != "main" || d.Subnet.Name != "web" || d.Release != ReleaseDetach {
		t.Errorf("Address(%s) = %+v, holder %+v; want vm-0/0's, by acme, in subnet web of VPC main, detachable", vm.Address, d, d.Holder)
	}
	if d, err := svc.Address(ctx, acme, "acme/prod", "vpc-main", node.Address.String()); err != nil || d.Release != ReleaseByOwner || d.Holder.Owner.Kind != OwnerNode {
		t.Errorf("Address(node's %s) = %+v, %v; want a node's, released by owner", node.Address, d, err)
	}
	for address, want := range map[string]struct {
		state   candidates.State
		explain string
	}{
		"10.42.1.1":  {candidates.Gateway, "10.42.1.1 is the gateway of subnet web"},
		"10.42.1.15": {candidates.Broadcast, "10.42.1.15 is the broadcast address of 10.42.1.0/28"},
		"10.42.1.9":  {candidates.Free, "10.42.1.9 is free"},
		"10.42.2.9":  {candidates.Outside, "10.42.2.9 is in no subnet of VPC main: addresses are handed out in subnets only"},
	} {
		d, err := svc.Address(ctx, acme, "acme/prod", "vpc-main", address)
		if err != nil || d.Holder != nil || d.State != want.state || d.Explain != want.explain || d.Release != ReleaseNone {
			t.Errorf("Address(%s) = %v %q holder %v release %q, %v; want %v %q, nobody", address, d.State, d.Explain, d.Holder, d.Release, err, want.state, want.explain)
		}
	}

	// A tenant sees in a public pool what its owners hold: its floating IP,
	// released as a floating IP, and its router's uplink, which goes with
	// the VPC.
	d, err = svc.Address(ctx, acme, "", "public-zone-a", fip.Address.String())
	if err != nil || d.Holder == nil || d.Holder.Owner.Kind != OwnerFloatingIP || d.VPC != (VPC{Namespace: "acme/prod", Name: "main"}) || d.Release != ReleaseFloatingIP {
		t.Errorf("Address(floating IP %s) = %+v, %v; want www's, listed by VPC main, released as a floating IP", fip.Address, d, err)
	}
	uplink, err := svc.Address(ctx, acme, "", "public-zone-a", "203.0.113.2")
	if err != nil || uplink.Holder == nil || uplink.Holder.Owner.Kind != OwnerVPC || uplink.Release != ReleaseNone ||
		uplink.Kept != "The uplink of VPC main goes with its VPC: delete the VPC to release 203.0.113.2." {
		t.Errorf("Address(uplink 203.0.113.2) = %+v, %v; want VPC main's, kept", uplink, err)
	}
	if d, err := svc.Address(ctx, operator, "", "public-zone-a", "203.0.113.1"); err != nil || d.State != candidates.Gateway {
		t.Errorf("operator's Address(203.0.113.1) = %+v, %v; want the pool's gateway", d, err)
	}

	// Nothing else answers: not another tenant's address, nor a public
	// address nobody of the tenant holds, nor what is no address of the
	// pool.
	missing := []struct {
		actor                    string
		namespace, pool, address string
	}{
		{"globex", "acme/prod", "vpc-main", vm.Address.String()},
		{"globex", "", "public-zone-a", fip.Address.String()},
		{"acme", "", "public-zone-a", "203.0.113.1"},
		{"acme", "", "public-zone-a", "203.0.113.200"},
		{"acme", "acme/prod", "vpc-main", "10.43.0.1"},
		{"acme", "acme/prod", "vpc-main", "10.42.1.02"},
		{"acme", "acme/prod", "vpc-main", "nonsense"},
		{"acme", "acme/prod", "vpc-nope", "10.42.1.2"},
	}
	for _, m := range missing {
		who := acme
		if m.actor == "globex" {
			who = globex
		}
		if d, err := svc.Address(ctx, who, m.namespace, m.pool, m.address); !errors.Is(err, refusal.ErrNotFound) {
			t.Errorf("%s's Address(%s/%s %s) = %+v, %v; want not found", m.actor, m.namespace, m.pool, m.address, d, err)
		}
	}
	if released, err := svc.ReleaseAddress(ctx, globex, ReleaseAddressInput{Namespace: "acme/prod", Pool: "vpc-main", Address: vm.Address.String(), Owner: vm.Owner, OwnerNamespace: "acme/prod"}); released || !errors.Is(err, refusal.ErrNotFound) {
		t.Errorf("globex's ReleaseAddress of acme's VM = %v, %v; want not found", released, err)
	}

	// Releasing lets the owner seen go, and nobody else.
	stale := vm.Owner
	stale.UID = "someone-else"
	if released, err := svc.ReleaseAddress(ctx, acme, ReleaseAddressInput{Namespace: "acme/prod", Pool: "vpc-main", Address: vm.Address.String(), Owner: stale, OwnerNamespace: "acme/prod"}); released || err != nil {
		t.Errorf("ReleaseAddress of an owner that does not hold it = %v, %v; want nothing released", released, err)
	}
	if released, err := svc.ReleaseAddress(ctx, acme, ReleaseAddressInput{Namespace: "acme/prod", Pool: "vpc-main", Address: vm.Address.String(), Owner: vm.Owner, OwnerNamespace: "acme/prod"}); !released || err != nil {
		t.Errorf("ReleaseAddress of vm-0/0 = %v, %v; want released", released, err)
	}
	if released, err := svc.ReleaseAddress(ctx, acme, ReleaseAddressInput{Namespace: "acme/prod", Pool: "vpc-main", Address: node.Address.String(), Owner: node.Owner, OwnerNamespace: "acme/prod"}); !released || err != nil {
		t.Errorf("ReleaseAddress of node-1 = %v, %v; want released", released, err)
	}
	if released, err := svc.ReleaseAddress(ctx, acme, ReleaseAddressInput{Pool: "public-zone-a", Address: fip.Address.String(), Owner: Owner{Kind: OwnerFloatingIP, UID: fip.UID, Name: "www"}, OwnerNamespace: "acme/prod"}); !released || err != nil {
		t.Errorf("ReleaseAddress of floating IP www = %v, %v; want released", released, err)
	}
	if fips, err := svc.FloatingIPs(ctx, acme, "acme/prod"); err != nil || len(fips) != 0 {
		t.Errorf("after its release, floating IPs %v, %v; want none", fips, err)
	}
	_, err = svc.ReleaseAddress(ctx, acme, ReleaseAddressInput{Pool: "public-zone-a", Address: "203.0.113.2", Owner: uplink.Holder.Owner, OwnerNamespace: "acme/prod"})
	if !errors.Is(err, refusal.ErrConflict) || refusal.Classify(err).Message != uplink.Kept {
		t.Errorf("ReleaseAddress of the uplink = %v; want the conflict %q", err, uplink.Kept)
	}
	for _, a := range []string{vm.Address.String(), node.Address.String()} {
		if d, err := svc.Address(ctx, acme, "acme/prod", "vpc-main", a); err != nil || d.Holder != nil || d.State != candidates.Free {
			t.Errorf("after the release, Address(%s) = %+v, %v; want free", a, d, err)
		}
	}
	entries, err := store.AuditEntries(ctx, db, store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	releases := 0
	for _, e := range entries {
		if e.Actor == "acme" && (e.Action == "release" || e.Action == "delete" && e.ObjectKind == "FloatingIP") {
			releases++
		}
	}
	if releases < 3 {
		t.Errorf("the audit log holds %d releases by acme, want the VM's, the node's and the floating IP's", releases)
	}
}
