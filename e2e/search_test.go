package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/auth"
)

// search types query into the header's search box, presses Enter and
// waits for the results.
func search(t *testing.T, page playwright.Page, query string) playwright.Locator {
	t.Helper()
	box := page.Locator("[data-testid=global-search]")
	if err := box.Fill(""); err != nil {
		t.Fatal(err)
	}
	if err := box.Focus(); err != nil {
		t.Fatal(err)
	}
	typeKeys(t, page, query, "Enter")
	results := page.Locator("[data-testid=search-results]")
	if err := results.WaitFor(); err != nil {
		t.Fatalf("no search-results after searching %q: %v", query, err)
	}
	return results
}

// TestWhoHoldsThisAddress searches from the header, as on call: an address
// a VM holds, then one nobody may hold, each hit leading to its page.
func TestWhoHoldsThisAddress(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	password := srv.addUser(t, "acme", auth.Tenant, "acme/*")
	page := newPage(t)
	signIn(t, page, srv.URL, "acme", password)

	results := search(t, page, "10.42.1.2")
	if got := path(t, page); got != "/search?q=10.42.1.2" {
		t.Errorf("searching went to %s, want /search?q=10.42.1.2", got)
	}
	waitForText(t, page, "search-summary", `1 hit for "10.42.1.2" (an address).`)
	waitForText(t, page, "search-owner", "VirtualMachine web-01/0 (uid vm-0) of acme/prod")
	if value, err := page.Locator("[data-testid=global-search]").InputValue(); err != nil || value != "10.42.1.2" {
		t.Errorf("the search box holds %q (%v), want the query", value, err)
	}
	checkAccessibility(t, page, "/search?q=10.42.1.2")
	screenshot(t, page, "search")
	// The hit leads to the address's own page: who holds it.
	if err := results.Locator("[data-testid=search-hit-link]").Click(); err != nil {
		t.Fatal(err)
	}
	waitForURL(t, page, srv.URL, "/addresses/acme/prod/vpc-main/10.42.1.2")
	waitForText(t, page, "address-state", "Held by VirtualMachine web-01/0")

	// Nobody holds the subnet's gateway: the search says why, and leads
	// to the address's page, which says it too.
	search(t, page, "10.42.1.1")
	waitForText(t, page, "search-explanation", "10.42.1.1 is the gateway of subnet web")
	screenshot(t, page, "search-gateway")
	if err := page.Locator("[data-testid=search-hit-link]").Click(); err != nil {
		t.Fatal(err)
	}
	waitForURL(t, page, srv.URL, "/addresses/acme/prod/vpc-main/10.42.1.1")
	waitForText(t, page, "address-state", "10.42.1.1 is the gateway of subnet web")

	// Another tenant's VPC is nothing to this one.
	search(t, page, "172.20.0.9")
	waitForText(t, page, "search-explanation", "172.20.0.9 is in no pool you may see")
}
