package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"
)

// saveObject fills the form of a new object of the kind on the branch
// (the texts by field, then the selects by field and option label) and
// saves it.
func saveObject(t *testing.T, page playwright.Page, base, kind, branch string, texts, selects map[string]string) {
	t.Helper()
	goTo(t, page, base, "/objects/"+kind+"/new?branch="+branch)
	for field, value := range texts {
		fill(t, page, testID("input-"+field), value)
	}
	for field, label := range selects {
		choose(t, page, testID("input-"+field), label)
	}
	click(t, page, testID("form-object")+" button[type=submit]")
	if err := page.Locator(testID("flash")).WaitFor(); err != nil {
		t.Fatalf("saving %s %v on %s: %v", kind, texts, branch, err)
	}
}

// renameVLAN opens the VLAN called name on the branch from its list and
// renames it.
func renameVLAN(t *testing.T, page playwright.Page, base, branch, name, to string) {
	t.Helper()
	goTo(t, page, base, "/objects/IpamVLAN?branch="+branch)
	if err := page.Locator(testID("object-label"), playwright.PageLocatorOptions{HasText: name}).First().Click(); err != nil {
		t.Fatalf("opening %s on %s: %v", name, branch, err)
	}
	fill(t, page, testID("input-name"), to)
	click(t, page, testID("form-object")+" button[type=submit]")
	if err := page.Locator(testID("flash")).WaitFor(); err != nil {
		t.Fatalf("renaming %s on %s: %v", name, branch, err)
	}
}

