package demo

import (
	"context"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
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
	users := auth.NewService(db)

	logins, loaded, err := Load(ctx, svc, users)
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
	if counts.Pools != 4 || counts.VMs < 36 || counts.Nodes != 9 || counts.FIPs != 3 || counts.Uplink != 2 {
		t.Errorf("demo holds %+v", counts)
	}

	if _, loaded, err := Load(ctx, svc, users); err != nil || loaded {
		t.Errorf("second Load = %v, %v; want nothing done", loaded, err)
	}
}
