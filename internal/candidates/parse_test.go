package candidates

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

func TestParsePool(t *testing.T) {
	tests := []struct {
		spec PoolSpec
		want string // the error's text, "" when valid
	}{
		{PoolSpec{CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Exclude: []string{"203.0.113.2", "203.0.113.3"}}, ""},
		{PoolSpec{CIDR: "10.0.0.0/8"}, ""},
		{PoolSpec{CIDR: "192.0.2.8/31", Gateway: "192.0.2.8"}, ""},
		{PoolSpec{CIDR: "192.0.2.9/32", Gateway: "192.0.2.9"}, ""},
		{PoolSpec{CIDR: "10.0.0.0/24", Exclude: []string{"10.0.0.10-10.0.0.20", " 10.0.0.30 - 10.0.0.31 "}}, ""},
		{PoolSpec{CIDR: "10.0.0.5/24"}, "cidr 10.0.0.5/24 has host bits set; did you mean 10.0.0.0/24?"},
		{PoolSpec{}, "cidr is required"},
		{PoolSpec{CIDR: "10.0.0.0"}, `cidr "10.0.0.0" has no prefix length; write it as 10.0.0.0/24 or similar`},
		{PoolSpec{CIDR: "banana"}, `cidr "banana" is not an IPv4 prefix such as 10.0.0.0/24`},
		{PoolSpec{CIDR: "10.0.0.0/33"}, `cidr "10.0.0.0/33" is not an IPv4 prefix such as 10.0.0.0/24`},
		{PoolSpec{CIDR: "0.0.0.0/0"}, "cidr 0.0.0.0/0 is too large; a pool is at most a /8"},
		{PoolSpec{CIDR: "10.0.0.0/24", Gateway: "10.0.1.1"}, "gateway 10.0.1.1 is outside cidr 10.0.0.0/24"},
		{PoolSpec{CIDR: "10.0.0.0/24", Gateway: "10.0.0.0"}, "gateway 10.0.0.0 is the network address of 10.0.0.0/24"},
		{PoolSpec{CIDR: "10.0.0.0/24", Gateway: "10.0.0.255"}, "gateway 10.0.0.255 is the broadcast address of 10.0.0.0/24"},
		{PoolSpec{CIDR: "10.0.0.0/24", Gateway: "10.0.0.1/24"}, `gateway "10.0.0.1/24" is not an IPv4 address such as 10.0.0.1`},
		{PoolSpec{CIDR: "10.0.0.0/24", Gateway: "::1"}, "gateway ::1 is not IPv4 as cidr 10.0.0.0/24 is; a pool holds addresses of one family"},
		{PoolSpec{CIDR: "10.0.0.0/24", Exclude: []string{"10.0.0.9-10.0.0.3"}}, `exclude[0] "10.0.0.9-10.0.0.3" is a descending range; write 10.0.0.3-10.0.0.9`},
		{PoolSpec{CIDR: "10.0.0.0/24", Exclude: []string{"10.0.0.2", "10.0.0.250-10.0.1.4"}}, "exclude[1] 10.0.0.250-10.0.1.4 is outside cidr 10.0.0.0/24"},
		{PoolSpec{CIDR: "10.0.0.0/24", Exclude: []string{""}}, "exclude[0] is empty; write an IPv4 address such as 10.0.0.1"},
		{PoolSpec{CIDR: "10.0.0.0/24", Exclude: []string{"10.0.0.01"}}, `exclude[0] "10.0.0.01" is not an IPv4 address such as 10.0.0.1`},
		{PoolSpec{CIDR: "10.0.0.5/24", Gateway: "x", Exclude: []string{"y"}},
			`cidr 10.0.0.5/24 has host bits set; did you mean 10.0.0.0/24?; gateway "x" is not an IPv4 address such as 10.0.0.1; exclude[0] "y" is not an IPv4 address such as 10.0.0.1`},

		// IPv6: RFC 5952 form only, one family per pool.
		{PoolSpec{CIDR: "2001:db8::/64"}, ""},
		{PoolSpec{CIDR: "2001:db8::/32", Gateway: "2001:db8::1", Exclude: []string{"2001:db8::2-2001:db8::ff", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"}}, ""},
		{PoolSpec{CIDR: "2001:db8::/127", Gateway: "2001:db8::"}, ""},
		{PoolSpec{CIDR: "2001:db8::7/128"}, ""},
		{PoolSpec{CIDR: "fd12:3456:789a::/48"}, ""},
		{PoolSpec{CIDR: "2001:DB8:0::/32"}, "cidr 2001:DB8:0::/32 is not in canonical form; did you mean 2001:db8::/32?"},
		{PoolSpec{CIDR: "2001:db8:0:0::/64"}, "cidr 2001:db8:0:0::/64 is not in canonical form; did you mean 2001:db8::/64?"},
		{PoolSpec{CIDR: "2001:0db8::/32"}, "cidr 2001:0db8::/32 is not in canonical form; did you mean 2001:db8::/32?"},
		{PoolSpec{CIDR: "2001:db8::1/32"}, "cidr 2001:db8::1/32 has host bits set; did you mean 2001:db8::/32?"},
		{PoolSpec{CIDR: "2001:DB8::1/32"}, "cidr 2001:DB8::1/32 has host bits set; did you mean 2001:db8::/32?"},
		{PoolSpec{CIDR: "2001:db8::"}, `cidr "2001:db8::" has no prefix length; write it as 2001:db8::/64 or similar`},
		{PoolSpec{CIDR: "2001:db8::/129"}, `cidr "2001:db8::/129" is not an IPv6 prefix such as 2001:db8::/32`},
		{PoolSpec{CIDR: "2001:db8::/64%eth0"}, `cidr "2001:db8::/64%eth0" is not an IPv6 prefix such as 2001:db8::/32`},
		{PoolSpec{CIDR: "::/0"}, "cidr ::/0 is too large; a pool is at most a /8"},
		{PoolSpec{CIDR: "2001:db8::/64", Gateway: "2001:DB8::1"}, "gateway 2001:DB8::1 is not in canonical form; did you mean 2001:db8::1?"},
		{PoolSpec{CIDR: "2001:db8::/64", Gateway: "fe80::1%eth0"}, `gateway "fe80::1%eth0" has a zone; did you mean fe80::1?`},
		{PoolSpec{CIDR: "2001:db8::/64", Gateway: "2001:db8::"}, "gateway 2001:db8:: is the subnet-router anycast address of 2001:db8::/64"},
		{PoolSpec{CIDR: "2001:db8::/64", Gateway: "2001:db8:0:1::1"}, "gateway 2001:db8:0:1::1 is outside cidr 2001:db8::/64"},
		{PoolSpec{CIDR: "2001:db8::/64", Gateway: "10.0.0.1"}, "gateway 10.0.0.1 is not IPv6 as cidr 2001:db8::/64 is; a pool holds addresses of one family"},
		{PoolSpec{CIDR: "2001:db8::/64", Gateway: "2001:db8::g"}, `gateway "2001:db8::g" is not an IPv6 address such as 2001:db8::1`},
		{PoolSpec{CIDR: "2001:db8::/64", Exclude: []string{"2001:db8::0:5"}}, "exclude[0] 2001:db8::0:5 is not in canonical form; did you mean 2001:db8::5?"},
		{PoolSpec{CIDR: "2001:db8::/64", Exclude: []string{"2001:db8::9-2001:db8::3"}}, `exclude[0] "2001:db8::9-2001:db8::3" is a descending range; write 2001:db8::3-2001:db8::9`},
		{PoolSpec{CIDR: "2001:db8::/64", Exclude: []string{"10.0.0.1-2001:db8::3"}}, `exclude[0] "10.0.0.1-2001:db8::3" mixes IPv4 and IPv6; a range is of one family`},
		{PoolSpec{CIDR: "2001:db8::/64", Exclude: []string{"10.0.0.1"}}, "exclude[0] 10.0.0.1 is not IPv6 as cidr 2001:db8::/64 is; a pool holds addresses of one family"},
		{PoolSpec{CIDR: "10.0.0.0/24", Exclude: []string{"::1"}}, "exclude[0] ::1 is not IPv4 as cidr 10.0.0.0/24 is; a pool holds addresses of one family"},
		{PoolSpec{CIDR: "2001:db8::/64", Exclude: []string{"2001:db8::ffff-2001:db8:0:1::"}}, "exclude[0] 2001:db8::ffff-2001:db8:0:1:: is outside cidr 2001:db8::/64"},
	}
	for _, tt := range tests {
		_, err := ParsePool(tt.spec)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("ParsePool(%+v) error = %q, want %q", tt.spec, got, tt.want)
		}
	}
}

func TestParsePoolNamesEachField(t *testing.T) {
	_, err := ParsePool(PoolSpec{CIDR: "10.0.0.0/24", Gateway: "10.0.0.0", Exclude: []string{"1.2.3.4"}})
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("ParsePool error = %T, want Errors", err)
	}
	var fields []string
	for _, e := range errs {
		fields = append(fields, e.Field)
		if !strings.HasPrefix(e.Message, e.Field+" ") {
			t.Errorf("message %q does not start with its field %q", e.Message, e.Field)
		}
	}
	if got, want := strings.Join(fields, ","), "gateway,exclude[0]"; got != want {
		t.Errorf("fields = %s, want %s", got, want)
	}
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "gateway" {
		t.Errorf("errors.As(err, *FieldError) = %v, want the gateway's error", fe)
	}
}

func TestParseRequest(t *testing.T) {
	pool, err := ParsePool(PoolSpec{CIDR: "10.42.0.0/16"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec RequestSpec
		want string
	}{
		{RequestSpec{}, ""},
		{RequestSpec{Within: "10.42.1.0/24", Reserved: []string{"10.42.1.1"}}, ""},
		{RequestSpec{Within: "10.42.0.0/16"}, ""},
		{RequestSpec{Within: "10.42.1.7/24"}, "within 10.42.1.7/24 has host bits set; did you mean 10.42.1.0/24?"},
		{RequestSpec{Within: "10.43.0.0/24"}, "within 10.43.0.0/24 is outside cidr 10.42.0.0/16"},
		{RequestSpec{Within: "10.0.0.0/8"}, "within 10.0.0.0/8 is outside cidr 10.42.0.0/16"},
		{RequestSpec{Within: "10.42.1.0/24", Reserved: []string{"10.42.2.1"}}, "reserved[0] 10.42.2.1 is outside 10.42.1.0/24"},
		{RequestSpec{Reserved: []string{"10.42.2.1", "nope"}}, `reserved[1] "nope" is not an IPv4 address such as 10.0.0.1`},
		{RequestSpec{Within: "2001:db8::/64"}, "within 2001:db8::/64 is outside cidr 10.42.0.0/16"},
	}
	for _, tt := range tests {
		_, err := pool.ParseRequest(tt.spec)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("ParseRequest(%+v) error = %q, want %q", tt.spec, got, tt.want)
		}
	}
}

func TestParseRequestIPv6(t *testing.T) {
	pool, err := ParsePool(PoolSpec{CIDR: "fd12:3456:789a::/48"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec RequestSpec
		want string
	}{
		{RequestSpec{Within: "fd12:3456:789a:1::/64", Reserved: []string{"fd12:3456:789a:1::1"}}, ""},
		{RequestSpec{Within: "fd12:3456:789a:01::/64"}, "within fd12:3456:789a:01::/64 is not in canonical form; did you mean fd12:3456:789a:1::/64?"},
		{RequestSpec{Within: "fd12:3456:789b::/64"}, "within fd12:3456:789b::/64 is outside cidr fd12:3456:789a::/48"},
		{RequestSpec{Within: "10.0.0.0/24"}, "within 10.0.0.0/24 is outside cidr fd12:3456:789a::/48"},
		{RequestSpec{Within: "fd12:3456:789a:1::/64", Reserved: []string{"fd12:3456:789a:2::1"}}, "reserved[0] fd12:3456:789a:2::1 is outside fd12:3456:789a:1::/64"},
	}
	for _, tt := range tests {
		_, err := pool.ParseRequest(tt.spec)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("ParseRequest(%+v) error = %q, want %q", tt.spec, got, tt.want)
		}
	}
}

// TestParseRangesIPv6: a taken list may hold both families, apart.
func TestParseRangesIPv6(t *testing.T) {
	list := "2001:db8::5-2001:db8::9,10.0.0.1,2001:db8::a,::"
	s, err := ParseRangeList("taken", list)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(s.Ranges()), "[10.0.0.1 :: 2001:db8::5-2001:db8::a]"; got != want {
		t.Errorf("ParseRangeList(%q) = %s, want %s", list, got, want)
	}
	if got, want := s.Count().String(), "8"; got != want {
		t.Errorf("the set counts %s, want %s", got, want)
	}
	_, err = ParseRangeList("taken", "2001:db8::5-10.0.0.1,2001:DB8::1")
	want := `taken[0] "2001:db8::5-10.0.0.1" mixes IPv4 and IPv6; a range is of one family; taken[1] 2001:DB8::1 is not in canonical form; did you mean 2001:db8::1?`
	if err == nil || err.Error() != want {
		t.Errorf("ParseRangeList(mixed) error = %v, want %s", err, want)
	}
}

func TestParseRanges(t *testing.T) {
	s, err := ParseRanges("taken", []string{"10.0.0.5-10.0.0.9", "10.0.0.1", "10.0.0.10", "10.0.0.3"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Range{
		{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.1")},
		{netip.MustParseAddr("10.0.0.3"), netip.MustParseAddr("10.0.0.3")},
		{netip.MustParseAddr("10.0.0.5"), netip.MustParseAddr("10.0.0.10")},
	}
	if got := s.Ranges(); !equalRanges(got, want) {
		t.Errorf("ParseRanges = %v, want %v", got, want)
	}
	if _, err := ParseRanges("taken", []string{"10.0.0.1", "10.0.0.x"}); err == nil || err.Error() != `taken[1] "10.0.0.x" is not an IPv4 address such as 10.0.0.1` {
		t.Errorf("ParseRanges(bad) error = %v", err)
	}
}

func equalRanges(a, b []Range) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParsePoolBoundsExcludes(t *testing.T) {
	many := make([]string, MaxExcludes+1)
	for i := range many {
		many[i] = "10.0.0.1"
	}
	_, err := ParsePool(PoolSpec{CIDR: "10.0.0.0/16", Exclude: many})
	if err == nil || err.Error() != "exclude has 4097 entries; at most 4096 are accepted: write runs of addresses as a-b ranges" {
		t.Errorf("ParsePool with %d excludes: %v", len(many), err)
	}
}

func TestParseRequestBoundsReserved(t *testing.T) {
	p, err := ParsePool(PoolSpec{CIDR: "10.0.0.0/16"})
	if err != nil {
		t.Fatal(err)
	}
	reserved := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}).String()
		}
		return out
	}
	if r, err := p.ParseRequest(RequestSpec{Reserved: reserved(MaxReserved)}); err != nil || r.Reserved.Len() != MaxReserved {
		t.Errorf("ParseRequest with %d reserved = %d addresses, %v; want all of them", MaxReserved, r.Reserved.Len(), err)
	}
	_, err = p.ParseRequest(RequestSpec{Reserved: reserved(65000)})
	if err == nil || err.Error() != "reserved has 65000 entries; at most 4096 are accepted" {
		t.Errorf("ParseRequest with 65000 reserved: %v", err)
	}
}

