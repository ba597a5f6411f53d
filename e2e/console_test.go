package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
)

// seed fills the server's database as automation would: a public pool in
// zone-a, tenant acme's VPC main with subnet web and a few VMs, tenant
// globex's VPC lab.
func seed(t *testing.T, srv server) {
	t.Helper()
	ctx := context.Background()
	_, svc := services(t, srv)
	op := auth.System
	steps := []func() error{
		func() error {
			_, err := svc.CreatePublicPool(ctx, op, ipam.CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Exclude: []string{"203.0.113.2", "203.0.113.3"}, Zone: "zone-a"})
			return err
		},
		func() error {
			_, err := svc.CreateVPC(ctx, op, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"})
			return err
		},
		func() error {
			_, err := svc.CreateSubnet(ctx, op, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"})
			return err
		},
		func() error {
			_, err := svc.CreateVPC(ctx, op, ipam.CreateVPCInput{Namespace: "globex/dev", Name: "lab", CIDR: "172.20.0.0/20"})
			return err
		},
	}
	for i := range 3 {
		steps = append(steps, func() error {
			_, err := svc.AttachInterface(ctx, op, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web",
				VM: ipam.VMRef{UID: fmt.Sprint("vm-", i), Hostname: fmt.Sprintf("web-%02d", i+1)}})
			return err
		})
	}
	for _, step := range steps {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
}

// watchRequests records the requests a page makes.
func watchRequests(page playwright.Page) func() []string {
	var mu sync.Mutex
	var requests []string
	page.OnRequest(func(r playwright.Request) {
		mu.Lock()
		defer mu.Unlock()
		requests = append(requests, r.Method()+" "+r.URL())
	})
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), requests...)
	}
}

func fill(t *testing.T, page playwright.Page, selector, value string) {
	t.Helper()
	if err := page.Locator(selector).Fill(value); err != nil {
		t.Fatalf("fill %s: %v", selector, err)
	}
}

func click(t *testing.T, page playwright.Page, selector string) {
	t.Helper()
	if err := page.Locator(selector).Click(); err != nil {
		t.Fatalf("click %s: %v", selector, err)
	}
}

func TestOperatorCreatesAPublicPool(t *testing.T) {
	srv := startServer(t)
	page := newPage(t)
	signIn(t, page, srv.URL, "admin", srv.AdminPassword)
	if _, err := page.Goto(srv.URL + "/pools/new"); err != nil {
		t.Fatal(err)
	}
	if err := page.Locator("[data-preview][data-ready=true]").WaitFor(); err != nil {
		t.Fatalf("the preview did not start: %v", err)
	}
	requests := watchRequests(page)
	fill(t, page, "#pool-cidr", "10.0.0.5/24")
	waitForText(t, page, "error-cidr", "CIDR 10.0.0.5/24 has host bits set; did you mean 10.0.0.0/24?")
	fill(t, page, "#pool-cidr", "198.51.100.0/24")
	fill(t, page, "#pool-gateway", "198.51.100.1")
	fill(t, page, "#pool-exclude", "198.51.100.2-198.51.100.9\n198.51.100.254")
	waitForText(t, page, "error-cidr", "")
	waitForText(t, page, "preview-count", "244")
	waitForText(t, page, "preview-first", "198.51.100.10")
	waitForText(t, page, "preview-last", "198.51.100.253")
	if n, err := page.Locator("[data-testid=address-map] .s-x").Count(); err != nil || n != 9 {
		t.Errorf("the map marks %d excluded addresses (%v), want 9", n, err)
	}
	if got := requests(); len(got) != 0 {
		t.Errorf("typing made requests to the server: %s", strings.Join(got, ", "))
	}
	screenshot(t, page, "pool-new")

	fill(t, page, "#pool-name", "public-zone-b")
	fill(t, page, "#pool-zone", "zone-b")
	click(t, page, "[data-testid=create-pool]")
	if err := page.WaitForURL(srv.URL + "/pools/public-zone-b"); err != nil {
		t.Fatalf("after creating, the page is %s: %v", page.URL(), err)
	}
	waitForText(t, page, "pool-cidr", "198.51.100.0/24")
	screenshot(t, page, "pool")

	if _, err := page.Goto(srv.URL + "/pools"); err != nil {
		t.Fatal(err)
	}
	waitForText(t, page, "usage-public-zone-b", "0 / 244")

	// The server validates again: an overlapping pool is refused next to
	// its field.
	if _, err := page.Goto(srv.URL + "/pools/new"); err != nil {
		t.Fatal(err)
	}
	fill(t, page, "#pool-name", "overlapping")
	fill(t, page, "#pool-cidr", "198.51.100.128/25")
	click(t, page, "[data-testid=create-pool]")
	waitForText(t, page, "error-cidr", "CIDR 198.51.100.128/25 overlaps public pool public-zone-b (198.51.100.0/24)")
}

