package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/auth"
)

// press presses each key in turn, as a person at the keyboard.
func press(t *testing.T, page playwright.Page, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if err := page.Keyboard().Press(k); err != nil {
			t.Fatal(err)
		}
	}
}

// focusedCell says what has the focus: the address (or block) of a map's
// cell, with the data-testid of its map, or the tag and text of anything
// else.
func focusedCell(t *testing.T, page playwright.Page) (cell, inMap string) {
	t.Helper()
	got, err := page.Evaluate(`() => {
		const a = document.activeElement;
		const map = a.closest("[data-map] table");
		return [a.dataset.address || a.dataset.block || a.tagName + " " + a.textContent.trim(), map ? map.dataset.testid : ""];
	}`)
	if err != nil {
		t.Fatal(err)
	}
	pair := got.([]any)
	return pair[0].(string), pair[1].(string)
}

// tabInto presses Tab from where the focus is until it is in a map's
// cell, and returns the cell and how many Tabs it took.
func tabInto(t *testing.T, page playwright.Page) (cell string, tabs int) {
	t.Helper()
	for tabs = 1; tabs < 100; tabs++ {
		press(t, page, "Tab")
		if cell, inMap := focusedCell(t, page); inMap != "" {
			return cell, tabs
		}
	}
	t.Fatalf("100 Tabs did not reach a map on %s", page.URL())
	return "", 0
}

// expectFocus fails the test unless the focus is on the map's cell want.
func expectFocus(t *testing.T, page playwright.Page, after, want string) {
	t.Helper()
	if got, inMap := focusedCell(t, page); got != want || inMap == "" {
		t.Errorf("after %s the focus is on %q (map %q), want the cell of %s", after, got, inMap, want)
	}
}

// waitForMaps waits until the page's maps answer the keyboard.
func waitForMaps(t *testing.T, page playwright.Page) {
	t.Helper()
	if err := page.Locator("[data-map]:not([data-ready=true])").WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateDetached}); err != nil {
		t.Fatalf("the maps of %s did not start: %v", page.URL(), err)
	}
}

