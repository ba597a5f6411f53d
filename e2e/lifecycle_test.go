package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/graphql"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/schema"
)

// A screenCheck checks the pages of one browser as they are now, in light
// and in dark: no wider than its screen, and no violation of impact
// serious or critical that axe-core finds (in dark, of the rules about
// colours, as checkScreen says). A browser without JavaScript
// has its document checked by axe-core in a lens (see phoneCheck). With
// part, only the elements of that selector must be no wider than the
// screen: the parts of a page that the check is about.
type screenCheck struct {
	page playwright.Page
	lens *phoneCheck
	part string
}

// overflowOf is how many pixels the elements of selector reach past the
// right edge of the screen (all of the page with no selector).
const overflowOf = `(selector) => {
	const width = document.documentElement.clientWidth;
	if (!selector) return document.documentElement.scrollWidth - width;
	return Math.max(0, ...[...document.querySelectorAll(selector)].map(e => Math.ceil(e.getBoundingClientRect().right) - width));
}`

func (c screenCheck) check(t *testing.T, name string) {
	t.Helper()
	for _, scheme := range []*playwright.ColorScheme{playwright.ColorSchemeLight, playwright.ColorSchemeDark} {
		if err := c.page.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: scheme}); err != nil {
			t.Fatal(err)
		}
		label := name + ", " + string(*scheme)
		var rules []string
		if *scheme == *playwright.ColorSchemeDark {
			rules = colourRules
		}
		if c.lens == nil {
			overflow, err := c.page.Evaluate(overflowOf, c.part)
			if err != nil {
				t.Fatal(err)
			}
			if n, ok := overflow.(int); !ok || n > 0 {
				t.Errorf("%s %s is %v px wider than the screen", label, c.part, overflow)
			}
			checkAxeRules(t, c.page, label, rules...)
			continue
		}
		if err := c.lens.lens.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: scheme}); err != nil {
			t.Fatal(err)
		}
		c.lens.check(t, c.page, label, rules...)
	}
}

// pressButton clicks the button whose accessible name is name (a verb and
// what it acts on: "Detach web-09/0") and waits for the page it leads to.
func pressButton(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	b := page.GetByRole("button", playwright.PageGetByRoleOptions{Name: name, Exact: playwright.Bool(true)})
	if n, err := b.Count(); err != nil || n != 1 {
		t.Fatalf("%s has %d buttons named %q (%v), want one", page.URL(), n, name, err)
	}
	if err := b.Click(); err != nil {
		t.Fatalf("pressing %q: %v", name, err)
	}
	if err := page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateLoad}); err != nil {
		t.Fatal(err)
	}
}

// followLink follows the one link named name (by role and accessible
// name, as a user finds it: Edit is a link drawn as a button) and waits
// for the page it leads to.
func followLink(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	l := page.GetByRole("link", playwright.PageGetByRoleOptions{Name: name, Exact: playwright.Bool(true)})
	if n, err := l.Count(); err != nil || n != 1 {
		t.Fatalf("%s has %d links named %q (%v), want one", page.URL(), n, name, err)
	}
	if err := l.Click(); err != nil {
		t.Fatalf("following %q: %v", name, err)
	}
	if err := page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateLoad}); err != nil {
		t.Fatal(err)
	}
}

// expectURL fails the test unless the page is at base+path (a regular
// expression of the path and query).
func expectURL(t *testing.T, page playwright.Page, base, path string) {
	t.Helper()
	if err := page.WaitForURL(regexp.MustCompile("^" + regexp.QuoteMeta(base) + path + "$")); err != nil {
		t.Fatalf("the page is %s, want %s%s: %v", page.URL(), base, path, err)
	}
}

