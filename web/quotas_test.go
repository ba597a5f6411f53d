package web

import (
	"net/http"
	"net/url"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
)

// TestQuotasPage: the operator's quotas page lists, sets (with the
// refusals beside their fields), fills the form to edit, and unsets after
// a confirmation; tenants neither see it in the navigation nor reach it;
// a tenant's claim past a quota is refused on the VPC page, word for
// word.
func TestQuotasPage(t *testing.T) {
	c := newConsoleWithData(t)
	status, body := c.get(t, "/quotas", c.op)
	page := parseHTML(body)
	if status != http.StatusOK || !page.has("no-quotas") || !page.in("nav").linksTo("/quotas", true) || !page.has("form-set-quota") {
		t.Fatalf("GET /quotas = %d, want the empty list, the form and its link in the navigation marked current:\n%s", status, body)
	}
	_, body = c.get(t, "/", c.acme)
	if parseHTML(body).in("nav").linksTo("/quotas", false) {
		t.Error("a tenant's navigation links to the quotas")
	}
	for _, r := range []struct{ method, target string }{
		{http.MethodGet, "/quotas"}, {http.MethodPost, "/quotas"}, {http.MethodGet, "/quotas/unset?pattern=acme%2F%2A"}, {http.MethodPost, "/quotas/unset"},
	} {
		var status int
		if r.method == http.MethodGet {
			status, _ = c.get(t, r.target, c.acme)
		} else {
			status, _, _ = c.post(t, r.target, url.Values{"pattern": {"acme/*"}, "vpcs": {"9"}}, c.acme)
		}
		if status != http.StatusNotFound {
			t.Errorf("%s %s as a tenant = %d, want 404", r.method, r.target, status)
		}
	}

	set := func(pattern string, limits map[ipam.QuotaKind]string) url.Values {
		form := url.Values{"pattern": {pattern}}
		for k, v := range limits {
			form.Set(string(k), v)
		}
		return form
	}
	status, location, page := c.postFollow(t, "/quotas", set("acme/*", map[ipam.QuotaKind]string{ipam.QuotaVPCs: "2", ipam.QuotaFloatingIPs: "0"}), c.op)
	if want := "Set the quota of acme/*: each namespace it matches may hold 2 VPCs and 0 floating IPs."; status != http.StatusSeeOther || location != "/quotas" || page.text("flash") != want {
		t.Fatalf("setting acme/* = %d to %q, flash %q; want 303 to /quotas and %q", status, location, page.text("flash"), want)
	}
	c.postFollow(t, "/quotas", set("acme/prod", map[ipam.QuotaKind]string{ipam.QuotaAddresses: "121"}), c.op)
	_, body = c.get(t, "/quotas", c.op)
	page = parseHTML(body)
	row := page.in("quota-row-acme/*")
	for kind, want := range map[string]string{
		"vpcs": "2 most held 1", "subnets": "no limit", "floating_ips": "0 most held 0 · 1 namespace at the limit", "addresses": "no limit",
	} {
		if got := row.text("limit-" + kind); got != want {
			t.Errorf("acme/*'s %s reads %q, want %q", kind, got, want)
		}
	}
	// acme/prod holds 120 VM interfaces and its router's uplink.
	if got := page.in("quota-row-acme/prod").text("limit-addresses"); got != "121 most held 121 · 1 namespace at the limit" {
		t.Errorf("acme/prod's addresses read %q", got)
	}

	status, _, body = c.post(t, "/vpcs/acme/prod/main/-/claim-floating-ip", url.Values{"name": {"api"}, "zone": {"zone-a"}}, c.acme)
	if got := parseHTML(body).text("claim-error"); status != http.StatusUnprocessableEntity || got != "namespace acme/prod has reached its quota of 0 floating IPs (set for acme/*)" {
		t.Errorf("a floating IP past the quota = %d %q", status, got)
	}

	for _, tt := range []struct {
		name   string
		form   url.Values
		testid string
		want   string
	}{
		{"a limit not a number", set("acme/*", map[ipam.QuotaKind]string{ipam.QuotaSubnets: "ten"}), "error-subnets", "Subnets: give a whole number from 0, or nothing for no limit"},
		{"a negative limit", set("acme/*", map[ipam.QuotaKind]string{ipam.QuotaAddresses: "-3"}), "error-addresses", "A limit of -3 addresses is out of range: 0 to 2147483647"},
		{"no limit", set("acme/*", nil), "form-error", "Give at least one limit; to remove a quota, unset it from the list."},
		{"a wrong pattern", set("acme/*/prod", map[ipam.QuotaKind]string{ipam.QuotaVPCs: "1"}), "error-pattern", `Pattern "acme/*/prod" is not a namespace pattern such as acme/prod or acme/*`},
	} {
		status, _, body := c.post(t, "/quotas", tt.form, c.op)
		page := parseHTML(body)
		if status != http.StatusUnprocessableEntity || page.text(tt.testid) != tt.want {
			t.Errorf("%s: %d, %s %q; want 422 and %q\n%.2000s", tt.name, status, tt.testid, page.text(tt.testid), tt.want, body)
		}
		if input := page.byID("quota-pattern"); input == nil || attrOf(input, "value") != tt.form.Get("pattern") {
			t.Errorf("%s: the form lost the pattern typed", tt.name)
		}
	}

	status, body = c.get(t, "/quotas?edit=acme%2F%2A", c.op)
	page = parseHTML(body)
	if status != http.StatusOK || page.byID("quota-pattern") == nil {
		t.Fatalf("GET /quotas?edit=acme/* = %d:\n%.3000s", status, body)
	}
	if attrOf(page.byID("quota-pattern"), "value") != "acme/*" || attrOf(page.byID("quota-vpcs"), "value") != "2" ||
		attrOf(page.byID("quota-floating_ips"), "value") != "0" || attrOf(page.byID("quota-subnets"), "value") != "" {
		t.Error("the form to edit acme/* is not filled with its limits")
	}
	if status, _ := c.get(t, "/quotas?edit=nobody%2F%2A", c.op); status != http.StatusNotFound {
		t.Errorf("editing a quota that is not set = %d, want 404", status)
	}

	links := row.all("unset-quota")
	if len(links) != 1 || attrOf(links[0], "href") != "/quotas/unset?pattern=acme%2F%2A" {
		t.Fatalf("acme/*'s row has no link to unset it: %v", links)
	}
	status, body = c.get(t, "/quotas/unset?pattern=acme%2F%2A", c.op)
	page = parseHTML(body)
	if want := "The quota of acme/* lets each namespace it matches hold 2 VPCs and 0 floating IPs. Once it is unset, those namespaces are bound only by the other quotas that match them. Unset the quota of acme/*Cancel"; status != http.StatusOK || page.text("confirm-unset-quota") != want {
		t.Errorf("the confirmation = %d %q, want %q", status, page.text("confirm-unset-quota"), want)
	}
	if q, err := c.svc.Quota(t.Context(), auth.System, "acme/*"); err != nil || q.Limits[ipam.QuotaVPCs] != 2 {
		t.Errorf("asking to confirm changed the quota: %+v, %v", q, err)
	}
	status, _, page = c.postFollow(t, "/quotas/unset", url.Values{"pattern": {"acme/*"}}, c.op)
	if want := "Unset the quota of acme/*, which allowed 2 VPCs and 0 floating IPs."; status != http.StatusSeeOther || page.text("flash") != want || page.has("quota-row-acme/*") {
		t.Errorf("unsetting acme/* = %d, flash %q; want 303, %q and its row gone", status, page.text("flash"), want)
	}
	status, _, body = c.post(t, "/quotas/unset", url.Values{"pattern": {"acme/*"}}, c.op)
	if got := parseHTML(body).text("quota-refusal"); status != http.StatusUnprocessableEntity || got != "quota acme/* not found" {
		t.Errorf("unsetting acme/* again = %d %q", status, got)
	}
	if status, _ := c.get(t, "/quotas/unset?pattern=acme%2F%2A", c.op); status != http.StatusNotFound {
		t.Errorf("confirming the unset of a quota that is not set = %d, want 404", status)
	}
}
