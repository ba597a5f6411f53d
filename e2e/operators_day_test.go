package e2e

import (
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// TestOperatorsDay: an operator's day in the console, one step after
// another on what the step before made: create a public pool and edit its
// excludes; load the schema, create a site, a number pool of VLAN IDs per
// site and a VLAN from it, whose number the page predicts; open a branch
// that renames the VLAN while main renames it too, read the branch's diff,
// meet the conflict when merging, keep the branch's side and merge; read
// the merge in the audit log filtered to it; delete the branch once
// confirmed. The pages' widths, dark mode and axe-core are the other
// tests' (TestOperatorsLifecycle, TestOperatorMergesABranchWithAConflict,
// TestOperatorReadsAnAuditFilteredToIt): this one is about the flow.
func TestOperatorsDay(t *testing.T) {
	srv := startServer(t)
	base := srv.URL
	page := newPage(t)
	signIn(t, page, base, "admin", srv.AdminPassword)

	// A public pool, then its excludes.
	goTo(t, page, base, "/pools/new")
	fill(t, page, "#pool-name", "public-zone-c")
	fill(t, page, "#pool-cidr", "192.0.2.0/24")
	fill(t, page, "#pool-gateway", "192.0.2.1")
	fill(t, page, "#pool-zone", "zone-c")
	click(t, page, testID("create-pool"))
	expectURL(t, page, base, regexp.QuoteMeta("/pools/public-zone-c"))
	waitForText(t, page, "flash", "Created public pool public-zone-c.")
	followLink(t, page, "Edit public pool public-zone-c")
	fill(t, page, "#pool-exclude", "192.0.2.2-192.0.2.9")
	pressButton(t, page, "Save public pool public-zone-c")
	expectURL(t, page, base, regexp.QuoteMeta("/pools/public-zone-c"))
	waitForText(t, page, "flash", "Saved public pool public-zone-c: gateway 192.0.2.1; exclude 192.0.2.2-192.0.2.9; zone zone-c.")

	// The kinds, a site, and a number pool of VLAN IDs per site.
	goTo(t, page, base, "/schema")
	loadSchema(t, page, sitesSchema)
	if err := page.Locator(testID("schema-kind-IpamVLAN")).WaitFor(); err != nil {
		t.Fatalf("main's schema does not show IpamVLAN: %v", err)
	}
	saveObject(t, page, base, "LocationSite", "main", map[string]string{"name": "site-a"}, nil)
	goTo(t, page, base, "/resource-managers/new")
	choose(t, page, testID("pool-node"), "IpamVLAN")
	if err := page.Locator(testID("scoped-by")).WaitFor(); err != nil {
		t.Fatalf("choosing IpamVLAN does not offer Scoped by: %v", err)
	}
	fill(t, page, testID("form-number-pool")+" input[name=name]", "VLAN IDs per site")
	fill(t, page, testID("range-row-0")+" "+testID("range-start"), "100")
	fill(t, page, testID("range-row-0")+" "+testID("range-end"), "199")
	click(t, page, testID("scope-site"))
	waitForText(t, page, "preview-size", "100")
	click(t, page, testID("create-number-pool"))
	waitForText(t, page, "flash", "Created number pool VLAN IDs per site.")

	// A VLAN from the pool: the page predicts its number, and it gets it.
	goTo(t, page, base, "/objects/IpamVLAN/new")
	if err := page.Locator(testID("form-object") + "[data-ready=true]").WaitFor(); err != nil {
		t.Fatalf("the object form's prediction does not start: %v", err)
	}
	fill(t, page, testID("input-name"), "users")
	click(t, page, testID("tab-from-pool"))
	choose(t, page, testID("from-pool-select"), "VLAN IDs per site")
	choose(t, page, testID("input-site"), "site-a")
	waitForText(t, page, "predicted-number", "100")
	click(t, page, testID("form-object")+" button[type=submit]")
	waitForText(t, page, "allocated-number", "100")
	waitForText(t, page, "allocation-as-predicted", "— as predicted.")

	// A branch renames the VLAN; main renames it too.
	goTo(t, page, base, "/branches")
	fill(t, page, testID("branch-name"), "rename-users")
	click(t, page, testID("form-create-branch")+" button[type=submit]")
	if err := page.Locator(testID("branch-rename-users")).WaitFor(); err != nil {
		t.Fatalf("the new branch is not listed: %v", err)
	}
	renameVLAN(t, page, base, "rename-users", "users", "users-site-a")
	renameVLAN(t, page, base, "main", "users", "users-main")

	// The branch's diff, from its name in the list.
	goTo(t, page, base, "/branches")
	if err := page.Locator(testID("branch-rename-users")).GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "rename-users", Exact: playwright.Bool(true)}).Click(); err != nil {
		t.Fatal(err)
	}
	waitForText(t, page, "page-title", "Branch rename-users")
	waitForText(t, page, "branch-state-badge", "open")
	waitForText(t, page, "count-added", "0 added")
	waitForText(t, page, "count-changed", "1 changed")
	changed := page.Locator(testID("diff-changed") + " " + testID("field-name"))
	if err := playwright.NewPlaywrightAssertions(patience).Locator(changed.Locator(testID("before"))).ToHaveText("users"); err != nil {
		t.Errorf("the diff's name before is not users: %v", err)
	}
	if err := playwright.NewPlaywrightAssertions(patience).Locator(changed.Locator(testID("after"))).ToHaveText("users-site-a"); err != nil {
		t.Errorf("the diff's name after is not users-site-a: %v", err)
	}

	// The merge meets the conflict; the branch's side is kept, then merged.
	click(t, page, testID("merge-branch"))
	waitForText(t, page, "page-title", "Merge rename-users into main")
	waitForText(t, page, "conflict-main", "users-main")
	waitForText(t, page, "conflict-branch", "users-site-a")
	pressButton(t, page, "Keep this branch's name of users-site-a")
	waitForText(t, page, "flash", "Kept this branch's name of users-site-a: users-site-a.")
	waitForText(t, page, "merge-sentence", "Merging rename-users into main applies 0 added, 1 changed, 0 removed objects and 0 schema changes.")
	click(t, page, testID("confirm-merge-button"))
	waitForText(t, page, "flash", "Merged rename-users into main: applied 0 added, 1 changed, 0 removed objects and 0 schema changes.")
	waitForText(t, page, "branch-state-badge", "merged")
	goTo(t, page, base, "/objects/IpamVLAN")
	if n := countOf(t, page, testID("object-label")+":text-is('users-site-a')"); n != 1 {
		t.Errorf("main lists %d VLANs called users-site-a after the merge, want 1", n)
	}

	// The audit log, filtered to merges, tells it as a sentence.
	goTo(t, page, base, "/audit")
	if _, err := page.Locator("#filter-action").SelectOption(playwright.SelectOptionValues{Values: &[]string{"merge"}}); err != nil {
		t.Fatal(err)
	}
	fill(t, page, "#filter-actor", "admin")
	click(t, page, testID("filter-submit"))
	if err := page.WaitForURL("**/audit?*action=merge*"); err != nil {
		t.Fatal(err)
	}
	if n := countOf(t, page, testID("audit-sentence")); n != 1 {
		t.Fatalf("the audit log filtered to admin's merges lists %d changes, want 1", n)
	}
	waitForText(t, page, "audit-sentence", "admin merged branch rename-users into main: 1 object, 0 schema changes")

	// The branch goes once its delete is confirmed.
	goTo(t, page, base, "/branches/rename-users")
	click(t, page, testID("delete-branch"))
	waitForText(t, page, "delete-sentence", "Deleting rename-users discards 0 added, 0 changed, 0 removed objects and 0 schema changes.")
	click(t, page, testID("confirm-delete-button"))
	waitForText(t, page, "flash", "Deleted branch rename-users.")
	if n := countOf(t, page, testID("branch-rename-users")); n != 0 {
		t.Error("the deleted branch is still listed")
	}
}
