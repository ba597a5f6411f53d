package web

import (
	"net/http"
	"slices"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
)

// menuLinks returns the Objects menu of the page: each link's text, href
// and whether it is marked the current page.
func menuLinks(page htmlPage) (texts, hrefs []string, current []bool) {
	for _, a := range page.in("kinds-menu").tags("a") {
		_, marked := nodeAttr(a, "aria-current")
		texts, hrefs, current = append(texts, textOf(a)), append(hrefs, attrOf(a, "href")), append(current, marked)
	}
	return texts, hrefs, current
}

// TestKindsMenu: every page's navigation has, for operators, one Objects
// menu (a details disclosure, which works without JavaScript and by
// keyboard) of every kind of the branch in use, generics included, by its
// label, in alphabetical order, a label two kinds share told apart by
// namespace, the current kind marked; tenants, who read no objects, have
// none.
func TestKindsMenu(t *testing.T) {
	c := newKindsConsole(t)
	c.load(t, branch.Main, `version: "1.0"
generics:
  - {name: Endpoint, namespace: Dcim, attributes: [{name: name, kind: Text}]}
nodes:
  - {name: VLAN, namespace: Ipam, label: VLAN}
  - {name: VLAN, namespace: Dcim, inherit_from: [DcimEndpoint]}
  - {name: IPAddress, namespace: Ipam, attributes: [{name: address, kind: Text}]}
`)
	wantTexts := []string{"Endpoint", "IP address", "Site", "VLAN (Dcim)", "VLAN (Ipam)"}
	wantHrefs := []string{"/objects/DcimEndpoint", "/objects/IpamIPAddress", "/objects/LocationSite", "/objects/DcimVLAN", "/objects/IpamVLAN"}
	for _, target := range []string{"/", "/pools", "/schema", "/objects/IpamVLAN", "/objects/IpamVLAN/new", "/no-such-page"} {
		_, body := c.get(t, target, c.op)
		page := parseHTML(body)
		menus := page.in("nav").all("kinds-menu")
		if len(menus) != 1 || menus[0].Data != "details" || len(page.in("kinds-menu").all("kinds-menu-toggle")) != 1 ||
			page.in("kinds-menu").all("kinds-menu-toggle")[0].Data != "summary" || page.text("kinds-menu-toggle") != "Objects" {
			t.Fatalf("GET %s: the navigation has no one Objects menu, a details with its summary", target)
		}
		texts, hrefs, current := menuLinks(page)
		if !slices.Equal(texts, wantTexts) || !slices.Equal(hrefs, wantHrefs) {
			t.Errorf("GET %s: the menu lists %q at %q, want %q at %q", target, texts, hrefs, wantTexts, wantHrefs)
		}
		onVLANs := target == "/objects/IpamVLAN" || target == "/objects/IpamVLAN/new"
		if want := []bool{false, false, false, false, onVLANs}; !slices.Equal(current, want) {
			t.Errorf("GET %s: the menu marks %v as the current page, want %v", target, current, want)
		}
		if toggle := page.all("kinds-menu-toggle")[0]; (attrOf(toggle, "class") == "current") != onVLANs {
			t.Errorf("GET %s: the menu's toggle has class %q", target, attrOf(toggle, "class"))
		}
	}

	// On a branch: its kinds, the links keeping it.
	if _, err := c.branches.CreateBranch(t.Context(), auth.System, "b"); err != nil {
		t.Fatal(err)
	}
	c.load(t, "b", "version: \"1.0\"\nnodes:\n  - {name: Rack, namespace: Location, label: Rack of servers}\n")
	_, body := c.get(t, "/objects/LocationRack?branch=b", c.op)
	texts, hrefs, current := menuLinks(parseHTML(body))
	if i := slices.Index(texts, "Rack of servers"); i < 0 || hrefs[i] != "/objects/LocationRack?branch=b" || !current[i] || hrefs[0] != "/objects/DcimEndpoint?branch=b" {
		t.Errorf("on branch b the menu lists %q at %q", texts, hrefs)
	}
	if _, body := c.get(t, "/", c.op); slices.Contains(func() []string { texts, _, _ := menuLinks(parseHTML(body)); return texts }(), "Rack of servers") {
		t.Error("main's menu lists the kind of branch b")
	}

	// Tenants read no objects: no menu.
	for _, target := range []string{"/", "/vpcs"} {
		if status, body := c.get(t, target, c.acme); status != http.StatusOK || parseHTML(body).has("kinds-menu") {
			t.Errorf("GET %s as a tenant = %d, with an Objects menu %v", target, status, parseHTML(body).has("kinds-menu"))
		}
	}
}
