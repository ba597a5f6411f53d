package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
)

// TestEditPublicPool: an operator's Edit on a public pool's page leads to
// its form, filled; saving changes the gateway, excludes and zone
// (updatePublicPool) and the pool's page says so; a gateway over a held
// address is refused beside its field with the domain's message, what was
// typed kept. Tenants find neither the button nor the form.
func TestEditPublicPool(t *testing.T) {
	c := newConsoleWithData(t)
	_, body := c.get(t, "/pools/public-zone-a", c.op)
	b := link(t, parseHTML(body), "edit-pool")
	if textOf(b) != "Edit public pool public-zone-a" || attrOf(b, "href") != "/pools/public-zone-a/edit" {
		t.Errorf("the Edit link is named %q and leads to %q", textOf(b), attrOf(b, "href"))
	}
	status, form := c.follow(t, b, c.op)
	if status != http.StatusOK || attrOf(form.byID("pool-gateway"), "value") != "203.0.113.1" || attrOf(form.byID("pool-zone"), "value") != "zone-a" ||
		form.text("pool-cidr") != "203.0.113.0/24" {
		t.Fatalf("the form = %d, gateway %q, zone %q", status, attrOf(form.byID("pool-gateway"), "value"), attrOf(form.byID("pool-zone"), "value"))
	}
	for _, target := range []string{"/pools/public-zone-a/edit", "/pools/public-zone-a/delete"} {
		if status, _ := c.get(t, target, c.acme); status != http.StatusNotFound {
			t.Errorf("GET %s as a tenant = %d, want 404", target, status)
		}
		if status, _, _ := c.post(t, target, url.Values{"gateway": {"203.0.113.254"}}, c.acme); status != http.StatusNotFound {
			t.Errorf("POST %s as a tenant = %d, want 404", target, status)
		}
	}
	if _, body := c.get(t, "/pools/acme/prod/vpc-main", c.acme); parseHTML(body).has("edit-pool") {
		t.Error("a tenant's pool page offers Edit")
	}

	_, last := auditSince(t, c, 0)
	// The router of main holds 203.0.113.2.
	status, _, body = c.post(t, "/pools/public-zone-a/edit", url.Values{"gateway": {"203.0.113.2"}, "exclude": {"203.0.113.250"}, "zone": {"zone-a"}}, c.op)
	page := parseHTML(body)
	if want := "Public pool public-zone-a holds 1 address that gateway 203.0.113.2 would cover: 203.0.113.2 (VPC acme/prod/router); release it first, or leave it out"; status != http.StatusUnprocessableEntity || page.text("error-gateway") != want {
		t.Errorf("a gateway over the router's uplink = %d %q, want 422 %q", status, page.text("error-gateway"), want)
	}
	if attrOf(page.byID("pool-gateway"), "aria-invalid") != "true" || attrOf(page.byID("pool-gateway"), "value") != "203.0.113.2" || !strings.Contains(page.text("form-edit-pool"), "203.0.113.250") {
		t.Error("the refused form does not keep what was typed, or its gateway is not marked invalid")
	}
	status, _, body = c.post(t, "/pools/public-zone-a/edit", url.Values{"gateway": {"203.0.113.1"}, "zone": {"zone-b"}}, c.op)
	if want := "Public pool public-zone-a holds the router uplinks of 1 VPC of zone zone-a (acme/prod/main at 203.0.113.2): a router's uplink is in its VPC's zone; delete those VPCs before moving the pool to zone-b"; status != http.StatusUnprocessableEntity || parseHTML(body).text("error-zone") != want {
		t.Errorf("moving the pool = %d %q", status, parseHTML(body).text("error-zone"))
	}

	if refused, _ := auditSince(t, c, last); len(refused) > 0 {
		t.Errorf("the refused edits wrote %q", refused)
	}
	status, location, page := c.postFollow(t, "/pools/public-zone-a/edit", url.Values{"gateway": {"203.0.113.254"}, "exclude": {"203.0.113.1\n203.0.113.240-203.0.113.249"}, "zone": {"zone-a"}}, c.op)
	if want := "Saved public pool public-zone-a: gateway 203.0.113.254; exclude 203.0.113.1, 203.0.113.240-203.0.113.249; zone zone-a."; status != http.StatusSeeOther || location != "/pools/public-zone-a" || page.text("flash") != want {
		t.Errorf("saving = %d to %q, flash %q; want 303 to the pool and %q", status, location, page.text("flash"), want)
	}
	p, err := c.svc.Pool(t.Context(), auth.System, "", "public-zone-a")
	if err != nil || p.Gateway.String() != "203.0.113.254" || strings.Join(p.Exclude, " ") != "203.0.113.1 203.0.113.240-203.0.113.249" {
		t.Errorf("stored: %+v, %v", p, err)
	}
	if entries, _ := auditSince(t, c, last); strings.Join(entries, "; ") != "ops update IPAMPool public-zone-a" {
		t.Errorf("audit: %q, want the operator's one update of the pool", entries)
	}
}

