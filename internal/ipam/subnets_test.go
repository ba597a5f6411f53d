package ipam

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sync"
	"testing"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/refusal"
)

// TestPrivateClaimsStayInTheirSubnet: whatever path makes a claim in a
// VPC's pool, it is made in a subnet, never on the subnet's network,
// broadcast or gateway address, counts in the subnet's usage and keeps the
// subnet from being deleted.
func TestPrivateClaimsStayInTheirSubnet(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16"}); err != nil {
		t.Fatal(err)
	}
	vm := func(i int) Owner {
		return Owner{Kind: OwnerVirtualMachine, UID: fmt.Sprintf("vm-%d", i), Name: fmt.Sprintf("web-%02d/0", i)}
	}
	allocate := func(within string, reserved []string, owner Owner) (Allocation, error) {
		return svc.Allocate(ctx, acme, AllocateInput{Namespace: "acme/prod", Pool: "vpc-main", Within: within, Reserved: reserved, Owner: owner})
	}

	_, err := allocate("", nil, vm(0))
	if want := "VPC acme/prod/main has no subnet: create one, then allocate within it"; err == nil || err.Error() != want {
		t.Errorf("Allocate in a VPC without subnets = %v, want %q", err, want)
	}
	for i, cidr := range []string{"10.42.0.0/24", "10.42.1.0/24"} {
		if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: fmt.Sprintf("s%d", i), CIDR: cidr}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.2.0/24"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ within, want string }{
		{"", "within is required in private pool vpc-main: give the cidr of a subnet of VPC main (10.42.0.0/24, 10.42.1.0/24, 10.42.2.0/24), or a prefix inside one"},
		{"10.42.0.0/16", "within 10.42.0.0/16 is not inside a subnet of VPC main: give the cidr of one (10.42.0.0/24, 10.42.1.0/24, 10.42.2.0/24), or a prefix inside one"},
		{"10.42.9.0/24", "within 10.42.9.0/24 is not inside a subnet of VPC main: give the cidr of one (10.42.0.0/24, 10.42.1.0/24, 10.42.2.0/24), or a prefix inside one"},
	} {
		_, err := allocate(c.within, nil, vm(0))
		var invalid *refusal.InvalidError
		if !errors.As(err, &invalid) || invalid.Field != "within" || err.Error() != c.want {
			t.Errorf("Allocate within %q = %v, want %q", c.within, err, c.want)
		}
		if _, err := svc.Preview(ctx, acme, "acme/prod", "vpc-main", c.within, nil, 1); err == nil || err.Error() != c.want {
			t.Errorf("Preview within %q = %v, want %q", c.within, err, c.want)
		}
	}

	// In the subnet, or in a prefix inside it: never its network,
	// broadcast or gateway address.
	for _, c := range []struct {
		within string
		want   []string
	}{
		{"10.42.2.0/24", []string{"10.42.2.2", "10.42.2.3", "10.42.2.4", "10.42.2.5"}},
		{"10.42.2.0/31", nil},
		{"10.42.2.0/30", []string{"10.42.2.2"}},
		{"10.42.2.254/31", []string{"10.42.2.254"}},
		{"10.42.2.255/32", nil},
	} {
		got, err := svc.Preview(ctx, acme, "acme/prod", "vpc-main", c.within, nil, 4)
		if err != nil || !slices.Equal(addrStrings(got), c.want) {
			t.Errorf("Preview within %s = %v, %v; want %v", c.within, got, err, c.want)
		}
	}
	a, err := allocate("10.42.2.0/31", nil, vm(1))
	if want := "pool vpc-main has no free address in 10.42.2.0/31"; err == nil || err.Error() != want {
		t.Errorf("Allocate within 10.42.2.0/31 = %v, %v; want %q", a.Address, err, want)
	}
	a, err = allocate("10.42.2.0/24", nil, vm(1))
	if err != nil || a.Address.String() != "10.42.2.2" {
		t.Fatalf("Allocate within the subnet = %v, %v; want 10.42.2.2, after its gateway", a.Address, err)
	}
	b, err := allocate("10.42.2.252/30", []string{"10.42.2.253"}, vm(2))
	if err != nil || b.Address.String() != "10.42.2.254" {
		t.Fatalf("Allocate within 10.42.2.252/30 = %v, %v; want 10.42.2.254", b.Address, err)
	}

	vpc, err := svc.VPC(ctx, acme, "acme/prod", "main")
	if err != nil {
		t.Fatal(err)
	}
	subs, err := svc.Subnets(ctx, acme, vpc)
	if err != nil {
		t.Fatal(err)
	}
	web := subs[2]
	u, err := svc.SubnetUsage(ctx, acme, web)
	if err != nil || u.Used != 2 {
		t.Errorf("usage of subnet web = %+v, %v; want the 2 allocations", u, err)
	}
	page, err := svc.SubnetAllocations(ctx, acme, web, Page{})
	if err != nil || page.Total != 2 {
		t.Errorf("allocations of subnet web = %d, %v; want 2", page.Total, err)
	}
	err = svc.DeleteSubnet(ctx, acme, "acme/prod", "main", "web")
	if want := "subnet web of VPC acme/prod/main still has 2 VM interfaces; detach them first"; err == nil || err.Error() != want {
		t.Errorf("DeleteSubnet = %v, want %q", err, want)
	}
}

