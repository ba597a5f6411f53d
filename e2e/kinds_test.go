package e2e

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/pgtest"
)

// menuTexts are the texts of the Objects menu's links.
func menuTexts(t *testing.T, page playwright.Page) []string {
	t.Helper()
	texts, err := page.Locator(testID("kinds-menu") + " a").AllTextContents()
	if err != nil {
		t.Fatal(err)
	}
	return texts
}

// currentKind waits until the menu marks the link of the kind as the
// current page.
func currentKind(t *testing.T, page playwright.Page, kind string) {
	t.Helper()
	link := page.Locator(testID("kind-link-" + kind))
	if err := playwright.NewPlaywrightAssertions(patience).Locator(link).ToHaveAttribute("aria-current", "page"); err != nil {
		t.Errorf("the menu does not mark %s as the current page: %v", kind, err)
	}
}

// A shownField is a field of the object form as the browser shows it: its
// label without the mark, whether the mark is shown, and whether the input
// is required.
type shownField struct {
	Name     string `json:"name"`
	Label    string `json:"label"`
	Marked   bool   `json:"marked"`
	Required bool   `json:"required"`
}

// readFields reads the object form's fields in the page's order.
const readFields = `() => JSON.stringify(Array.from(document.querySelectorAll('[data-testid=form-object] [data-testid^="field-"]')).map(f => {
	const name = f.dataset.testid.slice("field-".length);
	const caption = f.querySelector("legend, label").cloneNode(true);
	caption.querySelectorAll("span, input").forEach(e => e.remove());
	const mark = f.querySelector("[data-testid=required-mark]");
	return {
		name,
		label: caption.textContent.replace(/\s+/g, " ").trim(),
		marked: mark !== null && mark.checkVisibility(),
		required: f.querySelector('[data-testid="input-' + name + '"]').required,
	};
}))`

// TestObjectsMenuAndForm: an operator opens the Objects menu by keyboard
// (1280 px, JavaScript on) and by a tap (390 px, dark, without
// JavaScript), reaches the VLANs, marked current, and reads the VLAN form:
// the fields by their labels, site before the vlan_id its pool divides by,
// the required ones marked and required, each input named by its label
// alone, the prediction waiting for the site by its label. Each page is
// checked at both sizes, in light and in dark, by axe-core, and is no
// wider than the screen, the menu open included.
func TestObjectsMenuAndForm(t *testing.T) {
	srv := startServerArgs(t, pgtest.NewURL(t), "--demo")
	base := srv.URL
	desk := newPage(t)
	signIn(t, desk, base, "admin", srv.AdminPassword)
	phone := newPageWith(t, phoneInTheDark)
	signIn(t, phone, base, "admin", srv.AdminPassword)
	lens := newPhoneCheck(t, srv)
	deskCheck, phoneCheck := screenCheck{page: desk}, screenCheck{page: phone, lens: &lens}
	wantMenu := []string{"Site", "VLAN"}

	// By keyboard: the toggle, Enter, Tab to the second kind, Enter.
	goTo(t, desk, base, "/")
	if err := desk.Locator(testID("kinds-menu-toggle")).Focus(); err != nil {
		t.Fatal(err)
	}
	if err := desk.Keyboard().Press("Enter"); err != nil {
		t.Fatal(err)
	}
	if err := desk.Locator(testID("kind-link-IpamVLAN")).WaitFor(); err != nil {
		t.Fatalf("Enter on the Objects menu does not show its kinds: %v", err)
	}
	if got := menuTexts(t, desk); !reflect.DeepEqual(got, wantMenu) {
		t.Errorf("the menu lists %q, want %q", got, wantMenu)
	}
	deskCheck.check(t, "1280 px: the Objects menu open")
	screenshot(t, desk, "objects-menu")
	for range 2 {
		if err := desk.Keyboard().Press("Tab"); err != nil {
			t.Fatal(err)
		}
	}
	if err := desk.Keyboard().Press("Enter"); err != nil {
		t.Fatal(err)
	}
	waitForURL(t, desk, base, "/objects/IpamVLAN")
	waitForText(t, desk, "page-title", "VLAN objects")
	currentKind(t, desk, "IpamVLAN")
	deskCheck.check(t, "1280 px: the VLANs")

	// By a tap, without JavaScript, in the header's menu.
	goTo(t, phone, base, "/")
	click(t, phone, testID("menu-button"))
	click(t, phone, testID("kinds-menu-toggle"))
	if err := phone.Locator(testID("kind-link-IpamVLAN")).WaitFor(); err != nil {
		t.Fatalf("a tap on the Objects menu does not show its kinds: %v", err)
	}
	if got := menuTexts(t, phone); !reflect.DeepEqual(got, wantMenu) {
		t.Errorf("the phone's menu lists %q, want %q", got, wantMenu)
	}
	phoneCheck.check(t, "390 px: the Objects menu open")
	screenshot(t, phone, "objects-menu-phone-dark")
	click(t, phone, testID("kind-link-IpamVLAN"))
	waitForURL(t, phone, base, "/objects/IpamVLAN")
	currentKind(t, phone, "IpamVLAN")
	phoneCheck.check(t, "390 px: the VLANs")

	// The form, on both.
	wantFields := []shownField{
		{"name", "Name", true, true},
		{"site", "Site", true, true},
		{"vlan_id", "VLAN ID", true, true},
		{"role", "Role", false, false},
	}
	for _, c := range []screenCheck{deskCheck, phoneCheck} {
		page := c.page
		click(t, page, testID("new-object"))
		waitForText(t, page, "page-title", "New VLAN")
		out, err := page.Evaluate(readFields)
		if err != nil {
			t.Fatal(err)
		}
		var got []shownField
		if err := json.Unmarshal([]byte(out.(string)), &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, wantFields) {
			t.Errorf("the form shows the fields\n%+v\nwant\n%+v", got, wantFields)
		}
		waitForText(t, page, "required-note", "Fields marked * are required.")
		// The prediction waits for the site by its label: the script's
		// words, or the server's without JavaScript.
		waiting := "prediction-pending"
		if c.lens != nil {
			waiting = "prediction-error"
		}
		waitForText(t, page, waiting, "choose Site first")
		// Each input is named by its label alone, the mark aside.
		for role, name := range map[playwright.AriaRole]string{"textbox": "Name", "combobox": "Site", "group": "VLAN ID"} {
			if n, err := page.GetByRole(role, playwright.PageGetByRoleOptions{Name: name, Exact: playwright.Bool(true)}).Count(); err != nil || n != 1 {
				t.Errorf("the form has %d %s named %q (%v), want one", n, role, name, err)
			}
		}
		c.check(t, "the VLAN form")
	}
	screenshot(t, desk, "object-form")
	screenshot(t, phone, "object-form-phone-dark")
}
