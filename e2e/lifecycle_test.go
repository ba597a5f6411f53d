package e2e

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/auth"
)

// A screenCheck checks the pages of one browser as they are now, in light
// and in dark: no wider than its screen, and no violation of impact
// serious or critical that axe-core finds. A browser without JavaScript
// has its document checked by axe-core in a lens (see phoneCheck).
type screenCheck struct {
	page playwright.Page
	lens *phoneCheck
}

func (c screenCheck) check(t *testing.T, name string) {
	t.Helper()
	for _, scheme := range []*playwright.ColorScheme{playwright.ColorSchemeLight, playwright.ColorSchemeDark} {
		if err := c.page.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: scheme}); err != nil {
			t.Fatal(err)
		}
		label := name + ", " + string(*scheme)
		if c.lens == nil {
			overflow, err := c.page.Evaluate(`() => document.documentElement.scrollWidth - document.documentElement.clientWidth`)
			if err != nil {
				t.Fatal(err)
			}
			if n, ok := overflow.(int); !ok || n > 0 {
				t.Errorf("%s is %v px wider than the screen", label, overflow)
			}
			checkAccessibility(t, c.page, label)
			continue
		}
		if err := c.lens.lens.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: scheme}); err != nil {
			t.Fatal(err)
		}
		c.lens.check(t, c.page, label)
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

// testIDOf is the selector of the elements whose data-testid is id.
func testIDOf(id string) string { return fmt.Sprintf("[data-testid=%q]", id) }

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

// tenantsDay is a tenant's day on the VPC page of acme/prod/main (seeded
// by seed): attach a VM's interface and see it in the list, detach it;
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
	click(t, page, testIDOf("submit-attach-interface"))
	waitForText(t, page, "claimed-address", "10.42.1.5")
	row := testIDOf("address-10.42.1.5")
	if owner, err := page.Locator(row + " " + testIDOf("owner-name")).TextContent(); err != nil || owner != "web-09/0" {
		t.Fatalf("the list of interfaces shows 10.42.1.5 held by %q (%v), want web-09/0", owner, err)
	}
	check("the VPC page after an attach")

	// Detach it: the confirmation says what goes.
	pressButton(t, page, "Detach web-09/0")
	expectURL(t, page, base, regexp.QuoteMeta(vpc)+`\?.*confirm=detach.*`)
	if got, err := page.Locator(testIDOf("consequence")).TextContent(); err != nil || !regexp.MustCompile(`^Detaching web-09/0 from subnet web releases 10\.42\.1\.5, which it has held since \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$`).MatchString(got) {
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
	click(t, page, testIDOf("submit-claim-floating-ip"))
	waitForText(t, page, "claimed-address", "203.0.113.5")
	if countOf(t, page, testIDOf("floating-ip-www")) != 1 {
		t.Fatal("the page does not list floating IP www")
	}
	pressButton(t, page, "Release floating IP www")
	waitForText(t, page, "consequence", "Releasing floating IP www frees 203.0.113.5 in public pool public-zone-a.")
	check("the release's confirmation")
	pressButton(t, page, "Release floating IP www")
	expectURL(t, page, base, regexp.QuoteMeta(vpc))
	waitForText(t, page, "flash", "Floating IP www released; 203.0.113.5 is free again.")
	if countOf(t, page, testIDOf("floating-ip-www")) != 0 {
		t.Error("floating IP www is still listed after its release")
	}

	// Subnet web holds the seed's three interfaces: its delete is refused
	// in the confirmation, with their count, and offers no button.
	pressButton(t, page, "Delete subnet web")
	waitForText(t, page, "refusal", "subnet web of VPC acme/prod/main still has 3 VM interfaces; detach them first")
	if countOf(t, page, testIDOf("confirm")) != 0 {
		t.Error("the refused delete of subnet web offers its button")
	}
	check("the refused delete of a subnet")
	click(t, page, testIDOf("cancel"))
	expectURL(t, page, base, regexp.QuoteMeta(vpc))

	// Create subnet db and delete it.
	fill(t, page, "#subnet-name", "db")
	fill(t, page, "#subnet-cidr", "10.42.2.0/24")
	click(t, page, testIDOf("submit-create-subnet"))
	waitForText(t, page, "claimed-address", "10.42.2.0/24")
	pressButton(t, page, "Delete subnet db")
	waitForText(t, page, "consequence", "Deleting subnet db releases no address.")
	check("the delete's confirmation")
	pressButton(t, page, "Delete subnet db")
	expectURL(t, page, base, regexp.QuoteMeta(vpc))
	waitForText(t, page, "flash", "Subnet db deleted; no address released.")
	if countOf(t, page, testIDOf("subnet-db")) != 0 {
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
