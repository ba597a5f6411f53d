package web

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
)

func TestSchemaPage(t *testing.T) {
	c := newKindsConsole(t)
	sc, err := c.branches.Schema(t.Context(), branch.Main)
	if err != nil {
		t.Fatal(err)
	}
	status, body := c.get(t, "/schema", c.op)
	page := parseHTML(body)
	if status != http.StatusOK || !page.has("branch-select") || !page.has("form-schema-load") {
		t.Fatalf("GET /schema = %d, branch-select %v, form-schema-load %v", status, page.has("branch-select"), page.has("form-schema-load"))
	}
	if len(page.scripts("/static/js/branch-select.")) != 1 || attrOf(page.all("branch-select")[0], "action") != "/schema" {
		t.Error("the branch selector does not reload /schema, with its script")
	}
	if _, selected := options(page.all("branch-select-input")[0]); selected != "main" {
		t.Errorf("the branch selector shows %q, want main", selected)
	}
	vlan := page.in("schema-kind-IpamVLAN")
	k, _ := sc.Kind("IpamVLAN")
	site, _ := sc.Relationship("IpamVLAN", "site")
	vlanID, _ := sc.Attribute("IpamVLAN", "vlan_id")
	for _, check := range []struct{ got, want string }{
		{vlan.text("kind-id"), k.ID},
		{vlan.text("kind-constraints"), "site + vlan_id__value"},
		{vlan.in("attribute-vlan_id").text("element-kind"), "Number"},
		{vlan.in("attribute-vlan_id").text("element-flags"), "required"},
		{vlan.in("attribute-vlan_id").text("element-id"), vlanID.ID},
		{vlan.in("attribute-tags").text("element-flags"), "optional"},
		{vlan.in("relationship-site").text("element-kind"), "LocationSite"},
		{vlan.in("relationship-site").text("element-cardinality"), "one"},
		{vlan.in("relationship-site").text("element-id"), site.ID},
		{page.in("schema-kind-LocationSite").in("attribute-name").text("element-flags"), "required, unique"},
	} {
		if check.got != check.want {
			t.Errorf("the schema page shows %q, want %q", check.got, check.want)
		}
	}

	// A load on a branch, pasted: the branch's schema changes, main's not.
	if _, err := c.branches.CreateBranch(t.Context(), auth.System, "add-racks"); err != nil {
		t.Fatal(err)
	}
	racks := kindsSchema + "  - name: Rack\n    namespace: Dcim\n    attributes:\n      - {name: name, kind: Text}\n"
	status, location, page := c.postFollow(t, "/schema", url.Values{"branch": {"add-racks"}, "schema": {racks}}, c.op)
	if status != http.StatusSeeOther || location != "/schema?branch=add-racks" || page.text("flash") != "Loaded the schema on add-racks: 2 added, 0 changed, 0 removed." ||
		!page.has("schema-kind-DcimRack") {
		t.Errorf("loading a schema on add-racks = %d %s %q", status, location, page.text("flash"))
	}
	if _, selected := options(page.all("branch-select-input")[0]); selected != "add-racks" {
		t.Errorf("after the load, the branch selector shows %q", selected)
	}
	if _, body := c.get(t, "/schema", c.op); parseHTML(body).has("schema-kind-DcimRack") {
		t.Error("main's schema shows the kind loaded on add-racks")
	}

	// Refusals in full, the schema unchanged: the file's mistakes, each.
	bad := "version: \"1.0\"\nnodes:\n  - name: Rack\n    namespace: Dcim\n    attributes:\n      - {name: name, kind: Txt}\n      - {name: size, kind: Number, colour: red}\n"
	status, _, body = c.post(t, "/schema", url.Values{"schema": {bad}}, c.op)
	page = parseHTML(body)
	var lines []string
	for _, n := range page.in("schema-errors").all("schema-error") {
		lines = append(lines, textOf(n))
	}
	if status != http.StatusUnprocessableEntity || len(lines) != 2 || lines[0] != `schema: DcimRack.name: kind "Txt" is not one of Text, Number, Boolean, Dropdown, List, JSON, Any` ||
		page.text("schema-text") != strings.Join(strings.Fields(bad), " ") {
		t.Errorf("a refused file = %d, lists %q", status, lines)
	}
	// A change that the branch's objects refuse, in the domain's words.
	c.site(t, branch.Main, "site-a")
	status, _, body = c.post(t, "/schema", url.Values{"schema": {strings.Replace(kindsSchema, "  - name: Site\n", "  - name: Site\n    state: absent\n", 1)}}, c.op)
	if page := parseHTML(body); status != http.StatusUnprocessableEntity || !page.has("schema-error") || !page.has("schema-kind-LocationSite") {
		t.Errorf("removing a kind with objects = %d %q", status, page.text("schema-errors"))
	}

	// An upload.
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("file", "racks.yml")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte(racks))
	mw.Close()
	req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/schema", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header["Cookie"] = c.op["Cookie"]
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/schema" {
		t.Errorf("uploading a schema = %d %s %s", rec.Code, rec.Header().Get("Location"), rec.Body)
	}
	if _, body := c.get(t, "/schema", c.op); !parseHTML(body).has("schema-kind-DcimRack") {
		t.Error("the uploaded schema is not on main")
	}

	if status, _ := c.get(t, "/schema?branch=nope", c.op); status != http.StatusNotFound {
		t.Errorf("GET /schema?branch=nope = %d, want 404", status)
	}
	c.notFoundFor(t, http.MethodGet, "/schema")
	c.notFoundFor(t, http.MethodPost, "/schema")
}
