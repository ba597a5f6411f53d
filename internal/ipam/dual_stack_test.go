package ipam

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/search"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/internal/usage"
)

// wantRefusal checks that err is a refusal with exactly the message want.
func wantRefusal(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no refusal, want %q", what, want)
		return
	}
	if err.Error() != want {
		t.Errorf("%s: %q, want %q", what, err.Error(), want)
	}
}

// wantFigures checks exact figures: size, used and their unit.
func wantFigures(t *testing.T, what string, f usage.Figures, err error, size, used, unit string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	s, u, free := f.Counts()
	if s.String() != size || u.String() != used || f.Unit != unit || s.Sub(u) != free {
		t.Errorf("%s: %s of %s %s (free %s), want %s of %s %s", what, u, s, f.Unit, free, used, size, unit)
	}
}

// TestPublicIPv6Pools: an operator's IPv6 pool hands out its addresses
// from the lowest after the subnet-router anycast address, names them with
// every ':' written '-', and counts them exactly; a delegation pool counts
// its prefixes and hands out no address; the refusals say what to give.
func TestPublicIPv6Pools(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()

	_, err := svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "v6", CIDR: "2001:DB8:0::/64"})
	wantRefusal(t, "a prefix not in RFC 5952 form", err, "cidr 2001:DB8:0::/64 is not in canonical form; did you mean 2001:db8::/64?")
	_, err = svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "v4", CIDR: "192.0.2.0/24", DelegatedPrefixLength: 28})
	wantRefusal(t, "an IPv4 delegation pool", err, "delegatedPrefixLength is for IPv6 pools: cidr 192.0.2.0/24 is an IPv4 prefix; leave delegatedPrefixLength out")
	_, err = svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "d", CIDR: "2001:db8:100::/48", DelegatedPrefixLength: 40})
	wantRefusal(t, "a delegated length shorter than the pool's", err, "delegatedPrefixLength 40 is out of range for cidr 2001:db8:100::/48: 48 to 64")

	p, err := svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "v6-uplinks", CIDR: "2001:db8::/64", Zone: "z1"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Family() != IPv6 || p.DelegatedPrefixLength != 0 {
		t.Errorf("the pool: family %s, delegated /%d", p.Family(), p.DelegatedPrefixLength)
	}
	u, err := svc.PoolUsage(ctx, operator, p)
	wantFigures(t, "a fresh /64", u, err, "18446744073709551615", "0", "")

	for i, want := range []string{"2001:db8::1", "2001:db8::2"} {
		a, err := svc.Allocate(ctx, operator, AllocateInput{Pool: "v6-uplinks", Owner: Owner{Kind: OwnerNode, UID: fmt.Sprintf("n%d", i), Name: "eth0"}, OwnerNamespace: "infra"})
		if err != nil {
			t.Fatal(err)
		}
		if name := fmt.Sprintf("v6-uplinks-2001-db8--%d", i+1); a.Address.String() != want || a.Name != name {
			t.Errorf("claim %d: %s named %s, want %s named %s", i, a.Address, a.Name, want, name)
		}
	}
	u, err = svc.PoolUsage(ctx, operator, p)
	wantFigures(t, "a /64 holding 2", u, err, "18446744073709551615", "2", "")
	if released, err := svc.Release(ctx, operator, ReleaseInput{Pool: "v6-uplinks", Address: "2001:DB8:0::2"}); err != nil || !released {
		t.Errorf("releasing 2001:db8::2 written another way: %v, %v", released, err)
	}
	_, err = svc.Release(ctx, operator, ReleaseInput{Pool: "v6-uplinks", Address: "192.0.2.1"})
	wantRefusal(t, "an IPv4 address released in an IPv6 pool", err, `address "192.0.2.1" is not an IPv6 address such as 2001:db8::1: pool v6-uplinks is an IPv6 pool`)

	d, err := svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "v6-delegated", CIDR: "2001:db8:100::/48", Zone: "z1", DelegatedPrefixLength: 56})
	if err != nil {
		t.Fatal(err)
	}
	u, err = svc.PoolUsage(ctx, operator, d)
	wantFigures(t, "a /48 delegating /56s", u, err, "256", "0", "/56s")
	_, err = svc.Allocate(ctx, operator, AllocateInput{Pool: "v6-delegated", Owner: Owner{Kind: OwnerNode, UID: "n9", Name: "eth0"}, OwnerNamespace: "infra"})
	wantRefusal(t, "an address of a delegation pool", err,
		"pool v6-delegated delegates /56 prefixes to VPCs (createVpc with ipv6PrefixLength) and hands out no addresses: give a pool without delegatedPrefixLength")
	if again, err := svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "v6-delegated", CIDR: "2001:db8:100::/48", Zone: "z1", DelegatedPrefixLength: 56}); err != nil || again.UID != d.UID {
		t.Errorf("the same delegation pool again: %v, %v", again.UID, err)
	}
}

