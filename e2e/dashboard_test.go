package e2e

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// growWeb attaches 40 VMs more to subnet web (43 of its 253 held) and
// writes its last week as ipam serve would have: 3 more a day, so that it
// is full in 70 days. Before ipam serve starts: a process reads the
// forecasts' sums at its start and after each of its writes of the
// history, not after another's.
func growWeb(t *testing.T, srv server) {
	t.Helper()
	ctx := context.Background()
	db, svc := services(t, srv)
	for i := range 40 {
		if _, err := svc.AttachInterface(ctx, auth.System, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web",
			VM: ipam.VMRef{UID: fmt.Sprint("grown-", i), Hostname: fmt.Sprintf("app-%02d", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	var uid string
	if err := db.GetContext(ctx, &uid, `SELECT uid FROM subnets WHERE name = 'web'`); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for h := 7 * 24; h >= 1; h-- {
		at := now.Add(-time.Duration(h) * time.Hour).Truncate(time.Hour)
		used := 43 - 3*now.Sub(at).Hours()/24
		if err := store.RecordUsage(ctx, db, []store.UsageRecord{{ObjectUID: uid, ObjectKind: "subnet", Used: int64(math.Round(used)), Size: 253}}, at, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDashboardLeadsToTheChart: the operator's dashboard puts the subnet
// that fills up first, with its sparkline and forecast; its link leads to
// the subnet's page, whose chart is drawn, and whose spans switch without
// JavaScript. The tenant sees the same subnet on its own dashboard.
func TestDashboardLeadsToTheChart(t *testing.T) {
	filled := server{DatabaseURL: pgtest.NewURL(t)}
	seed(t, filled)
	growWeb(t, filled)
	srv := startServerOn(t, filled.DatabaseURL)
	page := newPage(t)
	signIn(t, page, srv.URL, "admin", srv.AdminPassword)
	if _, err := page.Goto(srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	row := page.Locator(`[data-testid="exhaustion-acme/prod/main/web"]`)
	if err := row.WaitFor(); err != nil {
		t.Fatalf("no row of the subnet web on the dashboard: %v", err)
	}
	first, err := page.Locator(`[data-testid=exhaustion] tbody tr`).First().GetAttribute("data-testid")
	if err != nil || first != "exhaustion-acme/prod/main/web" {
		t.Errorf("the dashboard's first row is %q (%v), want the subnet filling up", first, err)
	}
	if text, err := row.Locator("[data-testid=forecast]").TextContent(); err != nil || text != "full in about 70 days (at the rate of the last 7 days)" {
		t.Errorf("the subnet's forecast reads %q (%v)", text, err)
	}
	box, err := row.Locator("[data-testid=sparkline]").BoundingBox()
	if err != nil || box == nil || box.Width < 100 || box.Height < 20 {
		t.Errorf("the sparkline is drawn %+v (%v), want 120 × 28", box, err)
	}
	checkAccessibility(t, page, "/ with a week of history")
	screenshot(t, page, "dashboard")

	click(t, page, `[data-testid="exhaustion-acme/prod/main/web"] [data-testid=exhaustion-link]`)
	if err := page.WaitForURL(srv.URL + "/subnets/acme/prod/main/web"); err != nil {
		t.Fatalf("the row led to %s: %v", page.URL(), err)
	}
	waitForText(t, page, "subnet-cidr", "10.42.1.0/24")
	chart := page.Locator("[data-testid=usage-chart]")
	if box, err := chart.BoundingBox(); err != nil || box == nil || box.Width < 600 {
		t.Errorf("the usage chart is drawn %+v (%v), want the panel's width", box, err)
	}
	if n, err := chart.Locator("[data-testid=chart-used]").Count(); err != nil || n != 1 {
		t.Errorf("the chart has %d used lines (%v)", n, err)
	}
	checkAccessibility(t, page, "a subnet's page with a week of history")
	screenshot(t, page, "subnet")
	click(t, page, "[data-testid=span-7d]")
	if err := page.WaitForURL(srv.URL + "/subnets/acme/prod/main/web?span=7d#usage-history"); err != nil {
		t.Fatalf("the 7 days link led to %s: %v", page.URL(), err)
	}
	if current, err := page.Locator("[data-testid=span-7d]").GetAttribute("aria-current"); err != nil || current != "true" {
		t.Errorf("the 7 days span is not marked current: %q, %v", current, err)
	}

	password := srv.addUser(t, "acme", auth.Tenant, "acme/*")
	tenant := newPage(t)
	signIn(t, tenant, srv.URL, "acme", password)
	if _, err := tenant.Goto(srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	waitForText(t, tenant, "count-vpcs", "1 VPC")
	if n, err := tenant.Locator(`[data-testid=exhaustion] tbody tr`).Count(); err != nil || n != 2 {
		t.Errorf("acme's dashboard lists %d rows (%v), want its subnet and its VPC", n, err)
	}
}
