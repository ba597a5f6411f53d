package dashboard

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/schema"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var (
	operator = auth.Actor{Name: "op", Role: auth.Operator}
	acme     = auth.Actor{Name: "acme", Role: auth.Tenant, Namespaces: []string{"acme/*"}}
)

// vlans is a kind whose numbers a pool gives, divided by role.
const vlans = `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: name, kind: Text}
      - {name: vlan_id, kind: Number, optional: true}
      - {name: role, kind: Text}
`

// TestDashboard: an operator's dashboard lists the IP pools, the VPCs and
// the number pools' divisions in one list, the fullest first when none
// has a history, and counts the number pools; a tenant's has its VPC
// alone; the rows past those shown have the usage now for a history.
func TestDashboard(t *testing.T) {
	ctx := t.Context()
	db := pgtest.NewDB(t)
	ip, err := ipam.New(ctx, ipam.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ip.Close)
	nums, err := numbers.New(ctx, numbers.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nums.Close)
	if _, err := ip.CreatePublicPool(ctx, operator, ipam.CreatePublicPoolInput{Name: "public-a", CIDR: "198.51.100.0/24"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ip.CreateVPC(ctx, acme, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.0.0.0/16"}); err != nil {
		t.Fatal(err)
	}
	f, err := schema.Parse("vlans.yml", []byte(vlans))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nums.Branches().LoadSchema(ctx, operator, branch.Main, f); err != nil {
		t.Fatal(err)
	}
	p, err := nums.CreatePool(ctx, operator, numbers.PoolInput{Name: "VLAN IDs", Node: "IpamVLAN", NodeAttribute: "vlan_id",
		Ranges: []numbers.Range{{Start: 100, End: 109, Weight: 1}}, AllocationScope: []string{"role"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		in := branch.ObjectInput{Attributes: map[string]any{"name": fmt.Sprint("v", i), "role": "user"}}
		if _, err := nums.CreateObject(ctx, operator, branch.Main, "IpamVLAN", in, []numbers.FromPool{{Attribute: "vlan_id", Pool: p.ID}}); err != nil {
			t.Fatal(err)
		}
	}

	now := time.Now()
	d, err := New(ip, nums).Dashboard(ctx, operator, now, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rows) != 3 || d.Shown != 3 || d.Rows[0].Division == nil || d.Rows[0].Division.Division.DisplayLabel != "user" || d.Rows[0].Usage.Used != 3 || d.Rows[0].Usage.Size != 10 {
		t.Fatalf("the operator's rows: %+v, want the division user (3 / 10) first of 3", d.Rows)
	}
	if last := d.Rows[0].History[len(d.Rows[0].History)-1]; !last.At.Equal(now) || last.Used != 3 {
		t.Errorf("the division's history ends with %+v, want its usage now", last)
	}
	if d.Pools != 2 || d.VPCs != 1 || d.NumberPools != 1 {
		t.Errorf("the operator's counts: %d IP pools, %d VPCs, %d number pools; want 2, 1, 1", d.Pools, d.VPCs, d.NumberPools)
	}

	d, err = New(ip, nums).Dashboard(ctx, operator, now, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rows) != 3 || d.Shown != 1 {
		t.Errorf("the operator's first row: %d rows, %d shown; want 3, 1", len(d.Rows), d.Shown)
	}
	for _, r := range d.Rows[1:] {
		if r.Trend == nil || len(r.History) != 1 {
			t.Errorf("a row past those shown: %+v, want an IP trend with its usage now alone", r)
		}
	}

	d, err = New(ip, nums).Dashboard(ctx, acme, now, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rows) != 1 || d.Rows[0].Trend == nil || d.Rows[0].Trend.VPC != "main" || d.NumberPools != 0 {
		t.Errorf("the tenant's dashboard: %+v, want its VPC alone and no number pool", d)
	}
}

// TestDualStackDashboard: the dashboard counts the pools of both families
// and the addresses held in them, a dual-stack VPC once, its subnets
// once; it lists the VPC's IPv6 prefix in /64s (not its IPv6 pool in
// addresses) and each subnet's IPv6 side, exact at 128 bits, each with
// its history ending with its usage now.
func TestDualStackDashboard(t *testing.T) {
	ctx := t.Context()
	db := pgtest.NewDB(t)
	ip, err := ipam.New(ctx, ipam.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ip.Close)
	nums, err := numbers.New(ctx, numbers.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nums.Close)
	for _, in := range []ipam.CreatePublicPoolInput{
		{Name: "public", CIDR: "192.0.2.0/24", Zone: "z1"},
		{Name: "v6-uplinks", CIDR: "2001:db8::/64", Zone: "z1"},
		{Name: "v6-delegated", CIDR: "2001:db8:100::/48", Zone: "z1", DelegatedPrefixLength: 56},
	} {
		if _, err := ip.CreatePublicPool(ctx, operator, in); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ip.CreateVPC(ctx, acme, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "z1", IPv6PrefixLength: 56}); err != nil {
		t.Fatal(err)
	}
	if _, err := ip.CreateSubnet(ctx, acme, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		in := ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: ipam.VMRef{UID: fmt.Sprint("vm-", i), Hostname: fmt.Sprint("web-", i)}}
		if _, err := ip.AttachNic(ctx, acme, in); err != nil {
			t.Fatal(err)
		}
	}
	d, err := New(ip, nums).Dashboard(ctx, operator, time.Now(), -1)
	if err != nil {
		t.Fatal(err)
	}
	// Held: the two uplinks (192.0.2.1, 2001:db8::1) and each NIC's two
	// addresses; the delegated /56 is a prefix, not an allocation.
	if d.Pools != 5 || d.IPv6Pools != 3 || d.VPCs != 1 || d.Subnets != 1 || d.Allocations != 6 {
		t.Errorf("the counts: %d pools (%d IPv6), %d VPCs, %d subnets, %d allocations; want 5 (3), 1, 1, 6", d.Pools, d.IPv6Pools, d.VPCs, d.Subnets, d.Allocations)
	}
	var rows []string
	for _, r := range d.Rows {
		size, used, _ := r.Usage.Counts()
		tr := r.Trend
		rows = append(rows, fmt.Sprintf("%s %s %v: %s of %s%s", tr.Pool.Name, tr.Subnet.Name, tr.IPv6, used, size, r.Usage.Unit))
		if last := r.History[len(r.History)-1]; last.Share() != r.Usage.Utilization()/100 {
			t.Errorf("%s: the history ends with %+v, want the usage now", rows[len(rows)-1], last)
		}
	}
	want := []string{
		"vpc-main web false: 2 of 253",
		"public  false: 1 of 254",
		"v6-delegated  false: 1 of 256/56s",
		"vpc-main-v6  true: 1 of 256/64s",
		"vpc-main  false: 2 of 65534",
		"vpc-main-v6 web true: 2 of 18446744073709551614",
		"v6-uplinks  false: 1 of 18446744073709551615",
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("the rows:\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}
