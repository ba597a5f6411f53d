package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/numbers"
)

// vlanPool creates a pool of IpamVLAN.vlan_id with the scope.
func (c kindsConsole) vlanPool(t testing.TB, name string, ranges []numbers.Range, scope ...string) numbers.Pool {
	t.Helper()
	p, err := c.nums.CreatePool(t.Context(), auth.System, numbers.PoolInput{Name: name, Node: "IpamVLAN", NodeAttribute: "vlan_id", Ranges: ranges,
		AllocationScope: scope})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fromPool creates a VLAN of the site with its vlan_id from the pool, and
// returns its number.
func (c kindsConsole) fromPool(t testing.TB, pool, name, site string) int64 {
	t.Helper()
	o, err := c.nums.CreateObject(t.Context(), auth.System, branch.Main, "IpamVLAN",
		branch.ObjectInput{Attributes: map[string]any{"name": name}, Relationships: map[string][]string{"site": {site}}},
		[]numbers.FromPool{{Attribute: "vlan_id", Pool: pool}})
	if err != nil {
		t.Fatal(err)
	}
	return o.Attributes["vlan_id"].(int64)
}

// page gets target as the operator and parses it, failing unless it is
// served.
func (c kindsConsole) page(t *testing.T, target string) htmlPage {
	t.Helper()
	status, body := c.get(t, target, c.op)
	if status != http.StatusOK {
		t.Fatalf("GET %s = %d, want 200:\n%s", target, status, body)
	}
	return parseHTML(body)
}

// cells are the texts of the cells of each row of the table in p.
func cells(p htmlPage) [][]string {
	var out [][]string
	for _, tr := range p.tags("tr") {
		var row []string
		for c := tr.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.Data == "td" {
				row = append(row, strings.Join(strings.Fields(textOf(c)), " "))
			}
		}
		if row != nil {
			out = append(out, row)
		}
	}
	return out
}

func TestResourceManagers(t *testing.T) {
	c := newKindsConsole(t)
	a := c.site(t, branch.Main, "site-a")
	p := c.vlanPool(t, "VLAN IDs per site", []numbers.Range{{Start: 100, End: 199, Weight: 1}}, "site")
	c.vlanPool(t, "global", []numbers.Range{{Start: 1, End: 4, Weight: 1}})
	c.fromPool(t, p.ID, "users", a)
	c.fromPool(t, p.ID, "voice", a)

	page := c.page(t, "/resource-managers")
	list := page.in("pool-list-numbers")
	if got := list.testIDs("number-pool-"); !slices.Equal(got, []string{"number-pool-VLAN IDs per site", "number-pool-global"}) {
		t.Fatalf("pool-list-numbers rows = %q", got)
	}
	row := list.in("number-pool-VLAN IDs per site")
	if got := row.text("pool-allocates"); got != "IpamVLAN.vlan_id" {
		t.Errorf("allocates = %q", got)
	}
	if got := row.text("pool-scope"); got != "site" {
		t.Errorf("scope = %q", got)
	}
	if got := row.in("usage-VLAN IDs per site").text("usage-figures"); got != "2 / 100" {
		t.Errorf("usage = %q, want 2 / 100", got)
	}
	if !row.linksTo("/resource-managers/"+p.ID, false) {
		t.Errorf("the row does not link to the pool's page")
	}
	if got := list.in("number-pool-global").text("pool-scope"); got != "none" {
		t.Errorf("scope of a pool without one = %q", got)
	}
	if !page.has("pool-list-ip") && !page.has("no-ip-pools") {
		t.Errorf("no list of IP pools")
	}
	if !page.has("branch-select") || !page.in("nav").linksTo("/resource-managers", true) {
		t.Errorf("no branch selector, or the navigation does not mark Resource Managers")
	}
	for _, target := range []string{"/resource-managers", "/resource-managers/new", "/resource-managers/" + p.ID, "/resource-managers/" + p.ID + "/edit"} {
		c.notFoundFor(t, http.MethodGet, target)
	}
	c.notFoundFor(t, http.MethodPost, "/resource-managers")
	c.notFoundFor(t, http.MethodPost, "/resource-managers/"+p.ID)
	if status, _ := c.get(t, "/resource-managers/nothing", c.op); status != http.StatusNotFound {
		t.Errorf("GET of a pool that does not exist = %d, want 404", status)
	}
}

