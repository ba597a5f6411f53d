package e2e

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// The screens every console page is checked on: a laptop's and a phone's.
var screens = []struct {
	name          string
	width, height int
}{
	{"1280×800", 1280, 800},
	{"390×844", 390, 844},
}

// minFontPx is the smallest text a page may show, in CSS pixels as drawn:
// an SVG's text as its viewBox scales it.
const minFontPx = 12

// smallText lists the texts of the page drawn smaller than minFontPx, as
// JSON: each element with a text of its own that is shown (not one of the
// visually hidden labels of a screen reader, 1 px wide), its size as drawn
// and the start of its text. An SVG element's size is its font size
// scaled by its screen transformation matrix.
const smallText = `(min) => {
	const small = [];
	for (const el of document.body.querySelectorAll("*")) {
		const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join("").trim();
		if (own === "") continue;
		const box = el.getBoundingClientRect();
		if (box.width <= 1 || box.height <= 1) continue;
		const style = getComputedStyle(el);
		if (style.visibility === "hidden" || style.display === "none") continue;
		let px = parseFloat(style.fontSize);
		if (el instanceof SVGElement && el.getScreenCTM) {
			const m = el.getScreenCTM();
			if (m) px *= Math.hypot(m.a, m.b);
		}
		if (px < min - 0.05) {
			small.push({tag: el.tagName.toLowerCase(), cls: String(el.getAttribute("class") || ""), px: Math.round(px * 10) / 10, text: own.slice(0, 40)});
		}
	}
	return JSON.stringify(small);
}`

// A smallTextHit is one text smallText found.
type smallTextHit struct {
	Tag  string  `json:"tag"`
	Cls  string  `json:"cls"`
	Px   float64 `json:"px"`
	Text string  `json:"text"`
}

// widerThan is how many pixels the page is wider than its screen, and
// the elements shown that reach past its right edge, outermost first (at
// most five): what to look at when it is.
const widerThan = `() => {
	const width = document.documentElement.clientWidth;
	const over = document.documentElement.scrollWidth - width;
	const culprits = [];
	if (over > 0) {
		for (const el of document.body.querySelectorAll("*")) {
			if (!el.checkVisibility()) continue;
			const right = el.getBoundingClientRect().right;
			if (right > width + 0.5 && !culprits.some((c) => c.el.contains(el))) {
				culprits.push({el, right});
			}
			if (culprits.length >= 5) break;
		}
	}
	return JSON.stringify({over, culprits: culprits.map((c) => c.el.tagName.toLowerCase() + "." + String(c.el.getAttribute("class") || "").replace(/ /g, ".") + " (" + Math.round(c.right) + " px)")});
}`

// isDark reports whether the page is drawn on a dark background: the
// relative luminance of the root element's background colour (the
// stylesheet's) under 0.2.
const isDark = `() => {
	const [r, g, b] = getComputedStyle(document.documentElement).backgroundColor.match(/[\d.]+/g).map(Number);
	const lin = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
	return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b) < 0.2;
}`

// checkScreen checks page as it is now, in the light and the dark colour
// scheme: drawn on a light and on a dark background, no wider than its
// screen, no text smaller than minFontPx, and no violation of impact
// serious or critical that axe-core finds (in dark, of the rules about
// colours, colourRules).
func checkScreen(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	for _, scheme := range []*playwright.ColorScheme{playwright.ColorSchemeLight, playwright.ColorSchemeDark} {
		if err := page.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: scheme}); err != nil {
			t.Fatal(err)
		}
		label := name + ", " + string(*scheme)
		dark, err := page.Evaluate(isDark)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if want := *scheme == *playwright.ColorSchemeDark; dark != want {
			t.Errorf("%s: the page's background is dark: %v, want %v", label, dark, want)
		}
		out, err := page.Evaluate(widerThan)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		var wide struct {
			Over     int      `json:"over"`
			Culprits []string `json:"culprits"`
		}
		if err := json.Unmarshal([]byte(out.(string)), &wide); err != nil {
			t.Fatal(err)
		}
		if wide.Over > 0 {
			t.Errorf("%s is %d px wider than the screen: %s", label, wide.Over, strings.Join(wide.Culprits, ", "))
		}
		if *scheme == *playwright.ColorSchemeLight {
			out, err := page.Evaluate(smallText, minFontPx)
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			var small []smallTextHit
			if err := json.Unmarshal([]byte(out.(string)), &small); err != nil {
				t.Fatal(err)
			}
			for i, s := range small {
				if i == 5 {
					t.Errorf("%s: and %d more texts smaller than %d px", label, len(small)-i, minFontPx)
					break
				}
				t.Errorf("%s: the text %q (%s.%s) is %.1f px, under %d px", label, s.Text, s.Tag, s.Cls, s.Px, minFontPx)
			}
		}
		if *scheme == *playwright.ColorSchemeLight {
			checkAccessibility(t, page, label)
		} else {
			checkAxeRules(t, page, label, colourRules...)
		}
	}
}