// TestAddressMapByKeyboard uses the maps with the keyboard only: a map is
// one tab stop, which remembers its cell; arrow keys move by an address
// and by a row, Home and End to the ends of a row, Ctrl+Home and Ctrl+End
// to the ends of the map; what the focused cell is shows below the map;
// Enter opens the address, whose page detaches the VM holding it. A /16
// is one tab stop too, and Enter on a block opens its map.
func TestAddressMapByKeyboard(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	password := srv.addUser(t, "acme", auth.Tenant, "acme/*")
	page := newPage(t)
	signIn(t, page, srv.URL, "acme", password)

	if _, err := page.Goto(srv.URL + "/subnets/acme/prod/main/web"); err != nil {
		t.Fatal(err)
	}
	waitForMaps(t, page)
	cell, tabs := tabInto(t, page)
	if cell != "10.42.1.0" {
		t.Fatalf("Tab enters the map on %q, want 10.42.1.0", cell)
	}
	press(t, page, "Tab")
	if got, inMap := focusedCell(t, page); inMap != "" {
		t.Errorf("Tab from the map's cell went to its cell %s: the map is more than one tab stop", got)
	}
	press(t, page, "Shift+Tab")
	expectFocus(t, page, "Shift+Tab", "10.42.1.0")
	for _, step := range []struct{ key, want string }{
		{"ArrowRight", "10.42.1.1"},
		{"ArrowDown", "10.42.1.17"},
		{"ArrowUp", "10.42.1.1"},
		{"End", "10.42.1.15"},
		{"Home", "10.42.1.0"},
		{"ArrowLeft", "10.42.1.0"},
		{"ArrowUp", "10.42.1.0"},
		{"Control+End", "10.42.1.255"},
		{"ArrowDown", "10.42.1.255"},
		{"ArrowLeft", "10.42.1.254"},
		{"Control+Home", "10.42.1.0"},
		{"ArrowRight", "10.42.1.1"},
	} {
		press(t, page, step.key)
		expectFocus(t, page, step.key, step.want)
	}
	waitForText(t, page, "map-details", "10.42.1.1 is the gateway of subnet web Open 10.42.1.1")

	// The map keeps its cell when the focus leaves it and comes back.
	press(t, page, "ArrowRight", "Tab", "Shift+Tab")
	expectFocus(t, page, "Tab and Shift+Tab", "10.42.1.2")
	if details, _ := page.Locator("[data-testid=map-details]").TextContent(); !strings.HasPrefix(details, "10.42.1.2: VirtualMachine web-01/0, since ") {
		t.Errorf("below the map: %q, want who holds 10.42.1.2", details)
	}
	screenshot(t, page, "map-keyboard")

	// Enter opens the address; its page detaches the VM, by keyboard too.
	press(t, page, "Enter")
	waitForURL(t, page, srv.URL, "/addresses/acme/prod/vpc-main/10.42.1.2")
	waitForText(t, page, "address-owner-kind", "VirtualMachine")
	for i := 0; ; i++ {
		if i == 60 {
			t.Fatal("60 Tabs did not reach Detach… on the address's page")
		}
		press(t, page, "Tab")
		if cell, _ := focusedCell(t, page); cell == "SUMMARY Detach…" {
			break
		}
	}
	press(t, page, "Enter", "Tab")
	if cell, _ := focusedCell(t, page); cell != "BUTTON Detach" {
		t.Fatalf("after opening Detach…, Tab focuses %q, want the Detach button", cell)
	}
	press(t, page, "Enter")
	waitForText(t, page, "flash", "Detached web-01/0 from subnet web; 10.42.1.2 is free again.")
	waitForText(t, page, "address-state", "10.42.1.2 is free")

	// A /16 is 256 blocks and one tab stop; Enter opens a block's map.
	if _, err := page.Goto(srv.URL + "/pools/acme/prod/vpc-main"); err != nil {
		t.Fatal(err)
	}
	waitForMaps(t, page)
	stops, err := page.Locator("[data-testid=address-map] a").EvaluateAll(`cells => [cells.length, cells.filter(c => c.tabIndex >= 0).length]`)
	if err != nil || fmt.Sprint(stops) != "[256 1]" {
		t.Errorf("the /16's map has [cells tab-stops] %v (%v), want [256 1]", stops, err)
	}
	if cell, more := tabInto(t, page); cell != "10.42.0.0/24" {
		t.Errorf("Tab enters the /16's map on %q after %d Tabs, want 10.42.0.0/24", cell, more)
	}
	press(t, page, "ArrowRight")
	expectFocus(t, page, "ArrowRight", "10.42.1.0/24")
	press(t, page, "Enter")
	waitForURL(t, page, srv.URL, "/pools/acme/prod/vpc-main?block=10.42.1.0%2F24")
	waitForMaps(t, page)
	if cell, _ := tabInto(t, page); cell != "10.42.1.0" {
		t.Errorf("Tab enters the block's map on %q, want 10.42.1.0", cell)
	}
	press(t, page, "ArrowRight", "ArrowRight", "ArrowRight", "Enter")
	waitForURL(t, page, srv.URL, "/addresses/acme/prod/vpc-main/10.42.1.3")
	t.Logf("the subnet page's map is %d Tabs from the top of the page", tabs)
}

// TestAddressMapByTouch taps a map on a phone: a first tap shows below the
// map what hovering shows, a second opens the address.
func TestAddressMapByTouch(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	password := srv.addUser(t, "acme", auth.Tenant, "acme/*")
	page := newPageWith(t, playwright.BrowserNewContextOptions{
		Viewport: &playwright.Size{Width: 390, Height: 844}, HasTouch: playwright.Bool(true), IsMobile: playwright.Bool(true),
	})
	signIn(t, page, srv.URL, "acme", password)
	if _, err := page.Goto(srv.URL + "/subnets/acme/prod/main/web"); err != nil {
		t.Fatal(err)
	}
	waitForMaps(t, page)
	cell := page.Locator(`[data-testid=subnet-map] [data-address="10.42.1.3"]`)
	if err := cell.Tap(); err != nil {
		t.Fatal(err)
	}
	details := page.Locator("[data-testid=map-details]")
	if err := playwright.NewPlaywrightAssertions(5000).Locator(details).ToContainText("10.42.1.3: VirtualMachine web-02/0, since "); err != nil {
		got, _ := details.TextContent()
		t.Fatalf("a tap on 10.42.1.3 shows %q below the map, want who holds it", got)
	}
	if got := path(t, page); got != "/subnets/acme/prod/main/web" {
		t.Errorf("the first tap went to %s", got)
	}
	screenshot(t, page, "map-tap")
	if err := cell.Tap(); err != nil {
		t.Fatal(err)
	}
	waitForURL(t, page, srv.URL, "/addresses/acme/prod/vpc-main/10.42.1.3")
}

