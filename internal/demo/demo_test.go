package demo

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/forecast"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/internal/usage"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestLoadOnce(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewURL(t)
	db, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc, err := ipam.New(ctx, ipam.Config{DB: db, URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	nums, err := numbers.New(ctx, numbers.Config{DB: db, URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer nums.Close()
	users := auth.NewService(db)

	logins, loaded, err := Load(ctx, svc, users, nums)
	if err != nil || !loaded {
		t.Fatalf("Load = %v, %v", loaded, err)
	}
	if len(logins) != 2 {
		t.Fatalf("logins = %+v, want acme and globex", logins)
	}
	acme, _, err := users.SignIn(ctx, "192.0.2.1", logins[0].User, logins[0].Password)
	if err != nil {
		t.Fatalf("signing in as %s: %v", logins[0].User, err)
	}
	vpcs, err := svc.VPCs(ctx, acme, "")
	if err != nil || len(vpcs) != 2 || vpcs[0].Name != "cdn" || vpcs[1].Name != "main" {
		t.Fatalf("acme sees VPCs %+v, %v; want cdn and main", vpcs, err)
	}
	var counts struct {
		Pools  int `db:"pools"`
		VMs    int `db:"vms"`
		Nodes  int `db:"nodes"`
		FIPs   int `db:"fips"`
		Uplink int `db:"uplinks"`
	}
	if err := db.Get(&counts, `SELECT (SELECT count(*) FROM pools) AS pools,
		(SELECT count(*) FROM allocations WHERE owner_kind = 'VirtualMachine') AS vms,
		(SELECT count(*) FROM allocations WHERE owner_kind = 'Node') AS nodes,
		(SELECT count(*) FROM floating_ips) AS fips,
		(SELECT count(*) FROM allocations WHERE owner_kind = 'VPC') AS uplinks`); err != nil {
		t.Fatal(err)
	}
	if counts.Pools != 10 || counts.VMs < 36 || counts.Nodes != 10 || counts.FIPs != 3 || counts.Uplink != 6 {
		t.Errorf("demo holds %+v, want 10 pools (4 of them IPv6), 6 uplinks (2 of them IPv6)", counts)
	}
	checkDualStack(t, svc, acme)

	var history struct {
		Objects int `db:"objects"`
		Hours   int `db:"hours"`
	}
	if err := db.Get(&history, `SELECT count(DISTINCT object_uid) AS objects, count(*) FILTER (WHERE step = 'hour') AS hours FROM usage_history`); err != nil {
		t.Fatal(err)
	}
	if history.Objects != 26 || history.Hours != 26*historyDays*24 {
		t.Errorf("demo history: %+v, want a month of hours for 10 pools, 10 subnets, their 4 IPv6 sides and 2 VPCs' IPv6 prefixes", history)
	}
	dash, err := svc.Dashboard(ctx, acme, time.Now(), 10)
	if err != nil || len(dash.Trends) == 0 {
		t.Fatalf("acme's dashboard: %d rows, %v", len(dash.Trends), err)
	}
	if top := dash.Trends[0]; top.Subnet.Name != "gpu" || top.Forecast.State != forecast.Filling || top.Forecast.DaysLeft > 14 {
		t.Errorf("acme's dashboard starts with %s/%s (%s), want the subnet gpu, full within two weeks", top.Pool.Name, top.Subnet.Name, top.Forecast)
	}

	checkNumbers(t, nums)

	if _, loaded, err := Load(ctx, svc, users, nums); err != nil || loaded {
		t.Errorf("second Load = %v, %v; want nothing done", loaded, err)
	}
}

// TestLoadNumbersOnAnOlderDemo loads the number pools' example into a
// database whose IP example was loaded before number pools existed: the
// number part is loaded, the IP part left alone.
func TestLoadNumbersOnAnOlderDemo(t *testing.T) {
	ctx := t.Context()
	url := pgtest.NewURL(t)
	db, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc, err := ipam.New(ctx, ipam.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	nums, err := numbers.New(ctx, numbers.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	defer nums.Close()
	for _, part := range []string{"demo", "demo-ipv6"} {
		if _, err := svc.SetOnce(ctx, auth.System, part, map[string]bool{"loaded": true}); err != nil {
			t.Fatal(err)
		}
	}
	logins, loaded, err := Load(ctx, svc, auth.NewService(db), nums)
	if err != nil || !loaded || len(logins) != 0 {
		t.Fatalf("Load = %v, %v, %v; want the number part only", logins, loaded, err)
	}
	checkNumbers(t, nums)
}

// TestLoadDualStackOnAnOlderDemo loads the dual-stack example into a
// database whose IP example and its history were loaded before dual
// stack existed: the dual-stack part is loaded with its history, the
// history of the rest left alone.
func TestLoadDualStackOnAnOlderDemo(t *testing.T) {
	ctx := t.Context()
	db := pgtest.NewDB(t)
	svc, err := ipam.New(ctx, ipam.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	nums, err := numbers.New(ctx, numbers.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	defer nums.Close()
	users := auth.NewService(db)
	if _, err := load(ctx, svc, users); err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"demo", "demo-history", "demo-numbers"} {
		if _, err := svc.SetOnce(ctx, auth.System, part, map[string]bool{"loaded": true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, loaded, err := Load(ctx, svc, users, nums); err != nil || !loaded {
		t.Fatalf("Load = %v, %v; want the dual-stack part", loaded, err)
	}
	var objects int
	if err := db.Get(&objects, `SELECT count(DISTINCT object_uid) FROM usage_history`); err != nil || objects != 16 {
		t.Errorf("the history of %d objects (%v), want 16: the dual-stack part's 6 pools, 4 subnets, their 4 IPv6 sides and 2 VPCs' prefixes", objects, err)
	}
}

// checkNumbers checks the number pools' example: the pool scoped by site,
// both sites holding 100 on main, and the branch's VLAN counted in site-a
// with its pending number.
func checkNumbers(t *testing.T, nums *numbers.Service) {
	t.Helper()
	ctx := t.Context()
	pools, err := nums.Pools(ctx, auth.System, numbers.PoolFilter{}, 10, 0)
	if err != nil || len(pools.Pools) != 1 || pools.Pools[0].Name != DemoPool {
		t.Fatalf("pools %+v, %v; want %s", pools, err, DemoPool)
	}
	divisions, err := nums.Divisions(ctx, auth.System, pools.Pools[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]int64{}
	for _, d := range divisions.Divisions {
		used[d.DisplayLabel] = d.Figures.Used
	}
	if len(used) != 2 || used["site-a"] != 4 || used["site-b"] != 2 {
		t.Errorf("divisions' use %v, want site-a 4 (3 on main, 1 on the branch), site-b 2", used)
	}
	allocations, err := nums.Allocations(ctx, auth.System, pools.Pools[0].ID, nil, 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	hundreds := 0
	for _, a := range allocations.Allocations {
		if a.Value == 100 {
			hundreds++
		}
	}
	if hundreds != 2 {
		t.Errorf("%d VLANs hold 100, want one per site: %+v", hundreds, allocations.Allocations)
	}
	branches, err := nums.Branches().Branches(ctx, auth.System)
	if err != nil || len(branches) != 2 || branches[1].Name != DemoBranch || !branches[1].OwnSchema {
		t.Errorf("branches %+v, %v; want main and %s with its own schema", branches, err, DemoBranch)
	}
}

// checkDualStack checks the dual-stack part: VPC cdn's /56 delegated
// from zone-a's pool and its IPv6 uplink; VPC mesh's ULA prefix and
// stable opaque addresses; NICs with both families; the history of the
// IPv6 sides, exact, ending at their usage now.
func checkDualStack(t *testing.T, svc *ipam.Service, acme auth.Actor) {
	t.Helper()
	ctx := t.Context()
	cdn, err := svc.VPC(ctx, acme, "acme/prod", "cdn")
	if err != nil {
		t.Fatal(err)
	}
	if cdn.IPv6CIDR.String() != "2001:db8:a100::/56" || !cdn.IPv6Delegated {
		t.Errorf("VPC cdn's IPv6 prefix: %s (delegated %v), want 2001:db8:a100::/56 delegated", cdn.IPv6CIDR, cdn.IPv6Delegated)
	}
	if up, _, ok, err := svc.IPv6Router(ctx, acme, cdn); err != nil || !ok || up.Address.String() != "2001:db8:a::1" {
		t.Errorf("VPC cdn's IPv6 uplink: %v, %v, %v; want 2001:db8:a::1", up.Address, ok, err)
	}
	mesh, err := svc.VPC(ctx, auth.System, "globex/dev", "mesh")
	if err != nil {
		t.Fatal(err)
	}
	if mesh.IPv6CIDR.String() != "fd4e:7a2c:91b0::/48" || mesh.IPv6Delegated || mesh.IPv6Addressing != ipam.StableOpaque {
		t.Errorf("VPC mesh: %s (delegated %v) %s, want fd4e:7a2c:91b0::/48 given, STABLE_OPAQUE", mesh.IPv6CIDR, mesh.IPv6Delegated, mesh.IPv6Addressing)
	}
	for _, c := range []struct {
		namespace, vpc, subnet, host, v4 string
		v6                               func(netip.Addr) bool
	}{
		{"acme/prod", "cdn", "lb", "lb-01", "10.60.1.2", func(a netip.Addr) bool { return a.String() == "2001:db8:a100::2" }},
		{"globex/dev", "mesh", "svc", "svc-01", "172.30.1.2", func(a netip.Addr) bool {
			// Opaque: not the lowest, but in subnet svc's /64.
			return a.String() != "fd4e:7a2c:91b0::2" && netip.MustParsePrefix("fd4e:7a2c:91b0::/64").Contains(a)
		}},
	} {
		nic, err := svc.AttachNic(ctx, auth.System, ipam.AttachInterfaceInput{Namespace: c.namespace, VPC: c.vpc, Subnet: c.subnet,
			VM: ipam.VMRef{UID: "demo-vm-" + c.vpc + "-" + c.host, Hostname: c.host}})
		if err != nil || nic.IPv4 == nil || nic.IPv6 == nil || nic.IPv4.Address.String() != c.v4 || !c.v6(nic.IPv6.Address) {
			t.Errorf("the NIC of %s in %s/%s: %+v, %v; want %s and its IPv6 address", c.host, c.vpc, c.subnet, nic, err, c.v4)
		}
	}
	usages, err := svc.Usages(ctx, auth.System)
	if err != nil {
		t.Fatal(err)
	}
	sides := 0
	for _, u := range usages {
		if !u.IPv6 {
			continue
		}
		sides++
		points, err := svc.UsageHistory(ctx, auth.System, u.Pool.Namespace, u.HistoryUID(), usage.Hour, time.Time{})
		if err != nil || len(points) != historyDays*24 {
			t.Errorf("the history of %s %s: %d hours, %v; want %d", u.HistoryKind(), u.Subnet.Name, len(points), err, historyDays*24)
			continue
		}
		size, used, _ := u.Usage.Counts()
		if lastSize, lastUsed := points[len(points)-1].Counts(); lastSize != size || lastUsed != used && !(u.Subnet.UID == "" && lastUsed.IsZero()) {
			t.Errorf("the history of %s %s ends at %s of %s, want %s of %s", u.HistoryKind(), u.Subnet.Name, lastUsed, lastSize, used, size)
		}
	}
	if sides != 6 {
		t.Errorf("%d IPv6 sides, want 6: 2 VPCs' prefixes and 4 subnets'", sides)
	}
}
