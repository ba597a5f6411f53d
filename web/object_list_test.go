package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
)

func TestObjectTable(t *testing.T) {
	c := newKindsConsole(t)
	siteA, siteB := c.site(t, branch.Main, "site-a"), c.site(t, branch.Main, "site-b")
	for i := range 60 {
		site := siteA
		if i%2 == 1 {
			site = siteB
		}
		c.vlan(t, branch.Main, fmt.Sprintf("vlan-%02d", i), 100+i, site)
	}
	status, body := c.get(t, "/objects/IpamVLAN", c.op)
	page := parseHTML(body)
	if status != http.StatusOK || !page.has("branch-select") {
		t.Fatalf("GET /objects/IpamVLAN = %d, branch-select %v", status, page.has("branch-select"))
	}
	table := page.in("object-table")
	var heads []string
	for _, th := range table.tags("th") {
		heads = append(heads, textOf(th))
	}
	if got, want := strings.Join(heads, ","), "Object,Name,VLAN ID,Role,Active,Tags,Meta,Site"; got != want {
		t.Errorf("the table's columns are %s, want %s (backups, of cardinality many, left out)", got, want)
	}
	rows := table.testIDs("object-0")
	if len(rows) != objectsPerPage || page.text("object-count") != "1–50 of 60" || !page.has("next-page") || page.has("prev-page") {
		t.Errorf("the first page has %d rows, count %q", len(rows), page.text("object-count"))
	}
	first := table.in(rows[0])
	if first.text("object-label") != "vlan-00" || first.text("cell-vlan_id") != "100" || first.text("cell-role") != "user" ||
		first.text("cell-active") != "true" || first.text("cell-site") != "site-a" || !first.in("cell-site").linksTo("/objects/LocationSite/"+siteA+"/edit", false) {
		t.Errorf("the first row reads %q", first.words())
	}
	_, body = c.get(t, "/objects/IpamVLAN?offset=50", c.op)
	if page := parseHTML(body); page.text("object-count") != "51–60 of 60" || page.has("next-page") || !page.has("prev-page") {
		t.Errorf("the second page counts %q", page.text("object-count"))
	}

	// htmx swaps the table alone on search and paging.
	res := do(t, c.h, http.MethodGet, "/objects/IpamVLAN?q=vlan-1", http.Header{"Cookie": c.op["Cookie"], "Hx-Request": {"true"}, "Hx-Target": {"objects"}})
	if fragment := parseHTML(string(readBody(t, res))); res.StatusCode != http.StatusOK || fragment.has("page-title") || fragment.text("object-count") != "1–10 of 10" {
		t.Errorf("the htmx search answers %d, page title %v, count %q", res.StatusCode, fragment.has("page-title"), fragment.text("object-count"))
	}
	if q := page.all("object-q"); len(q) != 1 || attrOf(q[0], "hx-get") != "/objects/IpamVLAN" || attrOf(q[0], "hx-target") != "#objects" {
		t.Error("the search box does not swap the table with htmx")
	}

	// Search: by label or value, paginated too.
	_, body = c.get(t, "/objects/IpamVLAN?q=VLAN-1", c.op)
	page = parseHTML(body)
	if got := len(page.in("object-table").testIDs("object-0")); got != 10 || page.text("object-count") != "1–10 of 10" {
		t.Errorf("searching vlan-1 shows %d rows, count %q", got, page.text("object-count"))
	}
	_, body = c.get(t, "/objects/IpamVLAN?q=159", c.op)
	if page := parseHTML(body); page.in("object-table").text("object-label") != "vlan-59" {
		t.Errorf("searching 159 shows %q", page.in("object-table").text("object-label"))
	}

	// On a branch: its objects, links keeping it.
	if _, err := c.branches.CreateBranch(t.Context(), auth.System, "b"); err != nil {
		t.Fatal(err)
	}
	c.vlan(t, "b", "only-on-b", 500, siteA)
	_, body = c.get(t, "/objects/IpamVLAN?branch=b&q=only", c.op)
	page = parseHTML(body)
	if page.in("object-table").text("object-label") != "only-on-b" || !strings.HasSuffix(attrOf(page.all("new-object")[0], "href"), "/new?branch=b") {
		t.Errorf("on branch b, searching only shows %q", page.in("object-table").text("object-label"))
	}
	_, body = c.get(t, "/objects/IpamVLAN?q=only", c.op)
	if page := parseHTML(body); page.text("object-count") != "No object" {
		t.Errorf("main shows %q of b's object", page.text("object-count"))
	}

	for _, target := range []string{"/objects/Nope", "/objects/IpamVLAN?branch=nope"} {
		if status, _ := c.get(t, target, c.op); status != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", target, status)
		}
	}
	c.notFoundFor(t, http.MethodGet, "/objects/IpamVLAN")
}
