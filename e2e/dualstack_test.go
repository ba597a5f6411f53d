package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
)

// seedDualStack adds a dual-stack VPC acme/prod/edge: 10.50.0.0/16 and the
// ULA fd12:3456:789a::/48, its subnets web (10.50.1.0/24, the lowest free
// /64 fd12:3456:789a::/64) and db (10.50.2.0/24, fd12:3456:789a:101::/64),
// and two interfaces in web.
func seedDualStack(t *testing.T, srv server) {
	t.Helper()
	ctx := context.Background()
	_, svc := services(t, srv)
	if _, err := svc.CreateVPC(ctx, auth.System, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "edge", CIDR: "10.50.0.0/16", IPv6CIDR: "fd12:3456:789a::/48"}); err != nil {
		t.Fatal(err)
	}
	for _, in := range []ipam.CreateSubnetInput{
		{Namespace: "acme/prod", VPC: "edge", Name: "web", CIDR: "10.50.1.0/24"},
		{Namespace: "acme/prod", VPC: "edge", Name: "db", CIDR: "10.50.2.0/24", IPv6CIDR: "fd12:3456:789a:101::/64"},
	} {
		if _, err := svc.CreateSubnet(ctx, auth.System, in); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		if _, err := svc.AttachNic(ctx, auth.System, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "edge", Subnet: "web",
			VM: ipam.VMRef{UID: fmt.Sprint("edge-vm-", i), Hostname: fmt.Sprintf("edge-%02d", i+1)}}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDualStackConsole walks the dual-stack VPC at 390 × 844 in dark mode
// and at 1280 × 800: the IPv6 map zoomed two levels (the /48's /56s, a
// /56's /64s, a subnet's page), an attach whose form previews both
// addresses in the browser and whose answer says which the server gave;
// every page axe-clean with no address cut off.
func TestDualStackConsole(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	seedDualStack(t, srv)
	password := srv.addUser(t, "acme", auth.Tenant, "acme/*")
	for _, c := range []struct {
		size   playwright.Size
		scheme *playwright.ColorScheme
	}{{playwright.Size{Width: 390, Height: 844}, playwright.ColorSchemeDark}, {playwright.Size{Width: 1280, Height: 800}, playwright.ColorSchemeLight}} {
		name := fmt.Sprintf("%d×%d %s", c.size.Width, c.size.Height, *c.scheme)
		page := newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &c.size, ColorScheme: c.scheme})
		signIn(t, page, srv.URL, "acme", password)
		check := func(what string) {
			t.Helper()
			checkAccessibility(t, page, name+", "+what)
			checkAddressesFit(t, page, name+", "+what)
			if width, err := page.Evaluate(`() => document.documentElement.scrollWidth`); err != nil || toFloat(width) > float64(c.size.Width) {
				t.Errorf("%s, %s: %v px wide (%v), want at most %d", name, what, width, err, c.size.Width)
			}
		}

		goTo(t, page, srv.URL, "/vpcs/acme/prod/edge")
		attach := page.Locator("[data-testid=form-attach-interface][data-ready=true]")
		if err := attach.WaitFor(); err != nil {
			t.Fatalf("%s: the VPC page's script did not start: %v", name, err)
		}
		waitForText(t, page, "vpc-ipv6-cidr", "fd12:3456:789a::/48")
		// Both addresses, predicted in the browser: web's next ones, then
		// db's when the subnet changes.
		want4, want6 := "10.50.1.4", "fd12:3456:789a::4"
		if c.scheme == playwright.ColorSchemeLight {
			want4, want6 = "10.50.1.5", "fd12:3456:789a::5"
		}
		waitForTextIn(t, attach, "predicted-address", want4)
		waitForTextIn(t, attach, "predicted-address-ipv6", want6)
		requests := watchRequests(page)
		if _, err := page.Locator("#attach-subnet").SelectOption(playwright.SelectOptionValues{Values: &[]string{"db"}}); err != nil {
			t.Fatal(err)
		}
		waitForTextIn(t, attach, "predicted-address", "10.50.2.2")
		waitForTextIn(t, attach, "predicted-address-ipv6", "fd12:3456:789a:101::2")
		if got := requests(); len(got) != 0 {
			t.Errorf("%s: choosing a subnet made requests: %v", name, got)
		}
		if _, err := page.Locator("#attach-subnet").SelectOption(playwright.SelectOptionValues{Values: &[]string{"web"}}); err != nil {
			t.Fatal(err)
		}
		waitForTextIn(t, attach, "predicted-address-ipv6", want6)
		check("the VPC page")
		screenshot(t, page, fmt.Sprintf("dual-stack-vpc-%d-%s", c.size.Width, *c.scheme))

		fill(t, page, "#attach-hostname", fmt.Sprintf("edge-%d", c.size.Width))
		click(t, page, "[data-testid=submit-attach-interface]")
		waitForText(t, page, "claimed-address", want4)
		waitForText(t, page, "claimed-address-ipv6", want6)
		if n, _ := page.Locator("[data-testid=claim-as-predicted-ipv6]").Count(); n != 1 {
			t.Errorf("%s: the page does not say the IPv6 address is the one predicted", name)
		}
		check("the VPC page after the attach")

		// The map zoomed two levels: the /56 of db, then db's /64.
		click(t, page, `[data-testid=vpc-ipv6-map] a[data-block="fd12:3456:789a:100::/56"]`)
		waitForText(t, page, "zoom-scope", "fd12:3456:789a:100::/56")
		if n, err := page.Locator("[data-testid=address-map] a").Count(); err != nil || n != 256 {
			t.Errorf("%s: the /56 has %d cells (%v), want 256 /64s", name, n, err)
		}
		check("the /56")
		click(t, page, `[data-testid=address-map] a[data-block="fd12:3456:789a:101::/64"]`)
		if err := page.WaitForURL(srv.URL + "/subnets/acme/prod/edge/db"); err != nil {
			t.Fatalf("%s: the /64 of db leads to %s: %v", name, page.URL(), err)
		}
		check("the subnet db")
	}
}

// waitForTextIn waits until the element testid in scope says want.
func waitForTextIn(t *testing.T, scope playwright.Locator, testid, want string) {
	t.Helper()
	loc := scope.Locator(fmt.Sprintf("[data-testid=%q]", testid))
	if err := playwright.NewPlaywrightAssertions(patience).Locator(loc).ToHaveText(want); err != nil {
		got, _ := loc.TextContent()
		t.Fatalf("[data-testid=%s] = %q, want %q", testid, got, want)
	}
}
