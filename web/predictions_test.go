package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/numbers"
)

// The forms that predict what they will get show the first prediction in
// the page the server sends, so that a browser without JavaScript reads
// it too; no page says the browser computes it.

func TestVPCPagePredictsWithoutJavaScript(t *testing.T) {
	c := newConsoleWithData(t)
	status, body := c.get(t, "/vpcs/acme/prod/main", c.acme)
	if status != http.StatusOK {
		t.Fatalf("GET /vpcs/acme/prod/main = %d", status)
	}
	page := parseHTML(body)
	// web holds its gateway 10.42.1.1 and 120 interfaces from 10.42.1.2;
	// the router's uplink holds 203.0.113.2 of public-zone-a.
	for form, want := range map[string]string{
		"form-attach-interface":  "Will get 10.42.1.122",
		"form-claim-floating-ip": "Will get 203.0.113.3",
		// Nothing asked yet: no size, no CIDR.
		"form-create-subnet": "Will get",
	} {
		f := page.in(form)
		if got := f.text("prediction"); got != want {
			t.Errorf("%s reads %q, want %q", form, got, want)
		}
	}
	for form, want := range map[string]string{"form-attach-interface": "10.42.1.122", "form-claim-floating-ip": "203.0.113.3", "form-create-subnet": ""} {
		if got := hiddenValue(page.in(form), "predicted"); got != want {
			t.Errorf("%s sends the prediction %q, want %q", form, got, want)
		}
	}
	if strings.Contains(strings.ToLower(page.words()), "browser") {
		t.Errorf("the VPC page speaks of the browser: %q", page.words())
	}

	// A refused form keeps what was typed, and predicts from it: a /24
	// below web, its gateway the first host.
	status, _, refused := c.postFollow(t, "/vpcs/acme/prod/main/-/create-subnet", url.Values{"name": {"Bad Name"}, "prefixLength": {"24"}}, c.acme)
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("creating a subnet named %q = %d, want 422", "Bad Name", status)
	}
	if got, want := refused.in("form-create-subnet").text("prediction"), "Will get 10.42.0.0/24 with gateway 10.42.0.1"; got != want {
		t.Errorf("the refused create-subnet form reads %q, want %q", got, want)
	}
	// Without JavaScript, the prediction sent along is the server's: the
	// claim says it got what was predicted.
	status, _, done := c.postFollow(t, "/vpcs/acme/prod/main/-/attach-interface", url.Values{"subnet": {"web"}, "hostname": {"vm-new"}, "nic": {"0"},
		"predicted": {hiddenValue(page.in("form-attach-interface"), "predicted")}}, c.acme)
	if got := done.text("claim-result"); status != http.StatusSeeOther || !strings.Contains(got, "10.42.1.122") || !done.has("claim-as-predicted") {
		t.Errorf("attaching as the page predicted = %d %q", status, got)
	}
}

func TestPoolFormPreviewsWithoutJavaScript(t *testing.T) {
	c := newConsoleWithData(t)
	_, body := c.get(t, "/pools/new", c.op)
	page := parseHTML(body)
	if page.text("preview-count") != "" || page.text("preview-error") != "" {
		t.Errorf("the empty form previews %q %q, want nothing before anything is typed", page.text("preview-count"), page.text("preview-error"))
	}
	if strings.Contains(strings.ToLower(page.words()), "browser") {
		t.Errorf("the new pool page speaks of the browser: %q", page.words())
	}
	// Refused (the name is taken): the preview is of what was typed.
	status, _, refused := c.postFollow(t, "/pools", url.Values{"name": {"public-zone-a"}, "cidr": {"198.51.100.0/24"}, "gateway": {"198.51.100.1"}, "exclude": {"198.51.100.2-198.51.100.9"}}, c.op)
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("creating a pool of a taken name = %d, want 422", status)
	}
	got := []string{refused.text("preview-count"), refused.text("preview-first"), refused.text("preview-last")}
	if want := []string{"245", "198.51.100.10", "198.51.100.254"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the refused form previews %q, want %q", got, want)
	}
	status, _, refused = c.postFollow(t, "/pools", url.Values{"name": {"public-zone-b"}, "cidr": {"192.0.2.0/24"}, "exclude": {"192.0.3.10"}}, c.op)
	if status != http.StatusUnprocessableEntity || !strings.Contains(refused.text("preview-error"), "192.0.3.10") {
		t.Errorf("an exclude outside the CIDR = %d, the preview says %q", status, refused.text("preview-error"))
	}
}