func TestNumberPoolForm(t *testing.T) {
	c := newKindsConsole(t)
	// Step one: the kind.
	page := c.page(t, "/resource-managers/new")
	form := page.in("form-number-pool")
	kinds, _ := options(form.byID("pool-node"))
	if !slices.Equal(kinds, []string{"", "IpamVLAN"}) {
		t.Errorf("kinds offered = %q, want IpamVLAN only (LocationSite has no Number attribute)", kinds)
	}
	if form.has("scoped-by") || form.has("pool-node-attribute") {
		t.Errorf("the attribute or Scoped by shown before a kind is chosen")
	}
	if len(form.all("range-start")) != 1 || !page.has("preview-size") || !page.has("preview-order") {
		t.Errorf("no empty range row or no preview")
	}

	// Step two, as a browser without JavaScript sends it: the kind chosen,
	// a row added.
	step := url.Values{"name": {"VLAN IDs per site"}, "node": {"IpamVLAN"}, "start": {"100"}, "end": {"199"}, "weight": {"1"}, "add": {"1"}}
	form = c.page(t, "/resource-managers/new?"+step.Encode()).in("form-number-pool")
	if attrs, selected := options(form.byID("pool-node-attribute")); !slices.Equal(attrs, []string{"vlan_id"}) || selected != "vlan_id" {
		t.Errorf("attributes = %q (%q), want vlan_id", attrs, selected)
	}
	// Not name? It is: a required Text. Not vlan_id (allocated), tags and
	// meta (optional), backups (many).
	if got := form.in("scoped-by").testIDs("scope-"); !slices.Equal(got, []string{"scope-name", "scope-role", "scope-active", "scope-site"}) {
		t.Errorf("Scoped by offers %q", got)
	}
	if n := len(form.all("range-start")); n != 2 {
		t.Errorf("%d rows after adding one, want 2", n)
	}
	step.Del("add")
	step["start"], step["end"], step["weight"] = []string{"100", "1"}, []string{"199", "9"}, []string{"2", "1"}
	step.Set("remove", "0")
	form = c.page(t, "/resource-managers/new?"+step.Encode()).in("form-number-pool")
	if starts := form.all("range-start"); len(starts) != 1 || attrOf(starts[0], "value") != "1" {
		t.Errorf("after removing the first row: %d rows", len(starts))
	}

	// A refusal in the domain's words, the form kept.
	bad := url.Values{"name": {"VLAN IDs per site"}, "node": {"IpamVLAN"}, "node_attribute": {"vlan_id"}, "start": {"100", "150"},
		"end": {"199", "160"}, "weight": {"1", "1"}, "scope": {"site"}}
	status, _, body := c.post(t, "/resource-managers", bad, c.op)
	page = parseHTML(body)
	if status != http.StatusUnprocessableEntity || !strings.Contains(page.text("error-ranges"), "overlap") {
		t.Fatalf("POST of overlapping ranges = %d, error %q", status, page.text("error-ranges"))
	}
	if _, err := c.nums.CreatePool(t.Context(), auth.System, numbers.PoolInput{Name: "x", Node: "IpamVLAN", NodeAttribute: "vlan_id",
		Ranges: []numbers.Range{{Start: 100, End: 199, Weight: 1}, {Start: 150, End: 160, Weight: 1}}}); err == nil || page.text("error-ranges") != candidates.Plain("ranges", err.Error()) {
		t.Errorf("the form says %q, the domain %v", page.text("error-ranges"), err)
	}
	bad.Set("scope", "tags")
	bad["start"], bad["end"], bad["weight"] = []string{"100"}, []string{"199"}, []string{""}
	_, _, body = c.post(t, "/resource-managers", bad, c.op)
	if got, want := parseHTML(body).text("error-allocation_scope"), `Allocation scope: "tags" is optional; a scope element must be required on IpamVLAN`; got != want {
		t.Errorf("refused scope: %q, want %q", got, want)
	}

	// Created, scoped by site; a weight left empty is 1.
	bad.Set("scope", "site")
	status, location, page := c.postFollow(t, "/resource-managers", bad, c.op)
	if status != http.StatusSeeOther || !strings.HasPrefix(location, "/resource-managers/") {
		t.Fatalf("POST /resource-managers = %d to %q", status, location)
	}
	pools, err := c.nums.Pools(t.Context(), auth.System, numbers.PoolFilter{Name: "VLAN IDs per site"}, 0, 0)
	if err != nil || pools.Count != 1 {
		t.Fatalf("Pools = %+v, %v", pools, err)
	}
	pool := pools.Pools[0]
	if !slices.Equal(pool.ScopeNames(), []string{"site"}) || pool.Ranges[0] != (numbers.Range{Start: 100, End: 199, Weight: 1}) ||
		location != "/resource-managers/"+pool.ID || !page.mentions("Created number pool VLAN IDs per site.") {
		t.Errorf("created %+v, at %s", pool, location)
	}

	// Edit: Scoped by read-only, the ranges changed.
	form = c.page(t, "/resource-managers/"+pool.ID+"/edit").in("form-number-pool")
	if form.has("scoped-by") || form.in("scoped-by-readonly").testIDs("scope-")[0] != "scope-site" || len(form.tags("select")) != 0 {
		t.Errorf("the edit form offers to change the scope or the attribute")
	}
	if len(form.elements(func(n *html.Node) bool { return n.Data == "input" && attrOf(n, "name") == "scope" })) != 0 {
		t.Errorf("the edit form has scope inputs")
	}
	edit := url.Values{"name": {"VLANs"}, "start": {"100", "300"}, "end": {"199", "309"}, "weight": {"1", "5"}, "scope": {"role"}}
	if status, location, _ := c.postFollow(t, "/resource-managers/"+pool.ID, edit, c.op); status != http.StatusSeeOther || location != "/resource-managers/"+pool.ID {
		t.Fatalf("POST edit = %d to %q", status, location)
	}
	pool, err = c.nums.Pool(t.Context(), auth.System, pool.ID)
	if err != nil || pool.Name != "VLANs" || len(pool.Ranges) != 2 || pool.Ranges[1].Weight != 5 || !slices.Equal(pool.ScopeNames(), []string{"site"}) {
		t.Errorf("after the edit: %+v, %v", pool, err)
	}
	edit["start"] = []string{"1", "2"}
	edit["end"] = []string{"0", "3"}
	status, _, body = c.post(t, "/resource-managers/"+pool.ID, edit, c.op)
	if status != http.StatusUnprocessableEntity || parseHTML(body).text("error-ranges") != "Range 1 start 1 is after its end 0" {
		t.Errorf("edit with start after end = %d, %q", status, parseHTML(body).text("error-ranges"))
	}
}