// colourRules are the rules of axe-core whose answer the colour scheme can
// change: the stylesheet's dark mode changes colours only, so the others
// answer in dark as they did in light.
var colourRules = []string{"color-contrast", "link-in-text-block"}

// boxOf is where the one element of selector is drawn.
func boxOf(t *testing.T, page playwright.Page, selector string) *playwright.Rect {
	t.Helper()
	box, err := page.Locator(selector).BoundingBox()
	if err != nil || box == nil {
		t.Fatalf("%s is not drawn on %s: %v", selector, page.URL(), err)
	}
	return box
}

// pageShape is what a page of the console is, by its URL: the first
// segment of its path, then each segment as * but for the verbs (new, edit,
// delete, unset), and the names of its query's parameters. Pages of one
// shape are drawn by one handler and template: one of them is checked.
func pageShape(u *url.URL) string {
	segments := strings.Split(strings.Trim(u.Path, "/"), "/")
	for i := 1; i < len(segments); i++ {
		if !slices.Contains([]string{"new", "edit", "delete", "unset"}, segments[i]) {
			segments[i] = "*"
		}
	}
	keys := make([]string, 0, len(u.Query()))
	for k := range u.Query() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return "/" + strings.Join(segments, "/") + "?" + strings.Join(keys, "&")
}

// actionsOf is where each link leads, and each action button
// (views.ActionButton: a GET form of hidden fields) that leads to the
// page confirming its action.
const actionsOf = `(elements) => elements.map((e) => {
	if (e.tagName === "A") return e.getAttribute("href");
	const query = new URLSearchParams(new FormData(e)).toString();
	return e.getAttribute("action") + (query ? "?" + query : "");
})`

// notConsole are the paths under which the links lead out of the
// console's own pages: its files, the API and its GraphiQL (a vendored
// third-party page, left out as TestAccessibilityOfTheIPPages says), the
// metrics and the health check.
var notConsole = []string{"/static/", "/graphql", "/metrics", "/healthz", "/logout"}

// maxPages bounds the pages crawlPages finds for one user.
const maxPages = 80

// crawlPages follows the links and action buttons of the console from
// start, signed in on page, and returns one URL of each shape of page found
// (pageShape), in the order found, at most maxPages. Each page found is
// passed to visit while it is open, before its links are read.
func crawlPages(t *testing.T, page playwright.Page, base string, visit func(path string), start ...string) []string {
	t.Helper()
	origin, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var found, queue []string
	add := func(href string) {
		u, err := origin.Parse(href)
		if err != nil || u.Host != origin.Host || u.Scheme != origin.Scheme {
			return
		}
		u.Fragment = ""
		for _, prefix := range notConsole {
			if strings.HasPrefix(u.Path, prefix) {
				return
			}
		}
		shape := pageShape(u)
		if seen[shape] || len(found) >= maxPages {
			return
		}
		seen[shape] = true
		found = append(found, u.RequestURI())
		queue = append(queue, u.RequestURI())
	}
	for _, s := range start {
		add(s)
	}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		if _, err := page.Goto(base + next); err != nil {
			t.Fatalf("crawling %s: %v", next, err)
		}
		visit(next)
		hrefs, err := page.Locator("a[href], form.action[method=get]").EvaluateAll(actionsOf)
		if err != nil {
			t.Fatalf("the links of %s: %v", next, err)
		}
		for _, h := range hrefs.([]any) {
			add(h.(string))
		}
	}
	return found
}

// setScreen sets the page's viewport to the screen's size. The console's
// layout follows the viewport's width by its stylesheet's media queries
// alone (no script measures it), so a page resized is drawn as one opened
// on that screen.
func setScreen(t *testing.T, page playwright.Page, width, height int) {
	t.Helper()
	if err := page.SetViewportSize(width, height); err != nil {
		t.Fatalf("resizing to %d×%d: %v", width, height, err)
	}
}

// checkEveryScreen checks the page as it is now on each of screens, by
// resizing it (checkScreen), and leaves it at the first.
func checkEveryScreen(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	for i, sc := range screens {
		if i > 0 {
			setScreen(t, page, sc.width, sc.height)
		}
		checkScreen(t, page, name+" at "+sc.name)
	}
	setScreen(t, page, screens[0].width, screens[0].height)
}