// A drawnStyle is what getComputedStyle says of a map's cell, a legend's
// swatch or a probe of a state's class: its fill, edge, pattern, focus
// ring, and the map's background behind it.
type drawnStyle struct {
	Class       string `json:"class"`
	Fill        string `json:"fill"`
	Border      string `json:"border"`
	BorderStyle string `json:"borderStyle"`
	BorderWidth string `json:"borderWidth"`
	Image       string `json:"image"`
	Plate       string `json:"plate"`
}

// rgbPattern finds the colours of a computed style: rgb(r, g, b) or
// rgba(r, g, b, a).
var rgbPattern = regexp.MustCompile(`rgba?\((\d+), (\d+), (\d+)(?:, ([\d.]+))?\)`)

// colours returns the opaque colours in s, a computed colour or image.
func colours(s string) [][3]float64 {
	var out [][3]float64
	for _, m := range rgbPattern.FindAllStringSubmatch(s, -1) {
		if m[4] != "" {
			if a, _ := strconv.ParseFloat(m[4], 64); a < 1 {
				continue
			}
		}
		var c [3]float64
		for i := range 3 {
			c[i], _ = strconv.ParseFloat(m[i+1], 64)
		}
		out = append(out, c)
	}
	return out
}

// luminance is WCAG 2's relative luminance of an sRGB colour.
func luminance(c [3]float64) float64 {
	var l [3]float64
	for i, v := range c {
		v /= 255
		if v <= 0.03928 {
			l[i] = v / 12.92
		} else {
			l[i] = math.Pow((v+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
}

// contrast is WCAG 2's contrast ratio of two colours.
func contrast(a, b [3]float64) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// drawn returns the colours a style draws other than its background's:
// its fill, its edge when it has one, its pattern's.
func (d drawnStyle) drawn() [][3]float64 {
	plate := colours(d.Plate)[0]
	var out [][3]float64
	add := func(cs [][3]float64) {
		for _, c := range cs {
			if c != plate {
				out = append(out, c)
			}
		}
	}
	add(colours(d.Fill))
	if d.BorderStyle != "none" && d.BorderWidth != "0px" {
		add(colours(d.Border))
	}
	add(colours(d.Image))
	return out
}

// form is how a state is drawn besides its colours: filled, hollow with a
// solid or dotted edge, patterned.
func (d drawnStyle) form() string {
	f := "hollow"
	if len(colours(d.Fill)) > 0 {
		f = "filled"
	}
	if d.BorderStyle != "none" && d.BorderWidth != "0px" {
		f += " " + d.BorderStyle + " edge"
	}
	if d.Image != "none" {
		f += " " + strings.SplitN(d.Image, "(", 2)[0]
	}
	return f
}

// measureStyles reads, in the page, the computed style of every state's
// class drawn on the first map's background (a probe cell, removed
// afterwards), of every cell of the page's maps and of every swatch of
// their legends.
const measureStyles = `() => {
	const plateOf = (el) => {
		for (let e = el.parentElement; e; e = e.parentElement) {
			const bg = getComputedStyle(e).backgroundColor;
			if (bg !== "rgba(0, 0, 0, 0)" && bg !== "transparent") return bg;
		}
		return "rgb(255, 255, 255)";
	};
	const read = (el, cls) => {
		const s = getComputedStyle(el);
		return {class: cls, fill: s.backgroundColor, border: s.borderTopColor, borderStyle: s.borderTopStyle,
			borderWidth: s.borderTopWidth, image: s.backgroundImage, plate: plateOf(el)};
	};
	const cells = [...document.querySelectorAll("[data-map] td > a")].map((a) => read(a, a.className));
	const swatches = [...document.querySelectorAll(".map-legend i")].map((i) => read(i, i.className));
	const classes = ["s-f", "s-t", "s-n", "s-b", "s-g", "s-x", "s-r", "s-o", "u0", "u1", "u2", "u3", "u4", "u5"];
	const td = document.createElement("td");
	document.querySelector("[data-map] tbody tr").append(td);
	const probes = classes.map((cls) => {
		const a = document.createElement("a");
		a.className = cls;
		td.replaceChildren(a);
		return read(a, cls);
	});
	td.remove();
	return JSON.stringify({probes, cells, swatches});
}`

// The forms of focus: the ring a focused cell draws.
const measureFocus = `() => {
	const a = document.activeElement;
	const s = getComputedStyle(a);
	let bg = "rgb(255, 255, 255)";
	for (let e = a.parentElement; e; e = e.parentElement) {
		const c = getComputedStyle(e).backgroundColor;
		if (c !== "rgba(0, 0, 0, 0)") { bg = c; break; }
	}
	const td = a.closest("td");
	const r0 = a.getBoundingClientRect(), r1 = td.nextElementSibling.firstElementChild.getBoundingClientRect();
	const down = td.parentElement.nextElementSibling.cells[td.cellIndex].firstElementChild.getBoundingClientRect();
	return JSON.stringify({outline: s.outlineColor, style: s.outlineStyle, width: s.outlineWidth, plate: bg,
		gapRight: r1.left - r0.right, gapDown: down.top - r0.bottom});
}`

// TestAddressMapContrast measures the colours Chromium draws the maps'
// states with, from getComputedStyle, in light and in dark: every colour
// a state draws is at least 3:1 against the map's background (WCAG
// 1.4.11), which is every cell's neighbour since cells stand apart; no two
// states are drawn alike (each differs in form, or in colour by a ΔE of
// 20 or more); the legends' swatches are drawn as the cells they name;
// the focus ring is at least 3:1 too.
func TestAddressMapContrast(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	for _, scheme := range []*playwright.ColorScheme{playwright.ColorSchemeLight, playwright.ColorSchemeDark} {
		page := newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1280, Height: 800}, ColorScheme: scheme})
		signIn(t, page, srv.URL, "admin", srv.AdminPassword)
		byClass := map[string]drawnStyle{}
		for _, path := range []string{"/pools/public-zone-a", "/subnets/acme/prod/main/web", "/pools/acme/prod/vpc-main?block=10.42.2.0%2F24", "/pools/acme/prod/vpc-main"} {
			if _, err := page.Goto(srv.URL + path); err != nil {
				t.Fatal(err)
			}
			waitForMaps(t, page)
			out, err := page.Evaluate(measureStyles)
			if err != nil {
				t.Fatal(err)
			}
			var m struct{ Probes, Cells, Swatches []drawnStyle }
			if err := json.Unmarshal([]byte(out.(string)), &m); err != nil {
				t.Fatal(err)
			}
			for _, p := range m.Probes {
				byClass[p.Class] = p
			}
			for _, c := range append(m.Cells, m.Swatches...) {
				if p := byClass[c.Class]; c.form() != p.form() || fmt.Sprint(c.drawn()) != fmt.Sprint(p.drawn()) {
					t.Errorf("%s, %s: a %s is drawn %s %v, its class %s %v", *scheme, path, c.Class, c.form(), c.drawn(), p.form(), p.drawn())
				}
			}
		}
		for _, cls := range []string{"s-f", "s-t", "s-n", "s-g", "s-x", "s-r", "s-o", "u0", "u1", "u2", "u3", "u4", "u5"} {
			p := byClass[cls]
			plate := colours(p.Plate)[0]
			if len(p.drawn()) == 0 {
				t.Errorf("%s: %s draws nothing but the map's background", *scheme, cls)
			}
			for _, c := range p.drawn() {
				if r := contrast(c, plate); r < 3 {
					t.Errorf("%s: %s draws rgb%v at %.2f:1 against the map's rgb%v, want 3:1", *scheme, cls, c, r, plate)
				}
			}
			t.Logf("%s: %-4s %-40s %v on rgb%v: %s", *scheme, cls, p.form(), p.drawn(), plate, ratios(p.drawn(), plate))
		}
		states := []string{"s-f", "s-t", "s-n", "s-g", "s-x", "s-r", "s-o"}
		for i, a := range states {
			for _, b := range states[i+1:] {
				sa, sb := byClass[a], byClass[b]
				if d := deltaE(sa.drawn()[0], sb.drawn()[0]); sa.form() == sb.form() && d < 20 {
					t.Errorf("%s: %s and %s are both %s, in colours ΔE %.1f apart, want 20", *scheme, a, b, sa.form(), d)
				}
			}
		}

		// The focus ring, and the room between cells.
		if _, err := page.Goto(srv.URL + "/subnets/acme/prod/main/web"); err != nil {
			t.Fatal(err)
		}
		waitForMaps(t, page)
		tabInto(t, page)
		press(t, page, "ArrowRight")
		out, err := page.Evaluate(measureFocus)
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Outline, Style, Width, Plate string
			GapRight, GapDown            float64
		}
		if err := json.Unmarshal([]byte(out.(string)), &f); err != nil {
			t.Fatal(err)
		}
		width, _ := strconv.ParseFloat(strings.TrimSuffix(f.Width, "px"), 64)
		if ring := colours(f.Outline); len(ring) == 0 || f.Style == "none" || contrast(ring[0], colours(f.Plate)[0]) < 3 || width < 2 {
			t.Errorf("%s: the focused cell's ring is %s %s %s on %s, want at least 2px at 3:1", *scheme, f.Width, f.Style, f.Outline, f.Plate)
		}
		if f.GapRight < 2 || f.GapDown < 2 {
			t.Errorf("%s: cells are %.1f px apart in a row and %.1f px between rows, want 2 px or more, so the background is their neighbour", *scheme, f.GapRight, f.GapDown)
		}
		screenshot(t, page, "map-"+string(*scheme))
	}
}