func TestNumberPoolFormPreviewsWithoutJavaScript(t *testing.T) {
	c := newKindsConsole(t)
	page := c.page(t, "/resource-managers/new")
	if page.text("preview-size") != "" || page.text("preview-order") != "" {
		t.Errorf("the empty form previews %q %q, want nothing before a range is typed", page.text("preview-size"), page.text("preview-order"))
	}
	if strings.Contains(strings.ToLower(page.words()), "browser") {
		t.Errorf("the number pool form speaks of the browser: %q", page.words())
	}
	// A step without JavaScript (a row added): the ranges typed are
	// previewed, the heavier one first.
	step := url.Values{"name": {"VLAN IDs"}, "node": {"IpamVLAN"}, "start": {"1000", "100"}, "end": {"1999", "102"}, "weight": {"1", "5"}, "add": {"1"}}
	page = c.page(t, "/resource-managers/new?"+step.Encode())
	if got, want := page.text("preview-size"), "1,003"; got != want {
		t.Errorf("the preview's size = %q, want %q", got, want)
	}
	if got, want := page.text("preview-order"), "100, 101, 102, 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, …"; got != want {
		t.Errorf("the preview's order = %q, want %q", got, want)
	}
}

// hiddenValue returns the value of the hidden input name in p.
func hiddenValue(p htmlPage, name string) string {
	for _, n := range p.tags("input") {
		if attrOf(n, "type") == "hidden" && attrOf(n, "name") == name {
			return attrOf(n, "value")
		}
	}
	return ""
}

func TestObjectFormPredictsWithoutJavaScript(t *testing.T) {
	c := newKindsConsole(t)
	siteA := c.site(t, branch.Main, "site-a")
	perSite, err := c.nums.CreatePool(t.Context(), auth.System, numbers.PoolInput{Name: "VLAN IDs per site", Node: "IpamVLAN", NodeAttribute: "vlan_id",
		Ranges: []numbers.Range{{Start: 100, End: 199, Weight: 1}}, AllocationScope: []string{"site"}})
	if err != nil {
		t.Fatal(err)
	}
	c.vlan(t, branch.Main, "given", 100, siteA)
	// reads returns the "From pool" tab's prediction: its number, its
	// error and the number the form sends along.
	reads := func(p htmlPage) [3]string {
		f := p.in("field-vlan_id")
		return [3]string{f.text("predicted-number"), f.text("prediction-error"), hiddenValue(f, "vlan_id__predicted")}
	}

	// A new VLAN has no site yet: its division is not chosen.
	page := c.page(t, "/objects/IpamVLAN/new")
	if got, want := reads(page), [3]string{"", "choose Site first", ""}; got != want {
		t.Errorf("the new VLAN form predicts %q, want %q", got, want)
	}
	if strings.Contains(strings.ToLower(page.words()), "browser") {
		t.Errorf("the object form speaks of the browser: %q", page.words())
	}

	// Refused (its meta is not JSON) with site-a chosen: site-a holds 100.
	refuse := func(pool, site string) htmlPage {
		t.Helper()
		form := url.Values{"name": {"users"}, "site": {site}, "role": {"user"}, "active": {"true"}, "meta": {"{"},
			"vlan_id__mode": {"pool"}, "vlan_id__pool": {pool}, "vlan_id__predicted": {""}}
		status, _, body := c.post(t, "/objects/IpamVLAN", form, c.op)
		if status != http.StatusUnprocessableEntity {
			t.Fatalf("creating a VLAN whose meta is not JSON = %d, want 422", status)
		}
		return parseHTML(body)
	}
	if got, want := reads(refuse(perSite.ID, siteA)), [3]string{"101", "", "101"}; got != want {
		t.Errorf("the refused form with site-a predicts %q, want %q", got, want)
	}

	// A pool without a scope predicts at once, with no site chosen.
	whole, err := c.nums.CreatePool(t.Context(), auth.System, numbers.PoolInput{Name: "VLAN IDs", Node: "IpamVLAN", NodeAttribute: "vlan_id",
		Ranges: []numbers.Range{{Start: 1000, End: 1999, Weight: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := reads(refuse(whole.ID, "")), [3]string{"1000", "", "1000"}; got != want {
		t.Errorf("the refused form with the pool without a scope predicts %q, want %q", got, want)
	}
}