func TestParseRangeList(t *testing.T) {
	s, err := ParseRangeList("takenRanges", "10.0.0.5-10.0.0.9,10.0.0.1, 10.0.0.10 ,10.0.0.3")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(s.Ranges()), "[10.0.0.1 10.0.0.3 10.0.0.5-10.0.0.10]"; got != want {
		t.Errorf("ParseRangeList = %s, want %s", got, want)
	}
	_, err = ParseRangeList("takenRanges", "10.0.0.1,10.0.0.9-10.0.0.2,x")
	want := `takenRanges[1] "10.0.0.9-10.0.0.2" is a descending range; write 10.0.0.2-10.0.0.9; takenRanges[2] "x" is not an IPv4 address such as 10.0.0.1`
	if err == nil || err.Error() != want {
		t.Errorf("ParseRangeList(bad) error = %v, want %s", err, want)
	}
}

func TestRangesIn(t *testing.T) {
	s := mustSet(t, "10.0.0.250-10.0.1.5", "10.0.1.9", "10.0.2.0-10.0.2.255")
	tests := []struct{ prefix, want string }{
		{"10.0.1.0/24", "[10.0.1.0-10.0.1.5 10.0.1.9]"},
		{"10.0.0.0/16", "[10.0.0.250-10.0.1.5 10.0.1.9 10.0.2.0-10.0.2.255]"},
		{"10.0.3.0/24", "[]"},
		{"10.0.2.128/25", "[10.0.2.128-10.0.2.255]"},
	}
	for _, tt := range tests {
		if got := fmt.Sprint(s.RangesIn(netip.MustParsePrefix(tt.prefix))); got != tt.want {
			t.Errorf("RangesIn(%s) = %s, want %s", tt.prefix, got, tt.want)
		}
	}
}

