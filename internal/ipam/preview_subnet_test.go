package ipam

import (
	"context"
	"fmt"
	"testing"

	"pivirt.hu/ipam/internal/auth"
)

// TestPreviewSubnetIPv6: the IPv6 preview of a dual-stack VPC names the
// lowest free aligned prefixes of a length (64 by default), which the next
// subnets by size then get; the IPv4 preview is unchanged; and every
// refusal says what to do.
func TestPreviewSubnetIPv6(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	dualStack(t, svc, "fd12:3456:789a::/48", "")
	for _, in := range []CreateSubnetInput{
		{Name: "web", CIDR: "10.42.1.0/24", IPv6CIDR: "fd12:3456:789a:1::/64"},
		{Name: "db", PrefixLength: 24, IPv6CIDR: "fd12:3456:789a:4::/62"},
	} {
		in.Namespace, in.VPC = "acme/prod", "main"
		if _, err := svc.CreateSubnet(ctx, acme, in); err != nil {
			t.Fatal(err)
		}
	}
	preview := func(f Family, bits, count int) (string, error) {
		ps, err := svc.PreviewSubnetFamily(ctx, acme, "acme/prod", "main", f, bits, count)
		return fmt.Sprint(ps), err
	}
	for _, c := range []struct {
		f           Family
		bits, count int
		want        string
	}{
		{IPv6, 64, 4, "[fd12:3456:789a::/64 fd12:3456:789a:2::/64 fd12:3456:789a:3::/64 fd12:3456:789a:8::/64]"},
		{IPv6, 0, 1, "[fd12:3456:789a::/64]"},
		{IPv6, 63, 2, "[fd12:3456:789a:2::/63 fd12:3456:789a:8::/63]"},
		{IPv6, 56, 1, "[fd12:3456:789a:100::/56]"},
		{IPv6, 120, 2, "[fd12:3456:789a::/120 fd12:3456:789a::100/120]"},
		{IPv4, 24, 2, "[10.42.2.0/24 10.42.3.0/24]"},
		{"", 24, 1, "[10.42.2.0/24]"},
	} {
		if got, err := preview(c.f, c.bits, c.count); err != nil || got != c.want {
			t.Errorf("PreviewSubnetFamily(%q, %d, %d) = %s, %v; want %s", c.f, c.bits, c.count, got, err, c.want)
		}
	}

	// What the preview names is what the next subnets by size get.
	for _, bits := range []int{0, 63, 64} {
		want, err := preview(IPv6, bits, 1)
		if err != nil {
			t.Fatal(err)
		}
		sub, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: fmt.Sprintf("s%d", bits), PrefixLength: 24, IPv6PrefixLength: bits})
		if got := fmt.Sprintf("[%s]", sub.IPv6CIDR); err != nil || got != want {
			t.Errorf("CreateSubnet(ipv6PrefixLength %d) = %s, %v; the preview said %s", bits, got, err, want)
		}
	}

	if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "v4only", CIDR: "10.43.0.0/16"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "tiny", CIDR: "10.44.0.0/16", IPv6CIDR: "fd00:1::/64"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "tiny", Name: "all", PrefixLength: 24}); err != nil {
		t.Fatal(err)
	}
	stranger := auth.Actor{Name: "globex", Role: auth.Tenant, Namespaces: []string{"globex/*"}}
	for _, c := range []struct {
		actor       auth.Actor
		vpc         string
		f           Family
		bits, count int
		want        string
	}{
		{acme, "v4only", IPv6, 64, 1, "VPC acme/prod/v4only has no IPv6 prefix, and a VPC's never changes: create a dual-stack VPC, with ipv6Cidr (a prefix such as a ULA /48) or ipv6PrefixLength (a prefix delegated from its zone's public pools), and its subnets there"},
		{acme, "main", "IPV5", 64, 1, `family "IPV5" is not a family: IPV4 or IPV6`},
		{acme, "main", IPv6, 40, 1, "prefixLength 40 is out of range for VPC main's fd12:3456:789a::/48: 48 to 127"},
		{acme, "main", IPv6, 128, 1, "prefixLength 128 is out of range: 8 to 127"},
		{acme, "main", IPv6, 64, -1, "count -1 is out of range: 1 to 256"},
		{acme, "main", IPv6, 48, 1, "vpc main has no free /48 in fd12:3456:789a::/48"},
		{acme, "tiny", IPv6, 0, 1, "vpc tiny has no free /64 in fd00:1::/64"},
		{stranger, "main", IPv6, 64, 1, "VPC acme/prod/main not found"},
	} {
		_, err := svc.PreviewSubnetFamily(ctx, c.actor, "acme/prod", c.vpc, c.f, c.bits, c.count)
		wantRefusal(t, fmt.Sprintf("PreviewSubnetFamily(%s, %q, %d, %d) as %s", c.vpc, c.f, c.bits, c.count, c.actor.Name), err, c.want)
	}
}

// TestPreviewAllocationIPv6: previewAllocation in a VPC's IPv6 pool names
// the addresses after the subnet-router anycast address and the gateway,
// which attachInterface of family IPv6 then gives.
func TestPreviewAllocationIPv6(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	dualStack(t, svc, "fd12:3456:789a::/48", "")
	web, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"})
	if err != nil {
		t.Fatal(err)
	}
	as, err := svc.Preview(ctx, acme, "acme/prod", "vpc-main-v6", web.IPv6CIDR.String(), []string{web.IPv6Gateway.String()}, 3)
	if got := fmt.Sprint(as); err != nil || got != "[fd12:3456:789a::2 fd12:3456:789a::3 fd12:3456:789a::4]" {
		t.Errorf("Preview(vpc-main-v6 within %s) = %s, %v", web.IPv6CIDR, got, err)
	}
	a, err := svc.AttachInterface(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: VMRef{UID: "vm-1", Hostname: "vm-1"}, Family: IPv6})
	if err != nil || a.Address != as[0] {
		t.Errorf("AttachInterface(IPV6) = %v, %v; the preview said %s", a.Address, err, as[0])
	}
	as, err = svc.Preview(ctx, operator, "", "v6-uplinks", "", nil, 2)
	if got := fmt.Sprint(as); err != nil || got != "[2001:db8::2 2001:db8::3]" {
		t.Errorf("Preview(v6-uplinks) = %s, %v; want the addresses after the VPC's uplink, 2001:db8::1", got, err)
	}
	_, err = svc.Preview(ctx, acme, "acme/prod", "vpc-main-v6", "10.42.1.0/24", nil, 1)
	wantRefusal(t, "Preview(vpc-main-v6 within an IPv4 prefix)", err, "within 10.42.1.0/24 is outside cidr fd12:3456:789a::/48")
}
