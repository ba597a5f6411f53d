package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
)

// searchHits are the rows of a search page's results.
func searchHits(page htmlPage) []htmlPage {
	var out []htmlPage
	for _, n := range page.in("search-results").all("search-hit") {
		out = append(out, htmlPage{n})
	}
	return out
}

// hrefs returns the links of the page, in document order.
func (p htmlPage) hrefs() []string {
	var out []string
	for _, a := range p.tags("a") {
		out = append(out, attrOf(a, "href"))
	}
	return out
}

func TestGlobalSearchBox(t *testing.T) {
	c := newConsoleWithData(t)
	for _, path := range []string{"/", "/pools", "/vpcs", "/vpcs/acme/prod/main", "/search"} {
		_, body := c.get(t, path, c.acme)
		page := parseHTML(body)
		inputs := page.all("global-search")
		if len(inputs) != 1 || attrOf(inputs[0], "name") != "q" || attrOf(inputs[0], "value") != "" {
			t.Fatalf("GET %s: %d global-search inputs, want one named q, empty", path, len(inputs))
		}
		form := inputs[0].Parent
		if form.Data != "form" || attrOf(form, "method") != "get" || attrOf(form, "action") != "/search" {
			t.Errorf("GET %s: the global-search input is in <%s method=%q action=%q>, want a GET form to /search", path, form.Data, attrOf(form, "method"), attrOf(form, "action"))
		}
		if label := page.elements(func(n *html.Node) bool { return n.Data == "label" && attrOf(n, "for") == "global-search" }); len(label) != 1 {
			t.Errorf("GET %s: the global-search input has %d labels, want 1", path, len(label))
		}
	}
	// The box says what the search finds: operators' finds objects of
	// kinds and number pools besides.
	for _, tt := range []struct {
		who  http.Header
		want string
	}{
		{c.acme, "address, 10.42.1., prefix, VM, floating IP, namespace"},
		{c.op, "address, 10.42.1., prefix, VM, namespace, object, site, number pool, number"},
	} {
		_, body := c.get(t, "/", tt.who)
		if got := attrOf(parseHTML(body).all("global-search")[0], "placeholder"); got != tt.want {
			t.Errorf("the search box's placeholder = %q, want %q", got, tt.want)
		}
	}
	// Anonymous visitors get no search.
	res := do(t, c.h, http.MethodGet, "/login", nil)
	if page := parseHTML(string(readBody(t, res))); page.has("global-search") {
		t.Error("the sign-in page has a search box")
	}
	// The search page keeps the query in the box.
	_, body := c.get(t, "/search?q=vm-007", c.acme)
	if got := attrOf(parseHTML(body).all("global-search")[0], "value"); got != "vm-007" {
		t.Errorf("the search page's box holds %q, want vm-007", got)
	}
}