// countOf is the number of elements that selector finds in the page.
func countOf(t *testing.T, page playwright.Page, selector string) int {
	t.Helper()
	n, err := page.Locator(selector).Count()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// tenantsDay is a tenant's day on the VPC page of acme/prod/main (as the
// e2e helper seed leaves it): attach a VM's interface and see it in the list, detach it;
// claim a floating IP and release it; be refused the delete of subnet web,
// which holds interfaces; create subnet db and delete it. Every
// destructive action is confirmed on a page that says what goes with it,
// reached and confirmed by buttons named by their verb; after each action
// the VPC page says what happened. check checks each page the day sees.
// The day leaves the VPC as it found it.
func tenantsDay(t *testing.T, page playwright.Page, base string, check func(name string)) {
	t.Helper()
	const vpc = "/vpcs/acme/prod/main"
	if _, err := page.Goto(base + vpc); err != nil {
		t.Fatal(err)
	}
	check("the VPC page")

	// Attach, and see it in the list of interfaces.
	fill(t, page, "#attach-hostname", "web-09")
	click(t, page, testID("submit-attach-interface"))
	waitForText(t, page, "claimed-address", "10.42.1.5")
	row := testID("address-10.42.1.5")
	if owner, err := page.Locator(row + " " + testID("owner-name")).TextContent(); err != nil || owner != "web-09/0" {
		t.Fatalf("the list of interfaces shows 10.42.1.5 held by %q (%v), want web-09/0", owner, err)
	}
	check("the VPC page after an attach")

	// Detach it: the confirmation says what goes.
	pressButton(t, page, "Detach web-09/0")
	expectURL(t, page, base, regexp.QuoteMeta(vpc)+`\?.*confirm=detach.*`)
	if got, err := page.Locator(testID("consequence")).TextContent(); err != nil || !regexp.MustCompile(`^Detaching web-09/0 from subnet web releases 10\.42\.1\.5, which it has held since \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$`).MatchString(got) {
		t.Errorf("the detach's confirmation says %q (%v)", got, err)
	}
	check("the detach's confirmation")
	pressButton(t, page, "Detach web-09/0")
	expectURL(t, page, base, regexp.QuoteMeta(vpc))
	waitForText(t, page, "flash", "Detached web-09/0 from subnet web; 10.42.1.5 is free again.")
	if countOf(t, page, row) != 0 {
		t.Error("10.42.1.5 is still in the list of interfaces after its detach")
	}

	// Claim a floating IP and release it.
	fill(t, page, "#fip-name", "www")
	click(t, page, testID("submit-claim-floating-ip"))
	waitForText(t, page, "claimed-address", "203.0.113.5")
	if countOf(t, page, testID("floating-ip-www")) != 1 {
		t.Fatal("the page does not list floating IP www")
	}
	pressButton(t, page, "Release floating IP www")
	waitForText(t, page, "consequence", "Releasing floating IP www frees 203.0.113.5 in public pool public-zone-a.")
	check("the release's confirmation")
	pressButton(t, page, "Release floating IP www")
	expectURL(t, page, base, regexp.QuoteMeta(vpc))
	waitForText(t, page, "flash", "Floating IP www released; 203.0.113.5 is free again.")
	if countOf(t, page, testID("floating-ip-www")) != 0 {
		t.Error("floating IP www is still listed after its release")
	}

	// Subnet web holds the three interfaces seed attached: its delete is refused
	// in the confirmation, with their count, and offers no button.
	pressButton(t, page, "Delete subnet web")
	waitForText(t, page, "refusal", "subnet web of VPC acme/prod/main still has 3 VM interfaces; detach them first")
	if countOf(t, page, testID("confirm")) != 0 {
		t.Error("the refused delete of subnet web offers its button")
	}
	check("the refused delete of a subnet")
	click(t, page, testID("cancel"))
	expectURL(t, page, base, regexp.QuoteMeta(vpc))

	// Create subnet db and delete it.
	fill(t, page, "#subnet-name", "db")
	fill(t, page, "#subnet-cidr", "10.42.2.0/24")
	click(t, page, testID("submit-create-subnet"))
	waitForText(t, page, "claimed-address", "10.42.2.0/24")
	pressButton(t, page, "Delete subnet db")
	waitForText(t, page, "consequence", "Deleting subnet db releases no address.")
	check("the delete's confirmation")
	pressButton(t, page, "Delete subnet db")
	expectURL(t, page, base, regexp.QuoteMeta(vpc))
	waitForText(t, page, "flash", "Subnet db deleted; no address released.")
	if countOf(t, page, testID("subnet-db")) != 0 {
		t.Error("subnet db is still on the VPC page after its delete")
	}
	check("the VPC page after the day")
}

// TestTenantsDay: a tenant's day (tenantsDay) at 1280 × 800 with
// JavaScript, then on a 390 × 844 phone without JavaScript, every page in
// light and in dark, no wider than the screen, and checked by axe-core.
func TestTenantsDay(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	password := srv.addUser(t, "acme", auth.Tenant, "acme/*")

	desktop := newPage(t)
	signIn(t, desktop, srv.URL, "acme", password)
	tenantsDay(t, desktop, srv.URL, func(name string) { screenCheck{page: desktop}.check(t, "1280 px: "+name) })

	lens := newPhoneCheck(t, srv)
	phone := newPageWith(t, phoneInTheDark)
	signIn(t, phone, srv.URL, "acme", password)
	tenantsDay(t, phone, srv.URL, func(name string) { screenCheck{page: phone, lens: &lens}.check(t, "390 px: "+name) })
}

// seedVLANs fills the server's database, before it starts, with the
// kinds of sitesSchema, site site-a, number pool VLANs (100–199, per
// site) and VLANs users (100) and voice (101) from it, and public pool
// spare, which holds nothing.
func seedVLANs(t *testing.T, srv server) {
	t.Helper()
	ctx := context.Background()
	db, svc := services(t, srv)
	if _, err := svc.CreatePublicPool(ctx, auth.System, ipam.CreatePublicPoolInput{Name: "spare", CIDR: "198.51.100.0/24", Zone: "zone-b"}); err != nil {
		t.Fatal(err)
	}
	nums, err := numbers.New(ctx, numbers.Config{DB: db, Branch: branch.Config{Guard: branch.SchemaGuard(graphql.CheckSchema)}})
	if err != nil {
		t.Fatal(err)
	}
	defer nums.Close()
	f, err := schema.Parse("schema.yml", []byte(sitesSchema))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nums.Branches().LoadSchema(ctx, auth.System, branch.Main, f); err != nil {
		t.Fatal(err)
	}
	site, err := nums.Branches().CreateObject(ctx, auth.System, branch.Main, "LocationSite", branch.ObjectInput{Attributes: map[string]any{"name": "site-a"}})
	if err != nil {
		t.Fatal(err)
	}
	pool, err := nums.CreatePool(ctx, auth.System, numbers.PoolInput{Name: "VLANs", Node: "IpamVLAN", NodeAttribute: "vlan_id",
		Ranges: []numbers.Range{{Start: 100, End: 199, Weight: 1}}, AllocationScope: []string{"site"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"users", "voice"} {
		if _, err := nums.CreateObject(ctx, auth.System, branch.Main, "IpamVLAN",
			branch.ObjectInput{Attributes: map[string]any{"name": name}, Relationships: map[string][]string{"site": {site.ID}}},
			[]numbers.FromPool{{Attribute: "vlan_id", Pool: pool.ID}}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOperatorsLifecycle: an operator edits a public pool (refused first
// beside its field, then saved), is refused the delete of a pool that
// holds an address and deletes an empty one; deletes a VLAN, whose number
// goes back to its pool, is refused the delete of the site another VLAN
// needs; edits a number pool's name and ranges (a range that would leave
// out a number in use refused) and deletes it. Buttons are found by role
// and name; each page is checked at 1280 × 800 and 390 × 844, in light and
// in dark, no wider than the screen, and by axe-core.
func TestOperatorsLifecycle(t *testing.T) {
	filled := server{DatabaseURL: pgtest.NewURL(t)}
	seed(t, filled)
	seedVLANs(t, filled)
	srv := startServerOn(t, filled.DatabaseURL)
	base := srv.URL
	page := newPage(t)
	signIn(t, page, base, "admin", srv.AdminPassword)
	// checkParts checks the page on both screens; only the elements of
	// part, when given, must be no wider than the screen.
	checkParts := func(name, part string) {
		t.Helper()
		for _, size := range []playwright.Size{{Width: 1280, Height: 800}, {Width: 390, Height: 844}} {
			if err := page.SetViewportSize(size.Width, size.Height); err != nil {
				t.Fatal(err)
			}
			screenCheck{page: page, part: part}.check(t, fmt.Sprintf("%d px: %s", size.Width, name))
		}
		if err := page.SetViewportSize(1280, 800); err != nil {
			t.Fatal(err)
		}
	}
	check := func(name string) { t.Helper(); checkParts(name, "") }
	// The tables of the pages of pools are wider than a phone: only their
	// actions and what the page says of them are checked there.
	const actions = ".toolbar, [data-testid=flash]"
	// The number pool's form, which this test does not lay out (it is
	// wider than a phone with its preview), is checked by axe-core alone.
	checkForm := func(name string) {
		t.Helper()
		if err := page.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: playwright.ColorSchemeLight}); err != nil {
			t.Fatal(err)
		}
		checkAccessibility(t, page, name+", light")
		if err := page.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: playwright.ColorSchemeDark}); err != nil {
			t.Fatal(err)
		}
		checkAxeRules(t, page, name+", dark", colourRules...)
	}

	// A public pool's Edit: the router of acme/prod/main holds
	// 203.0.113.4, which no gateway may cover.
	goTo(t, page, base, "/pools/public-zone-a")
	checkParts("a public pool's page", actions)
	followLink(t, page, "Edit public pool public-zone-a")
	expectURL(t, page, base, regexp.QuoteMeta("/pools/public-zone-a/edit"))
	check("a public pool's form")
	fill(t, page, "#pool-gateway", "203.0.113.4")
	pressButton(t, page, "Save public pool public-zone-a")
	waitForText(t, page, "error-gateway", "Public pool public-zone-a holds 1 address that gateway 203.0.113.4 would cover: 203.0.113.4 (VPC acme/prod/router); release it first, or leave it out")
	check("a public pool's form, refused")
	fill(t, page, "#pool-gateway", "203.0.113.1")
	fill(t, page, "#pool-exclude", "203.0.113.2\n203.0.113.3\n203.0.113.250-203.0.113.254")
	pressButton(t, page, "Save public pool public-zone-a")
	expectURL(t, page, base, regexp.QuoteMeta("/pools/public-zone-a"))
	waitForText(t, page, "flash", "Saved public pool public-zone-a: gateway 203.0.113.1; exclude 203.0.113.2, 203.0.113.3, 203.0.113.250-203.0.113.254; zone zone-a.")

	// Delete: refused while the pool holds the router's uplink; an
	// empty pool goes.
	pressButton(t, page, "Delete public pool public-zone-a")
	waitForText(t, page, "refusal", "public pool public-zone-a still holds 1 address; release it first")
	if countOf(t, page, testID("confirm")) != 0 {
		t.Error("the refused delete of public-zone-a offers its button")
	}
	check("a public pool's delete, refused")
	goTo(t, page, base, "/pools/spare")
	pressButton(t, page, "Delete public pool spare")
	waitForText(t, page, "consequence", "Deleting public pool spare (198.51.100.0/24 in zone zone-b) removes it for good: floating IPs and routers' uplinks are no longer claimed from it.")
	check("a public pool's delete")
	pressButton(t, page, "Delete public pool spare")
	expectURL(t, page, base, "/pools")
	waitForText(t, page, "flash", "Deleted public pool spare (198.51.100.0/24).")
	if countOf(t, page, testID("pool-spare")) != 0 {
		t.Error("the pools still list spare")
	}

	// A VLAN's Delete gives its number back; the site voice needs stays.
	goTo(t, page, base, "/objects/IpamVLAN")
	click(t, page, testID("object-label")+":text-is('users')")
	check("a VLAN's page")
	pressButton(t, page, "Delete IpamVLAN users")
	if got, err := page.Locator(testID("consequence")).AllTextContents(); err != nil || len(got) != 3 || got[1] != "Its numbers go back to their pools: vlan_id 100 (pool VLANs)." {
		t.Errorf("the VLAN's delete says %q (%v)", got, err)
	}
	check("a VLAN's delete")
	pressButton(t, page, "Delete IpamVLAN users")
	expectURL(t, page, base, "/objects/IpamVLAN")
	waitForText(t, page, "flash", "Deleted VLAN users on branch main.")
	if n, err := page.Locator(testID("object-table") + " tbody tr").Count(); err != nil || n != 1 {
		t.Errorf("IpamVLAN lists %d objects after the delete (%v), want voice alone", n, err)
	}
	goTo(t, page, base, "/objects/LocationSite")
	click(t, page, testID("object-label")+":text-is('site-a')")
	pressButton(t, page, "Delete LocationSite site-a")
	pressButton(t, page, "Delete LocationSite site-a")
	if got, err := page.Locator(testID("refusal")).TextContent(); err != nil || !strings.Contains(got, "IpamVLAN voice") {
		t.Errorf("the delete of the site voice needs says %q (%v)", got, err)
	}
	check("a site's delete, refused")

	// The number pool's Edit: a range that ends before it starts is
	// refused; a new name and a wider range are saved.
	goTo(t, page, base, "/resource-managers")
	click(t, page, "a:text-is('VLANs')")
	checkParts("a number pool's page", actions)
	followLink(t, page, "Edit number pool VLANs")
	checkForm("a number pool's form")
	fill(t, page, testID("range-start"), "200")
	click(t, page, testID("save-number-pool"))
	if err := page.Locator(testID("error-ranges") + ":not(:empty)").WaitFor(); err != nil {
		t.Fatalf("a range of 200 to 199 is not refused: %v", err)
	}
	checkForm("a number pool's form, refused")
	fill(t, page, "#pool-name", "VLAN IDs")
	fill(t, page, testID("range-start"), "100")
	fill(t, page, testID("range-end"), "299")
	click(t, page, testID("save-number-pool"))
	waitForText(t, page, "flash", "Saved number pool VLAN IDs.")

	// Its Delete says how many numbers it forgets.
	pressButton(t, page, "Delete number pool VLAN IDs")
	waitForText(t, page, "consequence", "Deleting number pool VLAN IDs forgets the 1 number it has allocated from IpamVLAN.vlan_id, on every branch; the objects keep their values, and no pool gives those numbers any more.")
	check("a number pool's delete")
	pressButton(t, page, "Delete number pool VLAN IDs")
	expectURL(t, page, base, "/resource-managers")
	waitForText(t, page, "flash", "Deleted number pool VLAN IDs; the objects keep their values.")
	checkParts("every pool, after a delete", actions)
}
