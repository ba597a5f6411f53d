package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/numbers"
)

// update changes attributes and relationships of an object on the branch.
func (c kindsConsole) update(t *testing.T, branchName, id string, attrs map[string]any, rels map[string][]string) {
	t.Helper()
	if _, err := c.branches.UpdateObject(t.Context(), auth.System, branchName, id, branch.ObjectInput{Attributes: attrs, Relationships: rels}); err != nil {
		t.Fatal(err)
	}
}

// missing fails unless target answers the operator with the 404 page.
func (c kindsConsole) missing(t *testing.T, target string) {
	t.Helper()
	if status, _ := c.get(t, target, c.op); status != http.StatusNotFound {
		t.Errorf("GET %s = %d, want 404", target, status)
	}
}

// TestBranchPage: a branch's page shows its state and counts, the objects
// it added, changed (each field before → after) and removed by their
// labels, linked, its schema changes and the numbers its objects hold;
// once merged, that it was merged, when and by whom, with nothing left;
// main's page says it is the default branch. Tenants get the 404 page.
func TestBranchPage(t *testing.T) {
	c := newKindsConsole(t)
	ctx := t.Context()
	a := c.site(t, branch.Main, "site-a")
	b := c.site(t, branch.Main, "site-b")
	users := c.vlan(t, branch.Main, "users", 10, a)
	old := c.vlan(t, branch.Main, "old", 11, a)
	pool, err := c.nums.CreatePool(ctx, auth.System, numbers.PoolInput{Name: "VLAN IDs", Node: "IpamVLAN", NodeAttribute: "vlan_id",
		Ranges: []numbers.Range{{Start: 100, End: 199, Weight: 1}}, AllocationScope: []string{"site"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.branches.CreateBranch(ctx, auth.System, "add-guest-vlans"); err != nil {
		t.Fatal(err)
	}
	guests, err := c.nums.CreateObject(ctx, auth.System, "add-guest-vlans", "IpamVLAN", branch.ObjectInput{Attributes: map[string]any{"name": "guests"},
		Relationships: map[string][]string{"site": {b}}}, []numbers.FromPool{{Attribute: "vlan_id", Pool: pool.ID}})
	if err != nil {
		t.Fatal(err)
	}
	c.update(t, "add-guest-vlans", users, map[string]any{"name": "users-2"}, map[string][]string{"site": {b}})
	if _, err := c.branches.DeleteObject(ctx, auth.System, "add-guest-vlans", old); err != nil {
		t.Fatal(err)
	}
	c.load(t, "add-guest-vlans", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: description, kind: Text, optional: true}
`)

	page := c.page(t, "/branches/add-guest-vlans")
	if page.title() != "Branch add-guest-vlans · PiVirt IPAM" {
		t.Errorf("title %q", page.title())
	}
	state := page.in("branch-state")
	if state.text("branch-state-badge") != "open" || !strings.Contains(state.words(), "created by "+auth.System.Name+".") {
		t.Errorf("state reads %q", state.words())
	}
	for id, want := range map[string]string{"count-added": "1 added", "count-changed": "1 changed", "count-removed": "1 removed",
		"count-schema": "1 schema change", "count-numbers": "1 number held"} {
		if got := state.text(id); got != want {
			t.Errorf("%s reads %q, want %q", id, got, want)
		}
	}
	if got := attrOf(state.all("merge-branch")[0], "href"); got != "/branches/add-guest-vlans/-/merge" {
		t.Errorf("Merge leads to %s", got)
	}
	if got := attrOf(state.all("delete-branch")[0], "href"); got != "/branches/add-guest-vlans/-/delete" {
		t.Errorf("Delete leads to %s", got)
	}

	added := page.in("diff-added").in("added-" + guests.ID)
	if link := added.all("object-link")[0]; textOf(link) != "guests" || attrOf(link, "href") != "/objects/IpamVLAN/"+guests.ID+"/edit?branch=add-guest-vlans" {
		t.Errorf("the added VLAN reads %q, links %s", textOf(link), attrOf(link, "href"))
	}
	if got := textOf(added.in("field-vlan_id").tags("dd")[0]); got != "100" {
		t.Errorf("the added VLAN's vlan_id reads %q", got)
	}
	if got := textOf(added.in("field-site").tags("dd")[0]); got != "site-b" {
		t.Errorf("the added VLAN's site reads %q", got)
	}
	changed := page.in("diff-changed").in("changed-" + users)
	if before, after := changed.in("field-name").text("before"), changed.in("field-name").text("after"); before != "users" || after != "users-2" {
		t.Errorf("the changed name reads %q → %q", before, after)
	}
	if before, after := changed.in("field-site").text("before"), changed.in("field-site").text("after"); before != "site-a" || after != "site-b" {
		t.Errorf("the changed site reads %q → %q", before, after)
	}
	if changed.has("field-vlan_id") {
		t.Error("the changed VLAN lists its vlan_id, which did not change")
	}
	removed := page.in("diff-removed").in("removed-" + old)
	if link := removed.all("object-link")[0]; textOf(link) != "old" || attrOf(link, "href") != "/objects/IpamVLAN/"+old+"/edit" {
		t.Errorf("the removed VLAN reads %q, links %s (want main's page)", textOf(link), attrOf(link, "href"))
	}
	if got := page.in("diff-schema").words(); !strings.Contains(got, "added attribute IpamVLAN.description") {
		t.Errorf("schema changes read %q", got)
	}
	if got := cells(page.in("diff-numbers")); len(got) != 1 || strings.Join(got[0], " | ") != "VLAN IDs | site-b | 100 new | guests" {
		t.Errorf("the numbers held read %q, want guests' 100 in site-b, new", got)
	}

	// Merged: the page says when and by whom, with nothing left, and the
	// list marks it.
	status, _, merged := c.postFollow(t, "/branches/merge", url.Values{"name": {"add-guest-vlans"}}, c.op)
	if status != http.StatusSeeOther || merged.text("flash") != "Merged add-guest-vlans into main: applied 1 added, 1 changed, 1 removed objects and 1 schema change." {
		t.Fatalf("merge = %d %q", status, merged.text("flash"))
	}
	if merged.text("branch-state-badge") != "merged" || !strings.HasSuffix(merged.text("branch-merged"), "by ops; nothing changed since.") {
		t.Errorf("merged, the page reads %q %q", merged.text("branch-state-badge"), merged.text("branch-merged"))
	}
	if !merged.has("diff-empty") || merged.has("merge-branch") || merged.in("branch-state").text("count-added") != "0 added" {
		t.Error("merged, the page still shows changes or offers a merge")
	}
	if row := c.page(t, "/branches").in("branch-add-guest-vlans"); row.text("branch-merged-badge") != "merged" {
		t.Errorf("the list shows add-guest-vlans as %q", row.words())
	}

	mainPage := c.page(t, "/branches/main")
	if mainPage.text("branch-state-badge") != "default" || mainPage.has("diff-counts") {
		t.Errorf("main's page reads %q", mainPage.words())
	}
	c.missing(t, "/branches/nope")
	c.missing(t, "/branches/add-guest-vlans/-/nope")
	for _, target := range []string{"/branches/add-guest-vlans", "/branches/add-guest-vlans/-/merge", "/branches/add-guest-vlans/-/delete"} {
		c.notFoundFor(t, http.MethodGet, target)
	}
}

// TestBranchMergeAndDeleteConfirmed: Merge and Delete lead to pages that
// say what they apply and discard, with the counts, and act only from
// their buttons, which post.
func TestBranchMergeAndDeleteConfirmed(t *testing.T) {
	c := newKindsConsole(t)
	ctx := t.Context()
	a := c.site(t, branch.Main, "site-a")
	users := c.vlan(t, branch.Main, "users", 10, a)
	for _, b := range []string{"feature/guests", "scratch"} {
		if _, err := c.branches.CreateBranch(ctx, auth.System, b); err != nil {
			t.Fatal(err)
		}
		c.vlan(t, b, "guests", 20, a)
		c.vlan(t, b, "voice", 30, a)
		c.update(t, b, users, map[string]any{"name": "users-" + b}, nil)
	}

	// A name with a slash: its page and its confirmations.
	confirm := c.page(t, "/branches/feature/guests/-/merge")
	if got := confirm.text("merge-sentence"); got != "Merging feature/guests into main applies 2 added, 1 changed, 0 removed objects and 0 schema changes." {
		t.Errorf("the merge's confirmation reads %q", got)
	}
	form := confirm.in("confirm-merge").tags("form")
	if len(form) != 1 || attrOf(form[0], "method") != "post" || attrOf(form[0], "action") != "/branches/merge" {
		t.Fatalf("the confirmation's form is %v", form)
	}
	if got := textOf(confirm.all("confirm-merge-button")[0]); got != "Merge" {
		t.Errorf("the merge's button reads %q", got)
	}
	if c.page(t, "/branches/feature/guests").text("count-added") != "2 added" {
		t.Error("looking at the confirmation merged something")
	}
	status, _, page := c.postFollow(t, "/branches/merge", url.Values{"name": {"feature/guests"}}, c.op)
	if status != http.StatusSeeOther || page.text("branch-state-badge") != "merged" {
		t.Errorf("merging feature/guests = %d, then %q", status, page.text("branch-state-badge"))
	}

	confirm = c.page(t, "/branches/scratch/-/delete")
	if got := confirm.text("delete-sentence"); got != "Deleting scratch discards 2 added, 1 changed, 0 removed objects and 0 schema changes." {
		t.Errorf("the deletion's confirmation reads %q", got)
	}
	if button := confirm.all("confirm-delete-button"); len(button) != 1 || attrOf(button[0], "class") != "danger" || textOf(button[0]) != "Delete" {
		t.Errorf("the deletion's button is %v", button)
	}
	status, _, page = c.postFollow(t, "/branches/delete", url.Values{"name": {"scratch"}}, c.op)
	if status != http.StatusSeeOther || page.text("flash") != "Deleted branch scratch." || page.has("branch-scratch") {
		t.Errorf("deleting scratch = %d %q", status, page.text("flash"))
	}
	c.missing(t, "/branches/scratch/-/delete")
}

// TestBranchMergeRefused: a refused merge lists every conflict by its
// object's label, linked, with main's value and the branch's, a deletion
// against a change by the side that deleted, and every violated
// uniqueness constraint with it; each conflict has a form keeping either
// side, after which the merge's page lists what is left, and the merge
// keeps the sides chosen. A side chosen for what is not in conflict is
// refused on the page.
func TestBranchMergeRefused(t *testing.T) {
	c := newKindsConsole(t)
	ctx := t.Context()
	site := c.site(t, branch.Main, "site-a")
	v := c.vlan(t, branch.Main, "users", 10, site)
	w := c.vlan(t, branch.Main, "voice", 11, site)
	x := c.vlan(t, branch.Main, "old", 12, site)
	if _, err := c.branches.CreateBranch(ctx, auth.System, "b"); err != nil {
		t.Fatal(err)
	}
	c.update(t, branch.Main, v, map[string]any{"name": "users-main"}, nil)
	c.update(t, "b", v, map[string]any{"name": "users-b"}, nil)
	c.update(t, branch.Main, w, map[string]any{"vlan_id": 21}, nil)
	c.update(t, "b", w, map[string]any{"vlan_id": 22}, nil)
	if _, err := c.branches.DeleteObject(ctx, auth.System, "b", x); err != nil {
		t.Fatal(err)
	}
	c.update(t, branch.Main, x, map[string]any{"name": "old-main"}, nil)
	main20 := c.vlan(t, branch.Main, "guests", 20, site)
	b20 := c.vlan(t, "b", "guests-b", 20, site)

	status, _, body := c.post(t, "/branches/merge", url.Values{"name": {"b"}}, c.op)
	if status != http.StatusConflict {
		t.Fatalf("merging b = %d, want 409", status)
	}
	page := parseHTML(body)
	conflicts := page.in("merge-conflicts")
	items := conflicts.all("merge-conflict")
	if len(items) != 3 {
		t.Fatalf("the refusal lists %d conflicts of fields, want 3: %q", len(items), conflicts.words())
	}
	byObject := map[string]htmlPage{}
	for _, n := range items {
		byObject[attrOf(n, "data-object")] = htmlPage{n}
	}
	users := byObject[v]
	if link := users.all("conflict-object")[0]; textOf(link) != "users-b" || attrOf(link, "href") != "/objects/IpamVLAN/"+v+"/edit?branch=b" {
		t.Errorf("users' conflict names %q, links %s", textOf(link), attrOf(link, "href"))
	}
	if users.text("conflict-field") != "name" || users.text("conflict-main") != "users-main" || users.text("conflict-branch") != "users-b" {
		t.Errorf("users' conflict reads %q", users.words())
	}
	if voice := byObject[w]; voice.text("conflict-main") != "21" || voice.text("conflict-branch") != "22" {
		t.Errorf("voice's conflict reads %q", voice.words())
	}
	if gone := byObject[x]; gone.text("conflict-what") != "deleted on this branch, changed on main" || gone.text("conflict-branch") != "deleted on this branch" {
		t.Errorf("old's conflict reads %q", gone.words())
	}
	unique := conflicts.in("merge-conflict-unique")
	if got := unique.words(); !strings.Contains(got, "site-vlan_id") || !strings.Contains(got, "guests-b") || !strings.Contains(got, "guests (main)") {
		t.Errorf("the uniqueness conflict reads %q, want site-vlan_id held by guests-b and main's guests", got)
	}
	if !unique.linksTo("/objects/IpamVLAN/"+b20+"/edit?branch=b", false) || !unique.linksTo("/objects/IpamVLAN/"+main20+"/edit", false) {
		t.Error("the uniqueness conflict does not link guests-b on the branch and guests on main")
	}
	buttons := users.in("form-resolve").tags("button")
	if len(buttons) != 2 || attrOf(buttons[0], "aria-label") != "Keep main's name of users-b" || attrOf(buttons[1], "aria-label") != "Keep this branch's name of users-b" {
		t.Errorf("users' conflict's buttons are %v", buttons)
	}

	resolve := func(object, field, side, flash string, left int) htmlPage {
		t.Helper()
		status, _, page := c.postFollow(t, "/branches/resolve", url.Values{"name": {"b"}, "object": {object}, "field": {field}, "side": {side}}, c.op)
		if status != http.StatusSeeOther || page.text("flash") != flash {
			t.Fatalf("keeping %s's %q of %s = %d %q, want %q", side, field, object, status, page.text("flash"), flash)
		}
		if got := len(page.in("merge-conflicts").all("merge-conflict")); got != left {
			t.Errorf("after keeping %s's %q of %s, %d conflicts of fields are left, want %d", side, field, object, got, left)
		}
		return page
	}
	resolve(v, "name", "main", "Kept main's name of users-b: users-main.", 2)
	resolve(w, "vlan_id", "branch", "Kept this branch's vlan_id of voice: 22.", 1)
	page = resolve(x, "", "branch", "Kept this branch's deletion of old.", 0)
	if !page.in("merge-conflicts").has("merge-conflict-unique") || page.has("confirm-merge") {
		t.Error("with the uniqueness conflict left, the merge's page offers to merge")
	}
	if n := len(page.in("resolutions").testIDs("resolution-")); n != 3 {
		t.Errorf("the merge's page lists %d sides chosen, want 3", n)
	}

	// What is not in conflict is refused on the page.
	status, _, body = c.post(t, "/branches/resolve", url.Values{"name": {"b"}, "object": {v}, "field": {"role"}, "side": {"main"}}, c.op)
	if page := parseHTML(body); status != http.StatusUnprocessableEntity ||
		page.text("resolve-error") != "IpamVLAN users-b: role was not changed on both sides since the branch point: there is no conflict to resolve" {
		t.Errorf("keeping main's role = %d %q", status, page.text("resolve-error"))
	}

	// The uniqueness conflict is the branch's to fix; then the page offers
	// the merge, which keeps the sides chosen.
	c.update(t, "b", b20, map[string]any{"vlan_id": 23}, nil)
	page = c.page(t, "/branches/b/-/merge")
	if got := page.text("merge-sentence"); got != "Merging b into main applies 1 added, 2 changed, 1 removed objects and 0 schema changes." {
		t.Errorf("the merge's confirmation reads %q", got)
	}
	status, _, page = c.postFollow(t, "/branches/merge", url.Values{"name": {"b"}}, c.op)
	if status != http.StatusSeeOther || page.text("branch-state-badge") != "merged" {
		t.Fatalf("merging b = %d %q", status, page.words())
	}
	for id, want := range map[string]map[string]any{v: {"name": "users-main"}, w: {"vlan_id": int64(22)}} {
		o, err := c.branches.Object(ctx, auth.System, branch.Main, id)
		if err != nil {
			t.Fatal(err)
		}
		for k, val := range want {
			if o.Attributes[k] != val {
				t.Errorf("main's %s has %s %v, want %v", o.DisplayLabel, k, o.Attributes[k], val)
			}
		}
	}
	if _, err := c.branches.Object(ctx, auth.System, branch.Main, x); err == nil {
		t.Error("main still has old, which the branch's side deleted")
	}
}

// TestBranchRebaseRefused: a refused rebase lists its conflicts on the
// branches page as a refused merge does, by label with both values, each
// with the form keeping either side, which leads back to the branches
// page; the rebase then keeps the side chosen.
func TestBranchRebaseRefused(t *testing.T) {
	c := newKindsConsole(t)
	ctx := t.Context()
	site := c.site(t, branch.Main, "site-a")
	v := c.vlan(t, branch.Main, "users", 10, site)
	if _, err := c.branches.CreateBranch(ctx, auth.System, "b"); err != nil {
		t.Fatal(err)
	}
	c.update(t, branch.Main, v, map[string]any{"name": "users-main"}, nil)
	c.update(t, "b", v, map[string]any{"name": "users-b"}, nil)

	status, _, body := c.post(t, "/branches/rebase", url.Values{"name": {"b"}}, c.op)
	if status != http.StatusConflict {
		t.Fatalf("rebasing b = %d, want 409", status)
	}
	conflicts := parseHTML(body).in("merge-conflicts")
	if got := conflicts.tags("h2"); len(got) != 1 || textOf(got[0]) != "b cannot be rebased onto main yet" {
		t.Errorf("the refusal's heading is %v", got)
	}
	items := conflicts.all("merge-conflict")
	if len(items) != 1 {
		t.Fatalf("the refused rebase lists %d conflicts, want users' name: %q", len(items), conflicts.words())
	}
	users := htmlPage{items[0]}
	if users.text("conflict-object") != "users-b" || users.text("conflict-field") != "name" ||
		users.text("conflict-main") != "users-main" || users.text("conflict-branch") != "users-b" {
		t.Errorf("the conflict reads %q", users.words())
	}

	status, _, page := c.postFollow(t, "/branches/resolve", url.Values{"name": {"b"}, "object": {v}, "field": {"name"}, "side": {"branch"}, "then": {"rebase"}}, c.op)
	if status != http.StatusSeeOther || page.text("flash") != "Kept this branch's name of users-b: users-b." || !page.has("branch-list") {
		t.Fatalf("keeping b's name = %d %q, not on the branches page", status, page.text("flash"))
	}
	status, _, page = c.postFollow(t, "/branches/rebase", url.Values{"name": {"b"}}, c.op)
	if status != http.StatusSeeOther || page.has("merge-conflicts") {
		t.Fatalf("rebasing b after the choice = %d %q", status, page.words())
	}
	o, err := c.branches.Object(ctx, auth.System, "b", v)
	if err != nil {
		t.Fatal(err)
	}
	if o.Attributes["name"] != "users-b" {
		t.Errorf("after the rebase b's users is called %v, want users-b", o.Attributes["name"])
	}
}

// TestBranchRebaseFromItsPage: the Rebase of a branch's page leads back to
// that page, which says so; the Rebase of the branches page, to the
// branches page.
func TestBranchRebaseFromItsPage(t *testing.T) {
	c := newKindsConsole(t)
	if _, err := c.branches.CreateBranch(t.Context(), auth.System, "b"); err != nil {
		t.Fatal(err)
	}
	c.site(t, branch.Main, "site-a")

	page := c.page(t, "/branches/b")
	form := page.all("form-rebase-branch")
	if len(form) != 1 {
		t.Fatalf("the branch's page has %d rebase forms, want 1", len(form))
	}
	method, action, fields := enclosingForm(t, htmlPage{form[0]}.tags("button")[0])
	if method != http.MethodPost {
		t.Fatalf("the rebase form is %s, want POST", method)
	}
	status, location, page := c.postFollow(t, action, fields, c.op)
	if want := "Rebased branch b onto main."; status != http.StatusSeeOther || location != "/branches/b" || page.text("flash") != want {
		t.Errorf("rebasing from the branch's page = %d to %s saying %q, want 303 to /branches/b saying %q", status, location, page.text("flash"), want)
	}

	status, location, page = c.postFollow(t, "/branches/rebase", url.Values{"name": {"b"}}, c.op)
	if status != http.StatusSeeOther || location != "/branches" || page.text("flash") != "Rebased branch b onto main." || !page.has("branch-list") {
		t.Errorf("rebasing from the branches page = %d to %s saying %q", status, location, page.text("flash"))
	}
}