func addrStrings(as []netip.Addr) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.String())
	}
	return out
}

// TestSubnetsBySize: createSubnet with a prefix length takes the lowest
// aligned free block of the VPC, previewSubnet announces it, and the
// refusals say what to give.
func TestSubnetsBySize(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/22"}); err != nil {
		t.Fatal(err)
	}
	create := func(name, cidr string, bits int) (Subnet, error) {
		return svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: name, CIDR: cidr, PrefixLength: bits})
	}
	if _, err := create("a", "10.42.0.64/26", 0); err != nil {
		t.Fatal(err)
	}
	preview, err := svc.PreviewSubnet(ctx, acme, "acme/prod", "main", 26, 4)
	if got := fmt.Sprint(preview); err != nil || got != "[10.42.0.0/26 10.42.0.128/26 10.42.0.192/26 10.42.1.0/26]" {
		t.Errorf("PreviewSubnet(26, 4) = %s, %v", got, err)
	}
	for _, c := range []struct {
		bits int
		want string
	}{{26, "10.42.0.0/26"}, {25, "10.42.0.128/25"}, {24, "10.42.1.0/24"}, {23, "10.42.2.0/23"}} {
		s, err := create(fmt.Sprintf("s%d", c.bits), "", c.bits)
		if err != nil || s.CIDR.String() != c.want || s.Gateway != s.CIDR.Addr().Next() {
			t.Errorf("CreateSubnet(prefixLength %d) = %v (gateway %v), %v; want %s", c.bits, s.CIDR, s.Gateway, err, c.want)
		}
	}
	for _, c := range []struct {
		cidr  string
		bits  int
		field string
		want  error
		msg   string
	}{
		{"10.42.0.0/24", 24, "cidr", refusal.ErrInvalid, "cidr and prefixLength both name the subnet's prefix: give one of them"},
		{"", 0, "cidr", refusal.ErrInvalid, "cidr or prefixLength is required: the subnet's prefix, or its length to take the lowest free one"},
		{"", 33, "prefixLength", refusal.ErrInvalid, "prefixLength 33 is out of range: 8 to 31"},
		{"", 21, "prefixLength", refusal.ErrInvalid, "prefixLength 21 is out of range for VPC main's 10.42.0.0/22: 22 to 31"},
		{"", 30, "", refusal.ErrPoolExhausted, "vpc main has no free /30 in 10.42.0.0/22"},
	} {
		_, err := create("x", c.cidr, c.bits)
		var invalid *refusal.InvalidError
		if !errors.Is(err, c.want) || err.Error() != c.msg || c.field != "" && (!errors.As(err, &invalid) || invalid.Field != c.field) {
			t.Errorf("CreateSubnet(cidr %q, prefixLength %d) = %v, want %q", c.cidr, c.bits, err, c.msg)
		}
	}
	if _, err := svc.PreviewSubnet(ctx, acme, "acme/prod", "main", 24, 1); err == nil || err.Error() != "vpc main has no free /24 in 10.42.0.0/22" {
		t.Errorf("PreviewSubnet of a full VPC = %v", err)
	}
}