func TestNumberPoolPage(t *testing.T) {
	c := newKindsConsole(t)
	sites := map[string]string{}
	for _, name := range []string{"site-a", "site-b", "site-c"} {
		sites[name] = c.site(t, branch.Main, name)
	}
	p := c.vlanPool(t, "VLAN IDs per site", []numbers.Range{{Start: 100, End: 109, Weight: 2}, {Start: 1001, End: 3000, Weight: 1}}, "site")
	for i, s := range []string{"site-a", "site-b", "site-a", "site-c", "site-a", "site-b"} {
		c.fromPool(t, p.ID, fmt.Sprint("v", i), sites[s])
	}
	href := "/resource-managers/" + p.ID

	page := c.page(t, href)
	scopes := page.in("allocation-scopes")
	if got := scopes.testIDs("division-"); !slices.Equal(got, []string{"division-site-a", "division-site-b", "division-site-c"}) {
		t.Fatalf("allocation scopes = %q, most used first", got)
	}
	if got := cells(scopes)[0]; !slices.Equal(got, []string{"site-a", "3 / 2,010"}) {
		t.Errorf("first row = %q", got)
	}
	if !scopes.in("division-site-a").linksTo(fmt.Sprintf("/objects/LocationSite/%s/edit", sites["site-a"]), false) {
		t.Errorf("the site is not linked to its object")
	}
	if got := scopes.testIDs("sort-"); !slices.Equal(got, []string{"sort-site", "sort-usage"}) {
		t.Errorf("sortable columns = %q", got)
	}
	byName := c.page(t, attrOf(scopes.all("sort-site")[0], "href")).in("allocation-scopes")
	if got := byName.testIDs("division-"); !slices.Equal(got, []string{"division-site-a", "division-site-b", "division-site-c"}) {
		t.Errorf("by site = %q", got)
	}
	reversed := c.page(t, attrOf(byName.all("sort-site")[0], "href")).in("allocation-scopes")
	if got := reversed.testIDs("division-"); !slices.Equal(got, []string{"division-site-c", "division-site-b", "division-site-a"}) {
		t.Errorf("by site, reversed = %q", got)
	}
	searched := c.page(t, href+"?q=SITE-B").in("allocation-scopes")
	if got := searched.testIDs("division-"); !slices.Equal(got, []string{"division-site-b"}) || !strings.HasPrefix(searched.text("scope-count"), "1 matching") {
		t.Errorf("searched = %q, %q", got, searched.text("scope-count"))
	}
	// htmx asks for the list alone.
	res := do(t, c.h, http.MethodGet, href+"?q=site-c", http.Header{"Cookie": c.op["Cookie"], "Hx-Request": {"true"}, "Hx-Target": {"allocation-scopes"}})
	if frag := parseHTML(string(readBody(t, res))); frag.has("page-title") || !slices.Equal(frag.testIDs("division-"), []string{"division-site-c"}) {
		t.Errorf("the htmx fragment is not the list alone")
	}

	// A division: its ranges, strips, numbers and the card.
	open := c.page(t, attrOf(scopes.in("division-site-a").all("open-division")[0], "href"))
	card := open.in("allocation-scope-card")
	if got := card.text("allocation-scope-current"); got != "site-a" {
		t.Errorf("card = %q", got)
	}
	choices, selected := options(card.byID("allocation-scope-switch"))
	key, _ := json.Marshal([]string{sites["site-a"]})
	if len(choices) != 3 || selected != string(key) {
		t.Errorf("card offers %q, %q selected", choices, selected)
	}
	nums := open.in("division-numbers")
	if got := nums.testIDs("number-"); !slices.Equal(got, []string{"number-100", "number-101", "number-102"}) {
		t.Errorf("numbers of site-a = %q", got)
	}
	if row := cells(nums)[0]; row[1] != "v0" || row[2] != "IpamVLAN" || row[3] != "main" {
		t.Errorf("holder of 100 = %q", row)
	}
	maps := open.all("range-map")
	if len(maps) != 2 {
		t.Fatalf("%d range maps, want 2", len(maps))
	}
	var taken []string
	for c := maps[0].FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && attrOf(c, "class") == "s-t" {
			taken = append(taken, attrOf(c, "data-first"))
		}
	}
	if !slices.Equal(taken, []string{"100", "101", "102"}) {
		t.Errorf("taken in the strip of 100-109: %q", taken)
	}
	if n := len(parseHTML(renderNode(maps[1])).tags("span")); n != 1000 {
		t.Errorf("the strip of 1001-3000 has %d cells, want 1000 blocks of 2", n)
	}
	// Switch from the card.
	other, _ := json.Marshal([]string{sites["site-b"]})
	switched := c.page(t, href+"?division="+url.QueryEscape(string(other)))
	if got := switched.in("allocation-scope-card").text("allocation-scope-current"); got != "site-b" ||
		!slices.Equal(switched.in("division-numbers").testIDs("number-"), []string{"number-100", "number-101"}) {
		t.Errorf("site-b: %q, %q", got, switched.in("division-numbers").testIDs("number-"))
	}
	if status, _ := c.get(t, href+"?division=nonsense", c.op); status != http.StatusNotFound {
		t.Errorf("a division that is not one: %d, want 404", status)
	}

	// A pool without a scope: its ranges and numbers directly.
	plain := c.vlanPool(t, "global", []numbers.Range{{Start: 1000, End: 1003, Weight: 1}})
	c.fromPool(t, plain.ID, "g", sites["site-a"])
	page = c.page(t, "/resource-managers/"+plain.ID)
	// Every VLAN's number is recorded: 1000 from the pool, the others held
	// outside its ranges.
	if page.has("allocation-scopes") || page.has("allocation-scope-card") || !slices.Contains(page.in("division-numbers").testIDs("number-"), "number-1000") ||
		len(page.all("range-map")) != 1 || page.in("division-ranges").in("range-usage").text("usage-figures") != "1 / 4" {
		t.Errorf("a pool without a scope: %q", page.testIDs(""))
	}
}

