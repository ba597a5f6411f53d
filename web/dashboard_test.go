package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/numbers"
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
	for id, want := range map[string]string{"count-pools": "2 IP pools", "count-vpcs": "1 VPC", "count-subnets": "1 subnet", "count-allocations": "121 allocations"} {
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
	if !changes.linksTo("/subnets/acme/prod/main/web", false) {
		t.Error("the last changes (the VMs' claims) do not link their subnet")
	}
	var sentences []string
	for _, n := range changes.all("change-sentence") {
		sentences = append(sentences, textOf(n))
	}
	if !slices.Contains(sentences, "system attached vm-119/0 to subnet web: 10.42.1.121") {
		t.Errorf("the last changes read %q, want the last claim's sentence", sentences)
	}
	if times := changes.tags("time"); len(times) != len(sentences) || attrOf(times[0], "class") != "when" || !strings.HasSuffix(textOf(times[0]), " UTC") {
		t.Errorf("the last changes' times: %d for %d changes, want one each in the console's format", len(times), len(sentences))
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

// TestDashboardNumberPools: an operator's dashboard lists each number
// pool's busiest divisions beside the IP pools, linked to the division's
// page, with its history's sparkline and its forecast.
func TestDashboardNumberPools(t *testing.T) {
	c := newKindsConsole(t)
	sites := map[string]string{}
	for _, name := range []string{"site-a", "site-b"} {
		sites[name] = c.site(t, branch.Main, name)
	}
	p := c.vlanPool(t, "VLAN IDs per site", []numbers.Range{{Start: 100, End: 109, Weight: 1}}, "site")
	for i, s := range []string{"site-a", "site-b", "site-a", "site-a"} {
		c.fromPool(t, p.ID, fmt.Sprint("v", i), sites[s])
	}
	if err := c.nums.RecordUsage(t.Context(), time.Now().Add(-2*time.Hour), time.Time{}); err != nil {
		t.Fatal(err)
	}
	page := c.page(t, "/")
	if got := rows(page); !slices.Equal(got, []string{"VLAN IDs per site/site-a", "VLAN IDs per site/site-b"}) {
		t.Fatalf("the dashboard's rows: %q, want the pool's two sites, the busiest first", got)
	}
	row := page.in("exhaustion-VLAN IDs per site/site-a")
	if got := row.text("exhaustion-usage"); !strings.Contains(got, "3 / 10") {
		t.Errorf("site-a's usage: %q, want 3 / 10", got)
	}
	key, _ := json.Marshal([]string{sites["site-a"]})
	if !row.linksTo("/resource-managers/"+p.ID+"?division="+url.QueryEscape(string(key)), false) {
		t.Error("the row does not link the division's page")
	}
	if spark := testID(row, "sparkline"); spark == nil || attrOf(spark, "data-points") != "2" {
		t.Errorf("site-a's sparkline: %v, want the hour written and now", spark)
	}
	if got := row.text("forecast"); got != "not enough history yet" {
		t.Errorf("site-a's forecast: %q", got)
	}
	if got := page.text("count-number-pools"); got != "1 number pool" {
		t.Errorf("count-number-pools = %q, want 1 number pool", got)
	}
	changes := page.in("recent-changes")
	if !changes.linksTo("/resource-managers/"+p.ID, false) {
		t.Error("the last changes (the VLANs' numbers) do not link their number pool")
	}
	if links := changes.elements(func(n *html.Node) bool {
		return n.Data == "a" && strings.HasPrefix(attrOf(n, "href"), "/objects/IpamVLAN/") && strings.HasSuffix(attrOf(n, "href"), "/edit")
	}); len(links) == 0 {
		t.Error("the last changes (the VLANs created) do not link their objects")
	}

	// The division's page charts its history, and its spans keep it open.
	divisionPage := "/resource-managers/" + p.ID + "?division=" + url.QueryEscape(string(key))
	division := c.page(t, divisionPage)
	if chart := testID(division, "usage-chart"); chart == nil || attrOf(chart, "data-points") != "1" {
		t.Errorf("the division's chart: %v, want the hour written", chart)
	}
	if !division.linksTo(divisionPage+"&span=7d#usage-history", false) {
		t.Error("the chart's 7 days span does not keep the division open")
	}
}