// ratios writes the contrast of each colour against the plate.
func ratios(cs [][3]float64, plate [3]float64) string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%.2f:1", contrast(c, plate)))
	}
	return strings.Join(out, ", ")
}

// deltaE is the CIE76 difference of two sRGB colours, in CIELAB.
func deltaE(a, b [3]float64) float64 {
	lab := func(c [3]float64) [3]float64 {
		var l [3]float64
		for i, v := range c {
			v /= 255
			if v <= 0.04045 {
				l[i] = v / 12.92
			} else {
				l[i] = math.Pow((v+0.055)/1.055, 2.4)
			}
		}
		x := (0.4124*l[0] + 0.3576*l[1] + 0.1805*l[2]) / 0.95047
		y := 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
		z := (0.0193*l[0] + 0.1192*l[1] + 0.9505*l[2]) / 1.08883
		f := func(t float64) float64 {
			if t > 0.008856 {
				return math.Cbrt(t)
			}
			return 7.787*t + 16.0/116
		}
		return [3]float64{116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))}
	}
	la, lb := lab(a), lab(b)
	return math.Sqrt((la[0]-lb[0])*(la[0]-lb[0]) + (la[1]-lb[1])*(la[1]-lb[1]) + (la[2]-lb[2])*(la[2]-lb[2]))
}

