package ipam

import (
	"context"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
)

// TestOpaqueKey: the key a VPC's readers get predicts, with the
// enumerator's claims, the stable opaque address the server then gives;
// a VPC of lowest free addresses has none, and to anyone else the VPC
// does not exist.
func TestOpaqueKey(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	v := dualStack(t, svc, "fd12:3456:789a::/48", StableOpaque)
	web, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"})
	if err != nil {
		t.Fatal(err)
	}
	key, err := svc.OpaqueKey(ctx, acme, v)
	if err != nil || len(key) != 32 {
		t.Fatalf("OpaqueKey = %d bytes, %v; want the VPC's 32", len(key), err)
	}
	claims, err := candidates.ParseClaims(candidates.ClaimsSpec{Namespace: "acme/prod", VPC: "main",
		Pool:           candidates.ClaimPool{Name: "vpc-main", PoolSpec: candidates.PoolSpec{CIDR: v.CIDR.String()}},
		PoolV6:         &candidates.ClaimPool{Name: "vpc-main-v6", PoolSpec: candidates.PoolSpec{CIDR: v.IPv6CIDR.String()}},
		IPv6Addressing: candidates.StableOpaque, OpaqueKey: key,
		Subnets: []candidates.ClaimSubnet{{Name: "web", CIDR: web.CIDR.String(), Gateway: web.Gateway.String(), IPv6CIDR: web.IPv6CIDR.String(), IPv6Gateway: web.IPv6Gateway.String()}},
	})
	if err != nil {
		t.Fatal(err)
	}
	vm := ConsoleVM("acme/prod", "main", "web-01")
	want, err := claims.InterfaceV6("web", vm.UID, 1)
	if err != nil {
		t.Fatal(err)
	}
	nic, err := svc.AttachNic(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: vm, NIC: 1})
	if err != nil || nic.IPv6 == nil || nic.IPv6.Address != want {
		t.Errorf("AttachNic = %+v, %v; the key predicted %s", nic.IPv6, err, want)
	}
	stranger := auth.Actor{Name: "globex", Role: auth.Tenant, Namespaces: []string{"globex/*"}}
	_, err = svc.OpaqueKey(ctx, stranger, v)
	wantRefusal(t, "OpaqueKey as another tenant", err, "VPC acme/prod/main not found")

	plain, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "plain", CIDR: "10.43.0.0/16", IPv6CIDR: "fd00:1::/48"})
	if err != nil {
		t.Fatal(err)
	}
	if key, err := svc.OpaqueKey(ctx, acme, plain); key != nil || err != nil {
		t.Errorf("OpaqueKey of a VPC of lowest free addresses = %x, %v; want none", key, err)
	}
}
