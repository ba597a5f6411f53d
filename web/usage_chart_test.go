package web

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"pivirt.hu/ipam/internal/store"
)

// writeHistory writes a week of hourly usage of the object uid, growing
// from used0 by perDay, of size, ending an hour ago.
func writeHistory(t *testing.T, db *store.DB, uid, kind string, used0, perDay, size int64) {
	t.Helper()
	now := time.Now()
	for h := 7 * 24; h >= 1; h-- {
		used := used0 + perDay*int64(7*24-h)/24
		if err := store.RecordUsage(t.Context(), db, []store.UsageRecord{{ObjectUID: uid, ObjectKind: kind, Used: used, Size: size}}, now.Add(-time.Duration(h)*time.Hour), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
}

// testID returns the first element of p with data-testid id, or nil.
func testID(p htmlPage, id string) *html.Node {
	if all := p.all(id); len(all) > 0 {
		return all[0]
	}
	return nil
}

// TestUsageCharts: the pool's and the subnet's pages draw their usage over
// time with the forecast, for whoever may see them, over the span asked
// for; a subnet's page is refused to another tenant.
func TestUsageCharts(t *testing.T) {
	c := newConsoleWithData(t)
	var subnet, pool string
	if err := c.db.Get(&subnet, `SELECT uid FROM subnets WHERE name = 'web'`); err != nil {
		t.Fatal(err)
	}
	if err := c.db.Get(&pool, `SELECT uid FROM pools WHERE name = 'vpc-main'`); err != nil {
		t.Fatal(err)
	}
	// 253 candidates, 120 used now, 16 more a day for the last week: full
	// in (253 - 120) / 16 = 8 days.
	writeHistory(t, c.db, subnet, "subnet", 8, 16, 253)

	status, body := c.get(t, "/subnets/acme/prod/main/web", c.acme)
	if status != http.StatusOK {
		t.Fatalf("GET /subnets/acme/prod/main/web = %d:\n%s", status, body)
	}
	page := parseHTML(body)
	if got := page.text("forecast"); got != "full in about 8 days (at the rate of the last 7 days)" {
		t.Errorf("the subnet's forecast: %q, want full in about 8 days (at the rate of the last 7 days)", got)
	}
	chart := testID(page, "usage-chart")
	if chart == nil || chart.Data != "svg" || attrOf(chart, "data-step") != "hour" || attrOf(chart, "data-points") != "168" {
		t.Fatalf("the subnet page's usage-chart: %v, want an SVG of 168 hours (30 days asked, 7 written)", chart)
	}
	if !page.in("usage-chart").has("chart-used") || !page.in("usage-chart").has("chart-size") {
		t.Error("the chart lacks the used or the size line")
	}
	if got := page.text("subnet-cidr"); got != "10.42.1.0/24" {
		t.Errorf("subnet-cidr = %q", got)
	}
	if got := page.text("allocation-count"); got != "120 allocations" {
		t.Errorf("the subnet page counts %q, want 120 allocations", got)
	}
	if !page.linksTo("/vpcs/acme/prod/main", false) {
		t.Error("the subnet page does not link its VPC")
	}

	_, body = c.get(t, "/subnets/acme/prod/main/web?span=1y", c.acme)
	if chart := testID(parseHTML(body), "usage-chart"); chart == nil || attrOf(chart, "data-step") != "day" {
		t.Errorf("over a year the chart draws days: %v", chart)
	}
	_, body = c.get(t, "/vpcs/acme/prod/main", c.acme)
	if !parseHTML(body).linksTo("/subnets/acme/prod/main/web", false) {
		t.Error("the VPC page does not link its subnet's page")
	}
	if status, _ := c.get(t, "/subnets/acme/prod/main/web", c.gx); status != http.StatusNotFound {
		t.Errorf("globex GET acme's subnet page = %d, want 404", status)
	}
	for _, path := range []string{"/subnets/acme/prod/main/db", "/subnets/web", "/subnets/main/web"} {
		if status, _ := c.get(t, path, c.acme); status != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, status)
		}
	}

	// The pool has no history yet: the chart says so, and the forecast.
	status, body = c.get(t, "/pools/acme/prod/vpc-main", c.acme)
	page = parseHTML(body)
	if status != http.StatusOK || page.text("forecast") != "not enough history yet" || !page.has("usage-chart") {
		t.Errorf("the pool page without history: %d, forecast %q, chart %v", status, page.text("forecast"), page.has("usage-chart"))
	}
}

// TestAllocationsFragment: the pool's and the subnet's search and pager,
// by htmx, get their allocation table alone (templ.Fragment "allocations"
// of AllocationsPanel), not the page.
func TestAllocationsFragment(t *testing.T) {
	c := newConsoleWithData(t)
	for _, target := range []string{"/pools/acme/prod/vpc-main?q=vm-007", "/subnets/acme/prod/main/web?q=vm-007"} {
		header := c.acme.Clone()
		header.Set("HX-Request", "true")
		header.Set("HX-Target", "allocations")
		res := do(t, c.h, http.MethodGet, target, header)
		body := string(readBody(t, res))
		page := parseHTML(body)
		if res.StatusCode != http.StatusOK || strings.Contains(body, "<html") || page.text("allocation-count") != "1 matching allocation" || !page.has("allocation-10.42.1.9") {
			t.Errorf("GET %s by htmx = %d, %q:\n%s", target, res.StatusCode, page.text("allocation-count"), body)
		}
	}
}
