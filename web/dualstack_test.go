package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
)

// TestPoolCreateFormIPv6 posts IPv6 prefixes to the new public pool form
// as a browser without JavaScript does: a prefix in another spelling than
// RFC 5952's, or with host bits, is refused beside its field with the
// canonical one, and the form shows the server's preview of what it holds.
func TestPoolCreateFormIPv6(t *testing.T) {
	c := newConsoleWithData(t)
	form := func(name, cidr string) url.Values {
		return url.Values{"name": {name}, "cidr": {cidr}, "gateway": {""}, "exclude": {""}, "zone": {"zone-b"}}
	}
	for _, tt := range []struct {
		form                    url.Values
		cidrError, previewError string
	}{
		{form("v6", "2001:DB8:0::/32"), "CIDR 2001:DB8:0::/32 is not in canonical form; did you mean 2001:db8::/32?", "CIDR 2001:DB8:0::/32 is not in canonical form; did you mean 2001:db8::/32?"},
		{form("v6", "2001:db8::1/64"), "CIDR 2001:db8::1/64 has host bits set; did you mean 2001:db8::/64?", "CIDR 2001:db8::1/64 has host bits set; did you mean 2001:db8::/64?"},
	} {
		status, _, body := c.post(t, "/pools", tt.form, c.op)
		page := parseHTML(body)
		if status != 422 || page.text("error-cidr") != tt.cidrError || page.text("preview-error") != tt.previewError || page.text("preview-count") != "" {
			t.Errorf("POST /pools %v = %d with %q, preview %q %q; want 422 with %q", tt.form, status, page.text("error-cidr"), page.text("preview-error"), page.text("preview-count"), tt.cidrError)
		}
	}
	// A valid prefix with another mistake: the preview counts its
	// addresses exactly, and readably.
	for cidr, want := range map[string][3]string{
		"2001:db8::/64":  {"2^64 − 1 (18.4 quintillion)", "2001:db8::1", "2001:db8::ffff:ffff:ffff:ffff"},
		"2001:db8::/48":  {"2^80 − 1 (1.21 septillion)", "2001:db8::1", "2001:db8:0:ffff:ffff:ffff:ffff:ffff"},
		"2001:db8::/120": {"255", "2001:db8::1", "2001:db8::ff"},
		"2001:db8::/127": {"2", "2001:db8::", "2001:db8::1"},
	} {
		status, _, body := c.post(t, "/pools", form("B!", cidr), c.op)
		page := parseHTML(body)
		if got := [3]string{page.text("preview-count"), page.text("preview-first"), page.text("preview-last")}; status != 422 || got != want {
			t.Errorf("the preview of %s = %d %q, want 422 %q", cidr, status, got, want)
		}
	}
}

