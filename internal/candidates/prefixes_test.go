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
		{"2001:db8::/32", "", 48, 1, "", true},
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
