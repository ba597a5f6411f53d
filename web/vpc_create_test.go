package web

import (
	"net/url"
	"testing"

	"pivirt.hu/ipam/internal/auth"
)

// TestVPCCreateForm: the new-VPC form, for tenants and operators, without
// JavaScript: a VPC created with a ULA prefix and stable opaque
// addresses leads to its page, which says so; each refusal is shown
// beside its field, nothing stored.
func TestVPCCreateForm(t *testing.T) {
	c := newConsoleWithData(t)
	status, body := c.get(t, "/vpcs", c.acme)
	if page := parseHTML(body); status != 200 || attrOf(page.all("new-vpc")[0], "href") != "/vpcs/new" {
		t.Errorf("GET /vpcs = %d without a New VPC link to /vpcs/new", status)
	}
	status, body = c.get(t, "/vpcs/new", c.acme)
	page := parseHTML(body)
	if status != 200 || !page.has("form-new-vpc") || page.text("vpc-zone") != "None zone-a" {
		t.Errorf("GET /vpcs/new = %d, zones %q; want the form with the zones None and zone-a", status, page.text("vpc-zone"))
	}
	form := func(ns, name, cidr, zone, v6, v6len, addressing string) url.Values {
		return url.Values{"namespace": {ns}, "name": {name}, "cidr": {cidr}, "zone": {zone}, "ipv6Cidr": {v6}, "ipv6PrefixLength": {v6len}, "ipv6Addressing": {addressing}}
	}
	refusals := []struct {
		form     url.Values
		id, want string // the field's message
	}{
		{form("acme/prod", "edge", "10.50.0.5/16", "", "", "", ""), "error-cidr", "CIDR 10.50.0.5/16 has host bits set; did you mean 10.50.0.0/16?"},
		{form("globex/prod", "edge", "10.50.0.0/16", "", "", "", ""), "error-namespace", "forbidden: you may not create objects in namespace globex/prod"},
		{form("acme/prod", "edge", "10.50.0.0/16", "", "fd12::/48", "56", ""), "error-ipv6Cidr", "IPv6 CIDR and ipv6PrefixLength both name the VPC's IPv6 prefix: give one of them"},
		{form("acme/prod", "edge", "10.50.0.0/16", "", "", "56", ""), "error-ipv6PrefixLength", "IPv6 prefix length takes the VPC's IPv6 prefix from its zone's delegation pools: give a zone, or give the prefix as ipv6Cidr"},
		{form("acme/prod", "edge", "10.50.0.0/16", "", "", "x", ""), "error-ipv6PrefixLength", `IPv6 prefix length "x" is not a prefix length such as 56`},
		{form("acme/prod", "edge", "10.50.0.0/16", "", "", "", "STABLE_OPAQUE"), "error-ipv6Addressing", "IPv6 addressing is for a VPC with an IPv6 prefix: give ipv6Cidr or ipv6PrefixLength, or leave ipv6Addressing out"},
		{form("acme/prod", "main", "10.50.0.0/16", "", "", "", ""), "form-error", "VPC acme/prod/main exists already"},
	}
	for _, tt := range refusals {
		status, _, body := c.post(t, "/vpcs", tt.form, c.acme)
		page := parseHTML(body)
		if got := page.text(tt.id); status != 422 || got != tt.want || !page.has("form-new-vpc") {
			t.Errorf("POST /vpcs %v = %d with %s %q, want 422 with %q", tt.form, status, tt.id, got, tt.want)
		}
	}
	if _, err := c.svc.VPC(t.Context(), auth.System, "acme/prod", "edge"); err == nil {
		t.Error("a refused form stored VPC edge")
	}
	status, location, page := c.postFollow(t, "/vpcs", form("acme/prod", "edge", "10.50.0.0/16", "zone-a", "fd12:3456:789a::/48", "", "STABLE_OPAQUE"), c.acme)
	if status != 303 || location != "/vpcs/acme/prod/edge" || page.text("flash") != "Created VPC edge." {
		t.Errorf("POST /vpcs = %d to %q, then %q, want 303 to /vpcs/acme/prod/edge saying it was created", status, location, page.text("flash"))
	}
	v, err := c.svc.VPC(t.Context(), auth.System, "acme/prod", "edge")
	if err != nil || v.CIDR.String() != "10.50.0.0/16" || v.IPv6CIDR.String() != "fd12:3456:789a::/48" || string(v.IPv6Addressing) != "STABLE_OPAQUE" || v.Zone != "zone-a" {
		t.Errorf("the created VPC = %+v, %v", v, err)
	}
}
