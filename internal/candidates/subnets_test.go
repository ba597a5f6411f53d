package candidates

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// mainLayout is VPC main, 10.42.0.0/16, with subnets web 10.42.1.0/24 and
// db 10.42.2.0/23, given out of order.
var mainLayout = VPCLayout{Name: "main", Prefix: netip.MustParsePrefix("10.42.0.0/16"), Subnets: []NamedPrefix{
	{"db", netip.MustParsePrefix("10.42.2.0/23")},
	{"web", netip.MustParsePrefix("10.42.1.0/24")},
}}

func TestPlanSubnet(t *testing.T) {
	long := strings.Repeat("é", 40)
	tests := []struct {
		spec        SubnetSpec
		prefix, gw  string // what the plan holds
		field, want string // the refusal
	}{
		{SubnetSpec{PrefixLength: 24}, "10.42.0.0/24", "10.42.0.1", "", ""},
		{SubnetSpec{PrefixLength: 23}, "10.42.4.0/23", "10.42.4.1", "", ""},
		{SubnetSpec{PrefixLength: 31}, "10.42.0.0/31", "10.42.0.0", "", ""},
		{SubnetSpec{PrefixLength: 24, Gateway: "10.42.0.254"}, "10.42.0.0/24", "10.42.0.254", "", ""},
		{SubnetSpec{CIDR: "10.42.9.0/26"}, "10.42.9.0/26", "10.42.9.1", "", ""},
		{SubnetSpec{CIDR: "10.42.9.0/26", Gateway: "10.42.9.62"}, "10.42.9.0/26", "10.42.9.62", "", ""},
		{SubnetSpec{CIDR: "10.42.9.0/31"}, "10.42.9.0/31", "10.42.9.0", "", ""},
		// What the spec alone refuses: the first mistake of its prefix,
		// and its gateway's.
		{SubnetSpec{CIDR: "10.42.9.0/24", PrefixLength: 24}, "", "", "cidr", "cidr and prefixLength both name the subnet's prefix: give one of them"},
		{SubnetSpec{}, "", "", "cidr", "cidr or prefixLength is required: the subnet's prefix, or its length to take the lowest free one"},
		{SubnetSpec{CIDR: "10.42.9.5/24", Gateway: "x"}, "", "", "cidr", `cidr 10.42.9.5/24 has host bits set; did you mean 10.42.9.0/24?; gateway "x" is not an IPv4 address such as 10.0.0.1`},
		{SubnetSpec{CIDR: "10.42.9.0/24", PrefixLength: 24, Gateway: "::1"}, "", "", "cidr",
			`cidr and prefixLength both name the subnet's prefix: give one of them; gateway "::1" is not an IPv4 address such as 10.0.0.1`},
		{SubnetSpec{CIDR: "10.0.0.0/7"}, "", "", "cidr", "cidr 10.0.0.0/7 is too large; a pool is at most a /8"},
		{SubnetSpec{CIDR: "10.42.9.9/32"}, "", "", "cidr", "cidr 10.42.9.9/32 leaves no address once the gateway is reserved; use a /31 or larger"},
		{SubnetSpec{PrefixLength: 32}, "", "", "prefixLength", "prefixLength 32 is out of range: 8 to 31"},
		{SubnetSpec{PrefixLength: -1}, "", "", "prefixLength", "prefixLength -1 is out of range: 8 to 31"},
		{SubnetSpec{PrefixLength: 24, Gateway: "::1"}, "", "", "gateway", `gateway "::1" is not an IPv4 address such as 10.0.0.1`},
		{SubnetSpec{PrefixLength: 24, Gateway: long}, "", "", "gateway", `gateway "` + strings.Repeat("é", 32) + `…" is not an IPv4 address such as 10.0.0.1`},
		// What the VPC refuses.
		{SubnetSpec{PrefixLength: 15}, "", "", "prefixLength", "prefixLength 15 is out of range for VPC main's 10.42.0.0/16: 16 to 31"},
		{SubnetSpec{PrefixLength: 16}, "", "", "prefixLength", "vpc main has no free /16 in 10.42.0.0/16"},
		{SubnetSpec{CIDR: "10.43.0.0/24"}, "", "", "cidr", "cidr 10.43.0.0/24 is outside VPC main's 10.42.0.0/16"},
		{SubnetSpec{CIDR: "10.0.0.0/8"}, "", "", "cidr", "cidr 10.0.0.0/8 is outside VPC main's 10.42.0.0/16"},
		{SubnetSpec{CIDR: "10.42.0.0/22"}, "", "", "cidr", "cidr 10.42.0.0/22 overlaps subnet web (10.42.1.0/24) of VPC main"},
		{SubnetSpec{CIDR: "10.42.3.128/25"}, "", "", "cidr", "cidr 10.42.3.128/25 overlaps subnet db (10.42.2.0/23) of VPC main"},
		// A refused gateway keeps the prefix.
		{SubnetSpec{CIDR: "10.42.9.0/24", Gateway: "10.42.9.0"}, "10.42.9.0/24", "", "gateway", "gateway 10.42.9.0 is the network address of 10.42.9.0/24"},
		{SubnetSpec{PrefixLength: 24, Gateway: "10.42.0.255"}, "10.42.0.0/24", "", "gateway", "gateway 10.42.0.255 is the broadcast address of 10.42.0.0/24"},
		{SubnetSpec{PrefixLength: 24, Gateway: "10.42.9.1"}, "10.42.0.0/24", "", "gateway", "gateway 10.42.9.1 is outside cidr 10.42.0.0/24"},
	}
	for _, tt := range tests {
		var plan SubnetPlan
		req, err := ParseSubnetSpec(tt.spec)
		if err == nil {
			plan, err = mainLayout.Plan(req)
		}
		errs := asErrors(err)
		var field, msg string
		if len(errs) > 0 {
			field, msg = errs[0].Field, errs.Error()
		}
		if prefixOrEmpty(plan.Prefix) != tt.prefix || addrOrEmpty(plan.Gateway) != tt.gw || field != tt.field || msg != tt.want {
			t.Errorf("Plan(%+v) = %s %s, %q %q; want %s %s, %q %q", tt.spec, prefixOrEmpty(plan.Prefix), addrOrEmpty(plan.Gateway), field, msg, tt.prefix, tt.gw, tt.field, tt.want)
		}
	}
}

