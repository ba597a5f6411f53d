package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/numbers"
)

// TestSearchPageNumbersAndObjects: the search page's rows of numbers (the
// number in its division, the pool, the division and its site linked, the
// holder as its owner), of objects of kinds (their page, their kind's list,
// the branch that shows them) and of number pools, each link served; the
// branch selector on the page keeps the query, the header's search box
// keeps the branch; a tenant finds none of them.
func TestSearchPageNumbersAndObjects(t *testing.T) {
	c := newKindsConsole(t)
	siteA, siteB := c.site(t, branch.Main, "site-a"), c.site(t, branch.Main, "site-b")
	pool := c.vlanPool(t, "VLAN IDs per site", []numbers.Range{{Start: 100, End: 199, Weight: 1}}, "site")
	c.fromPool(t, pool.ID, "users-site-a", siteA)
	c.fromPool(t, pool.ID, "users-site-b", siteB)
	if _, err := c.branches.CreateBranch(t.Context(), auth.System, "b1"); err != nil {
		t.Fatal(err)
	}
	guests := c.vlan(t, "b1", "guests-site-a", 300, siteA)

	type row struct{ kind, name, link, in, owner, match string }
	rowsOf := func(target string) []row {
		t.Helper()
		var out []row
		for _, h := range searchHits(c.page(t, target)) {
			links := h.all("search-hit-link")
			if len(links) != 1 {
				t.Fatalf("GET %s: a hit has %d links: %s", target, len(links), h.words())
			}
			owner := h.in("search-owner").words()
			if h.has("search-holder") {
				owner = "held by " + h.text("search-holder") + " | " + h.text("search-explanation")
			}
			out = append(out, row{attrOf(h.root, "data-kind"), h.text("search-hit-link"), attrOf(links[0], "href"),
				strings.Join(h.in("search-in").hrefs(), " "), owner, h.text("search-match")})
		}
		return out
	}
	vlanOf := func(name string) string {
		t.Helper()
		pg, err := c.branches.Objects(t.Context(), auth.System, branch.Main, "IpamVLAN", branch.Filter{Values: map[string]any{"name": name}}, 1, 0)
		if err != nil || len(pg.Objects) != 1 {
			t.Fatalf("the VLAN %s: %v", name, err)
		}
		return pg.Objects[0].ID
	}
	poolHref := "/resource-managers/" + pool.ID
	division := func(site string) string {
		return poolHref + "?" + url.Values{"division": {`["` + site + `"]`}}.Encode()
	}
	usersA := vlanOf("users-site-a")
	tests := []struct {
		target string
		want   []row
	}{
		{"/search?q=100", []row{
			{"number", "100 in site-a", division(siteA), poolHref + " " + division(siteA) + " /objects/LocationSite/" + siteA + "/edit",
				"held by IpamVLAN users-site-a | number 100 of pool VLAN IDs per site (IpamVLAN vlan_id), in its division site-a, is held by IpamVLAN users-site-a on main", "number"},
			{"number", "100 in site-b", division(siteB), poolHref + " " + division(siteB) + " /objects/LocationSite/" + siteB + "/edit",
				"held by IpamVLAN users-site-b | number 100 of pool VLAN IDs per site (IpamVLAN vlan_id), in its division site-b, is held by IpamVLAN users-site-b on main", "number"},
		}},
		{"/search?q=site-a", []row{
			{"object", "site-a", "/objects/LocationSite/" + siteA + "/edit", "/objects/LocationSite", "LocationSite on main", "display label"},
			{"object", "users-site-a", "/objects/IpamVLAN/" + usersA + "/edit", "/objects/IpamVLAN", "IpamVLAN on main", "display label"},
		}},
		{"/search?q=users-site-a", []row{{"object", "users-site-a", "/objects/IpamVLAN/" + usersA + "/edit", "/objects/IpamVLAN", "IpamVLAN on main", "display label"}}},
		{"/search?q=guests&branch=b1", []row{{"object", "guests-site-a", "/objects/IpamVLAN/" + guests + "/edit?branch=b1", "/objects/IpamVLAN?branch=b1", "IpamVLAN on b1", "display label"}}},
		{"/search?q=300&branch=b1", []row{{"object", "guests-site-a", "/objects/IpamVLAN/" + guests + "/edit?branch=b1", "/objects/IpamVLAN?branch=b1", "IpamVLAN on b1", `vlan_id "300"`}}},
		{"/search?q=guests", nil},
		{"/search?q=vlan+ids", []row{{"number pool", "VLAN IDs per site", poolHref, "", "hands out IpamVLAN vlan_id", "name"}}},
	}
	for _, tt := range tests {
		if got := rowsOf(tt.target); !slices.Equal(got, tt.want) {
			t.Errorf("GET %s:\n%q\nwant\n%q", tt.target, got, tt.want)
		}
	}
	if !strings.Contains(c.page(t, "/search?q=100").text("search-summary"), `2 hits for "100"`) {
		t.Errorf("the summary of 100 says %q", c.page(t, "/search?q=100").text("search-summary"))
	}
	if got := c.page(t, "/search?q=guests&branch=b1").text("search-summary"); got != `1 hit for "guests" (a name, uid or namespace; objects on main and on branch b1).` {
		t.Errorf("the summary of guests on b1 says %q", got)
	}
	if got := c.page(t, "/search?q=guests&branch=b1").text("search-branch"); got != "on b1" {
		t.Errorf("the hit of guests-site-a on b1 says %q", got)
	}

	// Every link of the hits is served.
	for _, target := range []string{"/search?q=100", "/search?q=site-a", "/search?q=guests&branch=b1", "/search?q=vlan+ids"} {
		for _, href := range c.page(t, target).in("search-results").hrefs() {
			if status, _ := c.get(t, href, c.op); status != http.StatusOK {
				t.Errorf("GET %s: its link %s answers %d", target, href, status)
			}
		}
	}

	// The branch selector of the page keeps the query; the header's search
	// box on a page of the branch searches it.
	page := c.page(t, "/search?q=site-a&branch=b1")
	sel := page.in("branch-select")
	if q := sel.elements(func(n *html.Node) bool { return n.Data == "input" && attrOf(n, "name") == "q" }); len(q) != 1 || attrOf(q[0], "value") != "site-a" {
		t.Errorf("the branch selector of the search page keeps no query: %d inputs q", len(q))
	}
	form := c.page(t, "/objects/IpamVLAN?branch=b1").all("global-search")[0].Parent
	if b := (htmlPage{form}).elements(func(n *html.Node) bool { return attrOf(n, "name") == "branch" }); len(b) != 1 || attrOf(b[0], "value") != "b1" {
		t.Errorf("the header's search box on branch b1 sends %d branch fields", len(b))
	}
	form = c.page(t, "/objects/IpamVLAN").all("global-search")[0].Parent
	if b := (htmlPage{form}).elements(func(n *html.Node) bool { return attrOf(n, "name") == "branch" }); len(b) != 0 {
		t.Errorf("the header's search box on main sends a branch")
	}
	if status, _ := c.get(t, "/search?q=site-a&branch=nope", c.op); status != http.StatusNotFound {
		t.Errorf("GET /search on the branch nope = %d, want 404", status)
	}

	// A tenant finds none of it, and may name no branch.
	for _, target := range []string{"/search?q=100", "/search?q=site-a", "/search?q=guests&branch=b1", "/search?q=vlan+ids"} {
		status, body := c.get(t, target, c.acme)
		page := parseHTML(body)
		if status != http.StatusOK || len(searchHits(page)) != 0 || page.has("branch-select") {
			t.Errorf("GET %s as a tenant = %d, %d hits, branch selector %v", target, status, len(searchHits(page)), page.has("branch-select"))
		}
	}
}

// TestSearchPagePartialAddress: the start of an address is searched as the
// prefix it begins, and the summary says which.
func TestSearchPagePartialAddress(t *testing.T) {
	c := newConsoleWithData(t)
	for _, q := range []string{"10.42.1.", "10.42.1"} {
		_, body := c.get(t, "/search?"+url.Values{"q": {q}}.Encode(), c.acme)
		page := parseHTML(body)
		_, whole := c.get(t, "/search?q=10.42.1.0%2F24", c.acme)
		if got, want := len(searchHits(page)), len(searchHits(parseHTML(whole))); got != want || got == 0 {
			t.Errorf("GET /search?q=%s: %d hits, want %d as 10.42.1.0/24", q, got, want)
		}
		if got := page.text("search-summary"); !strings.Contains(got, "(the start of an address: 10.42.1.0/24)") {
			t.Errorf("GET /search?q=%s says %q", q, got)
		}
	}
}
