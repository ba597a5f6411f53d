package e2e

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/auth"
)

// auditBrowsers are the browsers the audit log is read in: a desktop and
// a phone, light and dark; the dark phone without JavaScript, its page
// checked by axe-core through a lens (phoneCheck).
var auditBrowsers = []struct {
	name string
	opts playwright.BrowserNewContextOptions
}{
	{"desktop-light", playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1280, Height: 800}, ColorScheme: playwright.ColorSchemeLight}},
	{"desktop-dark", playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1280, Height: 800}, ColorScheme: playwright.ColorSchemeDark}},
	{"phone-light", playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 390, Height: 844}, ColorScheme: playwright.ColorSchemeLight}},
	{"phone-dark-nojs", phoneInTheDark},
}

// TestOperatorReadsAnAuditFilteredToIt: a tenant attaches a VM interface
// from the VPC page; the operator filters the audit log to it by kind of
// object, actor and time span with the GET form, reads the change as a
// sentence with its subnet linked, follows the link to the subnet, whose
// history tells the same sentence, and from there the audit log filtered
// to the subnet. At 1280 × 800 and 390 × 844, light and dark, each audit
// page and the subnet's history no wider than the screen, and no page
// with a serious or critical violation of axe-core.
func TestOperatorReadsAnAuditFilteredToIt(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	password := srv.addUser(t, "acme-admin", auth.Tenant, "acme/*")
	tenant := newPage(t)
	signIn(t, tenant, srv.URL, "acme-admin", password)
	goTo(t, tenant, srv.URL, "/vpcs/acme/prod/main")
	fill(t, tenant, "#attach-hostname", "web-09")
	click(t, tenant, "[data-testid=submit-attach-interface]")
	waitForText(t, tenant, "claimed-address", "10.42.1.5")
	sentence := "acme-admin attached web-09/0 to subnet web: 10.42.1.5"
	since := time.Now().UTC().Add(-time.Hour).Format("2006-01-02T15:04")
	until := time.Now().UTC().Add(time.Hour).Format("2006-01-02T15:04")

	for _, b := range auditBrowsers {
		t.Run(b.name, func(t *testing.T) {
			page := newPageWith(t, b.opts)
			width := b.opts.Viewport.Width
			js := b.opts.JavaScriptEnabled == nil || *b.opts.JavaScriptEnabled
			var lens phoneCheck
			if !js {
				lens = newPhoneCheck(t, srv)
			}
			// check checks the page: no wider than the screen, or the
			// part of it named by a selector.
			check := func(name, part string) {
				t.Helper()
				wide, err := page.Evaluate(`part => part ? Math.ceil(document.querySelector(part).getBoundingClientRect().right) : document.documentElement.scrollWidth`, part)
				if err != nil {
					t.Fatal(err)
				}
				if n, ok := wide.(int); !ok || n > width {
					t.Errorf("%s %s is %v px wide on a %d px screen", name, part, wide, width)
				}
				switch {
				case js && *b.opts.ColorScheme == *playwright.ColorSchemeDark:
					checkAxeRules(t, page, name, colourRules...)
				case js:
					checkAccessibility(t, page, name)
				default:
					lens.axe(t, page, name)
				}
				screenshot(t, page, "audit-"+b.name+"-"+strings.ReplaceAll(strings.Trim(name, "/"), "/", "-"))
			}
			signIn(t, page, srv.URL, "admin", srv.AdminPassword)
			goTo(t, page, srv.URL, "/audit")
			check("/audit", "")

			// Filter by kind, actor and span, and send the form with
			// the keyboard.
			if _, err := page.Locator("#filter-kind").SelectOption(playwright.SelectOptionValues{Labels: &[]string{"address"}}); err != nil {
				t.Fatal(err)
			}
			fill(t, page, "#filter-actor", "acme-admin")
			fill(t, page, "#filter-since", since)
			fill(t, page, "#filter-until", until)
			if err := page.Locator("#filter-actor").Press("Enter"); err != nil {
				t.Fatal(err)
			}
			if err := page.WaitForURL("**/audit?*actor=acme-admin*"); err != nil {
				t.Fatal(err)
			}
			q, err := url.Parse(page.URL())
			if err != nil || q.Query().Get("kind") != "IPAllocation" || q.Query().Get("since") != since || q.Query().Get("until") != until {
				t.Errorf("the filtered page is %s, want the kind, the actor and the span in its address", page.URL())
			}
			rows := page.Locator("[data-testid=audit-sentence]")
			if n, err := rows.Count(); err != nil || n != 1 {
				t.Fatalf("the filtered audit log lists %d changes (%v), want 1", n, err)
			}
			waitForText(t, page, "audit-sentence", sentence)
			check("/audit/filtered", "")

			// The sentence links the subnet; its page tells the same
			// change in its history.
			if err := page.Locator("[data-testid=audit-sentence]").GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "web", Exact: playwright.Bool(true)}).Click(); err != nil {
				t.Fatal(err)
			}
			waitForURL(t, page, srv.URL, "/subnets/acme/prod/main/web")
			history := page.Locator("[data-testid=history] [data-testid=history-sentence]").First()
			if err := playwright.NewPlaywrightAssertions(patience).Locator(history).ToHaveText(sentence); err != nil {
				got, _ := history.TextContent()
				t.Errorf("the subnet's newest change reads %q, want %q", got, sentence)
			}
			// The subnet's page is the work of the phone's layout; its
			// history is checked here.
			check("/subnets/acme/prod/main/web", "[data-testid=history]")

			click(t, page, "[data-testid=history-all]")
			if err := page.WaitForURL("**/audit?*object_kind=Subnet*"); err != nil {
				t.Fatal(err)
			}
			waitForText(t, page, "audit-object-name", "subnet web of VPC main in acme/prod")
			if err := playwright.NewPlaywrightAssertions(patience).Locator(rows.First()).ToHaveText(sentence); err != nil {
				got, _ := rows.First().TextContent()
				t.Errorf("the subnet's audit log starts with %q, want %q", got, sentence)
			}
			check("/audit/subnet", "")
		})
	}
}