// TestNumberPoolSortShown: each column header's aria-sort says the order
// the rows are in: by usage, most used first, is descending (the
// default), its reverse ascending; by site, ascending then descending.
func TestNumberPoolSortShown(t *testing.T) {
	c := newKindsConsole(t)
	sites := map[string]string{}
	for _, name := range []string{"site-a", "site-b", "site-c"} {
		sites[name] = c.site(t, branch.Main, name)
	}
	p := c.vlanPool(t, "VLAN IDs per site", []numbers.Range{{Start: 100, End: 109, Weight: 1}}, "site")
	for i, s := range []string{"site-b", "site-b", "site-b", "site-a", "site-c", "site-c"} {
		c.fromPool(t, p.ID, fmt.Sprint("v", i), sites[s])
	}
	sorted := func(scopes htmlPage, column string) string {
		t.Helper()
		return attrOf(scopes.all("sort-" + column)[0].Parent, "aria-sort")
	}
	href := "/resource-managers/" + p.ID
	for _, tt := range []struct {
		query       string
		rows        []string
		site, usage string
	}{
		{"", []string{"division-site-b", "division-site-c", "division-site-a"}, "none", "descending"},
		{"?sort=usage", []string{"division-site-b", "division-site-c", "division-site-a"}, "none", "descending"},
		{"?sort=usage&dir=desc", []string{"division-site-a", "division-site-c", "division-site-b"}, "none", "ascending"},
		{"?sort=site", []string{"division-site-a", "division-site-b", "division-site-c"}, "ascending", "none"},
		{"?sort=site&dir=desc", []string{"division-site-c", "division-site-b", "division-site-a"}, "descending", "none"},
	} {
		scopes := c.page(t, href+tt.query).in("allocation-scopes")
		if got := scopes.testIDs("division-"); !slices.Equal(got, tt.rows) {
			t.Errorf("%q: rows %q, want %q", tt.query, got, tt.rows)
		}
		if site, usage := sorted(scopes, "site"), sorted(scopes, "usage"); site != tt.site || usage != tt.usage {
			t.Errorf("%q: aria-sort of site %q, of usage %q; want %q and %q", tt.query, site, usage, tt.site, tt.usage)
		}
	}
}