// dualStack makes public pools in zone z1 (IPv4 192.0.2.0/24, an IPv6
// uplink pool and a /48 delegating /56s) and VPC main of acme/prod with
// the IPv6 prefix given, or delegated when cidr6 is empty.
func dualStack(t *testing.T, svc *Service, cidr6 string, addressing IPv6Addressing) VPC {
	t.Helper()
	ctx := context.Background()
	for _, in := range []CreatePublicPoolInput{
		{Name: "public", CIDR: "192.0.2.0/24", Zone: "z1"},
		{Name: "v6-uplinks", CIDR: "2001:db8::/64", Zone: "z1"},
		{Name: "v6-delegated", CIDR: "2001:db8:100::/48", Zone: "z1", DelegatedPrefixLength: 56},
	} {
		if _, err := svc.CreatePublicPool(ctx, operator, in); err != nil {
			t.Fatal(err)
		}
	}
	in := CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "z1", IPv6CIDR: cidr6, IPv6Addressing: string(addressing)}
	if cidr6 == "" {
		in.IPv6PrefixLength = 56
	}
	v, err := svc.CreateVPC(ctx, acme, in)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDualStackVPC: a VPC with a ULA prefix has its IPv6 pool
// vpc-<name>-v6 and an IPv6 uplink; its subnets get the lowest free /64s
// with the first host as gateway; a NIC gets an address of each family
// in one call, the same again, and loses both on detach.
func TestDualStackVPC(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	v := dualStack(t, svc, "fd12:3456:789a::/48", "")
	if v.IPv6CIDR.String() != "fd12:3456:789a::/48" || v.IPv6Delegated || v.IPv6Addressing != LowestFree || v.IPv6PoolName() != "vpc-main-v6" {
		t.Errorf("the VPC: %+v", v)
	}
	if _, err := svc.Pool(ctx, acme, "acme/prod", "vpc-main-v6"); err != nil {
		t.Errorf("its IPv6 pool: %v", err)
	}
	var uplinks []string
	if err := db.Select(&uplinks, `SELECT host(address) FROM allocations WHERE owner_kind = 'VPC' ORDER BY address`); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(uplinks, []string{"192.0.2.1", "2001:db8::1"}) {
		t.Errorf("the uplinks: %v, want 192.0.2.1 and 2001:db8::1", uplinks)
	}
	if up, _, ok, err := svc.Router(ctx, acme, v); err != nil || !ok || up.Address.String() != "192.0.2.1" {
		t.Errorf("Router = %v, %v, %v; want 192.0.2.1", up.Address, ok, err)
	}
	if up, _, ok, err := svc.IPv6Router(ctx, acme, v); err != nil || !ok || up.Address.String() != "2001:db8::1" {
		t.Errorf("IPv6Router = %v, %v, %v; want 2001:db8::1", up.Address, ok, err)
	}

	web, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"})
	if err != nil {
		t.Fatal(err)
	}
	if web.IPv6CIDR.String() != "fd12:3456:789a::/64" || web.IPv6Gateway.String() != "fd12:3456:789a::1" {
		t.Errorf("subnet web: %s gateway %s, want fd12:3456:789a::/64 gateway fd12:3456:789a::1", web.IPv6CIDR, web.IPv6Gateway)
	}
	db2, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "db", PrefixLength: 24, IPv6PrefixLength: 60})
	if err != nil {
		t.Fatal(err)
	}
	if db2.IPv6CIDR.String() != "fd12:3456:789a:10::/60" {
		t.Errorf("subnet db: %s, want the lowest free /60, fd12:3456:789a:10::/60", db2.IPv6CIDR)
	}
	_, err = svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "x", PrefixLength: 24, IPv6CIDR: "fd12:3456:789a:18::/64"})
	wantRefusal(t, "an IPv6 prefix overlapping a sibling's", err, "ipv6Cidr fd12:3456:789a:18::/64 overlaps subnet db (fd12:3456:789a:10::/60) of VPC main")
	_, err = svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "x", PrefixLength: 24, IPv6CIDR: "fd00::/64"})
	wantRefusal(t, "an IPv6 prefix outside the VPC's", err, "ipv6Cidr fd00::/64 is outside VPC main's fd12:3456:789a::/48")
	u, err := svc.VPCIPv6Usage(ctx, acme, v, 64)
	wantFigures(t, "the VPC's /64s", u, err, "65536", "17", "/64s")

	in := AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: VMRef{UID: "vm-1", Hostname: "web-01"}, NIC: 0}
	nic, err := svc.AttachNic(ctx, acme, in)
	if err != nil {
		t.Fatal(err)
	}
	if nic.IPv4 == nil || nic.IPv6 == nil || nic.IPv4.Address.String() != "10.42.1.2" || nic.IPv6.Address.String() != "fd12:3456:789a::2" {
		t.Fatalf("the NIC's addresses: %+v", nic)
	}
	if nic.IPv6.Name != "vpc-main-v6-fd12-3456-789a--2" || nic.IPv6.Pool != "vpc-main-v6" || nic.IPv6.SubnetUID != web.UID {
		t.Errorf("the IPv6 allocation: %+v", *nic.IPv6)
	}
	again, err := svc.AttachNic(ctx, acme, in)
	if err != nil || again.IPv4.Address != nic.IPv4.Address || again.IPv6.Address != nic.IPv6.Address {
		t.Errorf("AttachNic again: %+v, %v", again, err)
	}
	in.Family = IPv6
	if a, err := svc.AttachInterface(ctx, acme, in); err != nil || a.Address != nic.IPv6.Address {
		t.Errorf("AttachInterface IPv6 of the NIC: %v, %v", a.Address, err)
	}
	in.Family = "IPV5"
	_, err = svc.AttachInterface(ctx, acme, in)
	wantRefusal(t, "a family that is none", err, `family "IPV5" is not a family: IPV4 or IPV6`)
	u, err = svc.SubnetIPv6Usage(ctx, acme, web)
	wantFigures(t, "subnet web's IPv6 side", u, err, "18446744073709551614", "1", "")

	released, err := svc.DetachInterface(ctx, acme, DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: in.VM, NIC: 0})
	if err != nil || !released {
		t.Fatalf("DetachInterface: %v, %v", released, err)
	}
	var left int
	if err := db.Get(&left, `SELECT count(*) FROM allocations WHERE owner_uid = 'vm-1'`); err != nil || left != 0 {
		t.Errorf("the NIC holds %d addresses after its detach (%v), want 0", left, err)
	}

	// A subnet of an IPv4-only VPC has no IPv6 side.
	if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "old", CIDR: "10.0.0.0/16"}); err != nil {
		t.Fatal(err)
	}
	_, err = svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "old", Name: "web", PrefixLength: 24, IPv6PrefixLength: 64})
	wantRefusal(t, "an IPv6 prefix in an IPv4-only VPC", err, "VPC acme/prod/old has no IPv6 prefix, so its subnets have none: leave ipv6PrefixLength out")
	if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "old", Name: "web", PrefixLength: 24}); err != nil {
		t.Fatal(err)
	}
	in = AttachInterfaceInput{Namespace: "acme/prod", VPC: "old", Subnet: "web", VM: VMRef{UID: "vm-2", Hostname: "old-01"}, Family: IPv6}
	_, err = svc.AttachInterface(ctx, acme, in)
	wantRefusal(t, "an IPv6 address of an IPv4-only subnet", err, "subnet web of VPC acme/prod/old has no IPv6 prefix: attach its IPv4 address (family IPV4)")
	in.Family = ""
	if nic, err := svc.AttachNic(ctx, acme, in); err != nil || nic.IPv4 == nil || nic.IPv6 != nil {
		t.Errorf("AttachNic in an IPv4-only subnet: %+v, %v", nic, err)
	}

	if err := svc.DeleteVPC(ctx, acme, "acme/prod", "main"); err != nil {
		t.Fatal(err)
	}
	var pools int
	if err := db.Get(&pools, `SELECT count(*) FROM pools WHERE namespace = 'acme/prod' AND name LIKE 'vpc-main%'`); err != nil || pools != 0 {
		t.Errorf("%d pools of VPC main left (%v)", pools, err)
	}
}