// TestAddressPagesFit opens the address pages and the pages with maps at
// 1280 × 800 and 390 × 844, in light and in dark: the address pages are
// no wider than the screen, every map fits in it, no address is cut off,
// and axe-core finds no violation of impact serious or critical (in dark,
// of the rules about colours, as checkScreen says). Each page is opened
// once and checked on each screen by resizing it (setScreen).
func TestAddressPagesFit(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	password := srv.addUser(t, "acme", auth.Tenant, "acme/*")
	addressPages := []string{"/addresses/acme/prod/vpc-main/10.42.1.2", "/addresses/acme/prod/vpc-main/10.42.1.1", "/addresses/acme/prod/vpc-main/10.42.9.9",
		"/addresses/public-zone-a/203.0.113.4"}
	mapPages := []string{"/subnets/acme/prod/main/web", "/pools/acme/prod/vpc-main", "/pools/acme/prod/vpc-main?block=10.42.1.0%2F24", "/vpcs/acme/prod/main"}
	page := newPage(t)
	signIn(t, page, srv.URL, "acme", password)
	for i, path := range append(addressPages, mapPages...) {
		goTo(t, page, srv.URL, path)
		for _, sc := range screens {
			setScreen(t, page, sc.width, sc.height)
			for _, scheme := range []*playwright.ColorScheme{playwright.ColorSchemeLight, playwright.ColorSchemeDark} {
				if err := page.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: scheme}); err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s %s", sc.name, *scheme)
				if i == 0 {
					screenshot(t, page, fmt.Sprintf("address-%d-%s", sc.width, *scheme))
				}
				wide, err := page.Evaluate(`() => [document.documentElement.scrollWidth,
					Math.max(0, ...[...document.querySelectorAll("[data-map]")].map((m) => m.getBoundingClientRect().right))]`)
				if err != nil {
					t.Fatal(err)
				}
				widths := wide.([]any)
				pageWidth, mapRight := toFloat(widths[0]), toFloat(widths[1])
				if strings.HasPrefix(path, "/addresses/") && pageWidth > float64(sc.width) {
					t.Errorf("%s: %s is %.0f px wide, want at most %d", name, path, pageWidth, sc.width)
				}
				if mapRight > float64(sc.width) {
					t.Errorf("%s: the map of %s reaches %.0f px, past the screen's %d", name, path, mapRight, sc.width)
				}
				checkAddressesFit(t, page, name)
				if *scheme == *playwright.ColorSchemeLight {
					checkAccessibility(t, page, path+" at "+name)
				} else {
					checkAxeRules(t, page, path+" at "+name, colourRules...)
				}
			}
		}
		setScreen(t, page, screens[0].width, screens[0].height)
	}
}

