package web

import (
	"net/http"
	"strings"
	"testing"
)

// TestDashboard: the home page lists what the user may see closest to
// exhaustion first, each with its usage, its last week and its forecast;
// the counts; the last changes, linked to what they changed.
func TestDashboard(t *testing.T) {
	c := newConsoleWithData(t)
	var subnet string
	if err := c.db.Get(&subnet, `SELECT uid FROM subnets WHERE name = 'web'`); err != nil {
		t.Fatal(err)
	}
	writeHistory(t, c.db, subnet, "subnet", 8, 16, 253)

	status, body := c.get(t, "/", c.op)
	page := parseHTML(body)
	if status != http.StatusOK || !page.has("dashboard") {
		t.Fatalf("operator GET / = %d without the dashboard:\n%s", status, body)
	}
	if got := strings.Join(page.testIDs("exhaustion-"), " "); !strings.HasPrefix(got, "exhaustion-acme/prod/main/web exhaustion-link exhaustion-usage") {
		t.Errorf("the operator's rows: %s, want the subnet filling up first", got)
	}
	row := page.in("exhaustion-acme/prod/main/web")
	if got := row.text("forecast"); got != "full in about 8 days (at the rate of the last 7 days)" {
		t.Errorf("the subnet's forecast on the dashboard: %q", got)
	}
	if spark := testID(row, "sparkline"); spark == nil || attrOf(spark, "data-points") != "168" {
		t.Errorf("the subnet's sparkline: %v, want 168 hours", spark)
	}
	if !row.linksTo("/subnets/acme/prod/main/web", false) || !page.in("exhaustion-acme/prod/main").linksTo("/vpcs/acme/prod/main", false) ||
		!page.in("exhaustion-public-zone-a").linksTo("/pools/public-zone-a", false) {
		t.Error("the rows do not link their subnet, VPC and pool pages")
	}
	if got := page.in("exhaustion-public-zone-a").text("forecast"); got != "not enough history yet" {
		t.Errorf("a pool without history: %q", got)
	}
	for id, want := range map[string]string{"count-pools": "2 IP pools", "count-vpcs": "1 VPCs", "count-subnets": "1 subnets", "count-allocations": "121 allocations"} {
		if got := page.text(id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if got := page.text("count-changes"); !strings.HasSuffix(got, " changes today") || got == "0 changes today" {
		t.Errorf("count-changes = %q, want the changes made by the setup", got)
	}
	changes := page.in("recent-changes")
	if n := len(changes.testIDs("change-")); n < 10 {
		t.Errorf("%d changes listed, want the last 10 with their links", n)
	}
	if !changes.linksTo("/pools/acme/prod/vpc-main", false) {
		t.Error("the last changes (the VMs' claims) do not link their pool")
	}

	// acme sees its VPC and subnet, not the public pool; globex nothing of acme's.
	_, body = c.get(t, "/", c.acme)
	page = parseHTML(body)
	if got := strings.Join(rows(page), " "); got != "acme/prod/main/web acme/prod/main" {
		t.Errorf("acme's rows: %s, want its subnet and its VPC", got)
	}
	if page.has("count-pools") || page.has("audit-link") {
		t.Error("a tenant is shown the count of pools or the audit log's link")
	}
	if n := len(page.in("recent-changes").testIDs("change-")); n == 0 {
		t.Error("acme's dashboard lists none of its changes")
	}
	_, body = c.get(t, "/", c.gx)
	page = parseHTML(body)
	if len(rows(page)) != 0 || page.in("recent-changes").has("change-link") || strings.Contains(page.words(), "acme") {
		t.Errorf("globex's dashboard shows acme's: rows %v", rows(page))
	}
	if got := page.text("count-changes"); got != "0 changes today" {
		t.Errorf("globex's count of changes: %q, want 0", got)
	}
}

// rows returns the names of the dashboard's rows, in order.
func rows(p htmlPage) []string {
	var out []string
	for _, id := range p.testIDs("exhaustion-") {
		if name, ok := strings.CutPrefix(id, "exhaustion-"); ok && name != "link" && name != "usage" && name != "all" {
			out = append(out, name)
		}
	}
	return out
}