// TestConcurrentSubnetsBySize: 16 subnets of one size asked for at once, in
// two processes, are the 16 lowest free blocks, none overlapping.
func TestConcurrentSubnetsBySize(t *testing.T) {
	a, db, url := newService(t)
	b, _ := openService(t, url)
	ctx := context.Background()
	if _, err := a.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "taken", CIDR: "10.42.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range 16 {
		svc := []*Service{a, b}[i%2]
		wg.Go(func() {
			_, errs[i] = svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: fmt.Sprintf("s%d", i), PrefixLength: 24})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("subnet s%d: %v", i, err)
		}
	}
	var got []string
	if err := db.Select(&got, `SELECT cidr::text FROM subnets WHERE name <> 'taken' ORDER BY subnets.cidr`); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 17 {
		if i != 1 {
			want = append(want, fmt.Sprintf("10.42.%d.0/24", i))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("16 subnets at once got %v, want the 16 lowest free /24s %v", got, want)
	}
}

// TestConcurrentIPv6SubnetsBySize: 16 IPv6 subnets of one length asked for
// at once, in two processes, each of which has the VPC's subnets in view
// (vpcSubnets) and lacks the other's, get the 16 lowest free /64s, none
// overlapping; a subnet deleted in one process is the next that process
// gives.
func TestConcurrentIPv6SubnetsBySize(t *testing.T) {
	a, db, url := newService(t)
	b, _ := openService(t, url)
	ctx := context.Background()
	if _, err := a.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", IPv6CIDR: "fd12:3456:789a::/48"}); err != nil {
		t.Fatal(err)
	}
	for i, svc := range []*Service{a, b} {
		in := CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: fmt.Sprintf("taken%d", i), CIDR: fmt.Sprintf("10.42.%d.0/24", 200+i), IPv6CIDR: fmt.Sprintf("fd12:3456:789a:%d::/64", i+1)}
		if _, err := svc.CreateSubnet(ctx, acme, in); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range 16 {
		svc := []*Service{a, b}[i%2]
		wg.Go(func() {
			_, errs[i] = svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: fmt.Sprintf("s%d", i), PrefixLength: 24, IPv6PrefixLength: 64})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("subnet s%d: %v", i, err)
		}
	}
	var got []string
	if err := db.Select(&got, `SELECT ipv6_cidr::text FROM subnets WHERE name LIKE 's%' ORDER BY subnets.ipv6_cidr`); err != nil {
		t.Fatal(err)
	}
	want := []string{"fd12:3456:789a::/64"}
	for i := 3; i < 18; i++ {
		want = append(want, fmt.Sprintf("fd12:3456:789a:%x::/64", i))
	}
	if !slices.Equal(got, want) {
		t.Errorf("16 subnets at once got %v, want the 16 lowest free /64s %v", got, want)
	}
	var freed string
	if err := db.Get(&freed, `SELECT ipv6_cidr::text FROM subnets WHERE name = 's5'`); err != nil {
		t.Fatal(err)
	}
	if err := a.DeleteSubnet(ctx, acme, "acme/prod", "main", "s5"); err != nil {
		t.Fatal(err)
	}
	sub, err := a.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "again", PrefixLength: 24, IPv6PrefixLength: 64})
	if err != nil {
		t.Fatal(err)
	}
	if sub.IPv6CIDR.String() != freed {
		t.Errorf("after s5's delete the next subnet got %s, want the lowest free /64, s5's %s", sub.IPv6CIDR, freed)
	}
}