// TestDeletePublicPool: Delete on a public pool holding addresses is
// refused with the domain's message, on the confirmation and when posted;
// an empty one is deleted, and the pools say so.
func TestDeletePublicPool(t *testing.T) {
	c := newConsoleWithData(t)
	if _, err := c.svc.CreatePublicPool(t.Context(), auth.System, ipam.CreatePublicPoolInput{Name: "spare", CIDR: "198.51.100.0/24", Zone: "zone-b"}); err != nil {
		t.Fatal(err)
	}
	_, last := auditSince(t, c, 0)
	_, body := c.get(t, "/pools/public-zone-a", c.op)
	status, confirm := c.follow(t, button(t, parseHTML(body), "delete-pool"), c.op)
	want := "public pool public-zone-a still holds 1 address; release it first"
	if status != http.StatusOK || confirm.text("refusal") != want || confirm.has("confirm") {
		t.Errorf("the confirmation = %d, refusal %q; want %q and no button", status, confirm.text("refusal"), want)
	}
	status, _, body = c.post(t, "/pools/public-zone-a/delete", url.Values{}, c.op)
	if got := parseHTML(body).text("refusal"); status != http.StatusUnprocessableEntity || got != want {
		t.Errorf("deleting anyway = %d %q, want 422 %q", status, got, want)
	}

	_, body = c.get(t, "/pools/spare", c.op)
	status, confirm = c.follow(t, button(t, parseHTML(body), "delete-pool"), c.op)
	if want := "Deleting public pool spare (198.51.100.0/24 in zone zone-b) removes it for good: floating IPs and routers' uplinks are no longer claimed from it."; status != http.StatusOK || confirm.text("consequence") != want {
		t.Fatalf("the confirmation = %d %q, want %q", status, confirm.text("consequence"), want)
	}
	status, location, page := c.confirm(t, confirm, c.op)
	if want := "Deleted public pool spare (198.51.100.0/24)."; status != http.StatusSeeOther || location != "/pools" || page.text("flash") != want || page.has("pool-spare") {
		t.Errorf("deleting = %d to %q, flash %q; want 303 to /pools, %q and its row gone", status, location, page.text("flash"), want)
	}
	if status, _ := c.get(t, "/pools/spare/delete", c.op); status != http.StatusNotFound {
		t.Errorf("the confirmation of a deleted pool = %d, want 404", status)
	}
	if entries, _ := auditSince(t, c, last); strings.Join(entries, "; ") != "ops delete IPAMPool spare" {
		t.Errorf("audit: %q, want the delete of spare alone", entries)
	}
}

// TestDeleteNumberPool: a number pool's page has Edit (its form) and
// Delete, whose confirmation says how many numbers go; the list of every
// pool says it was deleted, and the objects keep their values. Tenants
// find nothing.
func TestDeleteNumberPool(t *testing.T) {
	c := newKindsConsole(t)
	a := c.site(t, branch.Main, "site-a")
	p := c.vlanPool(t, "VLANs", []numbers.Range{{Start: 100, End: 199, Weight: 1}}, "site")
	c.fromPool(t, p.ID, "users", a)
	c.fromPool(t, p.ID, "voice", a)
	if _, err := c.branches.CreateBranch(t.Context(), auth.System, "b"); err != nil {
		t.Fatal(err)
	}

	_, last := auditSince(t, c.console, 0)
	page := c.page(t, "/resource-managers/"+p.ID)
	edit := link(t, page, "edit-number-pool")
	if textOf(edit) != "Edit number pool VLANs" || attrOf(edit, "href") != "/resource-managers/"+p.ID+"/edit" {
		t.Errorf("the Edit link is named %q and leads to %q", textOf(edit), attrOf(edit, "href"))
	}
	if _, form := c.follow(t, edit, c.op); attrOf(form.byID("pool-name"), "value") != "VLANs" {
		t.Errorf("Edit leads to %q", form.title())
	}
	if got := attrOf(link(t, c.page(t, "/resource-managers/"+p.ID+"?branch=b"), "edit-number-pool"), "href"); got != "/resource-managers/"+p.ID+"/edit?branch=b" {
		t.Errorf("on branch b, Edit leads to %q", got)
	}
	status, confirm := c.follow(t, button(t, page, "delete-number-pool"), c.op)
	if want := "Deleting number pool VLANs forgets the 2 numbers it has allocated from IpamVLAN.vlan_id, on every branch; the objects keep their values, and no pool gives those numbers any more."; status != http.StatusOK || confirm.text("consequence") != want {
		t.Fatalf("the confirmation = %d %q, want %q", status, confirm.text("consequence"), want)
	}
	c.notFoundFor(t, http.MethodGet, "/resource-managers/"+p.ID+"/delete")
	c.notFoundFor(t, http.MethodPost, "/resource-managers/"+p.ID+"/delete")
	status, location, page := c.confirm(t, confirm, c.op)
	if want := "Deleted number pool VLANs; the objects keep their values."; status != http.StatusSeeOther || location != "/resource-managers" || page.text("flash") != want || page.has("number-pool-VLANs") {
		t.Errorf("deleting = %d to %q, flash %q; want %q", status, location, page.text("flash"), want)
	}
	objs, err := c.branches.Objects(t.Context(), auth.System, branch.Main, "IpamVLAN", branch.Filter{}, 10, 0)
	if err != nil || objs.Count != 2 || objs.Objects[0].Attributes["vlan_id"] != int64(100) {
		t.Errorf("the VLANs after the pool's delete: %+v, %v", objs, err)
	}
	if entries, _ := auditSince(t, c.console, last); strings.Join(entries, "; ") != "ops delete CoreNumberPool VLANs" {
		t.Errorf("audit: %q, want the pool's delete alone", entries)
	}
}

