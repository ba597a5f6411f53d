package e2e

import (
	"net/url"
	"testing"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/auth"
)

// focused returns the name of the element that has the keyboard focus.
func focused(t *testing.T, page playwright.Page) string {
	t.Helper()
	name, err := page.Evaluate(`() => document.activeElement ? document.activeElement.getAttribute("name") || document.activeElement.tagName : ""`)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := name.(string)
	return s
}

// path returns the path and query of the page's URL.
func path(t *testing.T, page playwright.Page) string {
	t.Helper()
	u, err := url.Parse(page.URL())
	if err != nil {
		t.Fatal(err)
	}
	return u.RequestURI()
}

// typeKeys types text and then presses key, as a person at the keyboard.
func typeKeys(t *testing.T, page playwright.Page, text, key string) {
	t.Helper()
	if err := page.Keyboard().Type(text); err != nil {
		t.Fatal(err)
	}
	if err := page.Keyboard().Press(key); err != nil {
		t.Fatal(err)
	}
}

// TestSignInWithTheKeyboard signs in with the keyboard only: the form has
// the focus, Tab goes from the user name to the password, Enter submits.
func TestSignInWithTheKeyboard(t *testing.T) {
	srv := startServer(t)
	tenantPassword := srv.addUser(t, "acme-ops", auth.Tenant, "acme/*")
	tests := []struct {
		user, password, role string
		start, wantPath      string
	}{
		{"admin", srv.AdminPassword, "operator", "/", "/"},
		{"acme-ops", tenantPassword, "tenant", "/vpcs/acme/prod?tab=subnets", "/vpcs/acme/prod?tab=subnets"},
	}
	for _, tt := range tests {
		t.Run(tt.user, func(t *testing.T) {
			page := newPage(t)
			if _, err := page.Goto(srv.URL + tt.start); err != nil {
				t.Fatal(err)
			}
			if got, want := path(t, page), "/login?next="+url.QueryEscape(tt.start); tt.start != "/" && got != want {
				t.Fatalf("an anonymous visit of %s landed on %s, want %s", tt.start, got, want)
			}
			if err := page.Locator("[data-testid=login-form]").WaitFor(); err != nil {
				t.Fatalf("no sign-in form at %s: %v", page.URL(), err)
			}
			if got := focused(t, page); got != "username" {
				t.Fatalf("the sign-in form opens with the focus on %q, want username", got)
			}
			typeKeys(t, page, tt.user, "Tab")
			if got := focused(t, page); got != "password" {
				t.Fatalf("Tab from the user name went to %q, want password", got)
			}
			typeKeys(t, page, tt.password, "Enter")
			waitForText(t, page, "user-name", tt.user)
			waitForText(t, page, "user-role", tt.role)
			if got := path(t, page); got != tt.wantPath {
				t.Errorf("signed in at %s, want %s", got, tt.wantPath)
			}
			for _, testid := range []string{"nav", "sign-out"} {
				if visible, err := page.Locator("[data-testid=" + testid + "]").IsVisible(); err != nil || !visible {
					t.Errorf("[data-testid=%s] is not visible (%v)", testid, err)
				}
			}
			for _, link := range []string{"Pools", "VPCs"} {
				if n, err := page.Locator("[data-testid=nav]").GetByRole("link", playwright.LocatorGetByRoleOptions{Name: link}).Count(); err != nil || n != 1 {
					t.Errorf("the navigation has %d links %q (%v), want 1", n, link, err)
				}
			}
			screenshot(t, page, "signed-in-"+tt.user)
		})
	}
}

func TestSignInWrongPassword(t *testing.T) {
	srv := startServer(t)
	page := newPage(t)
	if _, err := page.Goto(srv.URL + "/login"); err != nil {
		t.Fatal(err)
	}
	if err := page.GetByLabel("User name").Fill("admin"); err != nil {
		t.Fatal(err)
	}
	if err := page.GetByLabel("Password").Fill("not the password"); err != nil {
		t.Fatal(err)
	}
	if err := page.GetByLabel("Password").Press("Enter"); err != nil {
		t.Fatal(err)
	}
	waitForText(t, page, "login-error", "The user name or the password is wrong.")
	if got, err := page.GetByLabel("User name").InputValue(); err != nil || got != "admin" {
		t.Errorf("after a wrong password the user name is %q (%v), want admin", got, err)
	}
	if got, err := page.GetByLabel("Password").InputValue(); err != nil || got != "" {
		t.Errorf("after a wrong password the password field holds %q (%v), want it empty", got, err)
	}
	if got := focused(t, page); got != "password" {
		t.Errorf("after a wrong password the focus is on %q, want password", got)
	}
	if got := path(t, page); got != "/login" {
		t.Errorf("after a wrong password the page is %s, want /login", got)
	}
	screenshot(t, page, "sign-in-refused")
}