// TestOperatorMergesABranchWithAConflict: an operator makes a branch with
// changes, reads its diff on the branch's page, meets a conflict when
// merging (both values shown), keeps the branch's side, merges, and sees
// the branch merged; then deletes it after a confirmation. The phone does
// its part without JavaScript, in dark mode; each page is checked at 1280
// and 390 px wide, in light and in dark, by axe-core.
func TestOperatorMergesABranchWithAConflict(t *testing.T) {
	srv := startServer(t)
	base := srv.URL
	desk := newPage(t)
	signIn(t, desk, base, "admin", srv.AdminPassword)
	phone := newPageWith(t, phoneInTheDark)
	signIn(t, phone, base, "admin", srv.AdminPassword)
	lens := newPhoneCheck(t, srv)
	checks := []screenCheck{{page: desk}, {page: phone, lens: &lens}}
	checkBoth := func(name string) {
		t.Helper()
		for _, c := range checks {
			c.check(t, name)
		}
	}
	both := func(path string, do func(page playwright.Page)) {
		t.Helper()
		for _, page := range []playwright.Page{desk, phone} {
			goTo(t, page, base, path)
			do(page)
		}
	}

	// main: sites and VLANs; a branch that adds a VLAN and renames one,
	// which main renames too.
	goTo(t, desk, base, "/schema")
	loadSchema(t, desk, sitesSchema)
	if err := desk.Locator(testID("schema-kind-IpamVLAN")).WaitFor(); err != nil {
		t.Fatalf("main's schema does not show IpamVLAN: %v", err)
	}
	saveObject(t, desk, base, "LocationSite", "main", map[string]string{"name": "site-a"}, nil)
	saveObject(t, desk, base, "IpamVLAN", "main", map[string]string{"name": "users", "vlan_id": "10"}, map[string]string{"site": "site-a"})
	goTo(t, desk, base, "/branches")
	fill(t, desk, testID("branch-name"), "add-guest-vlans")
	click(t, desk, testID("form-create-branch")+" button[type=submit]")
	if err := desk.Locator(testID("branch-add-guest-vlans")).WaitFor(); err != nil {
		t.Fatalf("the new branch is not listed: %v", err)
	}
	saveObject(t, desk, base, "IpamVLAN", "add-guest-vlans", map[string]string{"name": "guests", "vlan_id": "20"}, map[string]string{"site": "site-a"})
	renameVLAN(t, desk, base, "add-guest-vlans", "users", "users-guest")
	renameVLAN(t, desk, base, "main", "users", "users-main")

	// The branch's page, from its name in the list.
	both("/branches", func(page playwright.Page) {
		if err := page.Locator(testID("branch-add-guest-vlans")).GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "add-guest-vlans", Exact: playwright.Bool(true)}).Click(); err != nil {
			t.Fatal(err)
		}
		waitForText(t, page, "page-title", "Branch add-guest-vlans")
		waitForText(t, page, "branch-state-badge", "open")
		waitForText(t, page, "count-added", "1 added")
		waitForText(t, page, "count-changed", "1 changed")
		waitForText(t, page, "count-removed", "0 removed")
		changed := page.Locator(testID("diff-changed") + " " + testID("field-name"))
		if err := playwright.NewPlaywrightAssertions(5000).Locator(changed.Locator(testID("before"))).ToHaveText("users"); err != nil {
			t.Errorf("the renamed VLAN's name was not users: %v", err)
		}
		if err := playwright.NewPlaywrightAssertions(5000).Locator(changed.Locator(testID("after"))).ToHaveText("users-guest"); err != nil {
			t.Errorf("the renamed VLAN's name is not users-guest: %v", err)
		}
	})
	checkBoth("the branch's page")
	screenshot(t, desk, "branch-page")
	screenshot(t, phone, "branch-page-phone-dark")

	// Merge: the confirmation finds the conflict first, with both values.
	both("/branches/add-guest-vlans", func(page playwright.Page) {
		click(t, page, testID("merge-branch"))
		waitForText(t, page, "page-title", "Merge add-guest-vlans into main")
		waitForText(t, page, "conflict-object", "users-guest")
		waitForText(t, page, "conflict-field", "name")
		waitForText(t, page, "conflict-main", "users-main")
		waitForText(t, page, "conflict-branch", "users-guest")
		if n, _ := page.Locator(testID("confirm-merge-button")).Count(); n != 0 {
			t.Error("the merge is offered with its conflict unresolved")
		}
	})
	checkBoth("the merge's conflicts")
	screenshot(t, desk, "branch-merge-conflict")
	screenshot(t, phone, "branch-merge-conflict-phone-dark")

	// The phone, without JavaScript, keeps the branch's name.
	if err := phone.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Keep this branch's name of users-guest"}).Click(); err != nil {
		t.Fatal(err)
	}
	waitForText(t, phone, "flash", "Kept this branch's name of users-guest: users-guest.")
	waitForText(t, phone, "merge-sentence", "Merging add-guest-vlans into main applies 1 added, 1 changed, 0 removed objects and 0 schema changes.")
	if _, err := desk.Reload(); err != nil {
		t.Fatal(err)
	}
	waitForText(t, desk, "merge-sentence", "Merging add-guest-vlans into main applies 1 added, 1 changed, 0 removed objects and 0 schema changes.")
	checkBoth("the merge's confirmation")

	click(t, phone, testID("confirm-merge-button"))
	waitForText(t, phone, "flash", "Merged add-guest-vlans into main: applied 1 added, 1 changed, 0 removed objects and 0 schema changes.")
	waitForText(t, phone, "branch-state-badge", "merged")
	goTo(t, desk, base, "/branches/add-guest-vlans")
	waitForText(t, desk, "branch-state-badge", "merged")
	checkBoth("the merged branch's page")
	screenshot(t, desk, "branch-merged")
	goTo(t, desk, base, "/objects/IpamVLAN")
	for _, name := range []string{"users-guest", "guests"} {
		if n, _ := desk.Locator(testID("object-label"), playwright.PageLocatorOptions{HasText: name}).Count(); n != 1 {
			t.Errorf("main lists %d VLANs called %s after the merge, want 1", n, name)
		}
	}
	both("/branches", func(page playwright.Page) {
		waitForText(t, page, "branch-merged-badge", "merged")
	})
	checkBoth("the branches, one merged")

	// Delete, once confirmed.
	both("/branches/add-guest-vlans", func(page playwright.Page) {
		click(t, page, testID("delete-branch"))
		waitForText(t, page, "delete-sentence", "Deleting add-guest-vlans discards 0 added, 0 changed, 0 removed objects and 0 schema changes.")
	})
	checkBoth("the deletion's confirmation")
	click(t, desk, testID("confirm-delete-button"))
	waitForText(t, desk, "flash", "Deleted branch add-guest-vlans.")
	if n, _ := desk.Locator(testID("branch-add-guest-vlans")).Count(); n != 0 {
		t.Error("the deleted branch is still listed")
	}
}
