package web

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
)

// dualStack adds to the console's data a dual-stack VPC acme/prod/edge
// with the ULA fd12:3456:789a::/48 and two subnets: web (10.50.1.0/24 and
// the lowest free /64, fd12:3456:789a::/64) and db (10.50.2.0/24 and
// fd12:3456:789a:101::/64).
func dualStack(t *testing.T, c console) {
	t.Helper()
	ctx := t.Context()
	if _, err := c.svc.CreateVPC(ctx, auth.System, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "edge", CIDR: "10.50.0.0/16", IPv6CIDR: "fd12:3456:789a::/48"}); err != nil {
		t.Fatal(err)
	}
	for _, in := range []ipam.CreateSubnetInput{
		{Namespace: "acme/prod", VPC: "edge", Name: "web", CIDR: "10.50.1.0/24"},
		{Namespace: "acme/prod", VPC: "edge", Name: "db", CIDR: "10.50.2.0/24", IPv6CIDR: "fd12:3456:789a:101::/64"},
	} {
		if _, err := c.svc.CreateSubnet(ctx, auth.System, in); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDualStackVPCPage: the VPC page of a dual-stack VPC shows both
// prefixes, each subnet's two prefixes and gateways, and its IPv6 prefix
// as 256 /56s, each a link one level down to the IPv6 pool's page, which
// draws a /56 as 256 /64s, each subnet's leading to its page.
func TestDualStackVPCPage(t *testing.T) {
	c := newConsoleWithData(t)
	dualStack(t, c)
	status, body := c.get(t, "/vpcs/acme/prod/edge", c.acme)
	page := parseHTML(body)
	if status != 200 {
		t.Fatalf("GET the VPC page = %d", status)
	}
	for id, want := range map[string]string{
		"vpc-cidr":       "10.50.0.0/16",
		"vpc-ipv6-cidr":  "fd12:3456:789a::/48",
		"vpc-ipv6-pool":  "vpc-edge-v6",
		"vpc-ipv6-usage": "2 / 65,536 /64s",
	} {
		if got := page.text(id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	for sub, want := range map[string][2]string{"web": {"fd12:3456:789a::/64", "fd12:3456:789a::1"}, "db": {"fd12:3456:789a:101::/64", "fd12:3456:789a:101::1"}} {
		s := page.in("subnet-" + sub)
		if s.text("subnet-ipv6-cidr") != want[0] || s.text("subnet-ipv6-gateway") != want[1] {
			t.Errorf("subnet %s: IPv6 %q gateway %q, want %s and %s", sub, s.text("subnet-ipv6-cidr"), s.text("subnet-ipv6-gateway"), want[0], want[1])
		}
	}
	grid := page.in("vpc-ipv6-map")
	cells := grid.tags("a")
	if len(cells) != 256 {
		t.Fatalf("the IPv6 map has %d cells, want 256 /56s", len(cells))
	}
	down := "/pools/acme/prod/vpc-edge-v6?" + url.Values{"block": {"fd12:3456:789a:100::/56"}}.Encode()
	if c := cells[1]; attrOf(c, "href") != down || attrOf(c, "title") != "fd12:3456:789a:100::/56: 1 of 256 /64s in use" || attrOf(c, "class") != "u1" {
		t.Errorf("the second /56: %s %q %s, want a link to %s", attrOf(c, "href"), attrOf(c, "title"), attrOf(c, "class"), down)
	}
}

// TestDualStackPoolZoom: one level down from the VPC page's map, the
// IPv6 pool's page draws the /56 of db as 256 /64s, db's leading to its
// page and a free one to the pool's table kept to it.
func TestDualStackPoolZoom(t *testing.T) {
	c := newConsoleWithData(t)
	dualStack(t, c)
	down := "/pools/acme/prod/vpc-edge-v6?" + url.Values{"block": {"fd12:3456:789a:100::/56"}}.Encode()
	status, body := c.get(t, down, c.acme)
	page := parseHTML(body)
	if status != 200 || page.text("zoom-scope") != "fd12:3456:789a:100::/56" || !page.has("whole-pool") {
		t.Fatalf("GET %s = %d, the map of %q", down, status, page.text("zoom-scope"))
	}
	cells := page.in("address-map").tags("a")
	if len(cells) != 256 {
		t.Fatalf("the /56 has %d cells, want 256 /64s", len(cells))
	}
	if c := cells[1]; attrOf(c, "href") != "/subnets/acme/prod/edge/db" || attrOf(c, "title") != "fd12:3456:789a:101::/64: subnet db" || attrOf(c, "class") != "u5" {
		t.Errorf("the /64 of db: %s %q %s", attrOf(c, "href"), attrOf(c, "title"), attrOf(c, "class"))
	}
	free := "/pools/acme/prod/vpc-edge-v6?" + url.Values{"prefix": {"fd12:3456:789a:100::/64"}}.Encode() + "#allocations"
	if c := cells[0]; attrOf(c, "href") != free || attrOf(c, "title") != "fd12:3456:789a:100::/64: free" {
		t.Errorf("a free /64: %s %q, want a link to %s", attrOf(c, "href"), attrOf(c, "title"), free)
	}
}

// TestDualStackAttach attaches an interface in a dual-stack subnet from
// the VPC page's form, as a browser without JavaScript does: the page
// predicts both addresses, and says afterwards which the server gave.
func TestDualStackAttach(t *testing.T) {
	c := newConsoleWithData(t)
	dualStack(t, c)
	_, body := c.get(t, "/vpcs/acme/prod/edge", c.acme)
	form := parseHTML(body).in("form-attach-interface")
	if form.text("predicted-address") != "10.50.1.2" || form.text("predicted-address-ipv6") != "fd12:3456:789a::2" {
		t.Errorf("the attach form predicts %q and %q, want 10.50.1.2 and fd12:3456:789a::2 (web, the first subnet)", form.text("predicted-address"), form.text("predicted-address-ipv6"))
	}
	status, location, page := c.postFollow(t, "/vpcs/acme/prod/edge/-/attach-interface",
		url.Values{"subnet": {"web"}, "hostname": {"vm-1"}, "nic": {"0"}, "predicted": {"10.50.1.2"}, "predicted6": {"fd12:3456:789a::2"}}, c.acme)
	result := page.in("claim-result")
	if status != 303 || location != "/vpcs/acme/prod/edge" || result.text("claimed-address") != "10.50.1.2" || result.text("claimed-address-ipv6") != "fd12:3456:789a::2" ||
		!result.has("claim-as-predicted") || !result.has("claim-as-predicted-ipv6") {
		t.Errorf("attach = %d to %s, then %q", status, location, result.words())
	}
	row := page.in("address-10.50.1.2")
	if row.text("address") != "10.50.1.2" || row.text("address-ipv6") != "fd12:3456:789a::2" || row.text("owner-name") != "vm-1/0" {
		t.Errorf("the NIC's row = %q, want both its addresses", row.words())
	}
	// Someone else took the predicted IPv6 address first: the page says so.
	_, _, page = c.postFollow(t, "/vpcs/acme/prod/edge/-/attach-interface",
		url.Values{"subnet": {"web"}, "hostname": {"vm-2"}, "nic": {"0"}, "predicted": {"10.50.1.3"}, "predicted6": {"fd12:3456:789a::2"}}, c.acme)
	if got := page.text("claim-differs-ipv6"); got != "— the page predicted fd12:3456:789a::2, but someone else claimed it first." {
		t.Errorf("a claim that got another IPv6 address than predicted says %q", got)
	}
}

// TestDualStackSubnetForm creates subnets of a dual-stack VPC from its
// page: by sizes, the lowest free prefix of each family; an IPv6 prefix in
// another spelling than RFC 5952's is refused beside its field.
func TestDualStackSubnetForm(t *testing.T) {
	c := newConsoleWithData(t)
	dualStack(t, c)
	_, body := c.get(t, "/vpcs/acme/prod/edge", c.acme)
	form := parseHTML(body).in("form-create-subnet")
	sizes, selected := options(form.byID("subnet-ipv6-size"))
	if selected != "64" || sizes[0] != "48" || sizes[len(sizes)-1] != "127" {
		t.Errorf("the IPv6 sizes are %v, %s chosen; want /48 to /127, /64 chosen", sizes, selected)
	}
	// Without JavaScript, the form says the IPv6 prefix of a /64 before
	// anything is typed.
	if got := form.in("prediction-ipv6").words(); got != "and the IPv6 prefix fd12:3456:789a:1::/64 with gateway fd12:3456:789a:1::1" {
		t.Errorf("the subnet form's IPv6 prediction says %q", got)
	}
	status, _, page := c.postFollow(t, "/vpcs/acme/prod/edge/-/create-subnet",
		url.Values{"name": {"cache"}, "prefixLength": {"24"}, "ipv6PrefixLength": {"64"}, "predicted": {"10.50.0.0/24"}, "predicted6": {"fd12:3456:789a:1::/64"}}, c.acme)
	result := page.in("claim-result")
	if got := result.words(); status != 303 || got != "Created subnet cache: 10.50.0.0/24 with gateway 10.50.0.1 — as predicted.IPv6: fd12:3456:789a:1::/64 with gateway fd12:3456:789a:1::1 — as predicted." {
		t.Errorf("create-subnet = %d, then %q", status, got)
	}
	// Someone else took the predicted IPv6 prefix first: the page says so.
	_, _, page = c.postFollow(t, "/vpcs/acme/prod/edge/-/create-subnet",
		url.Values{"name": {"queue"}, "prefixLength": {"24"}, "predicted": {"10.50.3.0/24"}, "predicted6": {"fd12:3456:789a:1::/64"}}, c.acme)
	if got := page.text("claim-differs-ipv6"); got != "— the page predicted fd12:3456:789a:1::/64, but someone else claimed it first." {
		t.Errorf("a subnet that got another IPv6 prefix than predicted says %q", got)
	}
	status, _, body = c.post(t, "/vpcs/acme/prod/edge/-/create-subnet",
		url.Values{"name": {"odd"}, "prefixLength": {"24"}, "ipv6Cidr": {"FD12:3456:789a:2::/64"}}, c.acme)
	if got := parseHTML(body).in("form-create-subnet").text("error-ipv6Cidr"); status != 422 || !strings.HasSuffix(got, "FD12:3456:789a:2::/64 is not in canonical form; did you mean fd12:3456:789a:2::/64?") {
		t.Errorf("a prefix in capitals = %d, %q", status, got)
	}
	// A refused form keeps its IPv6 size, and predicts that size's prefix.
	status, _, body = c.post(t, "/vpcs/acme/prod/edge/-/create-subnet",
		url.Values{"name": {"Bad Name"}, "prefixLength": {"24"}, "ipv6PrefixLength": {"56"}}, c.acme)
	if got := parseHTML(body).in("form-create-subnet").text("predicted-subnet-ipv6"); status != 422 || got != "fd12:3456:789a:200::/56" {
		t.Errorf("a refused form of IPv6 size /56 = %d, predicting %q; want fd12:3456:789a:200::/56", status, got)
	}
}

// TestStableOpaqueAttachForm: the page of a VPC of stable opaque
// addresses carries what its attach form computes the server's IPv6
// address from (the enumerator's claims with the VPC's key, and the uid
// of the VM the console knows by its hostname), waits for a hostname
// before it predicts one, and the server then gives that address; to
// another tenant the page does not exist.
func TestStableOpaqueAttachForm(t *testing.T) {
	c := newConsoleWithData(t)
	ctx := t.Context()
	v, err := c.svc.CreateVPC(ctx, auth.System, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "dark", CIDR: "10.60.0.0/16", IPv6CIDR: "fd12:3456:789b::/48", IPv6Addressing: "STABLE_OPAQUE"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.svc.CreateSubnet(ctx, auth.System, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "dark", Name: "web", CIDR: "10.60.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	_, body := c.get(t, "/vpcs/acme/prod/dark", c.acme)
	page := parseHTML(body)
	form := page.in("form-attach-interface")
	if got := form.in("prediction-ipv6").words(); got != "and, in its IPv6 prefix, the interface's own stable opaque address once the VM's hostname is typed: its address derives from it" {
		t.Errorf("before a hostname, the IPv6 prediction says %q", got)
	}
	var spec candidates.ClaimsSpec
	if err := json.Unmarshal([]byte(attrOf(page.all("claim-data")[0], "data-claims")), &spec); err != nil {
		t.Fatal(err)
	}
	key, err := c.svc.OpaqueKey(ctx, auth.System, v)
	if err != nil || !bytes.Equal(spec.OpaqueKey, key) || spec.IPv6Addressing != "STABLE_OPAQUE" {
		t.Fatalf("the page's claims carry the key %x (%s), want the VPC's (%v)", spec.OpaqueKey, spec.IPv6Addressing, err)
	}
	claims, err := candidates.ParseClaims(spec)
	if err != nil {
		t.Fatal(err)
	}
	uid := attrOf(page.all("form-attach-interface")[0], "data-vm-uid") + "web-01"
	if want := ipam.ConsoleVM("acme/prod", "dark", "web-01").UID; uid != want {
		t.Errorf("the form's VM uid is %q, want %q", uid, want)
	}
	want, err := claims.InterfaceV6("web", uid, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, _, after := c.postFollow(t, "/vpcs/acme/prod/dark/-/attach-interface",
		url.Values{"subnet": {"web"}, "hostname": {"web-01"}, "nic": {"1"}, "predicted": {"10.60.1.2"}, "predicted6": {want.String()}}, c.acme)
	result := after.in("claim-result")
	if result.text("claimed-address-ipv6") != want.String() || !result.has("claim-as-predicted-ipv6") {
		t.Errorf("the attach got %q (%q), the page's claims predicted %s", result.text("claimed-address-ipv6"), result.words(), want)
	}
	// Without JavaScript, a refused form that kept the hostname predicts
	// the interface's own address.
	status, _, body := c.post(t, "/vpcs/acme/prod/dark/-/attach-interface", url.Values{"subnet": {"web"}, "hostname": {"web-02"}, "nic": {"x"}}, c.acme)
	want2, _ := claims.InterfaceV6("web", ipam.ConsoleVM("acme/prod", "dark", "web-02").UID, 0)
	if got := parseHTML(body).in("form-attach-interface").text("predicted-address-ipv6"); status != 422 || got != want2.String() {
		t.Errorf("a refused attach of web-02 = %d, predicting %q; want %s", status, got, want2)
	}
	if status, _ := c.get(t, "/vpcs/acme/prod/dark", c.gx); status != 404 {
		t.Errorf("another tenant's GET of the VPC page = %d, want 404", status)
	}
}

// TestPoolCreateFormDelegation creates an IPv6 delegation pool from the
// new public pool form without JavaScript; a delegated length that is no
// number, or that the pool cannot delegate, is refused beside its field.
func TestPoolCreateFormDelegation(t *testing.T) {
	c := newConsoleWithData(t)
	form := url.Values{"name": {"v6-delegated"}, "cidr": {"2001:db8:100::/48"}, "zone": {"zone-a"}, "delegatedPrefixLength": {"56"}}
	status, header, _ := c.post(t, "/pools", form, c.op)
	if status != 303 || header.Get("Location") != "/pools/v6-delegated" {
		t.Fatalf("POST /pools %v = %d to %q, want 303 to /pools/v6-delegated", form, status, header.Get("Location"))
	}
	p, err := c.svc.Pool(t.Context(), auth.System, "", "v6-delegated")
	if err != nil || p.DelegatedPrefixLength != 56 || p.CIDR.String() != "2001:db8:100::/48" {
		t.Errorf("the pool = %+v, %v", p, err)
	}
	for length, want := range map[string]string{
		"big": `Delegated prefix length "big" is not a prefix length such as 56`,
		"40":  "Delegated prefix length 40 is out of range for cidr 2001:db8:200::/48: 48 to 64",
	} {
		bad := url.Values{"name": {"v6-" + length}, "cidr": {"2001:db8:200::/48"}, "delegatedPrefixLength": {length}}
		status, _, body := c.post(t, "/pools", bad, c.op)
		page := parseHTML(body)
		if got := page.text("error-delegatedPrefixLength"); status != 422 || got != want || attrOf(page.byID("pool-delegatedPrefixLength"), "value") != length {
			t.Errorf("delegatedPrefixLength %s = %d, %q; want 422, %q", length, status, got, want)
		}
	}
}

// TestDualStackSubnetPage: a subnet's page says its IPv6 prefix and
// gateway, and leads to its IPv6 addresses, listed with the gaps between
// them.
func TestDualStackSubnetPage(t *testing.T) {
	c := newConsoleWithData(t)
	dualStack(t, c)
	status, body := c.get(t, "/subnets/acme/prod/edge/db", c.acme)
	page := parseHTML(body)
	list := "/pools/acme/prod/vpc-edge-v6?" + url.Values{"prefix": {"fd12:3456:789a:101::/64"}}.Encode() + "#allocations"
	if status != 200 || page.text("subnet-ipv6-cidr") != "fd12:3456:789a:101::/64" || page.text("subnet-ipv6-gateway") != "fd12:3456:789a:101::1" ||
		attrOf(page.all("subnet-ipv6-addresses")[0], "href") != list {
		t.Errorf("the page of db = %d: %q %q %q", status, page.text("subnet-ipv6-cidr"), page.text("subnet-ipv6-gateway"), attrOf(page.all("subnet-ipv6-addresses")[0], "href"))
	}
}
