package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestBranchesPage(t *testing.T) {
	c := newKindsConsole(t)
	status, _, page := c.postFollow(t, "/branches", url.Values{"name": {"add-vlans"}}, c.op)
	if status != http.StatusSeeOther || page.text("flash") != "Created branch add-vlans." {
		t.Fatalf("creating a branch = %d %q", status, page.text("flash"))
	}
	list := page.in("branch-list")
	if got := strings.Join(list.testIDs("branch-"), " "); !strings.Contains(got, "branch-main ") || !strings.Contains(got, "branch-add-vlans ") {
		t.Fatalf("branch-list lists %s, want main and add-vlans", got)
	}
	row := list.in("branch-add-vlans")
	if row.text("branch-schema") != "—" || !strings.Contains(row.text("branch-point"), "change ") {
		t.Errorf("add-vlans shows point %q, schema %q", row.text("branch-point"), row.text("branch-schema"))
	}
	// The name leads to the branch's page; merging and deleting lead to
	// pages that confirm them; a branch with nothing to merge offers no
	// merge.
	if got := attrOf(row.all("branch-name-cell")[0], "href"); got != "/branches/add-vlans" {
		t.Errorf("add-vlans's name links to %s, want its page", got)
	}
	if list.in("branch-main").has("delete-branch") || row.has("merge-branch") || !row.has("form-rebase-branch") || !row.has("delete-branch") {
		t.Error("add-vlans, with nothing to merge, is not offered rebase and delete only")
	}
	if got := attrOf(row.all("delete-branch")[0], "href"); got != "/branches/add-vlans/-/delete" {
		t.Errorf("Delete of add-vlans leads to %s, want its confirmation", got)
	}
	// Deleting a branch cannot be undone: its button says so by its colour.
	if attrOf(row.all("delete-branch")[0], "class") != "button danger" {
		t.Error("the Delete button of add-vlans is not marked danger")
	}
	c.load(t, "add-vlans", kindsSchema+`  - name: Rack
    namespace: Dcim
    attributes:
      - {name: name, kind: Text}
`)
	_, body := c.get(t, "/branches", c.op)
	row = parseHTML(body).in("branch-add-vlans")
	if got := row.text("branch-schema"); got != "schema changed" {
		t.Errorf("after a schema load on add-vlans, its schema state is %q", got)
	}
	if got := attrOf(row.all("merge-branch")[0], "href"); got != "/branches/add-vlans/-/merge" {
		t.Errorf("Merge of add-vlans leads to %s, want its confirmation", got)
	}

	// A name refused, with the domain's words.
	status, _, body = c.post(t, "/branches", url.Values{"name": {"add-vlans"}}, c.op)
	if page := parseHTML(body); status != http.StatusUnprocessableEntity || page.text("error-name") != "Branch add-vlans exists" {
		t.Errorf("creating add-vlans again = %d %q", status, page.text("error-name"))
	}

	status, _, page = c.postFollow(t, "/branches/rebase", url.Values{"name": {"add-vlans"}}, c.op)
	if status != http.StatusSeeOther || page.text("flash") != "Rebased branch add-vlans onto main." {
		t.Errorf("rebase = %d %q", status, page.text("flash"))
	}
	status, _, page = c.postFollow(t, "/branches/merge", url.Values{"name": {"add-vlans"}}, c.op)
	if status != http.StatusSeeOther || !strings.HasPrefix(page.text("flash"), "Merged add-vlans into main: applied ") {
		t.Errorf("merge = %d %q", status, page.text("flash"))
	}
	_, body = c.get(t, "/branches", c.op)
	if row := parseHTML(body).in("branch-add-vlans"); !row.has("branch-merged-badge") || row.has("merge-branch") {
		t.Error("after its merge, add-vlans is not listed as merged")
	}
	status, _, page = c.postFollow(t, "/branches/delete", url.Values{"name": {"add-vlans"}}, c.op)
	if status != http.StatusSeeOther || page.text("flash") != "Deleted branch add-vlans." || page.in("branch-list").has("branch-add-vlans") {
		t.Errorf("delete = %d %q", status, page.text("flash"))
	}
	status, _, body = c.post(t, "/branches/delete", url.Values{"name": {"main"}}, c.op)
	if page := parseHTML(body); status != http.StatusUnprocessableEntity || page.text("merge-conflict") != "branch main is the default branch; it cannot be deleted" {
		t.Errorf("deleting main = %d %q", status, page.text("merge-conflicts"))
	}

	for _, r := range [][2]string{{"GET", "/branches"}, {"POST", "/branches"}, {"POST", "/branches/merge"}, {"POST", "/branches/rebase"}, {"POST", "/branches/delete"},
		{"POST", "/branches/resolve"}, {"GET", "/branches/main"}} {
		c.notFoundFor(t, r[0], r[1])
	}
}
