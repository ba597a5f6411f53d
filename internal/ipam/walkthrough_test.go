package ipam

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/usage"
)

// TestSeedWalkthrough follows the example manifests: a public pool, a VPC
// whose router takes the first candidate, a floating IP, a subnet whose
// VMs get addresses in order, the same owner asking twice, a released
// address reused first, and a /30 that runs out.
func TestSeedWalkthrough(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()

	pool, err := svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{
		Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1",
		Exclude: []string{"203.0.113.2", "203.0.113.3"}, Zone: "zone-a",
	})
	if err != nil {
		t.Fatal(err)
	}
	vpc, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"})
	if err != nil {
		t.Fatal(err)
	}
	uplink, route, ok, err := svc.Router(ctx, acme, vpc)
	if err != nil || !ok || uplink.Address.String() != "203.0.113.4" || route.String() != "203.0.113.1" {
		t.Fatalf("Router() = %v %v %v %v, want 203.0.113.4 via 203.0.113.1", uplink.Address, route, ok, err)
	}
	if uplink.Name != "public-zone-a-203-0-113-4" || uplink.Owner != (Owner{OwnerVPC, vpc.UID, "router"}) {
		t.Errorf("uplink = %s owned by %+v", uplink.Name, uplink.Owner)
	}
	fip, err := svc.ClaimFloatingIP(ctx, acme, ClaimFloatingIPInput{Namespace: "acme/prod", Name: "web", Zone: "zone-a"})
	if err != nil || fip.Address.String() != "203.0.113.5" {
		t.Fatalf("ClaimFloatingIP = %v, %v; want 203.0.113.5", fip.Address, err)
	}
	again, err := svc.ClaimFloatingIP(ctx, acme, ClaimFloatingIPInput{Namespace: "acme/prod", Name: "web", Zone: "zone-a"})
	if err != nil || again.Address != fip.Address {
		t.Errorf("ClaimFloatingIP again = %v, %v; want the same %v", again.Address, err, fip.Address)
	}
	sub, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"})
	if err != nil || sub.Gateway.String() != "10.42.1.1" {
		t.Fatalf("CreateSubnet = %v, %v; want gateway 10.42.1.1", sub.Gateway, err)
	}
	attach := func(host string) string {
		t.Helper()
		a, err := svc.AttachInterface(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: VMRef{UID: "uid-" + host, Hostname: host}})
		if err != nil {
			t.Fatalf("AttachInterface(%s): %v", host, err)
		}
		return a.Address.String()
	}
	for i, want := range []string{"10.42.1.2", "10.42.1.3", "10.42.1.4"} {
		if got := attach(fmt.Sprintf("web-%02d", i+1)); got != want {
			t.Errorf("VM web-%02d got %s, want %s", i+1, got, want)
		}
	}
	if got := attach("web-01"); got != "10.42.1.2" {
		t.Errorf("web-01 asking again got %s, want its 10.42.1.2", got)
	}
	released, err := svc.DetachInterface(ctx, acme, DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: VMRef{UID: "uid-web-02", Hostname: "web-02"}})
	if err != nil || !released {
		t.Fatalf("DetachInterface(web-02) = %v, %v", released, err)
	}
	released, err = svc.DetachInterface(ctx, acme, DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: VMRef{UID: "uid-web-02", Hostname: "web-02"}})
	if err != nil || released {
		t.Errorf("DetachInterface(web-02) twice = %v, %v; want false, nil", released, err)
	}
	if got := attach("web-04"); got != "10.42.1.3" {
		t.Errorf("web-04 got %s, want the released 10.42.1.3", got)
	}

	if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "tiny", CIDR: "10.42.9.0/30"}); err != nil {
		t.Fatal(err)
	}
	a, err := svc.AttachInterface(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "tiny", VM: VMRef{UID: "t1", Hostname: "tiny-1"}})
	if err != nil || a.Address.String() != "10.42.9.2" {
		t.Fatalf("first VM of the /30 = %v, %v; want 10.42.9.2", a.Address, err)
	}
	_, err = svc.AttachInterface(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "tiny", VM: VMRef{UID: "t2", Hostname: "tiny-2"}})
	if !errors.Is(err, refusal.ErrPoolExhausted) || err.Error() != "pool vpc-main has no free address in 10.42.9.0/30" {
		t.Errorf("second VM of the /30: %v, want refusal.ErrPoolExhausted with its message", err)
	}

	pu, err := svc.PoolUsage(ctx, operator, pool)
	if err != nil || pu != (usage.Figures{Size: 251, Used: 2, Free: 249}) {
		t.Errorf("PoolUsage(public-zone-a) = %+v, %v; want 251 used 2", pu, err)
	}
	su, err := svc.SubnetUsage(ctx, acme, sub)
	if err != nil || su != (usage.Figures{Size: 253, Used: 3, Free: 250}) {
		t.Errorf("SubnetUsage(web) = %+v, %v; want size 253 used 3", su, err)
	}
	next, err := svc.Preview(ctx, acme, "acme/prod", "vpc-main", "10.42.1.0/24", []string{"10.42.1.1"}, 2)
	if err != nil || fmt.Sprint(next) != "[10.42.1.5 10.42.1.6]" {
		t.Errorf("Preview = %v, %v; want [10.42.1.5 10.42.1.6]", next, err)
	}
}
