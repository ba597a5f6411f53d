package e2e

import (
	"strings"
	"sync"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// TestPreviewComputesInTheBrowser types a pool into the new-pool form and
// checks that its preview's figures, messages and map change with no
// request to the server: the WebAssembly enumerator answers in the page.
func TestPreviewComputesInTheBrowser(t *testing.T) {
	srv := startServer(t)
	page := newPage(t)
	signIn(t, page, srv.URL, "admin", srv.AdminPassword)
	var mu sync.Mutex
	var requests []string
	page.OnRequest(func(r playwright.Request) {
		mu.Lock()
		defer mu.Unlock()
		requests = append(requests, r.Method()+" "+r.URL())
	})
	if _, err := page.Goto(srv.URL + "/pools/new"); err != nil {
		t.Fatal(err)
	}
	if err := page.Locator("[data-preview][data-ready=true]").WaitFor(); err != nil {
		t.Fatalf("the preview did not start: %v", err)
	}
	fill := func(field, value string) {
		t.Helper()
		if err := page.Locator("[name=" + field + "]").Fill(value); err != nil {
			t.Fatal(err)
		}
	}
	fill("cidr", "203.0.113.0/24")
	fill("gateway", "203.0.113.1")
	fill("exclude", "203.0.113.2, 203.0.113.3")
	waitForText(t, page, "preview-count", "251")
	waitForText(t, page, "preview-first", "203.0.113.4")
	waitForText(t, page, "preview-last", "203.0.113.254")
	cells, err := page.Locator("[data-testid=address-map] span").Count()
	if err != nil || cells != 256 {
		t.Errorf("address map has %d cells (%v), want 256", cells, err)
	}
	screenshot(t, page, "preview")

	mu.Lock()
	loaded := len(requests)
	mu.Unlock()

	// A mistake is said beside its field, in plain words, and marks it;
	// the name, not typed into, says nothing.
	fill("cidr", "10.0.0.5/24")
	waitForText(t, page, "error-cidr", "CIDR 10.0.0.5/24 has host bits set; did you mean 10.0.0.0/24?")
	waitForText(t, page, "preview-count", "")
	checkMarked(t, page, "#pool-cidr", "pool-cidr-error")
	waitForText(t, page, "error-name", "")
	checkMarked(t, page, "#pool-name", "")

	fill("cidr", "10.20.0.0/16")
	fill("gateway", "10.20.0.1")
	fill("exclude", "10.20.0.2-10.20.0.9\n10.20.255.254")
	waitForText(t, page, "error-cidr", "")
	checkMarked(t, page, "#pool-cidr", "")
	waitForText(t, page, "preview-count", "65,524")
	waitForText(t, page, "preview-first", "10.20.0.10")
	waitForText(t, page, "preview-last", "10.20.255.253")
	blocks, err := page.Locator("[data-testid=address-map] span").Count()
	if err != nil || blocks != 256 {
		t.Errorf("address map of a /16 has %d blocks (%v), want 256 /24s", blocks, err)
	}

	fill("gateway", "10.21.0.1")
	waitForText(t, page, "error-gateway", "Gateway 10.21.0.1 is outside 10.20.0.0/16")
	checkMarked(t, page, "#pool-gateway", "pool-gateway-error")

	mu.Lock()
	defer mu.Unlock()
	if len(requests) != loaded {
		t.Errorf("typing made requests to the server: %s", strings.Join(requests[loaded:], ", "))
	}
}

// checkMarked checks that the input of selector is marked invalid and
// described first by the message of id errorID, or, errorID "", not marked.
func checkMarked(t *testing.T, page playwright.Page, selector, errorID string) {
	t.Helper()
	want := "[aria-invalid=true][aria-describedby^=" + errorID + "]"
	if errorID == "" {
		want = ":not([aria-invalid])"
	}
	if err := page.Locator(selector + want).WaitFor(); err != nil {
		invalid, _ := page.Locator(selector).GetAttribute("aria-invalid")
		described, _ := page.Locator(selector).GetAttribute("aria-describedby")
		t.Errorf("%s says aria-invalid=%q aria-describedby=%q, want it marked by %q: %v", selector, invalid, described, errorID, err)
	}
}