func TestTenantClaimsWhatThePagePredicted(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	password := srv.addUser(t, "acme", auth.Tenant, "acme/*")
	page := newPage(t)
	signIn(t, page, srv.URL, "acme", password)

	if _, err := page.Goto(srv.URL + "/vpcs"); err != nil {
		t.Fatal(err)
	}
	rows, err := page.Locator("[data-testid=vpcs] tbody tr").AllTextContents()
	if err != nil || len(rows) != 1 || !strings.Contains(rows[0], "main") {
		t.Fatalf("acme sees VPC rows %q (%v), want only main", rows, err)
	}
	click(t, page, "[data-testid=vpcs] a")
	if err := page.WaitForURL(srv.URL + "/vpcs/acme/prod/main"); err != nil {
		t.Fatal(err)
	}
	waitForText(t, page, "router", "203.0.113.4 from public-zone-a in zone-a")
	waitForText(t, page, "default-route", "203.0.113.1")
	if n, _ := page.Locator("[data-testid=subnet-web] [data-state=taken]").Count(); n != 3 {
		t.Errorf("subnet web shows %d taken addresses, want 3", n)
	}
	fip := page.Locator("[data-testid=form-claim-floating-ip]")
	if err := fip.Locator("[data-testid=predicted-address]:text('203.0.113.5')").WaitFor(); err != nil {
		t.Fatalf("the floating IP form does not predict 203.0.113.5: %v", err)
	}
	attach := page.Locator("[data-testid=form-attach-interface]")
	if err := attach.Locator("[data-testid=predicted-address]:text('10.42.1.5')").WaitFor(); err != nil {
		t.Fatalf("the attach form does not predict 10.42.1.5: %v", err)
	}
	screenshot(t, page, "vpc")

	// Claim what the page predicted.
	fill(t, page, "#fip-name", "www")
	click(t, page, "[data-testid=submit-claim-floating-ip]")
	waitForText(t, page, "claimed-address", "203.0.113.5")
	if n, _ := page.Locator("[data-testid=claim-as-predicted]").Count(); n != 1 {
		t.Error("the page does not say the claim got the predicted address")
	}

	// The page now predicts .6; another browser claims it first.
	if err := fip.Locator("[data-testid=predicted-address]:text('203.0.113.6')").WaitFor(); err != nil {
		t.Fatalf("after the claim the form does not predict 203.0.113.6: %v", err)
	}
	other := newPage(t)
	signIn(t, other, srv.URL, "acme", password)
	if _, err := other.Goto(srv.URL + "/vpcs/acme/prod/main"); err != nil {
		t.Fatal(err)
	}
	fill(t, other, "#fip-name", "api")
	click(t, other, "[data-testid=submit-claim-floating-ip]")
	waitForText(t, other, "claimed-address", "203.0.113.6")

	fill(t, page, "#fip-name", "mail")
	click(t, page, "[data-testid=submit-claim-floating-ip]")
	waitForText(t, page, "claimed-address", "203.0.113.7")
	differs, err := page.Locator("[data-testid=claim-differs]").TextContent()
	if err != nil || !strings.Contains(differs, "predicted 203.0.113.6") || !strings.Contains(differs, "someone else claimed it first") {
		t.Errorf("the page says %q (%v), want that 203.0.113.6 was claimed by someone else first", differs, err)
	}

	// Attach a VM interface where the page predicted.
	fill(t, page, "#attach-hostname", "web-09")
	click(t, page, "[data-testid=submit-attach-interface]")
	waitForText(t, page, "claimed-address", "10.42.1.5")

	// The answer was a redirect: reloading the page claims nothing again,
	// and says no more what the claim got.
	if _, err := page.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := attach.Locator("[data-testid=predicted-address]:text('10.42.1.6')").WaitFor(); err != nil {
		t.Fatalf("after reloading, the attach form does not predict 10.42.1.6: %v", err)
	}
	if n, _ := page.Locator("[data-testid=claim-result]").Count(); n != 0 {
		t.Error("the reloaded page says again what the claim got")
	}
	if n, _ := page.Locator("[data-testid=subnet-web] [data-state=taken]").Count(); n != 4 {
		t.Errorf("after reloading, subnet web shows %d taken addresses, want 4", n)
	}
}

// chooseSize picks a subnet size in the page's create-subnet form.
func chooseSize(t *testing.T, page playwright.Page, bits string) {
	t.Helper()
	if _, err := page.Locator("#subnet-size").SelectOption(playwright.SelectOptionValues{Values: &[]string{bits}}); err != nil {
		t.Fatalf("choosing the subnet size /%s: %v", bits, err)
	}
}

