package demo

import (
	"context"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/forecast"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
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
	if err != nil || len(vpcs) != 1 || vpcs[0].Name != "main" {
		t.Fatalf("acme sees VPCs %+v, %v; want main only", vpcs, err)
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
	if counts.Pools != 4 || counts.VMs < 36 || counts.Nodes != 10 || counts.FIPs != 3 || counts.Uplink != 2 {
		t.Errorf("demo holds %+v", counts)
	}

	var history struct {
		Objects int `db:"objects"`
		Hours   int `db:"hours"`
	}
	if err := db.Get(&history, `SELECT count(DISTINCT object_uid) AS objects, count(*) FILTER (WHERE step = 'hour') AS hours FROM usage_history`); err != nil {
		t.Fatal(err)
	}
	if history.Objects != 10 || history.Hours != 10*historyDays*24 {
		t.Errorf("demo history: %+v, want a month of hours for 4 pools and 6 subnets", history)
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
	if _, err := svc.SetOnce(ctx, auth.System, "demo", map[string]bool{"loaded": true}); err != nil {
		t.Fatal(err)
	}
	logins, loaded, err := Load(ctx, svc, auth.NewService(db), nums)
	if err != nil || !loaded || len(logins) != 0 {
		t.Fatalf("Load = %v, %v, %v; want the number part only", logins, loaded, err)
	}
	checkNumbers(t, nums)
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