// TestSubnetLostRaceMovesOn forces the race a create in one statement
// loses: a process has the VPC's subnets in view (vpcSubnets) and plans
// the next /64, while another transaction holds the VPC's row and has
// inserted a subnet on that /64. The create waits for the row (seen
// waiting in pg_stat_activity); once the other commits, the exclusion
// constraint turns its insert away, and the create, made again as a
// transaction on the siblings read afresh, gets the next free /64, with
// one subnet and one audit entry.
func TestSubnetLostRaceMovesOn(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	vpc, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", IPv6CIDR: "fd12:3456:789a::/48"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "s0", PrefixLength: 24, IPv6PrefixLength: 64}); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`SELECT 1 FROM vpcs WHERE uid = $1 FOR UPDATE`, vpc.UID); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO subnets (vpc_uid, name, cidr, gateway, ipv6_cidr, ipv6_gateway, created_by)
		VALUES ($1, 'other', '10.42.9.0/24', '10.42.9.1', 'fd12:3456:789a:1::/64', 'fd12:3456:789a:1::1', 'test')`, vpc.UID); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var sub Subnet
	go func() {
		defer close(done)
		sub, err = svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "mine", PrefixLength: 24, IPv6PrefixLength: 64})
	}()
	pgtest.WaitForLock(t, db, "the create in one statement", pgtest.LockWait{Query: "create_subnet"}, done)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	<-done
	if err != nil || sub.CIDR.String() != "10.42.1.0/24" || sub.IPv6CIDR.String() != "fd12:3456:789a:2::/64" {
		t.Fatalf("the create that lost fd12:3456:789a:1::/64 got %s and %s (%v), want 10.42.1.0/24 and the next free /64, fd12:3456:789a:2::/64", sub.CIDR, sub.IPv6CIDR, err)
	}
	if n := rows(t, db, `SELECT count(*) FROM subnets WHERE name = 'mine'`) + rows(t, db, `SELECT count(*) FROM audit_log WHERE object_name = 'main/mine'`); n != 2 {
		t.Errorf("the create left %d rows of subnets and audit_log, want 2", n)
	}
}

// BenchmarkIPv6SubnetBySize measures the next /64 of a dual-stack VPC's
// /48 whose 10 000 lowest /64s are subnets, the process having read them
// once. Run with a fixed count: go test -run '^$' -bench IPv6SubnetBySize
// -benchtime 200x ./internal/ipam
func BenchmarkIPv6SubnetBySize(b *testing.B) {
	svc, db, _ := newService(b)
	ctx := context.Background()
	vpc, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.0.0.0/8", IPv6CIDR: "fd00:42::/48"})
	if err != nil {
		b.Fatal(err)
	}
	const filled = 10000
	_, err = db.Exec(`INSERT INTO subnets (vpc_uid, name, cidr, gateway, ipv6_cidr, ipv6_gateway, created_by)
		SELECT $1, 'fill-' || i, c, host(c)::inet + 1, c6, host(c6)::inet + 1, 'bench'
		FROM generate_series(0, $2 - 1) i,
			LATERAL (SELECT set_masklen('10.0.0.0'::inet + i * 16, 28)::cidr AS c, ('fd00:42:0:' || to_hex(i) || '::/64')::cidr AS c6) x`, vpc.UID, filled)
	if err != nil {
		b.Fatal(err)
	}
	next := filled
	create := func() {
		sub, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: fmt.Sprint("s-", next),
			CIDR: fmt.Sprintf("10.%d.%d.%d/28", next>>12&255, next>>4&255, next&15<<4), IPv6PrefixLength: 64})
		if err != nil {
			b.Fatal(err)
		}
		if want := netip.MustParsePrefix(fmt.Sprintf("fd00:42:0:%x::/64", next)); sub.IPv6CIDR != want {
			b.Fatalf("subnet %d got %s, want the lowest free /64, %s", next, sub.IPv6CIDR, want)
		}
		next++
	}
	create() // as a serving process has the VPC's subnets read once
	b.ResetTimer()
	for range b.N {
		create()
	}
}

// TestMergedPrefixes: the subnets merged, at once (mergedPrefixes) or one
// by one in any order (mergeInto), are the same, leave the same lowest
// free blocks of every length as the subnets do, and a prefix overlaps
// them (overlapsAny) when it overlaps a subnet.
func TestMergedPrefixes(t *testing.T) {
	parent := netip.MustParsePrefix("fd00:42::/48")
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		var subnets []candidates.NamedPrefix
		for range rng.IntN(300) {
			bits := 56 + rng.IntN(9)
			a := parent.Addr().As16()
			a[6], a[7] = byte(rng.IntN(4)), byte(rng.IntN(256))
			p := netip.PrefixFrom(netip.AddrFrom16(a), bits).Masked()
			if !slices.ContainsFunc(subnets, func(s candidates.NamedPrefix) bool { return s.Prefix.Overlaps(p) }) {
				subnets = append(subnets, candidates.NamedPrefix{Prefix: p})
			}
		}
		all := mergedPrefixes(subnets)
		var one []netip.Prefix
		for _, i := range rng.Perm(len(subnets)) {
			one = mergeInto(one, subnets[i].Prefix)
		}
		if !slices.Equal(all, one) {
			t.Fatalf("round %d: merged at once %v, one by one %v", round, all, one)
		}
		used := make([]netip.Prefix, len(subnets))
		for i, s := range subnets {
			used[i] = s.Prefix
		}
		for bits := 48; bits <= 66; bits++ {
			if got, want := candidates.FreePrefixes(parent, all, bits, 3), candidates.FreePrefixes(parent, used, bits, 3); !slices.Equal(got, want) {
				t.Fatalf("round %d, /%d: merged leave %v free, the subnets %v", round, bits, got, want)
			}
		}
		for range 200 {
			a := parent.Addr().As16()
			a[6], a[7] = byte(rng.IntN(4)), byte(rng.IntN(256))
			p := netip.PrefixFrom(netip.AddrFrom16(a), 52+rng.IntN(15)).Masked()
			want := slices.ContainsFunc(used, p.Overlaps)
			if got := overlapsAny(all, p); got != want {
				t.Fatalf("round %d: overlapsAny(merged, %s) = %v, want %v", round, p, got, want)
			}
		}
	}
}

// TestCreateSubnetLinksHeldAddresses: a new subnet becomes the subnet of
// the addresses of its VPC's pool in its prefix that have none (held
// since before subnets had to hold every private address), and is
// refused, storing nothing, when one of them is its gateway or an edge:
// in a process that has the VPC's subnets in view, whose creates are one
// statement (store.CreateSubnet), the refusal is the transaction's.
func TestCreateSubnetLinksHeldAddresses(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "first", CIDR: "10.42.0.0/24"}); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		held, cidr, gateway, want string
	}{
		{"10.42.1.7", "10.42.1.0/24", "", ""},
		{"10.42.2.1", "10.42.2.0/24", "", "10.42.2.1, the gateway of subnet 10.42.2.0/24, is held already; give another gateway or release it first"},
		{"10.42.3.9", "10.42.3.0/24", "10.42.3.9", "10.42.3.9, the gateway of subnet 10.42.3.0/24, is held already; give another gateway or release it first"},
		{"10.42.4.0", "10.42.4.0/24", "", "10.42.4.0, an edge of subnet 10.42.4.0/24, is held already; release it first"},
		{"10.42.5.255", "10.42.5.0/24", "", "10.42.5.255, an edge of subnet 10.42.5.0/24, is held already; release it first"},
		{"10.42.6.1", "10.42.6.0/31", "", ""},
	} {
		if _, err := db.Exec(`INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, created_by)
			SELECT 'acme/prod', 'vpc-main-' || replace($1, '.', '-'), uid, $1::inet, 'Node', $1, 'old', 'acme/prod', 'test'
			FROM pools WHERE name = 'vpc-main'`, c.held); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprint("s", i)
		sub, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: name, CIDR: c.cidr, Gateway: c.gateway})
		if c.want == "" {
			if err != nil {
				t.Fatalf("CreateSubnet(%s) with %s held: %v", c.cidr, c.held, err)
			}
			if n := rows(t, db, `SELECT count(*) FROM allocations WHERE host(address) = $1 AND subnet_uid = $2`, c.held, sub.UID); n != 1 {
				t.Errorf("%s is not linked to the new subnet %s", c.held, c.cidr)
			}
			continue
		}
		if !errors.Is(err, refusal.ErrConflict) || err.Error() != c.want {
			t.Errorf("CreateSubnet(%s, gateway %q) with %s held = %v, want %q", c.cidr, c.gateway, c.held, err, c.want)
		}
		if n := rows(t, db, `SELECT count(*) FROM subnets WHERE name = $1`, name) + rows(t, db, `SELECT count(*) FROM audit_log WHERE object_name = $1`, "main/"+name) +
			rows(t, db, `SELECT count(*) FROM allocations WHERE host(address) = $1 AND subnet_uid IS NOT NULL`, c.held); n != 0 {
			t.Errorf("the refused subnet %s left %d rows", c.cidr, n)
		}
	}
}