// TestVPCRefusals: the IPv6 fields of a VPC refused, each with its field's
// message.
func TestVPCRefusals(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	for _, c := range []struct {
		in   CreateVPCInput
		want string
	}{
		{CreateVPCInput{IPv6CIDR: "fd00::/48", IPv6PrefixLength: 56}, "ipv6Cidr and ipv6PrefixLength both name the VPC's IPv6 prefix: give one of them"},
		{CreateVPCInput{IPv6CIDR: "10.1.0.0/16"}, "ipv6Cidr 10.1.0.0/16 is not an IPv6 prefix: give the VPC's IPv4 prefix as cidr"},
		{CreateVPCInput{IPv6CIDR: "fd00::/8"}, "ipv6Cidr fd00::/8 is not a VPC prefix: use /16 to /64"},
		{CreateVPCInput{IPv6CIDR: "FD00::/48"}, "ipv6Cidr FD00::/48 is not in canonical form; did you mean fd00::/48?"},
		{CreateVPCInput{IPv6PrefixLength: 56}, "ipv6PrefixLength takes the VPC's IPv6 prefix from its zone's delegation pools: give a zone, or give the prefix as ipv6Cidr"},
		{CreateVPCInput{IPv6PrefixLength: 72, Zone: "z1"}, "ipv6PrefixLength 72 is out of range: 16 to 64"},
		{CreateVPCInput{IPv6Addressing: "STABLE_OPAQUE"}, "ipv6Addressing is for a VPC with an IPv6 prefix: give ipv6Cidr or ipv6PrefixLength, or leave ipv6Addressing out"},
		{CreateVPCInput{IPv6CIDR: "fd00::/48", IPv6Addressing: "RANDOM"}, `ipv6Addressing "RANDOM" is not a way of addressing: LOWEST_FREE or STABLE_OPAQUE`},
		{CreateVPCInput{CIDR: "fd00::/48"}, "cidr fd00::/48 is not IPv4: give the VPC's IPv4 prefix as cidr, and an IPv6 one as ipv6Cidr"},
	} {
		in := c.in
		in.Namespace, in.Name = "acme/prod", "main"
		if in.CIDR == "" {
			in.CIDR = "10.42.0.0/16"
		}
		_, err := svc.CreateVPC(ctx, acme, in)
		wantRefusal(t, fmt.Sprintf("%+v", c.in), err, c.want)
	}
	if _, err := svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "public", CIDR: "192.0.2.0/24", Zone: "z1"}); err != nil {
		t.Fatal(err)
	}
	_, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "z1", IPv6PrefixLength: 56})
	wantRefusal(t, "a delegation from a zone without delegation pools", err,
		"zone z1 has no delegation pool of /56 prefixes: give the VPC's IPv6 prefix as ipv6Cidr, or ask an operator for a public IPv6 pool with delegatedPrefixLength 56")
	_, err = svc.ClaimFloatingIP(ctx, acme, ClaimFloatingIPInput{Namespace: "acme/prod", Name: "f", Zone: "z1"})
	if err != nil {
		t.Errorf("a floating IP in a zone with IPv4 pools: %v", err)
	}
}

