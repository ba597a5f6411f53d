package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
)

// TestDualStackFormsPreviewIPv6: at 390 × 844 in dark mode, axe-clean,
// the subnet form of a dual-stack VPC predicts the next IPv6 prefix in
// the browser, without a request, and the answer says the server gave it;
// the attach form of a VPC of stable opaque addresses computes in the
// browser the interface's own address, the one the server computes (Go's
// candidates with the VPC's key) and then gives. Without JavaScript both
// forms say their IPv6 prediction as the server draws it, and work.
func TestDualStackFormsPreviewIPv6(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	seedDualStack(t, srv)
	ctx := context.Background()
	_, svc := services(t, srv)
	dark, err := svc.CreateVPC(ctx, auth.System, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "dark", CIDR: "10.60.0.0/16", IPv6CIDR: "fd12:3456:789b::/48", IPv6Addressing: "STABLE_OPAQUE"})
	if err != nil {
		t.Fatal(err)
	}
	web, err := svc.CreateSubnet(ctx, auth.System, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "dark", Name: "web", CIDR: "10.60.1.0/24"})
	if err != nil {
		t.Fatal(err)
	}
	password := srv.addUser(t, "acme", auth.Tenant, "acme/*")
	size := playwright.Size{Width: 390, Height: 844}
	page := newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &size, ColorScheme: playwright.ColorSchemeDark})
	signIn(t, page, srv.URL, "acme", password)

	// The subnet form: web holds fd12:3456:789a::/64 and db
	// fd12:3456:789a:101::/64, so the next /64 is fd12:3456:789a:1::/64
	// and the next /56 fd12:3456:789a:200::/56.
	goTo(t, page, srv.URL, "/vpcs/acme/prod/edge")
	subnet := page.Locator("[data-testid=form-create-subnet][data-ready=true]")
	if err := subnet.WaitFor(); err != nil {
		t.Fatalf("the VPC page's script did not start: %v", err)
	}
	waitForTextIn(t, subnet, "predicted-subnet-ipv6", "fd12:3456:789a:1::/64")
	waitForTextIn(t, subnet, "prediction-ipv6-detail", "with gateway fd12:3456:789a:1::1")
	requests := watchRequests(page)
	if _, err := page.Locator("#subnet-ipv6-size").SelectOption(playwright.SelectOptionValues{Values: &[]string{"56"}}); err != nil {
		t.Fatal(err)
	}
	waitForTextIn(t, subnet, "predicted-subnet-ipv6", "fd12:3456:789a:200::/56")
	fill(t, page, "#subnet-ipv6-cidr", "FD12:3456:789a:7::/64")
	waitForTextIn(t, subnet, "prediction-error", "IPv6 CIDR FD12:3456:789a:7::/64 is not in canonical form; did you mean fd12:3456:789a:7::/64?")
	fill(t, page, "#subnet-ipv6-cidr", "")
	fill(t, page, "#subnet-name", "cache")
	chooseSize(t, page, "24")
	waitForTextIn(t, subnet, "predicted-subnet", "10.50.0.0/24")
	waitForTextIn(t, subnet, "predicted-subnet-ipv6", "fd12:3456:789a:200::/56")
	if got := requests(); len(got) != 0 {
		t.Errorf("typing into the subnet form made requests: %v", got)
	}
	checkAccessibility(t, page, "the subnet form predicting an IPv6 prefix")
	checkAddressesFit(t, page, "the subnet form predicting an IPv6 prefix")
	screenshot(t, page, "dual-stack-subnet-form-390-dark")
	click(t, page, "[data-testid=submit-create-subnet]")
	waitForText(t, page, "claimed-address-ipv6", "fd12:3456:789a:200::/56")
	if n, _ := page.Locator("[data-testid=claim-as-predicted-ipv6]").Count(); n != 1 {
		t.Error("the page does not say the subnet got the predicted IPv6 prefix")
	}

	// The attach form of the VPC of stable opaque addresses: nothing
	// predicted of IPv6 before a hostname, then the interface's own.
	key, err := svc.OpaqueKey(ctx, auth.System, dark)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := candidates.ParseClaims(candidates.ClaimsSpec{Namespace: "acme/prod", VPC: "dark",
		Pool:           candidates.ClaimPool{Name: "vpc-dark", PoolSpec: candidates.PoolSpec{CIDR: dark.CIDR.String()}},
		PoolV6:         &candidates.ClaimPool{Name: "vpc-dark-v6", PoolSpec: candidates.PoolSpec{CIDR: dark.IPv6CIDR.String()}},
		IPv6Addressing: candidates.StableOpaque, OpaqueKey: key,
		Subnets: []candidates.ClaimSubnet{{Name: "web", CIDR: web.CIDR.String(), Gateway: web.Gateway.String(), IPv6CIDR: web.IPv6CIDR.String(), IPv6Gateway: web.IPv6Gateway.String()}},
	})
	if err != nil {
		t.Fatal(err)
	}
	goTo(t, page, srv.URL, "/vpcs/acme/prod/dark")
	attach := page.Locator("[data-testid=form-attach-interface][data-ready=true]")
	if err := attach.WaitFor(); err != nil {
		t.Fatalf("the VPC page's script did not start: %v", err)
	}
	waitForTextIn(t, attach, "predicted-address", "10.60.1.2")
	waitForTextIn(t, attach, "predicted-address-ipv6", "")
	waitForTextIn(t, attach, "prediction-ipv6-detail", "once the VM's hostname is typed: its address derives from it")
	requests = watchRequests(page)
	for _, c := range []struct {
		hostname string
		nic      int
	}{{"web-01", 0}, {"web-01", 1}, {"db-07", 0}} {
		fill(t, page, "#attach-hostname", c.hostname)
		fill(t, page, "#attach-nic", strconv.Itoa(c.nic))
		want, err := claims.InterfaceV6("web", ipam.ConsoleVM("acme/prod", "dark", c.hostname).UID, c.nic)
		if err != nil {
			t.Fatal(err)
		}
		waitForTextIn(t, attach, "predicted-address-ipv6", want.String())
		waitForTextIn(t, attach, "prediction-ipv6-detail", "")
	}
	if got := requests(); len(got) != 0 {
		t.Errorf("typing into the attach form made requests: %v", got)
	}
	checkAccessibility(t, page, "the attach form predicting a stable opaque address")
	checkAddressesFit(t, page, "the attach form predicting a stable opaque address")
	screenshot(t, page, "stable-opaque-attach-390-dark")
	predicted, err := attach.Locator("[data-testid=predicted-address-ipv6]").TextContent()
	if err != nil {
		t.Fatal(err)
	}
	click(t, page, "[data-testid=submit-attach-interface]")
	waitForText(t, page, "claimed-address-ipv6", predicted)
	if n, _ := page.Locator("[data-testid=claim-as-predicted-ipv6]").Count(); n != 1 {
		t.Error("the page does not say the interface got the predicted opaque address")
	}

	// Without JavaScript: the server draws both IPv6 predictions, and the
	// forms post.
	plain := newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &size, ColorScheme: playwright.ColorSchemeDark, JavaScriptEnabled: playwright.Bool(false)})
	signIn(t, plain, srv.URL, "acme", password)
	goTo(t, plain, srv.URL, "/vpcs/acme/prod/edge")
	waitForText(t, plain, "predicted-subnet-ipv6", "fd12:3456:789a:1::/64")
	fill(t, plain, "#subnet-name", "queue")
	if _, err := plain.Locator("#subnet-size").SelectOption(playwright.SelectOptionValues{Values: &[]string{"24"}}); err != nil {
		t.Fatal(err)
	}
	click(t, plain, "[data-testid=submit-create-subnet]")
	waitForText(t, plain, "claimed-address-ipv6", "fd12:3456:789a:1::/64")
	if n, _ := plain.Locator("[data-testid=claim-as-predicted-ipv6]").Count(); n != 1 {
		t.Error("without JavaScript, the page does not say the subnet got the IPv6 prefix it drew")
	}

	// The new-VPC form: a refusal by its field (axe needs the page's
	// JavaScript), then, without JavaScript, from the VPC list, a
	// dual-stack VPC of stable opaque addresses.
	goTo(t, page, srv.URL, "/vpcs/new")
	fill(t, page, "#vpc-namespace", "acme/prod")
	fill(t, page, "#vpc-name", "mesh")
	fill(t, page, "#vpc-cidr", "10.70.0.0/16")
	fill(t, page, "#vpc-ipv6Cidr", "fd12:3456:789c::/48")
	fill(t, page, "#vpc-ipv6PrefixLength", "56")
	click(t, page, "[data-testid=create-vpc]")
	waitForText(t, page, "error-ipv6Cidr", "IPv6 CIDR and ipv6PrefixLength both name the VPC's IPv6 prefix: give one of them")
	checkAccessibility(t, page, "the new-VPC form, refused")
	checkAddressesFit(t, page, "the new-VPC form, refused")
	goTo(t, plain, srv.URL, "/vpcs")
	click(t, plain, "[data-testid=new-vpc]")
	waitForText(t, plain, "create-vpc", "Create VPC")
	fill(t, plain, "#vpc-namespace", "acme/prod")
	fill(t, plain, "#vpc-name", "mesh")
	fill(t, plain, "#vpc-cidr", "10.70.0.0/16")
	fill(t, plain, "#vpc-ipv6Cidr", "fd12:3456:789c::/48")
	if _, err := plain.Locator("#vpc-ipv6Addressing").SelectOption(playwright.SelectOptionValues{Values: &[]string{"STABLE_OPAQUE"}}); err != nil {
		t.Fatal(err)
	}
	click(t, plain, "[data-testid=create-vpc]")
	waitForText(t, plain, "flash", "Created VPC mesh.")
	waitForText(t, plain, "vpc-ipv6-addressing", "stable opaque addresses")
	if got, _ := plain.Locator("[data-testid=vpc-ipv6-cidr] .mono").TextContent(); got != "fd12:3456:789c::/48" {
		t.Errorf("the created VPC's IPv6 prefix reads %q, want fd12:3456:789c::/48", got)
	}
	if u := plain.URL(); !strings.HasSuffix(u, "/vpcs/acme/prod/mesh") {
		t.Errorf("the created VPC's page is %s, want /vpcs/acme/prod/mesh", u)
	}
}
