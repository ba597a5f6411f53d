package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
)

// fillWeb attaches n VMs more to subnet web, before ipam serve starts.
func fillWeb(t *testing.T, srv server, n int) {
	t.Helper()
	ctx := context.Background()
	_, svc := services(t, srv)
	for i := range n {
		if _, err := svc.AttachInterface(ctx, auth.System, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web",
			VM: ipam.VMRef{UID: fmt.Sprint("filled-", i), Hostname: fmt.Sprintf("app-%03d", i)}}); err != nil {
			t.Fatal(err)
		}
	}
}

// textOf returns the text of the element selector finds, its spaces
// collapsed.
func textOf(t *testing.T, page playwright.Page, selector string) string {
	t.Helper()
	s, err := page.Locator(selector).First().TextContent()
	if err != nil {
		t.Fatalf("%s: %v", selector, err)
	}
	return strings.Join(strings.Fields(s), " ")
}

// A tableScreen is a screen and colour scheme an allocation table is
// checked on.
type tableScreen struct {
	name   string
	size   playwright.Size
	scheme *playwright.ColorScheme
}

// TestAllocationTableOnEveryScreen: the table of a private pool of 117
// allocations, at 1280 × 800 and 390 × 844, light and dark: the page is
// no wider than the screen (the table scrolls inside its card), axe-core
// finds no serious or critical violation (in dark, of the rules about
// colours, as checkScreen says), and the last page ends with the subnet's
// run of free addresses; so are the subnet's table and the public pool's.
// With JavaScript the filter and the pager swap the table (a refused
// prefix says why at its field), each step checked at 1280 light and dark
// and 390 light by resizing the page; without, on a phone in the dark, the
// same GET form and links lead to the same pages.
func TestAllocationTableOnEveryScreen(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	fillWeb(t, srv, 114)
	const pool = "/pools/acme/prod/vpc-main"
	wide, phone := playwright.Size{Width: 1280, Height: 800}, playwright.Size{Width: 390, Height: 844}
	for _, run := range []struct {
		name    string
		screens []tableScreen
		noJS    bool
	}{
		{"with JavaScript", []tableScreen{{"1280 light", wide, playwright.ColorSchemeLight}, {"1280 dark", wide, playwright.ColorSchemeDark}, {"390 light", phone, playwright.ColorSchemeLight}}, false},
		{"390 dark without JavaScript", []tableScreen{{"390 dark without JavaScript", phone, playwright.ColorSchemeDark}}, true},
	} {
		t.Run(run.name, func(t *testing.T) {
			first := run.screens[0]
			page := newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &first.size, ColorScheme: first.scheme, JavaScriptEnabled: playwright.Bool(!run.noJS)})
			signIn(t, page, srv.URL, "admin", srv.AdminPassword)
			var lens phoneCheck
			if run.noJS {
				lens = newPhoneCheck(t, srv)
			}
			check := func(name string) {
				t.Helper()
				for _, screen := range run.screens {
					setScreen(t, page, int(screen.size.Width), int(screen.size.Height))
					if err := page.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: screen.scheme}); err != nil {
						t.Fatal(err)
					}
					width, err := page.Evaluate(`() => document.documentElement.scrollWidth`)
					if err != nil {
						t.Fatal(err)
					}
					if w, ok := width.(int); !ok || w > int(screen.size.Width) {
						t.Errorf("%s at %s is %v px wide", name, screen.name, width)
					}
					switch {
					case run.noJS:
						lens.axe(t, page, name+" at "+screen.name)
					case *screen.scheme == *playwright.ColorSchemeDark:
						checkAxeRules(t, page, name+" at "+screen.name, colourRules...)
					default:
						checkAccessibility(t, page, name+" at "+screen.name)
					}
				}
				setScreen(t, page, int(first.size.Width), int(first.size.Height))
				if err := page.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: first.scheme}); err != nil {
					t.Fatal(err)
				}
			}
			goTo(t, page, srv.URL, pool)
			check(pool)
			if got := textOf(t, page, "[data-testid=allocation-count]"); got != "117 allocations" {
				t.Errorf("the table counts %q, want 117 allocations", got)
			}
			if n, err := page.Locator("#allocations thead th").Count(); err != nil || n != 6 {
				t.Errorf("the table has %d columns (%v), want 6", n, err)
			}
			for _, screen := range run.screens {
				setScreen(t, page, int(screen.size.Width), int(screen.size.Height))
				if err := page.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: screen.scheme}); err != nil {
					t.Fatal(err)
				}
				screenshot(t, page, "table-"+strings.ReplaceAll(screen.name, " ", "-"))
			}
			setScreen(t, page, int(first.size.Width), int(first.size.Height))
			if err := page.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: first.scheme}); err != nil {
				t.Fatal(err)
			}

			// The last page, by its number.
			click(t, page, "[data-testid=page-3]")
			waitForURL(t, page, srv.URL, pool+"?page=3")
			if err := page.Locator("[data-testid=page-3][aria-current=page]").WaitFor(); err != nil {
				t.Fatal(err)
			}
			if got := textOf(t, page, "[data-testid=free-run]"); got != "10.42.1.119–10.42.1.254: 136 free" {
				t.Errorf("the last page's free run reads %q", got)
			}
			check(pool + "?page=3")

			// A prefix that is not one: said at the field; then one.
			fill(t, page, "#allocation-prefix", "10.42.1.0/33")
			click(t, page, "[data-testid=allocation-filter-submit]")
			waitForText(t, page, "error-prefix", `"10.42.1.0/33" is not a prefix: write one such as 10.42.3.0/28, or an address`)
			if invalid, err := page.Locator("#allocation-prefix").GetAttribute("aria-invalid"); err != nil || invalid != "true" {
				t.Errorf("the refused prefix's field is aria-invalid=%q (%v)", invalid, err)
			}
			check(pool + ", a refused prefix")
			fill(t, page, "#allocation-prefix", "10.42.1.112/28")
			click(t, page, "[data-testid=allocation-filter-submit]")
			waitForText(t, page, "allocation-count", "7 allocations in 10.42.1.112/28")
			if got := textOf(t, page, "[data-testid=free-run]"); got != "10.42.1.119–10.42.1.127: 9 free" {
				t.Errorf("10.42.1.112/28's free run reads %q", got)
			}
			if invalid, err := page.Locator("#allocation-prefix").GetAttribute("aria-invalid"); err != nil || invalid != "false" {
				t.Errorf("the prefix's field is aria-invalid=%q once the prefix is one (%v)", invalid, err)
			}
			waitForURL(t, page, srv.URL, pool+"?q=&prefix=10.42.1.112%2F28")
			check(pool + "?prefix=10.42.1.112/28")
			if !run.noJS {
				// The search, as it is typed, keeps the prefix.
				fill(t, page, "#allocation-search", "app-113")
				waitForText(t, page, "allocation-count", "1 matching allocation in 10.42.1.112/28")
			}

			// The subnet's table and the public pool's.
			for _, path := range []string{"/subnets/acme/prod/main/web?page=2", "/pools/public-zone-a"} {
				goTo(t, page, srv.URL, path)
				check(path)
			}
			if got := textOf(t, page, "[data-testid=free-run]"); got != "203.0.113.5–203.0.113.254: 250 free" {
				t.Errorf("the public pool's free run reads %q", got)
			}
		})
	}
}