// renderNode writes n back as HTML.
func renderNode(n *html.Node) string {
	var b strings.Builder
	html.Render(&b, n)
	return b.String()
}

// TestNumberPoolPagers: the allocation scopes and a division's numbers
// are paged, 50 a page.
func TestNumberPoolPagers(t *testing.T) {
	c := newKindsConsole(t)
	p := c.vlanPool(t, "VLAN IDs per site", []numbers.Range{{Start: 1, End: 4094, Weight: 1}}, "site")
	var first string
	for i := range 55 {
		site := c.site(t, branch.Main, fmt.Sprintf("site-%02d", i))
		if i == 0 {
			first = site
		}
		c.fromPool(t, p.ID, fmt.Sprint("v", i), site)
	}
	for i := range 51 {
		c.fromPool(t, p.ID, fmt.Sprint("more", i), first)
	}
	href := "/resource-managers/" + p.ID
	scopes := c.page(t, href).in("allocation-scopes")
	if n := len(scopes.testIDs("division-")); n != 50 || scopes.has("previous-page") || !strings.HasPrefix(scopes.text("scope-count"), "55 allocation scopes") {
		t.Fatalf("first page: %d rows, %q", n, scopes.text("scope-count"))
	}
	// Most used first: site-00, with 52 numbers.
	if got := scopes.testIDs("division-")[0]; got != "division-site-00" {
		t.Errorf("first row = %s", got)
	}
	second := c.page(t, attrOf(scopes.all("next-page")[0], "href")).in("allocation-scopes")
	if n := len(second.testIDs("division-")); n != 5 || second.has("next-page") || !second.has("previous-page") {
		t.Errorf("second page: %d rows", n)
	}
	key, _ := json.Marshal([]string{first})
	division := c.page(t, href+"?division="+url.QueryEscape(string(key))).in("division-numbers")
	if n := len(division.testIDs("number-")); n != 50 || division.text("division-number-count") != "52 numbers" || !division.has("numbers-next-page") {
		t.Fatalf("site-00's first page: %d numbers, %q", n, division.text("division-number-count"))
	}
	rest := c.page(t, attrOf(division.all("numbers-next-page")[0], "href")).in("division-numbers")
	if got := rest.testIDs("number-"); !slices.Equal(got, []string{"number-51", "number-52"}) || !rest.has("numbers-previous-page") {
		t.Errorf("site-00's second page: %q", got)
	}
}
