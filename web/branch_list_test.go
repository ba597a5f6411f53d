package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
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
	if list.in("branch-main").has("form-merge-branch") || !row.has("form-merge-branch") || !row.has("form-rebase-branch") || !row.has("form-delete-branch") {
		t.Error("merge, rebase and delete forms are not offered for add-vlans only")
	}
	// Deleting a branch cannot be undone: its button says so by its colour.
	if buttons := row.in("form-delete-branch").tags("button"); len(buttons) != 1 || attrOf(buttons[0], "class") != "danger" {
		t.Error("the Delete button of add-vlans is not marked danger")
	}
	c.load(t, "add-vlans", kindsSchema+`  - name: Rack
    namespace: Dcim
    attributes:
      - {name: name, kind: Text}
`)
	_, body := c.get(t, "/branches", c.op)
	if got := parseHTML(body).in("branch-add-vlans").text("branch-schema"); got != "schema changed" {
		t.Errorf("after a schema load on add-vlans, its schema state is %q", got)
	}

	// A name refused, with the domain's words.
	status, _, body = c.post(t, "/branches", url.Values{"name": {"add-vlans"}}, c.op)
	if page := parseHTML(body); status != http.StatusUnprocessableEntity || page.text("error-name") != "Branch add-vlans exists" {
		t.Errorf("creating add-vlans again = %d %q", status, page.text("error-name"))
	}

	for _, action := range []string{"rebase", "merge"} {
		status, _, page = c.postFollow(t, "/branches/"+action, url.Values{"name": {"add-vlans"}}, c.op)
		if status != http.StatusSeeOther || !strings.HasPrefix(page.text("flash"), strings.ToUpper(action[:1])+action[1:]+"d branch add-vlans") {
			t.Errorf("%s = %d %q", action, status, page.text("flash"))
		}
	}
	status, _, page = c.postFollow(t, "/branches/delete", url.Values{"name": {"add-vlans"}}, c.op)
	if status != http.StatusSeeOther || page.text("flash") != "Deleted branch add-vlans." || page.in("branch-list").has("branch-add-vlans") {
		t.Errorf("delete = %d %q", status, page.text("flash"))
	}
	status, _, body = c.post(t, "/branches/delete", url.Values{"name": {"main"}}, c.op)
	if page := parseHTML(body); status != http.StatusUnprocessableEntity || page.text("merge-conflict") != "branch main is the default branch; it cannot be deleted" {
		t.Errorf("deleting main = %d %q", status, page.text("merge-conflicts"))
	}

	for _, r := range [][2]string{{"GET", "/branches"}, {"POST", "/branches"}, {"POST", "/branches/merge"}, {"POST", "/branches/rebase"}, {"POST", "/branches/delete"}} {
		c.notFoundFor(t, r[0], r[1])
	}
}

func TestBranchMergeRefused(t *testing.T) {
	c := newKindsConsole(t)
	ctx := t.Context()
	site := c.site(t, branch.Main, "site-a")
	v := c.vlan(t, branch.Main, "users", 10, site)
	w := c.vlan(t, branch.Main, "voice", 11, site)
	for _, b := range []string{"b", "c"} {
		if _, err := c.branches.CreateBranch(ctx, auth.System, b); err != nil {
			t.Fatal(err)
		}
	}
	update := func(b, id string, attrs map[string]any) {
		t.Helper()
		if _, err := c.branches.UpdateObject(ctx, auth.System, b, id, branch.ObjectInput{Attributes: attrs}); err != nil {
			t.Fatal(err)
		}
	}
	update(branch.Main, v, map[string]any{"name": "users-main"})
	update("b", v, map[string]any{"name": "users-b"})
	update(branch.Main, w, map[string]any{"role": "voice"})
	update("b", w, map[string]any{"role": "voice", "name": "voice-b"})
	update(branch.Main, w, map[string]any{"name": "voice-main"})
	main20 := c.vlan(t, branch.Main, "guests", 20, site)
	c20 := c.vlan(t, "c", "guests-c", 20, site)

	merge := func(b string, want ...string) {
		t.Helper()
		status, _, body := c.post(t, "/branches/merge", url.Values{"name": {b}}, c.op)
		page := parseHTML(body)
		var lines []string
		for _, n := range page.in("merge-conflicts").all("merge-conflict") {
			lines = append(lines, textOf(n))
		}
		slices.Sort(lines)
		slices.Sort(want)
		if status != http.StatusConflict || strings.Join(lines, "\n") != strings.Join(want, "\n") {
			t.Errorf("merging %s = %d, lists\n%s\nwant\n%s", b, status, strings.Join(lines, "\n"), strings.Join(want, "\n"))
		}
		if !page.in("branch-list").has("branch-" + b) {
			t.Errorf("after a refused merge, the page does not list %s", b)
		}
	}
	merge("b", "IpamVLAN "+v+": name changed on both sides", "IpamVLAN "+w+": name changed on both sides")
	merge("c", "IpamVLAN: Violates uniqueness constraint 'site-vlan_id' (objects "+c20+", "+main20+")")
}