// toFloat reads a number page.Evaluate returned.
func toFloat(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case float64:
		return n
	}
	return math.NaN()
}

// TestAddressReleaseWithoutJavaScript releases from an address's page in
// a browser without JavaScript: the disclosure opens, says what goes, and
// its button posts; the page then says what happened. Another tenant gets
// the page of what does not exist.
func TestAddressReleaseWithoutJavaScript(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	password := srv.addUser(t, "acme", auth.Tenant, "acme/*")
	page := newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 390, Height: 844}, JavaScriptEnabled: playwright.Bool(false)})
	signIn(t, page, srv.URL, "acme", password)
	const vm = "/addresses/acme/prod/vpc-main/10.42.1.3"
	if _, err := page.Goto(srv.URL + vm); err != nil {
		t.Fatal(err)
	}
	if err := page.GetByText("Detach…").Click(); err != nil {
		t.Fatal(err)
	}
	consequence, err := page.Locator("[data-testid=release-consequence]").TextContent()
	if err != nil || !strings.HasPrefix(consequence, "Detaching VirtualMachine web-02/0 from subnet web releases 10.42.1.3, which it has held since ") {
		t.Errorf("the disclosure says %q (%v)", consequence, err)
	}
	if err := page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Detach", Exact: playwright.Bool(true)}).Click(); err != nil {
		t.Fatal(err)
	}
	waitForText(t, page, "flash", "Detached web-02/0 from subnet web; 10.42.1.3 is free again.")
	waitForText(t, page, "address-state", "10.42.1.3 is free")
	if got := path(t, page); got != vm {
		t.Errorf("after the detach the page is %s, want %s", got, vm)
	}

	other := newPage(t)
	signIn(t, other, srv.URL, "globex", srv.addUser(t, "globex", auth.Tenant, "globex/*"))
	for _, target := range []string{"/addresses/acme/prod/vpc-main/10.42.1.2", "/addresses/public-zone-a/203.0.113.4"} {
		res, err := other.Goto(srv.URL + target)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status() != 404 {
			t.Errorf("globex's GET %s = %d, want 404", target, res.Status())
		}
	}
}
