package candidates

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

func prefixes(list []netip.Prefix) string {
	var b strings.Builder
	for i, p := range list {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.String())
	}
	return b.String()
}

func mustPrefixes(list string) []netip.Prefix {
	var out []netip.Prefix
	for s := range strings.FieldsSeq(list) {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}

func TestFreePrefixes(t *testing.T) {
	tests := []struct {
		parent string
		used   string
		bits   int
		count  int
		want   string
		isNil  bool
	}{
		{"10.42.0.0/16", "", 24, 3, "10.42.0.0/24 10.42.1.0/24 10.42.2.0/24", false},
		{"10.42.0.0/16", "10.42.0.0/24 10.42.2.0/23", 24, 3, "10.42.1.0/24 10.42.4.0/24 10.42.5.0/24", false},
		{"10.42.0.0/16", "10.42.4.0/22 10.42.0.0/24 10.42.1.0/24 10.42.0.0/23 10.42.2.0/24", 24, 2, "10.42.3.0/24 10.42.8.0/24", false},
		{"10.42.0.0/16", "10.42.0.77/24 10.42.1.200/23", 24, 2, "10.42.2.0/24 10.42.3.0/24", false},
		{"10.42.0.0/16", "10.42.0.0/24", 23, 2, "10.42.2.0/23 10.42.4.0/23", false},
		{"10.42.0.0/16", "10.42.0.5/32 10.42.1.128/25", 24, 2, "10.42.2.0/24 10.42.3.0/24", false},
		{"10.42.0.0/16", "10.41.0.0/16 10.43.255.0/24 192.168.0.0/24 2001:db8::/32", 24, 1, "10.42.0.0/24", false},
		{"10.42.0.0/16", "10.42.255.0/24 10.43.0.0/16", 16, 1, "", false},
		{"10.42.0.0/16", "10.0.0.0/8", 24, 1, "", false},
		{"10.42.0.0/22", "10.42.0.0/23 10.42.3.0/24", 24, 300, "10.42.2.0/24", false},
		{"10.42.0.0/16", "", 16, 5, "10.42.0.0/16", false},
		{"10.42.7.9/16", "10.42.0.0/17", 17, 5, "10.42.128.0/17", false},
		{"10.0.0.0/30", "10.0.0.0/31", 32, 5, "10.0.0.2/32 10.0.0.3/32", false},
		{"10.0.0.0/30", "10.0.0.2/32", 31, 5, "10.0.0.0/31", false},
		{"255.255.255.0/24", "255.255.255.192/26", 26, 5, "255.255.255.0/26 255.255.255.64/26 255.255.255.128/26", false},
		{"255.255.255.0/24", "255.255.255.0/25", 25, 5, "255.255.255.128/25", false},
		{"0.0.0.0/0", "64.0.0.0/2", 1, 5, "128.0.0.0/1", false},
		{"0.0.0.0/0", "", 0, 5, "0.0.0.0/0", false},
		{"0.0.0.0/0", "0.0.0.0/32", 0, 5, "", false},
		{"10.42.0.0/16", "", 15, 1, "", true},
		{"10.42.0.0/16", "", 33, 1, "", true},
		{"10.42.0.0/16", "", 24, 0, "", true},
		{"10.42.0.0/16", "", 24, -1, "", true},
		{"2001:db8::/32", "", 48, 1, "2001:db8::/48", false},
		// IPv6, exact at 128 bits: a VPC's /48 carved into /64s, a
		// delegation pool's /56s, the top of the address space.
		{"fd12:3456:789a::/48", "fd12:3456:789a::/64 fd12:3456:789a:2::/63 10.0.0.0/8", 64, 3, "fd12:3456:789a:1::/64 fd12:3456:789a:4::/64 fd12:3456:789a:5::/64", false},
		{"fd12:3456:789a::/48", "fd12:3456:789a::/49", 64, 2, "fd12:3456:789a:8000::/64 fd12:3456:789a:8001::/64", false},
		{"fd12:3456:789a::/48", "fd12:3456:789a:ffff::/64", 49, 5, "fd12:3456:789a::/49", false},
		{"2001:db8::/32", "2001:db8::/56 2001:db8:0:100::/56 2001:db8:0:300::5/128", 56, 2, "2001:db8:0:200::/56 2001:db8:0:400::/56", false},
		{"2001:db8::/32", "2001:db8::/33 2001:db8:8000::/33", 56, 1, "", false},
		{"2001:db8::/126", "2001:db8::1/128", 128, 5, "2001:db8::/128 2001:db8::2/128 2001:db8::3/128", false},
		{"ffff:ffff:ffff:ffff::/64", "ffff:ffff:ffff:ffff::/65", 66, 5, "ffff:ffff:ffff:ffff:8000::/66 ffff:ffff:ffff:ffff:c000::/66", false},
		{"ffff:ffff:ffff:ffff::/64", "ffff:ffff:ffff:ffff:c000::/66", 66, 5, "ffff:ffff:ffff:ffff::/66 ffff:ffff:ffff:ffff:4000::/66 ffff:ffff:ffff:ffff:8000::/66", false},
		{"ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffc/126", "", 128, 9, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffc/128 ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffd/128 ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/128 ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128", false},
		{"::/0", "::/1", 1, 5, "8000::/1", false},
		{"::/0", "", 128, 2, "::/128 ::1/128", false},
		{"2001:db8::/32", "", 31, 1, "", true},
		{"2001:db8::/32", "", 129, 1, "", true},
	}
	for _, tt := range tests {
		got := FreePrefixes(netip.MustParsePrefix(tt.parent), mustPrefixes(tt.used), tt.bits, tt.count)
		if prefixes(got) != tt.want || (got == nil) != tt.isNil {
			t.Errorf("FreePrefixes(%s, [%s], %d, %d) = %q (nil %v), want %q (nil %v)", tt.parent, tt.used, tt.bits, tt.count, prefixes(got), got == nil, tt.want, tt.isNil)
		}
	}
	if got := FreePrefixes(netip.Prefix{}, nil, 24, 1); got != nil {
		t.Errorf("FreePrefixes of the zero Prefix = %v, want nil", got)
	}
	used := mustPrefixes("10.42.1.0/24 10.42.0.0/24")
	FreePrefixes(netip.MustParsePrefix("10.42.0.0/16"), used, 24, 1)
	if prefixes(used) != "10.42.1.0/24 10.42.0.0/24" {
		t.Errorf("FreePrefixes changed its used argument to %s", prefixes(used))
	}
}

// usedSlash24s returns n /24s of 10.0.0.0/8, every other one taken, and a
// /12 in the middle: the subnets of a large, busy VPC.
func usedSlash24s(n int) []netip.Prefix {
	used := make([]netip.Prefix, 0, n+1)
	for i := range n {
		used = append(used, netip.PrefixFrom(addr(0x0a000000+ip4(2*i)<<8), 24))
	}
	return append(used, netip.MustParsePrefix("10.64.0.0/12"))
}

func TestFreePrefixesAllocations(t *testing.T) {
	parent := netip.MustParsePrefix("10.0.0.0/8")
	used := usedSlash24s(5000)
	var got []netip.Prefix
	allocs := testing.AllocsPerRun(10, func() { got = FreePrefixes(parent, used, 30, 8) })
	if allocs > 2 {
		t.Errorf("FreePrefixes allocated %.0f times, want at most 2 (the merged ranges and the answer)", allocs)
	}
	if want := "10.0.1.0/30 10.0.1.4/30 10.0.1.8/30 10.0.1.12/30 10.0.1.16/30 10.0.1.20/30 10.0.1.24/30 10.0.1.28/30"; prefixes(got) != want {
		t.Errorf("FreePrefixes = %s, want %s", prefixes(got), want)
	}
	// The 4 999 holes between the used /24s, then the /24s after them.
	got = FreePrefixes(parent, used, 24, 5001)
	if n := len(got); n != 5001 || got[n-1] != netip.MustParsePrefix("10.39.16.0/24") {
		t.Errorf("FreePrefixes(/24, 5001) = %d prefixes ending %v, want 5001 ending 10.39.16.0/24", n, got[n-1])
	}
	got = FreePrefixes(parent, used, 12, 2)
	if fmt.Sprint(got) != "[10.48.0.0/12 10.80.0.0/12]" {
		t.Errorf("FreePrefixes(/12, 2) = %v, want [10.48.0.0/12 10.80.0.0/12]", got)
	}
}

func TestPrefixCount(t *testing.T) {
	for _, tt := range []struct {
		parent string
		bits   int
		want   string
	}{
		{"10.42.0.0/16", 24, "256"},
		{"10.42.0.0/16", 16, "1"},
		{"10.42.0.0/16", 15, "0"},
		{"10.42.0.0/16", 33, "0"},
		{"0.0.0.0/0", 32, "4294967296"},
		{"fd12:3456:789a::/48", 64, "65536"},
		{"2001:db8::/32", 56, "16777216"},
		{"2001:db8::/32", 128, "79228162514264337593543950336"},
		{"2001:db8::/64", 128, "18446744073709551616"},
		{"::/1", 128, "170141183460469231731687303715884105728"},
		{"::/0", 128, MaxCount.String()},
		{"2001:db8::/64", 129, "0"},
	} {
		if got := PrefixCount(netip.MustParsePrefix(tt.parent), tt.bits).String(); got != tt.want {
			t.Errorf("PrefixCount(%s, %d) = %s, want %s", tt.parent, tt.bits, got, tt.want)
		}
	}
	if got := PrefixCount(netip.Prefix{}, 24); !got.IsZero() {
		t.Errorf("PrefixCount of the zero Prefix = %s", got)
	}
}

func TestSubnetPreview(t *testing.T) {
	tests := []struct {
		in         string
		valid      bool
		next, errs string
	}{
		{`{"vpc":"main","cidr":"10.42.0.0/16","subnets":["10.42.0.0/24","10.42.2.0/23"],"prefixLength":24,"count":3}`, true, "10.42.1.0/24 10.42.4.0/24 10.42.5.0/24", ""},
		{`{"vpc":"main","cidr":"10.42.0.0/16","prefixLength":16}`, true, "10.42.0.0/16", ""},
		{`{"vpc":"main","cidr":"10.42.0.0/16","subnets":["10.42.0.0/17","10.42.128.0/17"],"prefixLength":24}`, true, "", "vpc main has no free /24 in 10.42.0.0/16"},
		{`{"vpc":"main","cidr":"10.42.0.0/16","prefixLength":15}`, false, "", "prefixLength 15 is out of range for VPC main's 10.42.0.0/16: 16 to 31"},
		{`{"vpc":"main","cidr":"10.42.0.0/16","prefixLength":32,"count":257}`, false, "", "prefixLength 32 is out of range: 8 to 31; count 257 is out of range: 1 to 256"},
		{`{"cidr":"10.42.0.5/16","subnets":["x","10.42.0.0"],"prefixLength":0,"count":-1}`, false, "",
			`vpc is required; cidr 10.42.0.5/16 has host bits set; did you mean 10.42.0.0/16?; subnets[0] "x" is not an IPv4 prefix such as 10.0.0.0/24; ` +
				`subnets[1] "10.42.0.0" has no prefix length; write it as 10.42.0.0/24 or similar; prefixLength 0 is out of range: 8 to 31; count -1 is out of range: 1 to 256`},
		{`{"vpc":"main","cidr":"10.42.0.0/16","prefixLength":24,"gateway":"10.42.0.1"}`, false, "", `input is not a subnet preview request: json: unknown field "gateway"`},
		{`[]`, false, "", "input is not a subnet preview request: json: cannot unmarshal array into Go value of type candidates.SubnetPreviewInput"},
		{`{"vpc":"main","cidr":"fd12:3456:789a::/48","subnets":["fd12:3456:789a::/64","10.0.0.0/24"],"prefixLength":64,"count":2}`, true, "fd12:3456:789a:1::/64 fd12:3456:789a:2::/64", ""},
		{`{"vpc":"main","cidr":"fd12:3456:789a::/48","prefixLength":127}`, true, "fd12:3456:789a::/127", ""},
		{`{"vpc":"main","cidr":"fd12:3456:789a::/48","prefixLength":128}`, false, "", "prefixLength 128 is out of range: 8 to 127"},
		{`{"vpc":"main","cidr":"fd12:3456:789a::/48","prefixLength":32}`, false, "", "prefixLength 32 is out of range for VPC main's fd12:3456:789a::/48: 48 to 127"},
		{`{"vpc":"main","cidr":"fd12:3456:789a::/48","subnets":["fd12:3456:789a::/48"],"prefixLength":56}`, true, "", "vpc main has no free /56 in fd12:3456:789a::/48"},
		{`{"vpc":"main","cidr":"FD12:3456:789a::/48","subnets":["fd12:3456:789a:0::/64"],"prefixLength":64}`, false, "",
			"cidr FD12:3456:789a::/48 is not in canonical form; did you mean fd12:3456:789a::/48?; subnets[0] fd12:3456:789a:0::/64 is not in canonical form; did you mean fd12:3456:789a::/64?"},
	}
	for _, tt := range tests {
		var out SubnetPreviewOutput
		if err := json.Unmarshal(SubnetPreviewJSON([]byte(tt.in)), &out); err != nil {
			t.Fatalf("SubnetPreviewJSON(%s) is not a SubnetPreviewOutput: %v", tt.in, err)
		}
		if out.Valid != tt.valid || prefixes(out.Next) != tt.next || fmt.Sprint(out.Errors) != tt.errs {
			t.Errorf("SubnetPreviewJSON(%s) = %v %q %q, want %v %q %q", tt.in, out.Valid, prefixes(out.Next), out.Errors, tt.valid, tt.next, tt.errs)
		}
	}
	if out := string(SubnetPreviewJSON(make([]byte, MaxPreviewInput+1))); !strings.Contains(out, `"field":"input"`) {
		t.Errorf("SubnetPreviewJSON of %d bytes = %s, want an error of the field input", MaxPreviewInput+1, out)
	}
}
