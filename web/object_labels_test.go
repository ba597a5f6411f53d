package web

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/numbers"
)

// formField is a field of the object form as a user reads it: its label
// (without the required mark and the hint), whether the label is marked
// required, and whether its input says so (required).
type formField struct {
	name, label      string
	marked, required bool
}

// formFields reads the object form's fields, in the page's order.
func formFields(t *testing.T, page htmlPage) []formField {
	t.Helper()
	var out []formField
	form := page.in("form-object")
	for _, id := range form.testIDs("field-") {
		field := form.in(id)
		name := strings.TrimPrefix(id, "field-")
		caption := field.elements(func(n *html.Node) bool { return n.Data == "legend" || n.Data == "label" })
		inputs := field.all("input-" + name)
		if len(caption) == 0 || len(inputs) != 1 {
			t.Fatalf("the field %s has no label or not one input", name)
		}
		_, required := nodeAttr(inputs[0], "required")
		out = append(out, formField{name: name, label: ownText(caption[0]), marked: field.has("required-mark"), required: required})
	}
	return out
}

// ownText is the text of n outside its spans (the required mark, hints)
// and inputs, spaces collapsed.
func ownText(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				b.WriteString(c.Data + " ")
			case c.Type == html.ElementNode && c.Data != "span" && c.Data != "input" && c.Data != "div":
				walk(c)
			}
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// TestObjectFormLabelsOrderAndMarks: the object form names each field by
// its label (the schema's, else the name made readable), marks the
// required ones visibly and with required (a Boolean never: unticked it is
// false), and puts before vlan_id the fields that its pools' scopes name
// (role and site, in the schema's order), the others in the schema's
// order.
func TestObjectFormLabelsOrderAndMarks(t *testing.T) {
	c := newKindsConsole(t)
	c.site(t, branch.Main, "site-a")
	want := []formField{
		{"name", "Name", true, true},
		{"vlan_id", "VLAN ID", true, true},
		{"role", "Role", true, true},
		{"active", "Active", false, false},
		{"tags", "Tags", false, false},
		{"meta", "Meta", false, false},
		{"site", "Site", true, true},
	}
	page := c.page(t, "/objects/IpamVLAN/new")
	if got := formFields(t, page); !slices.Equal(got, want) {
		t.Errorf("without a pool, the form's fields are\n%v\nwant\n%v", got, want)
	}
	if page.text("required-note") != "Fields marked * are required." {
		t.Errorf("the form's note reads %q", page.text("required-note"))
	}

	c.vlanPool(t, "VLAN IDs per site", []numbers.Range{{Start: 100, End: 199, Weight: 1}}, "site")
	want = []formField{
		{"name", "Name", true, true},
		{"site", "Site", true, true},
		{"vlan_id", "VLAN ID", true, true},
		{"role", "Role", true, true},
		{"active", "Active", false, false},
		{"tags", "Tags", false, false},
		{"meta", "Meta", false, false},
	}
	if got := formFields(t, c.page(t, "/objects/IpamVLAN/new")); !slices.Equal(got, want) {
		t.Errorf("with a pool by site, the form's fields are\n%v\nwant\n%v", got, want)
	}
	c.vlanPool(t, "VLAN IDs per role", []numbers.Range{{Start: 200, End: 299, Weight: 1}}, "role")
	want = []formField{
		{"name", "Name", true, true},
		{"role", "Role", true, true},
		{"site", "Site", true, true},
		{"vlan_id", "VLAN ID", true, true},
		{"active", "Active", false, false},
		{"tags", "Tags", false, false},
		{"meta", "Meta", false, false},
	}
	page = c.page(t, "/objects/IpamVLAN/new")
	if got := formFields(t, page); !slices.Equal(got, want) {
		t.Errorf("with pools by site and by role, the form's fields are\n%v\nwant\n%v", got, want)
	}
	if page.title() != "New VLAN · PiVirt IPAM" || page.text("object-list-link") != "All VLAN objects" {
		t.Errorf("the form is titled %q, links %q", page.title(), page.text("object-list-link"))
	}
	// A refused form keeps the order and the marks.
	status, _, body := c.post(t, "/objects/IpamVLAN", map[string][]string{"name": {"x"}, "vlan_id__mode": {"value"}, "vlan_id": {"ten"}}, c.op)
	if got := formFields(t, parseHTML(body)); status != http.StatusUnprocessableEntity || !slices.Equal(got, want) {
		t.Errorf("the refused form (%d) has the fields\n%v", status, got)
	}

	// The schema's labels win over the names.
	c.load(t, branch.Main, `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    label: Virtual LAN
    attributes:
      - {name: vlan_id, label: 802.1Q VLAN ID, kind: Number}
    relationships:
      - {name: site, label: Site of the VLAN, peer: LocationSite, cardinality: one, optional: false}
`)
	page = c.page(t, "/objects/IpamVLAN/new")
	got := formFields(t, page)
	if labels := []string{got[2].label, got[3].label}; got[2].name != "site" || got[3].name != "vlan_id" || !slices.Equal(labels, []string{"Site of the VLAN", "802.1Q VLAN ID"}) {
		t.Errorf("with the schema's labels, the form's fields are %v", got)
	}
	if page.title() != "New Virtual LAN · PiVirt IPAM" || page.text("object-list-link") != "All Virtual LAN objects" {
		t.Errorf("the form is titled %q, links %q", page.title(), page.text("object-list-link"))
	}

	// The list: its title, its button, its columns.
	page = c.page(t, "/objects/IpamVLAN")
	var heads []string
	for _, th := range page.in("object-table").tags("th") {
		heads = append(heads, textOf(th))
	}
	if want := "Object|Name|802.1Q VLAN ID|Role|Active|Tags|Meta|Site of the VLAN"; strings.Join(heads, "|") != want || page.text("page-title") != "Virtual LAN objects" ||
		page.text("new-object") != "New Virtual LAN" {
		t.Errorf("the list %q (%q) has the columns %q, want %q", page.text("page-title"), page.text("new-object"), strings.Join(heads, "|"), want)
	}

	// The schema page: each kind and element by its label.
	page = c.page(t, "/schema")
	vlan, site := page.in("schema-kind-IpamVLAN"), page.in("schema-kind-LocationSite")
	for _, tt := range []struct{ got, want string }{
		{vlan.text("kind-label"), "Virtual LAN"},
		{vlan.text("kind-name"), "IpamVLAN"},
		{vlan.in("attribute-vlan_id").text("element-label"), "802.1Q VLAN ID"},
		{vlan.in("attribute-name").text("element-label"), "Name"},
		{vlan.in("relationship-site").text("element-label"), "Site of the VLAN"},
		{vlan.in("relationship-backups").text("element-label"), "Backups"},
		{site.text("kind-label"), "Site"},
	} {
		if tt.got != tt.want {
			t.Errorf("the schema page reads %q, want %q", tt.got, tt.want)
		}
	}
}