// TestDeleteObject: an object's page has Delete, whose confirmation says
// the number it gives back; a site that a VLAN's required relationship
// points at is refused with the domain's message; deleting on a branch
// leaves main's.
func TestDeleteObject(t *testing.T) {
	c := newKindsConsole(t)
	a := c.site(t, branch.Main, "site-a")
	p := c.vlanPool(t, "VLANs", []numbers.Range{{Start: 100, End: 199, Weight: 1}}, "site")
	c.fromPool(t, p.ID, "users", a)
	vlans, err := c.branches.Objects(t.Context(), auth.System, branch.Main, "IpamVLAN", branch.Filter{}, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	id := vlans.Objects[0].ID

	_, last := auditSince(t, c.console, 0)
	page := c.page(t, "/objects/IpamVLAN/"+id+"/edit")
	b := button(t, page, "delete-object")
	if textOf(b) != "Delete IpamVLAN users" {
		t.Errorf("the button is named %q", textOf(b))
	}
	status, confirm := c.follow(t, b, c.op)
	if got := strings.Join(textsOf(confirm, "consequence"), " | "); status != http.StatusOK ||
		got != "Deleting IpamVLAN users removes it from branch main. | Its numbers go back to their pools: vlan_id 100 (pool VLANs). | The relationships of other objects that point at it are cleared; a required one refuses the delete." {
		t.Fatalf("the confirmation = %d %q", status, got)
	}
	c.notFoundFor(t, http.MethodGet, "/objects/IpamVLAN/"+id+"/delete")
	c.notFoundFor(t, http.MethodPost, "/objects/IpamVLAN/"+id+"/delete")

	// The site is the VLAN's required peer.
	status, _, body := c.post(t, "/objects/LocationSite/"+a+"/delete", url.Values{}, c.op)
	if got := parseHTML(body).text("refusal"); status != http.StatusUnprocessableEntity || !strings.HasPrefix(got, "cannot delete LocationSite "+a+": IpamVLAN users") {
		t.Errorf("deleting the site = %d %q", status, got)
	}

	status, location, page := c.confirm(t, confirm, c.op)
	if want := "Deleted VLAN users on branch main."; status != http.StatusSeeOther || location != "/objects/IpamVLAN" || page.text("flash") != want {
		t.Errorf("deleting = %d to %q, flash %q; want %q", status, location, page.text("flash"), want)
	}
	if _, err := c.branches.Object(t.Context(), auth.System, branch.Main, id); err == nil {
		t.Error("the VLAN is still there")
	}
	u, err := c.nums.ResourcePoolUtilization(t.Context(), auth.System, p.ID)
	if err != nil || u.Ranges[0].Utilization != 0 {
		t.Errorf("the pool after the VLAN's delete: %+v, %v; want its number back", u, err)
	}
	if entries, _ := auditSince(t, c.console, last); strings.Join(entries, "; ") != "ops delete IpamVLAN "+id+"; ops release CoreNumberPool VLANs" {
		t.Errorf("audit: %q, want the VLAN's delete and its number's release alone (the site's delete refused)", entries)
	}
}

// textsOf returns the texts of the elements with data-testid id.
func textsOf(p htmlPage, id string) []string {
	var out []string
	for _, n := range p.all(id) {
		out = append(out, textOf(n))
	}
	return out
}

// auditSince returns the audit entries after the entry id as "actor
// action object_kind object_name", and the last entry's id.
func auditSince(t *testing.T, c console, id int64) ([]string, int64) {
	t.Helper()
	var rows []struct {
		ID   int64  `db:"id"`
		Line string `db:"line"`
	}
	if err := c.db.SelectContext(t.Context(), &rows, `SELECT id, actor || ' ' || action || ' ' || object_kind || ' ' || object_name AS line FROM audit_log WHERE id > $1 ORDER BY id`, id); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range rows {
		lines = append(lines, r.Line)
		id = r.ID
	}
	return lines, id
}
