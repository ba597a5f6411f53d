package graphql

import (
	"reflect"
	"testing"
)

// The requests of the IPv6 previews.
const (
	previewSubnet6 = `query($namespace: String!, $vpc: String!, $prefixLength: Int!, $count: Int, $family: IPFamily) {
		previewSubnet(namespace: $namespace, vpc: $vpc, prefixLength: $prefixLength, count: $count, family: $family)
	}`
	previewAllocation6 = `query($namespace: String, $pool: String!, $within: String, $reserved: [String!], $count: Int) {
		previewAllocation(namespace: $namespace, pool: $pool, within: $within, reserved: $reserved, count: $count)
	}`
)

// TestPreviewSubnetIPv6: previewSubnet of family IPV6 names a dual-stack
// VPC's lowest free aligned IPv6 prefixes, which createSubnet then gives;
// without family, and of IPV4, it answers as before; its refusals word for
// word.
func TestPreviewSubnetIPv6(t *testing.T) {
	e := newEnv(t)
	e.dualStackPools()
	e.ok("acme", createVpcV6, nil, "namespace", "acme/prod", "name", "main", "cidr", "10.42.0.0/16", "zone", "z1", "ipv6Cidr", "fd12:3456:789a::/48")
	e.ok("acme", createVpcV6, nil, "namespace", "acme/prod", "name", "old", "cidr", "10.0.0.0/16")
	e.ok("acme", createSubnetV6, nil, "namespace", "acme/prod", "vpc", "main", "name", "web", "cidr", "10.42.0.0/24", "ipv6Cidr", "fd12:3456:789a:1::/64")
	var got struct{ PreviewSubnet []string }
	for _, c := range []struct {
		vars []any
		want []string
	}{
		{[]any{"prefixLength", 64, "count", 3, "family", "IPV6"}, []string{"fd12:3456:789a::/64", "fd12:3456:789a:2::/64", "fd12:3456:789a:3::/64"}},
		{[]any{"prefixLength", 56, "family", "IPV6"}, []string{"fd12:3456:789a:100::/56"}},
		{[]any{"prefixLength", 24, "family", "IPV4"}, []string{"10.42.1.0/24"}},
		{[]any{"prefixLength", 24}, []string{"10.42.1.0/24"}},
	} {
		e.ok("acme", previewSubnet6, &got, append([]any{"namespace", "acme/prod", "vpc", "main"}, c.vars...)...)
		if !reflect.DeepEqual(got.PreviewSubnet, c.want) {
			t.Errorf("previewSubnet(%v) = %q, want %q", c.vars, got.PreviewSubnet, c.want)
		}
	}
	var sub struct{ CreateSubnet subnetV6 }
	e.ok("acme", createSubnetV6, &sub, "namespace", "acme/prod", "vpc", "main", "name", "db", "cidr", "10.42.1.0/24", "ipv6PrefixLength", 64)
	if deref(sub.CreateSubnet.IPv6CIDR) != "fd12:3456:789a::/64" {
		t.Errorf("createSubnet(ipv6PrefixLength 64) = %s, the preview said fd12:3456:789a::/64", deref(sub.CreateSubnet.IPv6CIDR))
	}
	for _, c := range []struct {
		token, code string
		vars        []any
		want        string
	}{
		{"acme", codeInvalidArgument, []any{"vpc", "old", "prefixLength", 64, "family", "IPV6"},
			"VPC acme/prod/old has no IPv6 prefix, and a VPC's never changes: create a dual-stack VPC, with ipv6Cidr (a prefix such as a ULA /48) or ipv6PrefixLength (a prefix delegated from its zone's public pools), and its subnets there"},
		{"acme", codeInvalidArgument, []any{"vpc", "main", "prefixLength", 40, "family", "IPV6"}, "prefixLength 40 is out of range for VPC main's fd12:3456:789a::/48: 48 to 127"},
		{"acme", codeInvalidArgument, []any{"vpc", "main", "prefixLength", 128, "family", "IPV6"}, "prefixLength 128 is out of range: 8 to 127"},
		{"acme", codePoolExhausted, []any{"vpc", "main", "prefixLength", 48, "family", "IPV6"}, "vpc main has no free /48 in fd12:3456:789a::/48"},
		{"globex", codeNotFound, []any{"vpc", "main", "prefixLength", 64, "family", "IPV6"}, "VPC acme/prod/main not found"},
	} {
		e.wantError(c.token, c.code, c.want, previewSubnet6, append([]any{"namespace", "acme/prod"}, c.vars...)...)
	}
}

// TestPreviewAllocationIPv6: previewAllocation takes IPv6 pools: a
// subnet's IPv6 prefix in its VPC's IPv6 pool, after the subnet-router
// anycast address and the gateway, and a public pool of IPv6 addresses;
// what it names is what a claim then gets.
func TestPreviewAllocationIPv6(t *testing.T) {
	e := newEnv(t)
	e.dualStackPools()
	e.ok("acme", createVpcV6, nil, "namespace", "acme/prod", "name", "main", "cidr", "10.42.0.0/16", "zone", "z1", "ipv6Cidr", "fd12:3456:789a::/48")
	e.ok("acme", createSubnetV6, nil, "namespace", "acme/prod", "vpc", "main", "name", "web", "cidr", "10.42.1.0/24")
	var got struct{ PreviewAllocation []string }
	for _, c := range []struct {
		token string
		vars  []any
		want  []string
	}{
		{"acme", []any{"namespace", "acme/prod", "pool", "vpc-main-v6", "within", "fd12:3456:789a::/64", "reserved", []string{"fd12:3456:789a::1"}, "count", 2},
			[]string{"fd12:3456:789a::2", "fd12:3456:789a::3"}},
		{"op", []any{"pool", "v6-uplinks", "count", 2}, []string{"2001:db8::2", "2001:db8::3"}},
	} {
		e.ok(c.token, previewAllocation6, &got, c.vars...)
		if !reflect.DeepEqual(got.PreviewAllocation, c.want) {
			t.Errorf("previewAllocation(%v) = %q, want %q", c.vars, got.PreviewAllocation, c.want)
		}
	}
	var one struct{ AttachInterface allocation }
	e.ok("acme", attachFamily, &one, "namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", "vm-1", "hostname", "web-01", "nic", 0, "family", "IPV6")
	if one.AttachInterface.Address != "fd12:3456:789a::2" {
		t.Errorf("attachInterface(IPV6) = %s, the preview said fd12:3456:789a::2", one.AttachInterface.Address)
	}
	e.wantError("acme", codeInvalidArgument, "within 2001:db8::/64 is outside cidr fd12:3456:789a::/48",
		previewAllocation6, "namespace", "acme/prod", "pool", "vpc-main-v6", "within", "2001:db8::/64")
}
