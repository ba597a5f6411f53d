package e2e

import (
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/auth"
)

// phoneInTheDark is a browser of a 390 px wide phone in dark mode, with
// JavaScript off: what the quota pages must work in.
var phoneInTheDark = playwright.BrowserNewContextOptions{
	Viewport:          &playwright.Size{Width: 390, Height: 844},
	ColorScheme:       playwright.ColorSchemeDark,
	JavaScriptEnabled: playwright.Bool(false),
}

// A phoneCheck checks pages of a phone without JavaScript: no element
// wider than the screen, and axe-core finds no violation of impact serious
// or critical. axe-core needs JavaScript: it runs on the page's document
// copied into a lens, a page of the same phone and origin with JavaScript.
type phoneCheck struct{ lens playwright.Page }

func newPhoneCheck(t *testing.T, srv server) phoneCheck {
	t.Helper()
	opts := phoneInTheDark
	opts.JavaScriptEnabled = playwright.Bool(true)
	lens := newPageWith(t, opts)
	if _, err := lens.Goto(srv.URL + "/healthz"); err != nil {
		t.Fatal(err)
	}
	return phoneCheck{lens}
}

// check checks page as it is now, with the axe-core rules given (every
// rule when none).
func (c phoneCheck) check(t *testing.T, page playwright.Page, name string, rules ...string) {
	t.Helper()
	overflow, err := page.Evaluate(`() => document.documentElement.scrollWidth - document.documentElement.clientWidth`)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := overflow.(int); !ok || n > 0 {
		t.Errorf("%s is %v px wider than a 390 px screen", name, overflow)
	}
	c.axe(t, page, name, rules...)
}

// axe runs axe-core on page's document as it is now, in the lens, with
// the rules given (every rule when none).
func (c phoneCheck) axe(t *testing.T, page playwright.Page, name string, rules ...string) {
	t.Helper()
	html, err := page.Content()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.lens.SetContent(html); err != nil {
		t.Fatal(err)
	}
	checkAxeRules(t, c.lens, name, rules...)
}

// TestOperatorSetsAQuota: on a phone in dark mode without JavaScript, the
// operator reaches the quotas from the navigation, has a limit refused
// beside its field, sets a quota with the keyboard, sees the tenant's
// claim past it refused on the VPC page, word for word, and unsets
// it after confirming.
func TestOperatorSetsAQuota(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	password := srv.addUser(t, "acme", auth.Tenant, "acme/*")
	phone := newPhoneCheck(t, srv)
	page := newPageWith(t, phoneInTheDark)
	signIn(t, page, srv.URL, "admin", srv.AdminPassword)
	// On a phone the sections are in the header's menu.
	click(t, page, testID("menu-button"))
	if err := page.GetByRole("navigation", playwright.PageGetByRoleOptions{Name: "Sections"}).GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Quotas"}).Click(); err != nil {
		t.Fatal(err)
	}
	waitForText(t, page, "page-title", "Quotas")
	waitForText(t, page, "no-quotas", "No quota is set: every namespace may hold as much as the pools give.")
	phone.check(t, page, "/quotas")

	fill(t, page, "#quota-pattern", "acme/*")
	fill(t, page, "#quota-floating_ips", "none")
	click(t, page, "[data-testid=set-quota]")
	waitForText(t, page, "error-floating_ips", "Floating IPs: give a whole number from 0, or nothing for no limit")
	phone.check(t, page, "/quotas, refused")

	fill(t, page, "#quota-floating_ips", "0")
	fill(t, page, "#quota-vpcs", "2")
	if err := page.Locator("#quota-vpcs").Press("Enter"); err != nil {
		t.Fatal(err)
	}
	waitForText(t, page, "flash", "Set the quota of acme/*: each namespace it matches may hold 2 VPCs and 0 floating IPs.")
	row := `[data-testid="quota-row-acme/*"]`
	if text, err := page.Locator(row + " [data-testid=limit-vpcs]").TextContent(); err != nil || strings.Join(strings.Fields(text), " ") != "2 most held 1" {
		t.Errorf("acme/*'s VPCs read %q (%v)", text, err)
	}
	phone.check(t, page, "/quotas, set")
	screenshot(t, page, "quotas-phone-dark-set")

	tenant := newPageWith(t, phoneInTheDark)
	signIn(t, tenant, srv.URL, "acme", password)
	if _, err := tenant.Goto(srv.URL + "/vpcs/acme/prod/main"); err != nil {
		t.Fatal(err)
	}
	fill(t, tenant, "#fip-name", "api")
	click(t, tenant, "[data-testid=submit-claim-floating-ip]")
	waitForText(t, tenant, "claim-error", "namespace acme/prod has reached its quota of 0 floating IPs (set for acme/*)")
	// The VPC page is wider than a phone already (its figures); its
	// refusal is checked by axe-core.
	phone.axe(t, tenant, "/vpcs/acme/prod/main, refused by the quota")

	click(t, page, row+" [data-testid=unset-quota]")
	waitForText(t, page, "page-title", "Unset the quota of acme/*")
	phone.check(t, page, "/quotas/unset")
	click(t, page, "[data-testid=confirm-unset]")
	waitForText(t, page, "flash", "Unset the quota of acme/*, which allowed 2 VPCs and 0 floating IPs.")
	if n, err := page.Locator(row).Count(); err != nil || n != 0 {
		t.Errorf("acme/*'s row is still listed (%d, %v)", n, err)
	}
	screenshot(t, page, "quotas-phone-dark-unset")
}