// TestLoginFieldsHaveLabels checks that every field of the sign-in form
// has a <label for> naming it, as screen readers need.
func TestLoginFieldsHaveLabels(t *testing.T) {
	srv := startServer(t)
	page := newPage(t)
	if _, err := page.Goto(srv.URL + "/login"); err != nil {
		t.Fatal(err)
	}
	fields, err := page.Evaluate(`() => Array.from(document.querySelectorAll("input:not([type=hidden]), select, textarea")).map(f => {
		const label = f.id ? document.querySelector("label[for='" + CSS.escape(f.id) + "']") : null;
		return {name: f.name, id: f.id, label: label ? label.textContent.trim() : ""};
	})`)
	if err != nil {
		t.Fatal(err)
	}
	list, _ := fields.([]any)
	names := map[string]bool{}
	for _, f := range list {
		field, _ := f.(map[string]any)
		names[field["name"].(string)] = true
		if field["label"] == "" {
			t.Errorf("the field %v (id %q) has no label[for]", field["name"], field["id"])
		}
	}
	if !names["username"] || !names["password"] || len(names) != 2 {
		t.Errorf("the sign-in form's fields are %v, want username and password", names)
	}
}

func TestSignOut(t *testing.T) {
	srv := startServer(t)
	page := newPage(t)
	signIn(t, page, srv.URL, "admin", srv.AdminPassword)
	if err := page.Locator("[data-testid=sign-out]").Click(); err != nil {
		t.Fatal(err)
	}
	if err := page.Locator("[data-testid=login-form]").WaitFor(); err != nil {
		t.Fatalf("signing out did not lead to the sign-in form: %v", err)
	}
	if got := path(t, page); got != "/login" {
		t.Errorf("signed out at %s, want /login", got)
	}
	// The session is over: the console sends back to the form.
	if _, err := page.Goto(srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	if got := path(t, page); got != "/login" {
		t.Errorf("after signing out / led to %s, want /login", got)
	}
}

// TestShellOnANarrowScreen checks the frame on a phone without
// JavaScript: it fits the screen, its header is one row (the brand and
// Menu), and the menu, opened by the keyboard or a tap on its summary,
// offers the sections, the search, the user and Sign out, and leads where
// its links say. On a laptop's screen the same header shows them all and
// no Menu.
func TestShellOnANarrowScreen(t *testing.T) {
	srv := startServer(t)
	page := newPageWith(t, playwright.BrowserNewContextOptions{
		Viewport: &playwright.Size{Width: 390, Height: 844}, JavaScriptEnabled: playwright.Bool(false)})
	signIn(t, page, srv.URL, "admin", srv.AdminPassword)
	overflow, err := page.Evaluate(`() => document.documentElement.scrollWidth - document.documentElement.clientWidth`)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := overflow.(int); !ok || n > 0 {
		t.Errorf("the page is %v px wider than a 390 px screen", overflow)
	}
	header := page.Locator("header.shell")
	box, err := header.BoundingBox()
	if err != nil || box.Height > 64 {
		t.Errorf("the header is %v px tall on a phone (%v), want one row of at most 64 px", box, err)
	}
	menu := []string{"nav", "global-search", "user-name", "sign-out"}
	for _, testid := range menu {
		if visible, err := page.Locator(testID(testid)).IsVisible(); err != nil || visible {
			t.Errorf("%s shows before the menu is opened (%v)", testid, err)
		}
	}
	if err := page.Locator(testID("menu-button")).Focus(); err != nil {
		t.Fatal(err)
	}
	if err := page.Keyboard().Press("Enter"); err != nil {
		t.Fatal(err)
	}
	for _, testid := range menu {
		if visible, err := page.Locator(testID(testid)).IsVisible(); err != nil || !visible {
			t.Errorf("%s is not in the menu opened by Enter (%v)", testid, err)
		}
	}
	screenshot(t, page, "narrow-menu")
	overflow, err = page.Evaluate(`() => document.documentElement.scrollWidth - document.documentElement.clientWidth`)
	if n, ok := overflow.(int); err != nil || !ok || n > 0 {
		t.Errorf("the open menu is %v px wider than a 390 px screen (%v)", overflow, err)
	}
	if err := page.Locator(testID("nav")).GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Pools"}).Click(); err != nil {
		t.Fatal(err)
	}
	waitForText(t, page, "page-title", "Pools")
	if visible, err := page.Locator(testID("nav")).IsVisible(); err != nil || visible {
		t.Errorf("the menu stays open on the page its link led to (%v)", err)
	}
	if err := page.Locator(testID("menu-button")).Click(); err != nil {
		t.Fatal(err)
	}
	if err := page.Locator(testID("sign-out")).Click(); err != nil {
		t.Fatalf("Sign out from the menu: %v", err)
	}
	if got := path(t, page); got != "/login" {
		t.Errorf("Sign out from the menu led to %s, want /login", got)
	}

	wide := newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1280, Height: 800}, JavaScriptEnabled: playwright.Bool(false)})
	signIn(t, wide, srv.URL, "admin", srv.AdminPassword)
	for _, testid := range menu {
		if visible, err := wide.Locator(testID(testid)).IsVisible(); err != nil || !visible {
			t.Errorf("%s is not in the header of a 1280 px screen (%v)", testid, err)
		}
	}
	if visible, err := wide.Locator(testID("menu-button")).IsVisible(); err != nil || visible {
		t.Errorf("a 1280 px screen shows Menu (%v)", err)
	}
	if box, err := wide.Locator("header.shell").BoundingBox(); err != nil || box.Height > 64 {
		t.Errorf("the header is %v px tall on a 1280 px screen (%v), want one row", box, err)
	}
}