// TestConcurrentDelegations: 16 VPCs made at once, each delegated a /56 of
// one /48: 16 distinct prefixes, exactly the 16 lowest; deleting one gives
// its prefix back, to the next VPC made.
func TestConcurrentDelegations(t *testing.T) {
	svc, db, url := newService(t)
	other, _ := openService(t, url)
	ctx := context.Background()
	if _, err := svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "public", CIDR: "192.0.2.0/24", Zone: "z1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "v6-delegated", CIDR: "2001:db8:100::/48", Zone: "z1", DelegatedPrefixLength: 56}); err != nil {
		t.Fatal(err)
	}
	const n = 16
	var wg sync.WaitGroup
	got := make([]VPC, n)
	errs := make([]error, n)
	for i := range n {
		process := svc
		if i%2 == 1 {
			process = other
		}
		wg.Go(func() {
			got[i], errs[i] = process.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: fmt.Sprintf("v%d", i), CIDR: "10.42.0.0/16", Zone: "z1", IPv6PrefixLength: 56})
		})
	}
	wg.Wait()
	seen := map[netip.Prefix]int{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("VPC v%d: %v", i, err)
		}
		if !got[i].IPv6Delegated || got[i].IPv6CIDR.Bits() != 56 {
			t.Errorf("VPC v%d: %s delegated %v", i, got[i].IPv6CIDR, got[i].IPv6Delegated)
		}
		seen[got[i].IPv6CIDR]++
	}
	duplicates := 0
	for i := range n {
		want := netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0x01, 0x00, byte(i)}), 56)
		if seen[want] != 1 {
			t.Errorf("%s was delegated %d times, want once", want, seen[want])
		}
		duplicates += max(seen[want]-1, 0)
	}
	var rows int
	if err := db.Get(&rows, `SELECT count(DISTINCT prefix) FROM delegated_prefixes`); err != nil || rows != n || duplicates != 0 {
		t.Errorf("%d distinct delegated prefixes (%v), %d duplicates; want %d and 0", rows, err, duplicates, n)
	}
	pool, err := svc.Pool(ctx, operator, "", "v6-delegated")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := svc.Delegations(ctx, acme, pool)
	if err != nil || len(ds) != n || ds[0].Prefix.String() != "2001:db8:100::/56" || ds[0].Namespace != "acme/prod" {
		t.Errorf("Delegations = %+v, %v; want %d, the first 2001:db8:100::/56 of acme/prod", ds, err, n)
	}
	err = svc.DeletePublicPool(ctx, operator, "v6-delegated")
	wantRefusal(t, "deleting a pool that delegated prefixes", err, "public pool v6-delegated has delegated 16 prefixes to VPCs; delete those VPCs first")
	if err := svc.DeleteVPC(ctx, acme, "acme/prod", "v3"); err != nil {
		t.Fatal(err)
	}
	// other hands out v3's prefix once the notification of its release
	// arrived (docs/allocation.md, "Lowest first"); before, the next one.
	waitFor(t, "other to hear that v3's prefix was released", func() bool {
		pv, err := other.views.pool(ctx, pool.UID)
		if err != nil {
			t.Fatal(err)
		}
		held := true
		pv.Read(func(taken candidates.Set) { held = taken.Contains(got[3].IPv6CIDR.Addr()) })
		return !held
	})
	v, err := other.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "again", CIDR: "10.42.0.0/16", Zone: "z1", IPv6PrefixLength: 56})
	if err != nil || v.IPv6CIDR != got[3].IPv6CIDR {
		t.Errorf("the VPC made after v3 went: %s (%v), want v3's %s again", v.IPv6CIDR, err, got[3].IPv6CIDR)
	}
}