func TestTenantCreatesASubnetBySize(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	password := srv.addUser(t, "acme", auth.Tenant, "acme/*")
	page := newPage(t)
	signIn(t, page, srv.URL, "acme", password)
	if _, err := page.Goto(srv.URL + "/vpcs/acme/prod/main"); err != nil {
		t.Fatal(err)
	}
	form := page.Locator("[data-testid=form-create-subnet]")
	if err := page.Locator("[data-testid=form-create-subnet][data-ready=true]").WaitFor(); err != nil {
		t.Fatalf("the create-subnet form's prediction does not start: %v", err)
	}

	// A size and a CIDR at once: the page says what the server would.
	chooseSize(t, page, "24")
	fill(t, page, "#subnet-cidr", "10.42.9.0/24")
	if err := form.Locator("[data-testid=prediction-error]:text('give one of them')").WaitFor(); err != nil {
		t.Fatalf("a size and a CIDR together are not refused in the page: %v", err)
	}
	// A predicted refusal disables the button, and the form says why.
	if disabled, err := form.Locator("[data-testid=submit-create-subnet]").IsDisabled(); err != nil || !disabled {
		t.Errorf("Create is enabled while the page predicts a refusal (%v)", err)
	}
	fill(t, page, "#subnet-cidr", "")
	if err := form.Locator("[data-testid=submit-create-subnet]:enabled").WaitFor(); err != nil {
		t.Errorf("Create stays disabled once the form is one the server takes: %v", err)
	}

	// The lowest free /24 lies below subnet web's 10.42.1.0/24.
	fill(t, page, "#subnet-name", "db")
	if err := form.Locator("[data-testid=predicted-subnet]:text-is('10.42.0.0/24')").WaitFor(); err != nil {
		t.Fatalf("the form does not predict 10.42.0.0/24: %v", err)
	}
	if detail, _ := form.Locator("[data-testid=prediction-detail]").TextContent(); detail != "with gateway 10.42.0.1" {
		t.Errorf("the form predicts %q, want with gateway 10.42.0.1", detail)
	}
	screenshot(t, page, "subnet-by-size")
	predicted, err := form.Locator("[data-testid=predicted-subnet]").TextContent()
	if err != nil {
		t.Fatal(err)
	}
	click(t, page, "[data-testid=submit-create-subnet]")
	waitForText(t, page, "claimed-address", predicted)
	if n, _ := page.Locator("[data-testid=claim-as-predicted]").Count(); n != 1 {
		t.Error("the page does not say the subnet got the predicted prefix")
	}
	if n, _ := page.Locator("[data-testid=subnet-db]").Count(); n != 1 {
		t.Error("the page does not show the new subnet db")
	}

	// The page now predicts 10.42.2.0/24; another browser takes it first.
	chooseSize(t, page, "24")
	if err := form.Locator("[data-testid=predicted-subnet]:text-is('10.42.2.0/24')").WaitFor(); err != nil {
		t.Fatalf("after the first subnet the form does not predict 10.42.2.0/24: %v", err)
	}
	other := newPage(t)
	signIn(t, other, srv.URL, "acme", password)
	if _, err := other.Goto(srv.URL + "/vpcs/acme/prod/main"); err != nil {
		t.Fatal(err)
	}
	fill(t, other, "#subnet-name", "cache")
	chooseSize(t, other, "24")
	click(t, other, "[data-testid=submit-create-subnet]")
	waitForText(t, other, "claimed-address", "10.42.2.0/24")

	fill(t, page, "#subnet-name", "queue")
	click(t, page, "[data-testid=submit-create-subnet]")
	waitForText(t, page, "claimed-address", "10.42.3.0/24")
	differs, err := page.Locator("[data-testid=claim-differs]").TextContent()
	if err != nil || !strings.Contains(differs, "predicted 10.42.2.0/24") || !strings.Contains(differs, "someone else claimed it first") {
		t.Errorf("the page says %q (%v), want that 10.42.2.0/24 was taken by someone else first", differs, err)
	}
}

func TestOtherTenantsVPCIsNotFound(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	password := srv.addUser(t, "globex", auth.Tenant, "globex/*")
	page := newPage(t)
	signIn(t, page, srv.URL, "globex", password)
	answer := func(path string) (int, string) {
		t.Helper()
		resp, err := page.Goto(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := page.Locator("main").InnerText()
		if err != nil {
			t.Fatal(err)
		}
		// The page names the path asked for; all else must be the same.
		return resp.Status(), strings.ReplaceAll(body, path, "PATH")
	}
	theirs, theirsBody := answer("/vpcs/acme/prod/main")
	missing, missingBody := answer("/vpcs/acme/prod/nothing-here")
	if theirs != 404 || missing != 404 {
		t.Fatalf("another tenant's VPC answers %d, a missing one %d; want 404 for both", theirs, missing)
	}
	if theirsBody != missingBody {
		t.Errorf("another tenant's VPC reads\n%q\nand a missing one\n%q: they must be identical but for the path", theirsBody, missingBody)
	}
	if status, _ := answer("/pools/acme/prod/vpc-main"); status != 404 {
		t.Errorf("another tenant's pool answers %d, want 404", status)
	}
	if status, _ := answer("/vpcs/globex/dev/lab"); status != 200 {
		t.Errorf("the tenant's own VPC answers %d, want 200", status)
	}
}