func TestSearchPage(t *testing.T) {
	c := newConsoleWithData(t)
	type row struct{ kind, link, in, owner, match string }
	rowsOf := func(page htmlPage) []row {
		var out []row
		for _, h := range searchHits(page) {
			links := h.all("search-hit-link")
			if len(links) != 1 || attrOf(links[0], "href") == "" {
				t.Errorf("a hit has %d links, want one with an href: %s", len(links), h.words())
				continue
			}
			owner := h.text("search-owner")
			if owner == "" {
				owner = h.in("search-explanation").words()
			}
			out = append(out, row{attrOf(h.root, "data-kind"), attrOf(links[0], "href"), strings.Join(h.in("search-in").hrefs(), " "), owner, h.text("search-match")})
			if attrOf(h.root, "data-kind") != "address" && len(h.in("search-since").tags("time")) != 1 {
				t.Errorf("the hit %s says not since when", h.words())
			}
		}
		return out
	}
	const (
		pool   = "/pools/acme/prod/vpc-main"
		vpc    = "/vpcs/acme/prod/main"
		subnet = "/subnets/acme/prod/main/web"
		// The pages of addresses of vpc-main and of public-zone-a.
		addr   = "/addresses/acme/prod/vpc-main/"
		public = "/addresses/public-zone-a/"
	)
	tests := []struct {
		who   string
		query string
		want  []row
	}{
		{"acme", "10.42.1.2", []row{{"allocation", addr + "10.42.1.2", pool + " " + vpc + " " + subnet, "VirtualMachine vm-000/0 (uid u0) of acme/prod", "address"}}},
		{"acme", "10.42.1.1", []row{{"address", addr + "10.42.1.1", pool + " " + vpc + " " + subnet, "10.42.1.1 is the gateway of subnet web", "address"}}},
		{"acme", "10.42.1.250", []row{{"address", addr + "10.42.1.250", pool + " " + vpc + " " + subnet, "10.42.1.250 is free", "address"}}},
		{"acme", "10.42.7.7", []row{{"address", addr + "10.42.7.7", pool + " " + vpc, "10.42.7.7 is in no subnet of VPC main: addresses are handed out in subnets only", "address"}}},
		{"globex", "10.42.1.2", []row{{"address", "/pools", "", "10.42.1.2 is in no pool you may see", "address"}}},
		// The router's uplink in a public pool: an operator opens the pool,
		// a tenant the VPC that shows it.
		{"acme", "203.0.113.2", []row{{"allocation", public + "203.0.113.2", "/search?q=public-zone-a " + vpc, "VPC router (uid " + c.vpcUID(t) + ") of acme/prod", "address"}}},
		{"op", "203.0.113.2", []row{{"allocation", public + "203.0.113.2", "/pools/public-zone-a " + vpc, "VPC router (uid " + c.vpcUID(t) + ") of acme/prod", "address"}}},
		{"acme", "203.0.113.1", []row{{"address", "/search?q=203.0.113.0%2F24", "/search?q=public-zone-a", "203.0.113.1 is the pool's gateway", "address"}}},
		{"op", "203.0.113.1", []row{{"address", public + "203.0.113.1", "/pools/public-zone-a", "203.0.113.1 is the pool's gateway", "address"}}},
		{"acme", "vm-042", []row{{"allocation", addr + "10.42.1.44", pool + " " + vpc + " " + subnet, "VirtualMachine vm-042/0 (uid u42) of acme/prod", "hostname"}}},
		{"acme", "u42", []row{{"allocation", addr + "10.42.1.44", pool + " " + vpc + " " + subnet, "VirtualMachine vm-042/0 (uid u42) of acme/prod", "uid"}}},
		{"globex", "vm-042", nil},
		{"acme", "public", []row{{"pool", "/search?q=203.0.113.0%2F24", "", "public, the operators'", "name"}}},
		{"op", "public", []row{{"pool", "/pools/public-zone-a", "", "public, the operators'", "name"}}},
		{"acme", "web", []row{{"subnet", subnet, vpc, "acme/prod", "name"}}},
		{"acme", "10.42.0.0/16", []row{{"pool", pool, vpc, "acme/prod", "prefix"}, {"vpc", vpc, "", "acme/prod", "prefix"}, {"subnet", subnet, vpc, "acme/prod", "prefix"}}},
	}
	for _, tt := range tests {
		who := map[string]http.Header{"acme": c.acme, "globex": c.gx, "op": c.op}[tt.who]
		status, body := c.get(t, "/search?"+url.Values{"q": {tt.query}}.Encode(), who)
		page := parseHTML(body)
		if status != 200 || !page.has("search-results") {
			t.Errorf("GET /search?q=%s as %s = %d without search-results", tt.query, tt.who, status)
			continue
		}
		got := rowsOf(page)
		if tt.query == "10.42.0.0/16" {
			got = got[:min(3, len(got))]
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("GET /search?q=%s as %s:\n%q\nwant\n%q", tt.query, tt.who, got, tt.want)
		}
		if len(got) == 0 && !strings.HasPrefix(page.text("search-summary"), "Nothing you may see matches") {
			t.Errorf("GET /search?q=%s as %s found nothing and says %q", tt.query, tt.who, page.text("search-summary"))
		}
	}

	// Every link of a namespace's hits leads somewhere the tenant may go.
	_, body := c.get(t, "/search?q=acme/prod", c.acme)
	page := parseHTML(body)
	links := page.in("search-results").hrefs()
	if len(links) < 10 {
		t.Fatalf("the hits of acme/prod have %d links", len(links))
	}
	seen := map[string]bool{}
	for _, href := range links {
		path, fragment, _ := strings.Cut(href, "#")
		if seen[href] {
			continue
		}
		seen[href] = true
		status, body := c.get(t, path, c.acme)
		if status != 200 {
			t.Errorf("the hit link %s answers %d", href, status)
		}
		if fragment != "" && parseHTML(body).byID(fragment) == nil {
			t.Errorf("the hit link %s leads to a page without #%s", href, fragment)
		}
	}
}