// TestConcurrentDualStackAttach: 32 NICs attached at once from two
// processes to one dual-stack subnet: every NIC holds one address of each
// family, no address twice, and the addresses are the lowest of each
// family; a NIC attached 8 times at once holds one pair.
func TestConcurrentDualStackAttach(t *testing.T) {
	svc, db, url := newService(t)
	other, _ := openService(t, url)
	ctx := context.Background()
	dualStack(t, svc, "fd12:3456:789a::/48", "")
	if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	const n = 32
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		process := svc
		if i%2 == 1 {
			process = other
		}
		wg.Go(func() {
			_, errs[i] = process.AttachNic(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web",
				VM: VMRef{UID: fmt.Sprintf("vm-%d", i), Hostname: fmt.Sprintf("web-%d", i)}})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("attach %d: %v", i, err)
		}
	}
	var rows []struct {
		Family  int    `db:"family"`
		Address string `db:"address"`
		Owner   string `db:"owner_uid"`
	}
	if err := db.Select(&rows, `SELECT family(a.address) AS family, host(a.address) AS address, owner_uid FROM allocations a WHERE owner_kind = 'VirtualMachine' ORDER BY a.address`); err != nil {
		t.Fatal(err)
	}
	addrs, owners := map[string]int{}, map[string]int{}
	var v4, v6 []string
	for _, r := range rows {
		addrs[r.Address]++
		owners[fmt.Sprint(r.Family, r.Owner)]++
		if r.Family == 4 {
			v4 = append(v4, r.Address)
		} else {
			v6 = append(v6, r.Address)
		}
	}
	duplicates := 0
	for _, c := range addrs {
		duplicates += c - 1
	}
	for _, c := range owners {
		duplicates += c - 1
	}
	if duplicates != 0 || len(v4) != n || len(v6) != n {
		t.Fatalf("%d duplicates, %d IPv4 and %d IPv6 addresses; want 0, %d and %d", duplicates, len(v4), len(v6), n, n)
	}
	for i := range n {
		if want4, want6 := fmt.Sprintf("10.42.1.%d", i+2), fmt.Sprintf("fd12:3456:789a::%x", i+2); v4[i] != want4 || v6[i] != want6 {
			t.Errorf("the %d-th addresses: %s and %s, want %s and %s: not the lowest", i, v4[i], v6[i], want4, want6)
		}
	}

	nics := make([]Nic, 8)
	for i := range nics {
		process := svc
		if i%2 == 1 {
			process = other
		}
		wg.Go(func() {
			nics[i], errs[i] = process.AttachNic(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web",
				VM: VMRef{UID: "vm-self", Hostname: "self"}, NIC: 1})
		})
	}
	wg.Wait()
	for i, nic := range nics {
		if errs[i] != nil || nic.IPv4 == nil || nic.IPv6 == nil || *nic.IPv4 != *nics[0].IPv4 || *nic.IPv6 != *nics[0].IPv6 {
			t.Fatalf("one NIC racing itself: %+v (%v), want one pair", nic, errs[i])
		}
	}
	var held int
	if err := db.Get(&held, `SELECT count(*) FROM allocations WHERE owner_uid = 'vm-self'`); err != nil || held != 2 {
		t.Errorf("the NIC racing itself holds %d addresses (%v), want 2", held, err)
	}
}

