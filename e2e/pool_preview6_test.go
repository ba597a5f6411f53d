package e2e

import (
	"strings"
	"testing"
)

// TestOperatorPreviewsAnIPv6Pool types IPv6 prefixes into the new public
// pool form: the browser's enumerator refuses another spelling than RFC
// 5952's in the server's words, and counts a /64's usable addresses
// readably, with its first and last, without a request to the server.
func TestOperatorPreviewsAnIPv6Pool(t *testing.T) {
	srv := startServer(t)
	page := newPage(t)
	signIn(t, page, srv.URL, "admin", srv.AdminPassword)
	goTo(t, page, srv.URL, "/pools/new")
	if err := page.Locator("[data-preview][data-ready=true]").WaitFor(); err != nil {
		t.Fatalf("the preview did not start: %v", err)
	}
	requests := watchRequests(page)
	fill(t, page, "#pool-cidr", "2001:DB8:0::/32")
	waitForText(t, page, "error-cidr", "CIDR 2001:DB8:0::/32 is not in canonical form; did you mean 2001:db8::/32?")
	fill(t, page, "#pool-cidr", "2001:db8::/64")
	waitForText(t, page, "error-cidr", "")
	waitForText(t, page, "preview-count", "2^64 − 1 (18.4 quintillion)")
	waitForText(t, page, "preview-first", "2001:db8::1")
	waitForText(t, page, "preview-last", "2001:db8::ffff:ffff:ffff:ffff")
	if n, err := page.Locator("[data-testid=address-map] span").Count(); err != nil || n != 0 {
		t.Errorf("the map of a /64 draws %d cells (%v), want none", n, err)
	}
	// A /120 is drawn address by address, its anycast address marked.
	fill(t, page, "#pool-cidr", "2001:db8::/120")
	waitForText(t, page, "preview-count", "255")
	if title, err := page.Locator("[data-testid=address-map] span").First().GetAttribute("title"); err != nil || title != "2001:db8::: subnet-router anycast" {
		t.Errorf("the map's first cell says %q (%v)", title, err)
	}
	if title, err := page.Locator("[data-testid=address-map] span").Last().GetAttribute("title"); err != nil || title != "2001:db8::ff: free" {
		t.Errorf("the map's last cell says %q (%v)", title, err)
	}
	if got := requests(); len(got) != 0 {
		t.Errorf("typing made requests to the server: %s", strings.Join(got, ", "))
	}
	checkAccessibility(t, page, "the new pool form with an IPv6 prefix")
}
