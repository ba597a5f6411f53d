package e2e

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// sitesSchema is the example on main: sites, and VLANs with a
// required site of cardinality one and an optional role.
const sitesSchema = `version: "1.0"
nodes:
  - name: Site
    namespace: Location
    display_label: "{{ name__value }}"
    attributes:
      - {name: name, kind: Text, unique: true}
  - name: VLAN
    namespace: Ipam
    display_label: "{{ name__value }}"
    attributes:
      - {name: name, kind: Text}
      - {name: vlan_id, kind: Number}
      - {name: role, kind: Dropdown, optional: true, choices: [{name: user}, {name: voice}]}
    relationships:
      - {name: site, peer: LocationSite, cardinality: one, optional: false}
`

// vlanChange is the branch's change of the schema: a description of each
// VLAN, and VLAN IDs distinct within a site.
const vlanChange = `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    uniqueness_constraints: [["site", "vlan_id__value"]]
    attributes:
      - {name: description, kind: Text, optional: true}
`

// testID is the selector of the element of that data-testid.
func testID(id string) string {
	return fmt.Sprintf("[data-testid=%q]", id)
}

// goTo opens path on base, a page checked with axe-core already.
func goTo(t *testing.T, page playwright.Page, base, path string) {
	t.Helper()
	if _, err := page.Goto(base + path); err != nil {
		t.Fatal(err)
	}
}

// choose selects the option of that label in the select.
func choose(t *testing.T, page playwright.Page, selector, label string) {
	t.Helper()
	if _, err := page.Locator(selector).SelectOption(playwright.SelectOptionValues{Labels: &[]string{label}}); err != nil {
		t.Fatalf("choosing %q in %s: %v", label, selector, err)
	}
}

// waitForURL waits until the page's path and query are want.
func waitForURL(t *testing.T, page playwright.Page, base, want string) {
	t.Helper()
	if err := page.WaitForURL(base + want); err != nil {
		t.Fatalf("the page is %s, want %s: %v", page.URL(), base+want, err)
	}
}

// testIDs lists the data-testids of the elements selector matches, in
// the page's order.
func testIDs(t *testing.T, page playwright.Page, selector string) []string {
	t.Helper()
	ids, err := page.Locator(selector).EvaluateAll(`els => els.map(e => e.dataset.testid)`)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, id := range ids.([]any) {
		out = append(out, id.(string))
	}
	return out
}

// loadSchema pastes a schema into the schema page's form, on the branch
// the page is on, and submits it.
func loadSchema(t *testing.T, page playwright.Page, text string) {
	t.Helper()
	fill(t, page, testID("schema-text"), text)
	click(t, page, testID("form-schema-load")+" button[type=submit]")
}

// A sitePrediction is a site chosen in the VLAN form, and the number the
// page then predicts.
type sitePrediction struct {
	site, number string
}

// createVLAN fills the VLAN form of the branch with the pool, chooses
// each site in turn, checks that the page predicts its number with no
// request to the server, and saves the VLAN in the last site: it must
// get the number predicted. With axe, axe-core checks the form before
// and after.
func createVLAN(t *testing.T, page playwright.Page, base, branch, name string, axe bool, sites ...sitePrediction) {
	t.Helper()
	goTo(t, page, base, "/objects/IpamVLAN/new?branch="+branch)
	if err := page.Locator(testID("form-object") + "[data-ready=true]").WaitFor(); err != nil {
		t.Fatalf("the object form's prediction does not start: %v", err)
	}
	requests := watchRequests(page)
	fill(t, page, testID("input-name"), name)
	click(t, page, testID("tab-from-pool"))
	choose(t, page, testID("from-pool-select"), "VLAN IDs per site")
	for _, s := range sites {
		choose(t, page, testID("input-site"), s.site)
		waitForText(t, page, "predicted-number", s.number)
	}
	if got := requests(); len(got) != 0 {
		t.Errorf("predicting made requests to the server: %s", strings.Join(got, ", "))
	}
	if axe {
		checkAccessibility(t, page, "the VLAN form, From pool")
	}
	click(t, page, testID("form-object")+" button[type=submit]")
	want := sites[len(sites)-1].number
	waitForText(t, page, "allocated-number", want)
	if n, _ := page.Locator(testID("allocation-as-predicted")).Count(); n != 1 {
		t.Errorf("the page does not say %s got the number predicted, %s", name, want)
	}
	if axe {
		checkAccessibility(t, page, "the VLAN form, saved")
	}
}

