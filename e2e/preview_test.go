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

	fill("cidr", "10.0.0.5/24")
	waitForText(t, page, "preview-error", "cidr 10.0.0.5/24 has host bits set; did you mean 10.0.0.0/24?")
	waitForText(t, page, "preview-count", "")

	fill("cidr", "10.20.0.0/16")
	fill("gateway", "10.20.0.1")
	fill("exclude", "10.20.0.2-10.20.0.9\n10.20.255.254")
	waitForText(t, page, "preview-error", "")
	waitForText(t, page, "preview-count", "65,524")
	waitForText(t, page, "preview-first", "10.20.0.10")
	waitForText(t, page, "preview-last", "10.20.255.253")
	blocks, err := page.Locator("[data-testid=address-map] span").Count()
	if err != nil || blocks != 256 {
		t.Errorf("address map of a /16 has %d blocks (%v), want 256 /24s", blocks, err)
	}

	fill("gateway", "10.21.0.1")
	waitForText(t, page, "preview-error", "gateway 10.21.0.1 is outside cidr 10.20.0.0/16")

	mu.Lock()
	defer mu.Unlock()
	if len(requests) != loaded {
		t.Errorf("typing made requests to the server: %s", strings.Join(requests[loaded:], ", "))
	}
}
