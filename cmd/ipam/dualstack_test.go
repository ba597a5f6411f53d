package main

import (
	"regexp"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// dualStackPools are the public pools of zone-a as a manifest: the
// example IPv4 pool, an IPv6 pool of addresses and a /48 delegating /56s.
var dualStackPools = seedPublicPool +
	"---\napiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata:\n  name: uplinks-v6\nspec:\n  cidr: 2001:db8::/64\n  kind: public\n  zone: zone-a\n" +
	"---\napiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata:\n  name: delegated-v6\nspec:\n  cidr: 2001:db8:100::/48\n  kind: public\n  zone: zone-a\n  delegatedPrefixLength: 56\n"

// TestGetApplyRoundTripDualStack applies IPv6 public pools, makes
// dual-stack VPCs as the API does (a delegated /56, a given ULA /48 with
// stable opaque addresses) with subnets and a NIC of both families, and
// applies what ipam get pools and ipam get vpcs print: to the same
// database it changes nothing; to a fresh one it makes the same pools and
// VPCs, with the same prefixes.
func TestGetApplyRoundTripDualStack(t *testing.T) {
	url := pgtest.NewURL(t)
	svc := openIPAM(t, url)
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := t.Context()
	out := mustRun(t, dualStackPools, nil, "apply", "-f", "-", "--database-url", url)
	if want := "ipampool/public-zone-a created\nipampool/uplinks-v6 created\nipampool/delegated-v6 created\n"; out != want {
		t.Errorf("ipam apply of IPv6 pools printed %q, want %q", out, want)
	}
	for _, v := range []ipam.CreateVPCInput{
		{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a", IPv6PrefixLength: 56},
		{Namespace: "globex/dev", Name: "lab", CIDR: "172.16.0.0/20", IPv6CIDR: "fd12:3456:789a::/48", IPv6Addressing: "STABLE_OPAQUE"},
	} {
		if _, err := svc.CreateVPC(ctx, auth.System, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []ipam.CreateSubnetInput{
		{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"},
		{Namespace: "globex/dev", VPC: "lab", Name: "dmz", CIDR: "172.16.4.0/23", IPv6CIDR: "fd12:3456:789a:5::/64"},
	} {
		if _, err := svc.CreateSubnet(ctx, auth.System, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.AttachNic(ctx, auth.System, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: ipam.VMRef{UID: "vm-1", Hostname: "web-01"}}); err != nil {
		t.Fatal(err)
	}

	get := func(url, what string) string {
		return mustRun(t, "", nil, "get", what, "-o", "yaml", "--database-url", url)
	}
	pools, vpcs := get(url, "pools"), get(url, "vpcs")
	for _, want := range []string{"  delegatedPrefixLength: 56\n", "  cidr: 2001:db8::/64\n", "  name: vpc-main-v6\n"} {
		if !strings.Contains(pools, want) {
			t.Errorf("ipam get pools -o yaml printed:\n%s\nwant %q in it", pools, want)
		}
	}
	for _, want := range []string{"  ipv6PrefixLength: 56\n", "  ipv6Cidr: 2001:db8:100::/56\n", "  ipv6Cidr: fd12:3456:789a::/48\n",
		"  ipv6Addressing: STABLE_OPAQUE\n", "    - {name: web, cidr: 10.42.1.0/24, gateway: 10.42.1.1, ipv6Cidr: '2001:db8:100::/64'}\n",
		"    - {name: dmz, cidr: 172.16.4.0/23, gateway: 172.16.4.1, ipv6Cidr: 'fd12:3456:789a:5::/64'}\n", "  ipv6Router: 2001:db8::1\n"} {
		if !strings.Contains(vpcs, want) {
			t.Errorf("ipam get vpcs -o yaml printed:\n%s\nwant %q in it", vpcs, want)
		}
	}
	audited := auditCount(t, db)
	poolsUnchanged := "ipampool/delegated-v6 unchanged\nipampool/public-zone-a unchanged\nipampool/uplinks-v6 unchanged\n" +
		"ipampool/acme/prod/vpc-main unchanged\nipampool/acme/prod/vpc-main-v6 unchanged\n" +
		"ipampool/globex/dev/vpc-lab unchanged\nipampool/globex/dev/vpc-lab-v6 unchanged\n"
	if out := mustRun(t, pools, nil, "apply", "-f", "-", "--database-url", url); out != poolsUnchanged {
		t.Errorf("ipam get pools -o yaml | ipam apply -f - printed:\n%s\nwant:\n%s", out, poolsUnchanged)
	}
	unchanged := "vpc/acme/prod/main unchanged\nvpc/globex/dev/lab unchanged\n"
	if out := mustRun(t, vpcs, nil, "apply", "-f", "-", "--database-url", url); out != unchanged {
		t.Errorf("ipam get vpcs -o yaml | ipam apply -f - printed:\n%s\nwant:\n%s", out, unchanged)
	}
	if n := auditCount(t, db) - audited; n != 0 {
		t.Errorf("applying what get printed wrote %d audit entries", n)
	}
	if again := get(url, "pools") + get(url, "vpcs"); again != pools+vpcs {
		t.Errorf("after applying it, ipam get prints:\n%s\nbefore:\n%s", again, pools+vpcs)
	}

	// A fresh database: the pools and the VPCs make the same VPCs, with
	// the same prefixes, the delegated /56 delegated again.
	fresh := pgtest.NewURL(t)
	created := "ipampool/delegated-v6 created\nipampool/public-zone-a created\nipampool/uplinks-v6 created\n" +
		"ipampool/acme/prod/vpc-main unchanged\nipampool/acme/prod/vpc-main-v6 unchanged\n" +
		"ipampool/globex/dev/vpc-lab unchanged\nipampool/globex/dev/vpc-lab-v6 unchanged\n" +
		"vpc/acme/prod/main created\nvpc/globex/dev/lab created\n"
	if out := mustRun(t, pools+"---\n"+vpcs, nil, "apply", "-f", "-", "--database-url", fresh); out != created {
		t.Errorf("ipam apply of the pools and VPCs on a fresh database printed:\n%s\nwant:\n%s", out, created)
	}
	if got := get(fresh, "vpcs"); got != vpcs {
		t.Errorf("on the fresh database, ipam get vpcs -o yaml prints:\n%s\nwant, as on the first:\n%s", got, vpcs)
	}
	uids := regexp.MustCompile(`(?m)^  uid: .*\n`)
	if got := get(fresh, "pools"); uids.ReplaceAllString(got, "") != uids.ReplaceAllString(pools, "") {
		t.Errorf("on the fresh database, ipam get pools -o yaml prints:\n%s\nwant, but for the pools' uids, as on the first:\n%s", got, pools)
	}
}

// TestGetTablesDualStack: ipam get pools gives an IPv6 pool's figures
// exact and a delegation pool's in its prefixes; ipam get vpcs a
// dual-stack VPC's two prefixes.
func TestGetTablesDualStack(t *testing.T) {
	url := pgtest.NewURL(t)
	svc := openIPAM(t, url)
	mustRun(t, dualStackPools, nil, "apply", "-f", "-", "--database-url", url)
	if _, err := svc.CreateVPC(t.Context(), auth.System, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a", IPv6PrefixLength: 56}); err != nil {
		t.Fatal(err)
	}
	pools := mustRun(t, "", nil, "get", "pools", "-n", "", "--database-url", url)
	for _, want := range []string{
		"   uplinks-v6      public   2001:db8::/64       -             zone-a   1      18446744073709551615\n",
		"   delegated-v6    public   2001:db8:100::/48   -             zone-a   1      256 /56s\n",
	} {
		if !strings.Contains(pools, want) {
			t.Errorf("ipam get pools printed:\n%s\nwant %q in it", pools, want)
		}
	}
	if vpcs := mustRun(t, "", nil, "get", "vpcs", "--database-url", url); !strings.Contains(vpcs, "   main   10.42.0.0/16,2001:db8:100::/56   zone-a   ") {
		t.Errorf("ipam get vpcs printed:\n%s\nwant main's two prefixes", vpcs)
	}
}