// TestOperatorAllocatesVLANsPerSite walks an operator through number pools:
// a branch, a schema change loaded on it, a number pool scoped by site,
// VLANs of two sites from it as the page predicted, the pool's allocation
// scopes sorted, searched and opened, the branch merged, and a merge
// refused with its conflict. axe-core checks every page on the way.
func TestOperatorAllocatesVLANsPerSite(t *testing.T) {
	srv := startServer(t)
	page := newPage(t)
	signIn(t, page, srv.URL, "admin", srv.AdminPassword)
	base := srv.URL

	// Main gets the kinds LocationSite and IpamVLAN, and two sites.
	visit(t, page, base, "/schema")
	loadSchema(t, page, sitesSchema)
	if err := page.Locator(testID("schema-kind-IpamVLAN")).WaitFor(); err != nil {
		t.Fatalf("main's schema does not show IpamVLAN after loading it: %v", err)
	}
	checkAccessibility(t, page, "/schema, loaded")
	for _, site := range []string{"site-a", "site-b"} {
		goTo(t, page, base, "/objects/LocationSite/new")
		fill(t, page, testID("input-name"), site)
		click(t, page, testID("form-object")+" button[type=submit]")
		if err := page.Locator(testID("flash")).WaitFor(); err != nil {
			t.Fatalf("creating %s: %v", site, err)
		}
	}
	checkAccessibility(t, page, "a site's form, saved")
	visit(t, page, base, "/objects/LocationSite")
	if n, _ := page.Locator(testID("object-table") + " tbody tr").Count(); n != 2 {
		t.Errorf("LocationSite lists %d objects, want 2", n)
	}

	// A branch, and a change of the schema on it.
	visit(t, page, base, "/branches")
	fill(t, page, testID("branch-name"), "add-vlans")
	click(t, page, testID("form-create-branch")+" button[type=submit]")
	if err := page.Locator(testID("branch-add-vlans")).WaitFor(); err != nil {
		t.Fatalf("the new branch is not listed: %v", err)
	}
	checkAccessibility(t, page, "/branches, created")
	goTo(t, page, base, "/schema")
	choose(t, page, testID("branch-select-input"), "add-vlans")
	waitForURL(t, page, base, "/schema?branch=add-vlans")
	loadSchema(t, page, strings.Replace(vlanChange, "kind: Text", "kind: Texte", 1))
	if err := page.Locator(testID("schema-errors")).WaitFor(); err != nil {
		t.Fatalf("a schema of an unknown attribute kind is not refused: %v", err)
	}
	if text, _ := page.Locator(testID("schema-errors")).TextContent(); !strings.Contains(text, "Texte") {
		t.Errorf("the schema's refusal %q does not name the kind Texte", text)
	}
	checkAccessibility(t, page, "/schema, refused")
	loadSchema(t, page, vlanChange)
	if err := page.Locator(testID("schema-kind-IpamVLAN") + " " + testID("attribute-description")).WaitFor(); err != nil {
		t.Fatalf("the branch's schema does not show the description: %v", err)
	}
	goTo(t, page, base, "/schema")
	if n, _ := page.Locator(testID("attribute-description")).Count(); n != 0 {
		t.Error("main's schema shows the branch's description")
	}

	// A number pool of VLAN IDs scoped by site: Scoped by offers the
	// required fields of IpamVLAN but vlan_id, the one it allocates.
	visit(t, page, base, "/resource-managers?branch=add-vlans")
	click(t, page, testID("new-number-pool"))
	waitForURL(t, page, base, "/resource-managers/new?branch=add-vlans")
	form := testID("form-number-pool")
	choose(t, page, testID("pool-node"), "IpamVLAN")
	if err := page.Locator(testID("scoped-by")).WaitFor(); err != nil {
		t.Fatalf("choosing IpamVLAN does not offer Scoped by: %v", err)
	}
	if got, want := testIDs(t, page, testID("scoped-by")+" input[type=checkbox]"), []string{"scope-name", "scope-site"}; !slices.Equal(got, want) {
		t.Errorf("Scoped by offers %v, want %v", got, want)
	}
	fill(t, page, testID("range-row-0")+" "+testID("range-start"), "100")
	fill(t, page, testID("range-row-0")+" "+testID("range-end"), "199")
	click(t, page, testID("scope-site"))
	waitForText(t, page, "preview-size", "100")
	checkAccessibility(t, page, "/resource-managers/new, filled")
	click(t, page, testID("create-number-pool"))
	if err := playwright.NewPlaywrightAssertions(patience).Locator(page.Locator(testID("error-name"))).ToHaveText(regexp.MustCompile(".")); err != nil {
		t.Fatalf("a pool without a name is not refused by its field: %v", err)
	}
	checkAccessibility(t, page, "/resource-managers/new, refused")
	fill(t, page, form+" input[name=name]", "VLAN IDs per site")
	click(t, page, testID("create-number-pool"))
	if err := page.Locator(testID("allocation-scopes")).WaitFor(); err != nil {
		t.Fatalf("creating the pool does not lead to its allocation scopes: %v", err)
	}
	waitForText(t, page, "pool-scope", "site")
	poolPath, _, _ := strings.Cut(path(t, page), "?")
	click(t, page, testID("edit-number-pool"))
	if err := page.Locator(testID("scoped-by-readonly") + " " + testID("scope-site")).WaitFor(); err != nil {
		t.Fatalf("the pool's form does not show its scope read-only: %v", err)
	}
	if n, _ := page.Locator(form + " input[name=scope]").Count(); n != 0 {
		t.Errorf("the pool's form has %d scope inputs, want none", n)
	}
	checkAccessibility(t, page, "the pool's form")

	// VLANs from the pool on the branch: site A and site B both get 100,
	// and the page predicts each number as the site changes.
	createVLAN(t, page, base, "add-vlans", "users-a", true, sitePrediction{"site-a", "100"})
	createVLAN(t, page, base, "add-vlans", "users-b", false, sitePrediction{"site-a", "101"}, sitePrediction{"site-b", "100"})
	createVLAN(t, page, base, "add-vlans", "voice-a", false, sitePrediction{"site-a", "101"})
	visit(t, page, base, "/objects/IpamVLAN?branch=add-vlans")
	if n, _ := page.Locator(testID("object-table") + " tbody tr").Count(); n != 3 {
		t.Errorf("the branch lists %d VLANs, want 3", n)
	}

	// The pool's allocation scopes, sorted; a division, and another
	// from its card.
	visit(t, page, base, "/resource-managers?branch=add-vlans")
	click(t, page, testID("number-pool-VLAN IDs per site")+" a")
	scopes := testID("allocation-scopes") + " tbody tr"
	if err := page.Locator(scopes).First().WaitFor(); err != nil {
		t.Fatalf("the pool page lists no allocation scope: %v", err)
	}
	checkAccessibility(t, page, "the pool's allocation scopes")
	sorted := func(column string, want ...string) {
		t.Helper()
		click(t, page, testID("allocation-scopes")+" "+testID("sort-"+column))
		expect := playwright.NewPlaywrightAssertions(patience)
		if err := expect.Locator(page.Locator(scopes).First()).ToHaveAttribute("data-testid", want[0]); err != nil {
			t.Errorf("sorted by %s, the first allocation scope is not %s: %v", column, want[0], err)
		}
		if got := testIDs(t, page, scopes); !slices.Equal(got, want) {
			t.Errorf("sorted by %s, the allocation scopes are %v, want %v", column, got, want)
		}
	}
	sorted("usage", "division-site-b", "division-site-a")
	sorted("usage", "division-site-a", "division-site-b")
	sorted("site", "division-site-a", "division-site-b")
	sorted("site", "division-site-b", "division-site-a")
	checkAccessibility(t, page, "the pool's allocation scopes, sorted")
	fill(t, page, testID("scope-search"), "site-a")
	if err := playwright.NewPlaywrightAssertions(patience).Locator(page.Locator(scopes)).ToHaveCount(1); err != nil {
		t.Errorf("searching site-a lists %v: %v", testIDs(t, page, scopes), err)
	}
	if got := testIDs(t, page, scopes); !slices.Equal(got, []string{"division-site-a"}) {
		t.Errorf("searching site-a lists %v, want division-site-a", got)
	}
	click(t, page, testID("division-site-a")+" "+testID("open-division"))
	waitForText(t, page, "allocation-scope-current", "site-a")
	if got, want := testIDs(t, page, testID("division-numbers")+" tbody tr"), []string{"number-100", "number-101"}; !slices.Equal(got, want) {
		t.Errorf("site-a's numbers are %v, want %v", got, want)
	}
	if n, _ := page.Locator(testID("range-map")).Count(); n != 1 {
		t.Errorf("the division draws %d range maps, want 1", n)
	}
	checkAccessibility(t, page, "the division site-a")
	choose(t, page, testID("allocation-scope-switch"), "site-b")
	click(t, page, testID("allocation-scope-go"))
	waitForText(t, page, "allocation-scope-current", "site-b")
	if got, want := testIDs(t, page, testID("division-numbers")+" tbody tr"), []string{"number-100"}; !slices.Equal(got, want) {
		t.Errorf("site-b's numbers are %v, want %v", got, want)
	}
	if !strings.HasPrefix(path(t, page), poolPath+"?") {
		t.Errorf("the division site-b is at %s, not on the pool's page %s", path(t, page), poolPath)
	}

	// The branch merged, once confirmed: main has its schema and its
	// VLANs.
	goTo(t, page, base, "/branches")
	click(t, page, testID("merge-branch")+"[data-branch=add-vlans]")
	waitForText(t, page, "merge-sentence", "Merging add-vlans into main applies 3 added, 0 changed, 0 removed objects and 2 schema changes.")
	click(t, page, testID("confirm-merge-button"))
	waitForText(t, page, "flash", "Merged add-vlans into main: applied 3 added, 0 changed, 0 removed objects and 2 schema changes.")
	goTo(t, page, base, "/objects/IpamVLAN")
	if n, _ := page.Locator(testID("object-table") + " tbody tr").Count(); n != 3 {
		t.Errorf("after the merge main lists %d VLANs, want 3", n)
	}
	if n, _ := page.Locator(testID("object-table") + " " + testID("cell-description")).Count(); n != 3 {
		t.Errorf("after the merge main's VLANs have %d descriptions, want 3: the schema change is not merged", n)
	}

	// A merge refused: the branch rename changes the name of users-a,
	// and main does too.
	goTo(t, page, base, "/branches")
	fill(t, page, testID("branch-name"), "rename")
	click(t, page, testID("form-create-branch")+" button[type=submit]")
	if err := page.Locator(testID("branch-rename")).WaitFor(); err != nil {
		t.Fatalf("the branch rename is not listed: %v", err)
	}
	for _, on := range []string{"rename", "main"} {
		goTo(t, page, base, "/objects/IpamVLAN?branch="+on)
		label := page.Locator(testID("object-label"), playwright.PageLocatorOptions{HasText: regexp.MustCompile(`^users-a$`)})
		if err := label.Click(); err != nil {
			t.Fatalf("opening users-a on %s: %v", on, err)
		}
		fill(t, page, testID("input-name"), "users-a-"+on)
		click(t, page, testID("form-object")+" button[type=submit]")
		if err := page.Locator(testID("flash")).WaitFor(); err != nil {
			t.Fatalf("renaming users-a on %s: %v", on, err)
		}
	}
	goTo(t, page, base, "/branches")
	click(t, page, testID("merge-branch")+"[data-branch=rename]")
	if err := page.Locator(testID("merge-conflicts")).WaitFor(); err != nil {
		t.Fatalf("the merge of rename is not refused: %v", err)
	}
	conflict := testID("merge-conflicts") + " " + testID("merge-conflict")
	if n, _ := page.Locator(conflict).Count(); n != 1 {
		t.Errorf("the refused merge lists %d conflicts, want users-a's name", n)
	}
	waitForText(t, page, "conflict-object", "users-a-rename")
	waitForText(t, page, "conflict-main", "users-a-main")
	waitForText(t, page, "conflict-branch", "users-a-rename")
	checkAccessibility(t, page, "the merge of rename, refused")
	screenshot(t, page, "merge-refused")

	// A pool without a scope shows its ranges and numbers at once.
	goTo(t, page, base, "/resource-managers/new")
	choose(t, page, testID("pool-node"), "IpamVLAN")
	if err := page.Locator(testID("scoped-by")).WaitFor(); err != nil {
		t.Fatalf("choosing IpamVLAN does not offer Scoped by: %v", err)
	}
	fill(t, page, form+" input[name=name]", "VLAN IDs")
	fill(t, page, testID("range-row-0")+" "+testID("range-start"), "2000")
	fill(t, page, testID("range-row-0")+" "+testID("range-end"), "2099")
	click(t, page, testID("create-number-pool"))
	if err := page.Locator(testID("division-numbers")).WaitFor(); err != nil {
		t.Fatalf("the page of a pool without a scope does not show its numbers: %v", err)
	}
	waitForText(t, page, "pool-scope", "none")
	checkAccessibility(t, page, "a pool without a scope")
}
