package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/numbers"

	"golang.org/x/net/html"
)

// predicted computes what the page's script does: the pool's next number
// in the division of the values, from the JSON the page carries.
func predicted(t *testing.T, page htmlPage, pool string, values ...string) string {
	t.Helper()
	data := page.byID("object-pool-data")
	if data == nil {
		t.Fatal("the form carries no pool data")
	}
	var pools []formPool
	if err := json.Unmarshal([]byte(attrOf(data, "data-pools")), &pools); err != nil {
		t.Fatal(err)
	}
	for _, p := range pools {
		if p.ID != pool {
			continue
		}
		in := candidates.NumberPreviewInput{Ranges: p.Ranges}
		for _, d := range p.Divisions {
			if strings.Join(d.Values, "/") == strings.Join(values, "/") {
				in.TakenRanges = d.Taken
			}
		}
		if out := candidates.NumberPreview(in); out.First != nil {
			return strconv.FormatInt(*out.First, 10)
		}
		return ""
	}
	t.Fatalf("the form carries no pool %s", pool)
	return ""
}

func TestObjectForm(t *testing.T) {
	c := newKindsConsole(t)
	siteA, siteB := c.site(t, branch.Main, "site-a"), c.site(t, branch.Main, "site-b")
	pool, err := c.nums.CreatePool(t.Context(), auth.System, numbers.PoolInput{Name: "VLAN IDs per site", Node: "IpamVLAN", NodeAttribute: "vlan_id",
		Ranges: []numbers.Range{{Start: 100, End: 199, Weight: 1}}, AllocationScope: []string{"site"}})
	if err != nil {
		t.Fatal(err)
	}
	c.vlan(t, branch.Main, "given", 100, siteA)

	status, body := c.get(t, "/objects/IpamVLAN/new", c.op)
	page := parseHTML(body)
	form := page.in("form-object")
	if status != http.StatusOK || !page.has("branch-select") || !page.has("form-object") {
		t.Fatalf("GET /objects/IpamVLAN/new = %d", status)
	}
	for field, want := range map[string]string{"name": "input", "role": "select", "active": "input", "tags": "textarea", "meta": "textarea", "site": "select"} {
		if in := form.all("input-" + field); len(in) != 1 || in[0].Data != want {
			t.Errorf("the form's %s is not one %s", field, want)
		}
	}
	if form.has("input-backups") {
		t.Error("the form draws backups, a relationship of cardinality many")
	}
	if values, selected := options(form.all("input-role")[0]); strings.Join(values, ",") != ",user,voice" || selected != "user" {
		t.Errorf("role offers %v, %q selected", values, selected)
	}
	site := form.all("input-site")[0]
	if values, _ := options(site); strings.Join(values, ",") != ","+siteA+","+siteB || textOf(site) != "Choose… site-asite-b" {
		t.Errorf("site offers %v (%s)", values, textOf(site))
	}
	tabs := form.in("field-vlan_id")
	if !tabs.has("tab-value") || !tabs.has("tab-from-pool") || !tabs.has("predicted-number") {
		t.Fatal("vlan_id, allocated by a pool, has no Value and From pool tabs with a predicted number")
	}
	if !page.linksTo("/objects/IpamVLAN", false) {
		t.Error("the form does not link to the kind's objects")
	}
	if _, ok := nodeAttr(tabs.all("tab-from-pool")[0], "checked"); !ok {
		t.Error("a new object's vlan_id is not From pool by default")
	}
	if values, _ := options(tabs.all("from-pool-select")[0]); strings.Join(values, ",") != pool.ID {
		t.Errorf("from-pool-select offers %v, want the pool", values)
	}
	if scripts := page.scripts("/static/js/object-form."); len(scripts) != 1 {
		t.Errorf("the form loads %d object-form scripts, want 1", len(scripts))
	}
	// site-a has 100 taken: the page predicts 101 there, 100 in site-b.
	if a, b := predicted(t, page, pool.ID, siteA), predicted(t, page, pool.ID, siteB); a != "101" || b != "100" {
		t.Errorf("the page predicts %s in site-a, %s in site-b; want 101, 100", a, b)
	}

	create := func(form url.Values) (int, string, htmlPage) {
		t.Helper()
		return c.postFollow(t, "/objects/IpamVLAN", form, c.op)
	}
	fromPool := func(name, site, predicted string) url.Values {
		return url.Values{"name": {name}, "site": {site}, "vlan_id__mode": {"pool"}, "vlan_id__pool": {pool.ID},
			"vlan_id__predicted": {predicted}, "role": {"user"}, "active": {"true"}}
	}
	status, location, page := create(fromPool("users-a", siteA, "101"))
	if status != http.StatusSeeOther || page.text("allocated-number") != "101" || !page.has("allocation-as-predicted") ||
		!strings.HasPrefix(page.text("flash"), "Created VLAN users-a on main.") {
		t.Errorf("creating from the pool = %d %s %q", status, location, page.text("flash"))
	}
	if v := page.in("field-vlan_id").all("input-vlan_id"); len(v) != 1 || attrOf(v[0], "value") != "101" {
		t.Error("the saved object's form does not show vlan_id 101")
	}
	_, _, page = create(fromPool("users-b", siteB, "100"))
	if page.text("allocated-number") != "100" {
		t.Errorf("site-b got %q, want 100", page.text("allocated-number"))
	}
	// Someone took 102 after the page predicted it: the page says so.
	c.vlan(t, branch.Main, "racer", 102, siteA)
	_, _, page = create(fromPool("late", siteA, "102"))
	if page.text("allocated-number") != "103" || !strings.Contains(page.text("allocation-differs"), "the page predicted 102") {
		t.Errorf("a lost race shows %q %q", page.text("allocated-number"), page.text("allocation-differs"))
	}

	// Validation: each mistake by its field, what was typed kept.
	status, _, body = c.post(t, "/objects/IpamVLAN", url.Values{"name": {"bad"}, "site": {siteA}, "vlan_id__mode": {"value"}, "vlan_id": {"ten"},
		"tags": {`{"a": 1}`}, "meta": {`{"a": `}}, c.op)
	page = parseHTML(body)
	if status != http.StatusUnprocessableEntity || page.text("error-vlan_id") != `Vlan id: "ten" is not a whole number` ||
		!strings.HasPrefix(page.text("error-tags"), "Tags: a List takes a JSON array") || !strings.HasPrefix(page.text("error-meta"), "Meta: not valid JSON") ||
		page.text("input-meta") != `{"a":` {
		t.Errorf("a form with mistakes = %d: %q %q %q", status, page.text("error-vlan_id"), page.text("error-tags"), page.text("error-meta"))
	}
	if _, ok := nodeAttr(page.all("tab-value")[0], "checked"); !ok {
		t.Error("the refused form does not keep the Value tab")
	}
	// The domain's refusals by field: a required value, a unique one.
	status, _, body = c.post(t, "/objects/IpamVLAN", url.Values{"name": {"nosite"}, "vlan_id__mode": {"value"}, "vlan_id": {"7"}}, c.op)
	if page := parseHTML(body); status != http.StatusUnprocessableEntity || page.text("error-site") == "" {
		t.Errorf("a VLAN without its site = %d, site error %q, form error %q", status, page.text("error-site"), page.text("form-error"))
	}
	status, _, body = c.post(t, "/objects/IpamVLAN", url.Values{"name": {"dup"}, "site": {siteA}, "vlan_id__mode": {"value"}, "vlan_id": {"101"}}, c.op)
	if page := parseHTML(body); status != http.StatusUnprocessableEntity || !strings.Contains(page.text("error-site")+page.text("form-error"), "Violates uniqueness constraint 'site-vlan_id'") {
		t.Errorf("a duplicate VLAN = %d %q %q", status, page.text("error-site"), page.text("form-error"))
	}

	// A pool or a peer that does not exist: the form says so.
	for _, form := range []url.Values{
		{"name": {"x"}, "site": {siteA}, "vlan_id__mode": {"pool"}, "vlan_id__pool": {"nope"}},
		{"name": {"x"}, "site": {"01a22f15-0000-7000-8000-000000000000"}, "vlan_id__mode": {"value"}, "vlan_id": {"5"}},
	} {
		status, _, body = c.post(t, "/objects/IpamVLAN", form, c.op)
		if page := parseHTML(body); status != http.StatusUnprocessableEntity || !strings.Contains(page.text("form-error")+page.text("error-site"), "not found") {
			t.Errorf("%v = %d %q", form, status, page.text("form-error"))
		}
	}

	// Edit: the object's values, Value tab by default; saved in place.
	editHref := location
	_, body = c.get(t, editHref, c.op)
	page = parseHTML(body)
	if _, ok := nodeAttr(page.all("tab-value")[0], "checked"); !ok || attrOf(page.all("input-name")[0], "value") != "users-a" {
		t.Error("the edit form does not show the object with its Value tab")
	}
	status, _, page = c.postFollow(t, strings.TrimSuffix(editHref, "/edit"), url.Values{"name": {"users-a2"}, "site": {siteA},
		"vlan_id__mode": {"value"}, "vlan_id": {"150"}, "role": {"voice"}, "tags": {`["x"]`}}, c.op)
	if status != http.StatusSeeOther || page.text("flash") != "Saved VLAN users-a2 on main." || attrOf(page.all("input-vlan_id")[0], "value") != "150" ||
		page.text("input-tags") != `["x"]` {
		t.Errorf("saving = %d %q", status, page.text("flash"))
	}

	// On a branch: the form keeps it, the object is the branch's alone.
	if _, err := c.branches.CreateBranch(t.Context(), auth.System, "b"); err != nil {
		t.Fatal(err)
	}
	_, body = c.get(t, "/objects/IpamVLAN/new?branch=b", c.op)
	if hidden := parseHTML(body).in("form-object").elements(func(n *html.Node) bool { return attrOf(n, "name") == "branch" }); len(hidden) != 1 || attrOf(hidden[0], "value") != "b" {
		t.Error("the form on branch b does not post its branch")
	}
	status, location, page = create(url.Values{"branch": {"b"}, "name": {"on-b"}, "site": {siteB}, "vlan_id__mode": {"value"}, "vlan_id": {"42"}})
	if status != http.StatusSeeOther || !strings.HasSuffix(location, "/edit?branch=b") || page.text("flash") != "Created VLAN on-b on b." {
		t.Errorf("creating on b = %d %s %q", status, location, page.text("flash"))
	}
	if _, body := c.get(t, "/objects/IpamVLAN?q=on-b", c.op); parseHTML(body).text("object-count") != "No object" {
		t.Error("main shows the object created on b")
	}

	for _, target := range []string{"/objects/Nope/new", "/objects/IpamVLAN/" + siteA + "/edit", "/objects/IpamVLAN/nope/edit"} {
		if status, _ := c.get(t, target, c.op); status != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", target, status)
		}
	}
	if status, _, _ := c.post(t, "/objects/IpamVLAN/01a22f15-0000-7000-8000-000000000000", url.Values{"name": {"x"}}, c.op); status != http.StatusNotFound {
		t.Errorf("saving an object that does not exist = %d, want 404", status)
	}
	c.notFoundFor(t, http.MethodGet, "/objects/IpamVLAN/new")
	c.notFoundFor(t, http.MethodGet, editHref)
	c.notFoundFor(t, http.MethodPost, "/objects/IpamVLAN")
	c.notFoundFor(t, http.MethodPost, strings.TrimSuffix(editHref, "/edit"))
}