func prefixOrEmpty(p netip.Prefix) string {
	if !p.IsValid() {
		return ""
	}
	return p.String()
}

func addrOrEmpty(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

func TestDefaultGateway(t *testing.T) {
	for in, want := range map[string]string{"10.0.0.0/24": "10.0.0.1", "10.0.0.4/30": "10.0.0.5", "10.0.0.6/31": "10.0.0.6", "10.0.0.7/32": "10.0.0.7"} {
		if got := DefaultGateway(netip.MustParsePrefix(in)); got.String() != want {
			t.Errorf("DefaultGateway(%s) = %v, want %s", in, got, want)
		}
	}
}

// The plan of an overlap names the lowest overlapping subnet, whatever
// the order the layout lists them in.
func TestPlanNamesTheLowestOverlap(t *testing.T) {
	l := VPCLayout{Name: "v", Prefix: netip.MustParsePrefix("10.0.0.0/16")}
	for i := 9; i >= 0; i-- {
		l.Subnets = append(l.Subnets, NamedPrefix{fmt.Sprint("s", i), netip.MustParsePrefix(fmt.Sprintf("10.0.%d.0/24", i))})
	}
	_, err := l.Plan(SubnetRequest{Prefix: netip.MustParsePrefix("10.0.4.0/22")})
	if want := "cidr 10.0.4.0/22 overlaps subnet s4 (10.0.4.0/24) of VPC v"; err == nil || err.Error() != want {
		t.Errorf("Plan(10.0.4.0/22) = %v, want %s", err, want)
	}
}

// mainLayoutV6 is VPC main's IPv6 prefix, fd12:3456:789a::/48, with
// subnets web fd12:3456:789a::/64 and db fd12:3456:789a:2::/63.
var mainLayoutV6 = VPCLayout{Name: "main", Prefix: netip.MustParsePrefix("fd12:3456:789a::/48"), Subnets: []NamedPrefix{
	{"db", netip.MustParsePrefix("fd12:3456:789a:2::/63")},
	{"web", netip.MustParsePrefix("fd12:3456:789a::/64")},
}}

func TestPlanSubnetV6(t *testing.T) {
	tests := []struct {
		spec        SubnetSpec
		prefix, gw  string
		field, want string
	}{
		{SubnetSpec{PrefixLength: 64}, "fd12:3456:789a:1::/64", "fd12:3456:789a:1::1", "", ""},
		{SubnetSpec{PrefixLength: 63}, "fd12:3456:789a:4::/63", "fd12:3456:789a:4::1", "", ""},
		{SubnetSpec{PrefixLength: 127}, "fd12:3456:789a:1::/127", "fd12:3456:789a:1::", "", ""},
		{SubnetSpec{PrefixLength: 64, Gateway: "fd12:3456:789a:1::fffe"}, "fd12:3456:789a:1::/64", "fd12:3456:789a:1::fffe", "", ""},
		{SubnetSpec{CIDR: "fd12:3456:789a:9::/64"}, "fd12:3456:789a:9::/64", "fd12:3456:789a:9::1", "", ""},
		{SubnetSpec{CIDR: "fd12:3456:789a:9::/127"}, "fd12:3456:789a:9::/127", "fd12:3456:789a:9::", "", ""},
		{SubnetSpec{CIDR: "fd12:3456:789a:9::/128"}, "", "", "cidr", "cidr fd12:3456:789a:9::/128 leaves no address once the gateway is reserved; use a /127 or larger"},
		{SubnetSpec{CIDR: "fd12:3456:789a:09::/64"}, "", "", "cidr", "cidr fd12:3456:789a:09::/64 is not in canonical form; did you mean fd12:3456:789a:9::/64?"},
		{SubnetSpec{CIDR: "10.42.9.0/24"}, "", "", "cidr", "cidr 10.42.9.0/24 is not an IPv6 prefix: give the subnet's IPv4 prefix as cidr"},
		{SubnetSpec{PrefixLength: 128}, "", "", "prefixLength", "prefixLength 128 is out of range: 8 to 127"},
		{SubnetSpec{PrefixLength: 64, Gateway: "10.0.0.1"}, "", "", "gateway", `gateway "10.0.0.1" is not an IPv6 address such as 2001:db8::1`},
		{SubnetSpec{PrefixLength: 64, Gateway: "FD12:3456:789a:1::1"}, "", "", "gateway", `gateway "FD12:3456:789a:1::1" is not in canonical form; did you mean fd12:3456:789a:1::1?`},
		{SubnetSpec{PrefixLength: 47}, "", "", "prefixLength", "prefixLength 47 is out of range for VPC main's fd12:3456:789a::/48: 48 to 127"},
		{SubnetSpec{PrefixLength: 48}, "", "", "prefixLength", "vpc main has no free /48 in fd12:3456:789a::/48"},
		{SubnetSpec{CIDR: "fd12:3456:789b::/64"}, "", "", "cidr", "cidr fd12:3456:789b::/64 is outside VPC main's fd12:3456:789a::/48"},
		{SubnetSpec{CIDR: "fd12:3456:789a::/62"}, "", "", "cidr", "cidr fd12:3456:789a::/62 overlaps subnet web (fd12:3456:789a::/64) of VPC main"},
		{SubnetSpec{CIDR: "fd12:3456:789a:9::/64", Gateway: "fd12:3456:789a:9::"}, "fd12:3456:789a:9::/64", "", "gateway", "gateway fd12:3456:789a:9:: is the subnet-router anycast address of fd12:3456:789a:9::/64"},
		{SubnetSpec{PrefixLength: 64, Gateway: "fd12:3456:789a:9::1"}, "fd12:3456:789a:1::/64", "", "gateway", "gateway fd12:3456:789a:9::1 is outside cidr fd12:3456:789a:1::/64"},
	}
	for _, tt := range tests {
		var plan SubnetPlan
		req, err := ParseSubnetSpecV6(tt.spec)
		if err == nil {
			plan, err = mainLayoutV6.Plan(req)
		}
		errs := asErrors(err)
		var field, msg string
		if len(errs) > 0 {
			field, msg = errs[0].Field, errs.Error()
		}
		if prefixOrEmpty(plan.Prefix) != tt.prefix || addrOrEmpty(plan.Gateway) != tt.gw || field != tt.field || msg != tt.want {
			t.Errorf("Plan(%+v) = %s %s, %q %q; want %s %s, %q %q", tt.spec, prefixOrEmpty(plan.Prefix), addrOrEmpty(plan.Gateway), field, msg, tt.prefix, tt.gw, tt.field, tt.want)
		}
	}
	// An IPv4 subnet spec refuses an IPv6 prefix, saying where it goes.
	if _, err := ParseSubnetSpec(SubnetSpec{CIDR: "2001:db8::/64"}); err == nil || err.Error() != "cidr 2001:db8::/64 is not IPv4: give the subnet's IPv4 prefix as cidr, and an IPv6 one as ipv6Cidr" {
		t.Errorf("ParseSubnetSpec(2001:db8::/64) = %v", err)
	}
	if _, err := mainLayout.Plan(SubnetRequest{Bits: 64}); err == nil || err.Error() != "prefixLength 64 is out of range for VPC main's 10.42.0.0/16: 16 to 31" {
		t.Errorf("Plan(/64) in an IPv4 VPC = %v", err)
	}
}