// TestDualStackHistoryPages: a dual-stack subnet's page shows its IPv6
// prefix's usage and, below its IPv4 chart, the chart of its IPv6 side
// from that side's history, exact; the dashboard lists the VPC's IPv6
// prefix in /64s and the subnet's IPv6 side, readably, and counts the
// IPv6 pools.
func TestDualStackHistoryPages(t *testing.T) {
	c := newConsoleWithData(t)
	ctx := t.Context()
	if _, err := c.svc.CreatePublicPool(ctx, auth.System, ipam.CreatePublicPoolInput{Name: "v6-uplinks", CIDR: "2001:db8::/64", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.svc.CreateVPC(ctx, auth.System, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "edge", CIDR: "10.60.0.0/16", Zone: "zone-a", IPv6CIDR: "fd12:3456:789a::/48"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.svc.CreateSubnet(ctx, auth.System, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "edge", Name: "lb", CIDR: "10.60.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := c.svc.AttachNic(ctx, auth.System, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "edge", Subnet: "lb",
			VM: ipam.VMRef{UID: fmt.Sprint("lb", i), Hostname: fmt.Sprintf("lb-%02d", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	for h := 3; h >= 1; h-- {
		if err := c.svc.RecordUsage(ctx, now.Add(-time.Duration(h)*time.Hour), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}

	status, body := c.get(t, "/subnets/acme/prod/edge/lb", c.acme)
	if status != http.StatusOK {
		t.Fatalf("GET /subnets/acme/prod/edge/lb = %d:\n%s", status, body)
	}
	page := parseHTML(body)
	if got := page.text("subnet-ipv6-usage"); got != "3 / 2^64 − 2 (18.4 quintillion)" {
		t.Errorf("the subnet's IPv6 usage: %q, want 3 / 2^64 − 2 (18.4 quintillion)", got)
	}
	panel := testID(page, "usage-history-ipv6")
	if panel == nil || attrOf(panel, "id") != "usage-history-ipv6" {
		t.Fatalf("the subnet's page has no IPv6 chart panel")
	}
	if n := len(page.all("usage-chart")); n != 2 {
		t.Errorf("%d charts, want 2: the IPv4 side's and the IPv6 side's", n)
	}
	ipv6 := page.all("usage-chart")[1]
	if attrOf(ipv6, "data-points") != "3" || !strings.Contains(attrOf(ipv6, "aria-label"), "3 of 2^64 − 2 (18.4 quintillion) now") {
		t.Errorf("the IPv6 chart: %s points, labelled %q; want 3, and 3 of 2^64 − 2 (18.4 quintillion) now", attrOf(ipv6, "data-points"), attrOf(ipv6, "aria-label"))
	}
	if !strings.Contains(body, `href="/subnets/acme/prod/edge/lb?span=7d#usage-history-ipv6"`) {
		t.Errorf("the IPv6 chart's spans do not link back to it")
	}

	status, body = c.get(t, "/", c.op)
	if status != http.StatusOK {
		t.Fatalf("GET / = %d", status)
	}
	page = parseHTML(body)
	for id, want := range map[string]string{
		"exhaustion-acme/prod/edge ipv6":    "1 / 65,536 /64s",
		"exhaustion-acme/prod/edge/lb ipv6": "3 / 2^64 − 2 (18.4 quintillion)",
		"exhaustion-acme/prod/edge/lb":      "3 / 253",
	} {
		if !page.has(id) {
			t.Errorf("the dashboard has no row %s", id)
			continue
		}
		if got := page.in(id).text("usage-figures"); got != want {
			t.Errorf("the dashboard's row %s: %q, want %q", id, got, want)
		}
	}
	if got := page.text("count-ipv6-pools"); got != "2 of them IPv6" {
		t.Errorf("the count of IPv6 pools: %q, want 2 of them IPv6 (v6-uplinks, vpc-edge-v6)", got)
	}
}

// TestDualStackVPCChart: a dual-stack VPC's page charts its IPv6 prefix's
// /64s over time from the VPC's history, with its figures exact.
func TestDualStackVPCChart(t *testing.T) {
	c := newConsoleWithData(t)
	ctx := t.Context()
	if _, err := c.svc.CreateVPC(ctx, auth.System, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "edge", CIDR: "10.60.0.0/16", IPv6CIDR: "fd12:3456:789a::/48"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"lb", "app"} {
		if _, err := c.svc.CreateSubnet(ctx, auth.System, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "edge", Name: name, PrefixLength: 24}); err != nil {
			t.Fatal(err)
		}
		if err := c.svc.RecordUsage(ctx, time.Now(), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	status, body := c.get(t, "/vpcs/acme/prod/edge", c.acme)
	if status != http.StatusOK {
		t.Fatalf("GET /vpcs/acme/prod/edge = %d:\n%s", status, body)
	}
	page := parseHTML(body)
	chart := page.in("usage-history-ipv6")
	if got := chart.tags("h2"); len(got) != 1 || textOf(got[0]) != "IPv6 usage over time" {
		t.Fatalf("the VPC page's IPv6 chart: %v", got)
	}
	svg := testID(chart, "usage-chart")
	if svg == nil || attrOf(svg, "data-points") != "1" || !strings.Contains(attrOf(svg, "aria-label"), "2 of 65,536 /64s now") {
		t.Errorf("the IPv6 chart: %v", svg)
	}
	if !chart.linksTo("/vpcs/acme/prod/edge?span=7d#usage-history-ipv6", false) {
		t.Errorf("the IPv6 chart's spans do not link back to it")
	}
}