// TestHostBitsRefusalShape checks that every field refuses a prefix with
// host bits in one shape, "… has host bits set; did you mean …?", in both
// families: the field and the value written, then the prefix meant.
func TestHostBitsRefusalShape(t *testing.T) {
	const shape = "… has host bits set; did you mean …?"
	for _, tt := range []struct {
		err          error
		given, meant string
	}{
		{parsePoolErr(PoolSpec{CIDR: "10.0.0.5/24"}), "cidr 10.0.0.5/24", "10.0.0.0/24"},
		{parsePoolErr(PoolSpec{CIDR: "2001:db8::1/32"}), "cidr 2001:db8::1/32", "2001:db8::/32"},
		{requestErr(t, "10.42.0.0/16", RequestSpec{Within: "10.42.1.7/24"}), "within 10.42.1.7/24", "10.42.1.0/24"},
		{requestErr(t, "2001:db8::/32", RequestSpec{Within: "2001:db8:0:1::5/64"}), "within 2001:db8:0:1::5/64", "2001:db8:0:1::/64"},
	} {
		if tt.err == nil {
			t.Errorf("%s: accepted, want %q", tt.given, shape)
			continue
		}
		got := strings.Replace(strings.Replace(tt.err.Error(), tt.given, "…", 1), tt.meant+"?", "…?", 1)
		if got != shape {
			t.Errorf("%s: %q, want the shape %q", tt.given, tt.err, shape)
		}
	}
}

func parsePoolErr(spec PoolSpec) error {
	_, err := ParsePool(spec)
	return err
}

func requestErr(t *testing.T, cidr string, spec RequestSpec) error {
	t.Helper()
	p, err := ParsePool(PoolSpec{CIDR: cidr})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.ParseRequest(spec)
	return err
}