// TestStableOpaqueAddresses: in a VPC of stable opaque addresses, 16
// interfaces attached at once each get exactly their own first candidate
// (candidates.Space.NextOpaque with the VPC's key); one detached and
// attached again gets the same address; its IPv4 address is the lowest
// free as ever.
func TestStableOpaqueAddresses(t *testing.T) {
	svc, db, url := newService(t)
	other, _ := openService(t, url)
	ctx := context.Background()
	dualStack(t, svc, "fd12:3456:789a::/48", StableOpaque)
	web, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"})
	if err != nil {
		t.Fatal(err)
	}
	row, err := store.VPC(ctx, db, "acme/prod", "main", false)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := candidates.ParsePool(candidates.PoolSpec{CIDR: row.IPv6CIDR.String()})
	if err != nil {
		t.Fatal(err)
	}
	req, err := spec.ParseRequest(candidates.RequestSpec{Within: web.IPv6CIDR.String(), Reserved: []string{web.IPv6Gateway.String()}})
	if err != nil {
		t.Fatal(err)
	}
	space := spec.Space(req)

	const n = 16
	var wg sync.WaitGroup
	nics := make([]Nic, n)
	errs := make([]error, n)
	for i := range n {
		process := svc
		if i%2 == 1 {
			process = other
		}
		wg.Go(func() {
			nics[i], errs[i] = process.AttachNic(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web",
				VM: VMRef{UID: fmt.Sprintf("vm-%d", i), Hostname: fmt.Sprintf("web-%d", i)}, NIC: i % 3})
		})
	}
	wg.Wait()
	seen := map[netip.Addr]bool{}
	for i, nic := range nics {
		if errs[i] != nil {
			t.Fatalf("NIC %d: %v", i, errs[i])
		}
		want, ok := space.NextOpaque(candidates.Set{}, row.IPv6Key, fmt.Sprintf("vm-%d", i), i%3)
		if !ok || nic.IPv6.Address != want {
			t.Errorf("NIC %d: %s, want its own candidate %s", i, nic.IPv6.Address, want)
		}
		if seen[nic.IPv6.Address] {
			t.Errorf("%s was handed out twice", nic.IPv6.Address)
		}
		seen[nic.IPv6.Address] = true
	}
	in := DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: VMRef{UID: "vm-5", Hostname: "web-5"}, NIC: 5 % 3}
	if _, err := svc.DetachInterface(ctx, acme, in); err != nil {
		t.Fatal(err)
	}
	a, err := svc.AttachInterface(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: VMRef{UID: "vm-5", Hostname: "renamed"}, NIC: 5 % 3, Family: IPv6})
	if err != nil || a.Address != nics[5].IPv6.Address {
		t.Errorf("attached again: %s (%v), want %s", a.Address, err, nics[5].IPv6.Address)
	}

	// A conflict moves the interface to its next candidate: an operator
	// holding the interface's first candidate.
	first, _ := space.NextOpaque(candidates.Set{}, row.IPv6Key, "vm-99", 0)
	if _, err := svc.Allocate(ctx, acme, AllocateInput{Namespace: "acme/prod", Pool: "vpc-main-v6", Within: web.IPv6CIDR.String(),
		Owner: Owner{Kind: OwnerVirtualMachine, UID: "squatter", Name: "sq/0"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE allocations SET address = $1, name = $2 WHERE owner_uid = 'squatter'`, first.String(), candidates.AllocationName("vpc-main-v6", first)); err != nil {
		t.Fatal(err)
	}
	next, _ := space.NextOpaque(candidates.SetOf(first), row.IPv6Key, "vm-99", 0)
	b, err := svc.AttachInterface(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: VMRef{UID: "vm-99", Hostname: "late"}, Family: IPv6})
	if err != nil || b.Address != next {
		t.Errorf("an interface whose first candidate is held: %s (%v), want its next %s", b.Address, err, next)
	}
}

// TestDelegationExhausted: a zone whose delegation pools have no free
// prefix left refuses the VPC, naming the zone and the length.
func TestDelegationExhausted(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	if _, err := svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "public", CIDR: "192.0.2.0/24", Zone: "z1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "tiny", CIDR: "2001:db8:100::/55", Zone: "z1", DelegatedPrefixLength: 56}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: fmt.Sprintf("v%d", i), CIDR: "10.42.0.0/16", Zone: "z1", IPv6PrefixLength: 56}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "v2", CIDR: "10.42.0.0/16", Zone: "z1", IPv6PrefixLength: 56})
	wantRefusal(t, "a delegation from exhausted pools", err, "zone z1 has no free /56 in its delegation pools: give the VPC's IPv6 prefix as ipv6Cidr, or ask an operator for another public IPv6 pool with delegatedPrefixLength 56 in zone z1")
	if !errors.Is(err, refusal.ErrPoolExhausted) {
		t.Errorf("%v is not an exhausted pool", err)
	}
}

// TestSearchIPv6: an IPv6 address is found in any spelling; a free one,
// the subnet-router anycast address and the gateway are explained; a
// prefix finds the VPC and the subnet.
func TestSearchIPv6(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	dualStack(t, svc, "fd12:3456:789a::/48", "")
	if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	nic, err := svc.AttachNic(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: VMRef{UID: "vm-1", Hostname: "web-01"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"fd12:3456:789a::2", "FD12:3456:789A:0:0:0:0:2", "fd12:3456:789a:0000:0000:0000:0000:0002", "fd12:3456:789a::0.0.0.2", "fd12:3456:789a::2%eth0"} {
		res, err := svc.Search(ctx, acme, q, SearchOptions{})
		if err != nil || res.Form != SearchAddress || len(res.Hits) != 1 || res.Hits[0].Kind != search.HitAllocation || res.Hits[0].Address != nic.IPv6.Address {
			t.Errorf("Search(%q) = %+v, %v; want the allocation of %s", q, res.Hits, err, nic.IPv6.Address)
		}
	}
	for q, want := range map[string]string{
		"fd12:3456:789a::3": "fd12:3456:789a::3 is free",
		"fd12:3456:789a::":  "fd12:3456:789a:: is the subnet-router anycast address of fd12:3456:789a::/48",
		"fd12:3456:789a::1": "fd12:3456:789a::1 is the gateway of subnet web",
	} {
		res, err := svc.Search(ctx, acme, q, SearchOptions{})
		if err != nil || len(res.Hits) != 1 || res.Hits[0].Kind != search.HitAddress || res.Hits[0].Subnet != "web" || res.Hits[0].CIDR.String() != "fd12:3456:789a::/64" {
			t.Errorf("Search(%q) = %+v, %v; want an explained address of subnet web", q, res.Hits, err)
			continue
		}
		if res.Hits[0].Explain != want {
			t.Errorf("Search(%q) explains %q, want %q", q, res.Hits[0].Explain, want)
		}
	}
	res, err := svc.Search(ctx, acme, "fd12:3456:789a::/56", SearchOptions{})
	var kinds []string
	for _, h := range res.Hits {
		kinds = append(kinds, string(h.Kind)+" "+h.VPC+" "+h.Subnet)
	}
	if err != nil || !slices.Contains(kinds, string(search.HitVPC)+" main ") || !slices.Contains(kinds, string(search.HitSubnet)+" main web") {
		t.Errorf("Search(fd12:3456:789a::/56) = %v, %v; want VPC main and subnet web", kinds, err)
	}
}

// TestIPv6UsageHistory: the history of an IPv6 pool keeps its figures
// exact, past int64.
func TestIPv6UsageHistory(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	p, err := svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "v6", CIDR: "2001:db8::/63"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Allocate(ctx, operator, AllocateInput{Pool: "v6", Owner: Owner{Kind: OwnerNode, UID: "n1", Name: "eth0"}, OwnerNamespace: "infra"}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if err := svc.RecordUsage(ctx, now, time.Time{}); err != nil {
		t.Fatal(err)
	}
	points, err := svc.UsageHistory(ctx, operator, "", p.UID, usage.Hour, now.Add(-time.Hour))
	if err != nil || len(points) != 1 {
		t.Fatalf("the history: %+v, %v; want one point", points, err)
	}
	if got := points[0]; got.SizeCount.String() != "36893488147419103231" || got.UsedCount.String() != "1" || got.Size != math.MaxInt64 || got.Used != 1 {
		t.Errorf("the point: %+v; want 1 of 36893488147419103231 exact", got)
	}
}

// TestApplyDualStack: a dual-stack VPC applied twice is created, then
// unchanged, with its IPv6 pool; applied with another IPv6 prefix, it is
// refused at spec.ipv6Cidr.
func TestApplyDualStack(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	vpc := func(cidr6 string) []ApplyObject {
		return []ApplyObject{{VPC: &ApplyVPCInput{
			CreateVPCInput: CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", IPv6CIDR: cidr6, IPv6Addressing: string(StableOpaque)},
			Subnets:        []CreateSubnetInput{{Name: "web", CIDR: "10.42.1.0/24", IPv6CIDR: "fd12:3456:789a:1::/64"}},
		}}}
	}
	for _, want := range []ApplyState{Created, Unchanged} {
		applied, err := svc.Apply(ctx, operator, vpc("fd12:3456:789a::/48"))
		if err != nil || applied[0].State != want {
			t.Fatalf("Apply = %+v, %v; want %s", applied, err, want)
		}
	}
	if _, err := svc.Pool(ctx, operator, "acme/prod", "vpc-main-v6"); err != nil {
		t.Errorf("the IPv6 pool: %v", err)
	}
	_, err := svc.Apply(ctx, operator, vpc("fd12:3456:789b::/48"))
	var ae *ApplyError
	if !errors.As(err, &ae) || ae.Path != "spec.ipv6Cidr" {
		t.Errorf("another IPv6 prefix: %v, want a conflict of spec.ipv6Cidr", err)
	}
	wantRefusal(t, "another IPv6 prefix", err, "VPC acme/prod/main has IPv6 prefix fd12:3456:789a::/48; a VPC's IPv6 prefix never changes: create another VPC")
}

// TestDualStackOverview: a dual-stack VPC is listed once, with its IPv4
// pool's figures; its page carries its IPv6 pool, usage and uplink, and
// each subnet's IPv6 usage.
func TestDualStackOverview(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	dualStack(t, svc, "fd12:3456:789a::/48", "")
	if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	sums, err := svc.VPCSummaries(ctx, acme, "acme/prod")
	if err != nil || len(sums) != 1 || sums[0].Usage.Size != 65534 || sums[0].VPC.IPv6CIDR.String() != "fd12:3456:789a::/48" || len(sums[0].Subnets) != 1 {
		t.Fatalf("VPCSummaries = %+v, %v; want VPC main once, its IPv4 pool's figures", sums, err)
	}
	o, err := svc.VPCOverview(ctx, acme, "acme/prod", "main")
	if err != nil {
		t.Fatal(err)
	}
	if o.IPv6Pool.Name != "vpc-main-v6" || o.IPv6Router.Uplink.String() != "2001:db8::1" || o.Router.Uplink.String() != "192.0.2.1" {
		t.Errorf("the overview: pool %s, uplinks %s and %s", o.IPv6Pool.Name, o.Router.Uplink, o.IPv6Router.Uplink)
	}
	wantFigures(t, "the VPC's /64s", o.IPv6Usage, nil, "65536", "1", "/64s")
	wantFigures(t, "subnet web's IPv6 side", o.Subnets[0].IPv6Usage, nil, "18446744073709551614", "0", "")
}

// TestQuotaCountsBothFamilies: a quota of addresses counts an address of
// each family (docs/allocation.md, "Quotas"): a dual-stack VPC of a zone
// with public IPv6 address pools holds two uplinks, a dual-stack NIC two
// addresses; a NIC that would pass the limit with its second address gets
// neither; a delegated prefix counts no address.
func TestQuotaCountsBothFamilies(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	setQuota(t, svc, "acme/*", map[QuotaKind]int64{QuotaAddresses: 1})
	for _, in := range []CreatePublicPoolInput{
		{Name: "public", CIDR: "192.0.2.0/24", Zone: "z1"},
		{Name: "v6-uplinks", CIDR: "2001:db8::/64", Zone: "z1"},
		{Name: "v6-delegated", CIDR: "2001:db8:100::/48", Zone: "z1", DelegatedPrefixLength: 56},
	} {
		if _, err := svc.CreatePublicPool(ctx, operator, in); err != nil {
			t.Fatal(err)
		}
	}
	in := CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "z1", IPv6PrefixLength: 56}
	_, err := svc.CreateVPC(ctx, acme, in)
	wantQuotaRefusal(t, "a dual-stack VPC's second uplink", err, "namespace acme/prod has reached its quota of 1 address (set for acme/*)")
	if n := rows(t, db, `SELECT (SELECT count(*) FROM vpcs WHERE namespace = 'acme/prod') + (SELECT count(*) FROM delegated_prefixes) + (SELECT count(*) FROM allocations)`); n != 0 {
		t.Errorf("the refused VPC left %d rows", n)
	}
	setQuota(t, svc, "acme/*", map[QuotaKind]int64{QuotaAddresses: 3})
	if _, err := svc.CreateVPC(ctx, acme, in); err != nil {
		t.Fatalf("a dual-stack VPC of two uplinks, a delegated prefix and a quota of 3 addresses: %v", err)
	}
	if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	nic := AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: VMRef{UID: "vm-1", Hostname: "web-1"}}
	_, err = svc.AttachNic(ctx, acme, nic)
	wantQuotaRefusal(t, "a dual-stack NIC's second address", err, "namespace acme/prod has reached its quota of 3 addresses (set for acme/*)")
	if n := rows(t, db, `SELECT count(*) FROM allocations WHERE owner_uid = 'vm-1'`); n != 0 {
		t.Errorf("the refused NIC holds %d addresses, want none", n)
	}
	setQuota(t, svc, "acme/*", map[QuotaKind]int64{QuotaAddresses: 4})
	if got, err := svc.AttachNic(ctx, acme, nic); err != nil || got.IPv4 == nil || got.IPv6 == nil {
		t.Errorf("the NIC under a quota of 4 addresses: %+v, %v; want both families", got, err)
	}
}
