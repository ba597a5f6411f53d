package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/auth"
)

// TestPredictionsWithoutJavaScript: a browser without JavaScript reads on
// the VPC page the address each claim will get, as one with JavaScript
// does, and an attach it sends is answered "as predicted"; the new public
// pool form, refused, previews what was typed.
func TestPredictionsWithoutJavaScript(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	password := srv.addUser(t, "acme", auth.Tenant, "acme/*")
	const vpc = "/vpcs/acme/prod/main"
	const attach, claim = "[data-testid=form-attach-interface]", "[data-testid=form-claim-floating-ip]"
	// What each form will get, read in the browser with JavaScript.
	withJS := newPage(t)
	signIn(t, withJS, srv.URL, "acme", password)
	goTo(t, withJS, srv.URL, vpc)
	if err := withJS.Locator(attach + "[data-ready=true]").WaitFor(); err != nil {
		t.Fatalf("the page's script did not start: %v", err)
	}

	page := newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1280, Height: 800}, JavaScriptEnabled: playwright.Bool(false)})
	signIn(t, page, srv.URL, "acme", password)
	goTo(t, page, srv.URL, vpc)
	for form, want := range map[string]string{attach: "Will get 10.42.1.5", claim: "Will get 203.0.113.5"} {
		for _, p := range []playwright.Page{page, withJS} {
			got, err := p.Locator(form + " [data-testid=prediction]").InnerText()
			if err != nil || got != want {
				t.Errorf("%s reads %q (%v), want %q", form, got, err, want)
			}
		}
	}
	if n := countOf(t, page, "text=/browser/i"); n != 0 {
		t.Errorf("the VPC page speaks of the browser %d times", n)
	}
	fill(t, page, "#attach-hostname", "web-09")
	click(t, page, testID("submit-attach-interface"))
	waitForText(t, page, "claimed-address", "10.42.1.5")
	waitForText(t, page, "claim-as-predicted", "— as predicted.")
	// The next prediction follows the claim.
	if got, err := page.Locator(attach + " [data-testid=prediction]").InnerText(); err != nil || got != "Will get 10.42.1.6" {
		t.Errorf("after the attach, the form reads %q (%v), want %q", got, err, "Will get 10.42.1.6")
	}

	operator := newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 390, Height: 844}, JavaScriptEnabled: playwright.Bool(false)})
	signIn(t, operator, srv.URL, "admin", srv.AdminPassword)
	goTo(t, operator, srv.URL, "/pools/new")
	fill(t, operator, "#pool-name", "public-zone-a")
	fill(t, operator, "#pool-cidr", "198.51.100.0/24")
	fill(t, operator, "#pool-gateway", "198.51.100.1")
	fill(t, operator, "#pool-exclude", "198.51.100.2-198.51.100.9")
	click(t, operator, testID("create-pool"))
	waitForText(t, operator, "preview-count", "245")
	waitForText(t, operator, "preview-first", "198.51.100.10")
	waitForText(t, operator, "preview-last", "198.51.100.254")
}