// vpcUID is the uid of acme/prod's VPC main.
func (c console) vpcUID(t *testing.T) string {
	t.Helper()
	v, err := c.svc.VPC(t.Context(), auth.System, "acme/prod", "main")
	if err != nil {
		t.Fatal(err)
	}
	return v.UID
}

func TestSearchPageMoreAndRefused(t *testing.T) {
	c := newConsoleWithData(t)
	// 120 VMs: the first 50, and a link to more.
	_, body := c.get(t, "/search?q=vm", c.acme)
	page := parseHTML(body)
	more := page.all("search-more")
	if n := len(searchHits(page)); n != ipam.DefaultSearchHits || len(more) != 1 || attrOf(more[0], "href") != "/search?first=500&q=vm" ||
		!strings.HasPrefix(page.text("search-summary"), `The first 50 hits for "vm" (a name, uid or namespace); more match: narrow the query.`) {
		t.Errorf("GET /search?q=vm: %d hits, more links %d, summary %q", n, len(more), page.text("search-summary"))
	}
	_, body = c.get(t, "/search?q=vm&first=500", c.acme)
	page = parseHTML(body)
	if n := len(searchHits(page)); n != 120 || page.has("search-more") || page.text("search-summary") != `120 hits for "vm" (a name, uid or namespace).` {
		t.Errorf("GET /search?q=vm&first=500: %d hits, summary %q", n, page.text("search-summary"))
	}

	// Without a query: what to type.
	status, body := c.get(t, "/search", c.acme)
	if page := parseHTML(body); status != 200 || !page.has("search-hint") || page.has("search-results") {
		t.Errorf("GET /search = %d, hint %v", status, page.has("search-hint"))
	}
	// An IPv6 address is a query as an IPv4 one is: no pool holds this one.
	status, body = c.get(t, "/search?q=2001:db8::1", c.acme)
	if page := parseHTML(body); status != 200 || page.has("search-error") {
		t.Errorf("GET /search?q=2001:db8::1 = %d, error %q", status, page.text("search-error"))
	}
	for _, tt := range []struct{ query, want string }{
		{"q=" + strings.Repeat("x", 254), "query is too long: at most 253 characters"},
		{"q=vm&first=lots", `first "lots" is not a number: give how many hits to show, 1 to 500`},
		{"q=vm&first=501", "first 501 is out of range: 1 to 500"},
	} {
		status, body := c.get(t, "/search?"+tt.query, c.acme)
		page := parseHTML(body)
		if status != http.StatusUnprocessableEntity || page.text("search-error") != tt.want || page.has("search-results") {
			t.Errorf("GET /search?%.40s = %d %q, want 422 %q", tt.query, status, page.text("search-error"), tt.want)
		}
	}
	// Anonymous visitors sign in first.
	res := do(t, c.h, http.MethodGet, "/search?q=10.42.1.2", nil)
	if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/login") {
		t.Errorf("GET /search anonymously = %d to %q, want 303 to /login", res.StatusCode, loc)
	}
}