// TestEveryPageOnEveryScreen visits every page of the console, one of each
// shape that its links and action buttons lead to from the dashboard and
// the search, as an operator and as a tenant (at once, each in a browser
// of their own), on the demo's data (internal/demo, with its branch): at
// 1280×800 and at 390×844, in light and in dark, each is no wider than its
// screen (a wide table scrolls inside its card), shows no text smaller
// than 12 px, and axe-core finds no violation of impact serious or
// critical. So are the refused forms, each with its mistakes beside its
// fields. Each page is opened once, checked as it is found, and on each
// screen by resizing it.
func TestEveryPageOnEveryScreen(t *testing.T) {
	srv := startServer(t)
	passwords := loadDemo(t, srv)
	wide := screens[0]
	t.Run("pages", func(t *testing.T) {
		t.Run("operator", func(t *testing.T) {
			t.Parallel()
			op := newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: wide.width, Height: wide.height}})
			signIn(t, op, srv.URL, "admin", srv.AdminPassword)
			pages := crawlPages(t, op, srv.URL, func(p string) { checkEveryScreen(t, op, p+" as operator") }, "/", "/login", "/no-such-page", "/search?q=10.42.1.")
			t.Logf("%d pages of an operator: %s", len(pages), strings.Join(pages, " "))
			if len(pages) < 20 {
				t.Fatalf("the crawl found %d pages of an operator: too few to be the console", len(pages))
			}
			for _, sc := range screens {
				setScreen(t, op, sc.width, sc.height)
				checkForms(t, op, srv.URL, sc.name, sc.width)
			}
		})
		t.Run("tenant", func(t *testing.T) {
			t.Parallel()
			ten := newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: wide.width, Height: wide.height}})
			signIn(t, ten, srv.URL, "acme", passwords["acme"])
			pages := crawlPages(t, ten, srv.URL, func(p string) { checkEveryScreen(t, ten, p+" as tenant") }, "/", "/search?q=web")
			t.Logf("%d pages of a tenant: %s", len(pages), strings.Join(pages, " "))
			if len(pages) < 5 {
				t.Fatalf("the crawl found %d pages of a tenant: too few to be the console", len(pages))
			}
			goTo(t, ten, srv.URL, "/vpcs")
			if err := ten.Locator("[data-testid=vpcs] tbody tr a").First().Click(); err != nil {
				t.Fatal(err)
			}
			if err := ten.Locator("[data-testid=form-create-subnet][data-ready=true]").WaitFor(); err != nil {
				t.Fatalf("the VPC page's forms do not start: %v", err)
			}
			fill(t, ten, "#subnet-name", "Bad")
			fill(t, ten, "#subnet-cidr", "10.0.0.5/24")
			fill(t, ten, "#subnet-gateway", "x")
			if err := ten.Locator("#subnet-gateway[aria-invalid=true]").WaitFor(); err != nil {
				t.Fatalf("the live check does not mark the gateway: %v", err)
			}
			checkEveryScreen(t, ten, "a VPC page's subnet form, checked as typed")
		})
	})
}

// checkForms checks the operator's forms on the screen the page has, name
// wide: a form's preview beside its fields on a wide screen, on a phone
// after them and before the button that acts; and the refused forms, every
// mistake beside its field (checkScreen).
func checkForms(t *testing.T, op playwright.Page, base, name string, width int) {
	t.Helper()
	for _, form := range []string{"/pools/new", "/resource-managers/new"} {
		goTo(t, op, base, form)
		fields, preview, button := boxOf(t, op, ".form-fields"), boxOf(t, op, ".preview"), boxOf(t, op, ".form-actions button[type=submit]")
		if width < 700 && !(preview.Y >= fields.Y+fields.Height && preview.Y+preview.Height <= button.Y) {
			t.Errorf("%s at %s: the preview (%+v) is not between the fields (%+v) and the button (%+v)", form, name, *preview, *fields, *button)
		}
		if width >= 700 && !(preview.X >= fields.X+fields.Width && preview.Y < button.Y) {
			t.Errorf("%s at %s: the preview (%+v) is not beside the fields (%+v)", form, name, *preview, *fields)
		}
	}
	refused := []struct {
		path, form string
		fields     map[string]string
	}{
		{"/pools/new", "form-new-pool", map[string]string{"#pool-name": "B!", "#pool-cidr": "10.0.0.5/24", "#pool-gateway": "x"}},
		{"/quotas", "form-set-quota", map[string]string{"[data-testid=form-set-quota] input[name=pattern]": "Bad Pattern"}},
		{"/vpcs/new", "form-new-vpc", map[string]string{"#vpc-namespace": "acme/prod", "#vpc-name": "B!", "#vpc-cidr": "10.0.0.5/24"}},
		{"/resource-managers/new", "form-number-pool", map[string]string{"[data-testid=range-row-0] [data-testid=range-start]": "9", "[data-testid=range-row-0] [data-testid=range-end]": "1"}},
	}
	for _, r := range refused {
		goTo(t, op, base, r.path)
		for selector, value := range r.fields {
			fill(t, op, selector, value)
		}
		click(t, op, "[data-testid="+r.form+"] button[type=submit]:not([formmethod])")
		if err := op.Locator("[data-testid=" + r.form + "] [aria-invalid=true]").First().WaitFor(); err != nil {
			t.Fatalf("%s refused marks no field: %v", r.path, err)
		}
		checkScreen(t, op, r.path+", refused, at "+name)
	}
}
