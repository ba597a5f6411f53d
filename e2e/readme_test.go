package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/pgtest"
)

// TestReadmeTour walks the tour of README.md on make run's example
// (ipam serve --demo) and draws the README's screenshots into
// e2e/screenshots/readme-*.png, which docs/ holds (copy them there after a
// change of the console): the operator's dashboard with the subnet gpu
// filling first, a tenant's VPC with what its forms will get, the number
// pool scoped by site at its division site-a, the branch add-guest-vlans
// with what it changed, the audit log in dark mode, a tenant's VPC on a
// phone, and a dual-stack VPC with what its attach form will get of each
// family.
func TestReadmeTour(t *testing.T) {
	srv := startServerArgs(t, pgtest.NewURL(t), "--demo")
	base := srv.URL
	admin := newPage(t)
	signIn(t, admin, base, "admin", srv.AdminPassword)

	first, err := admin.Locator(testID("exhaustion") + " tbody tr").First().GetAttribute("data-testid")
	if err != nil || first != "exhaustion-acme/prod/main/gpu" {
		t.Errorf("the dashboard's first row is %q (%v), want the subnet gpu", first, err)
	}
	readmeShot(t, admin, "dashboard")

	goTo(t, admin, base, "/resource-managers")
	click(t, admin, testID("number-pool-VLAN IDs per site")+" a")
	click(t, admin, testID("division-site-a")+" "+testID("open-division"))
	waitForText(t, admin, "allocation-scope-current", "site-a")
	readmeShot(t, admin, "numbers")

	goTo(t, admin, base, "/branches/add-guest-vlans")
	waitForText(t, admin, "count-added", "1 added")
	readmeShot(t, admin, "branch")

	dark := newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1280, Height: 800}, ColorScheme: playwright.ColorSchemeDark})
	signIn(t, dark, base, "admin", srv.AdminPassword)
	goTo(t, dark, base, "/audit")
	if err := dark.Locator(testID("audit-sentence")).First().WaitFor(); err != nil {
		t.Fatalf("the audit log lists no change: %v", err)
	}
	readmeShot(t, dark, "audit-dark")

	tenant := newPage(t)
	signIn(t, tenant, base, "acme", srv.Passwords["acme"])
	goTo(t, tenant, base, "/vpcs/acme/prod/main")
	if err := tenant.Locator("[data-testid=form-attach-interface][data-ready=true]").WaitFor(); err != nil {
		t.Fatalf("the VPC page's script did not start: %v", err)
	}
	if got, err := tenant.Locator("[data-testid=form-attach-interface] [data-testid=prediction]").InnerText(); err != nil || got != "Will get 10.42.1.20" {
		t.Errorf("the attach form reads %q (%v), want what the next interface of web will get", got, err)
	}
	readmeShot(t, tenant, "vpc")

	phone := newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 390, Height: 844}})
	signIn(t, phone, base, "acme", srv.Passwords["acme"])
	goTo(t, phone, base, "/vpcs/acme/prod/main")
	if width, err := phone.Evaluate(`() => document.documentElement.scrollWidth`); err != nil || width.(int) > 390 {
		t.Errorf("the VPC page is %v px wide on a phone (%v), want at most 390", width, err)
	}
	readmeShot(t, phone, "phone")

	// A dual-stack VPC: both prefixes, each subnet's two, its IPv6 map,
	// and the attach form predicting both addresses.
	seedDualStack(t, srv)
	goTo(t, tenant, base, "/vpcs/acme/prod/edge")
	attach := tenant.Locator("[data-testid=form-attach-interface][data-ready=true]")
	if err := attach.WaitFor(); err != nil {
		t.Fatalf("the dual-stack VPC page's script did not start: %v", err)
	}
	waitForTextIn(t, attach, "predicted-address-ipv6", "fd12:3456:789a::4")
	readmeShot(t, tenant, "dual-stack")
}

// readmeShot saves what the page's screen shows (not the whole page: the
// README's images stay small) as e2e/screenshots/readme-<name>.png.
func readmeShot(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	if err := os.MkdirAll("screenshots", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join("screenshots", "readme-"+name+".png"))}); err != nil {
		t.Errorf("screenshot %s: %v", name, err)
	}
}
