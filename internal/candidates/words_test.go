package candidates

import (
	"regexp"
	"strings"
	"testing"
)

func TestLabel(t *testing.T) {
	for field, want := range map[string]string{
		"name":             "Name",
		"cidr":             "CIDR",
		"prefixLength":     "Prefix length",
		"exclude[2]":       "Exclude",
		"vm.hostname":      "Hostname",
		"ranges":           "Ranges",
		"ranges[1]":        "Range 2",
		"ranges[0].start":  "Range 1's start",
		"subnets[3].cidr":  "Subnet 4's CIDR",
		"node_attribute":   "Attribute",
		"vlan_id":          "Vlan id",
		"allocation_scope": "Allocation scope",
		"takenRanges[0]":   "Taken",
	} {
		if got := Label(field); got != want {
			t.Errorf("Label(%q) = %q, want %q", field, got, want)
		}
	}
}

// TestPlain: a message in the API's words, said beside its field in a
// form's.
func TestPlain(t *testing.T) {
	for _, tt := range []struct{ field, message, want string }{
		{"exclude[0]", "exclude[0] 192.0.3.10 is outside cidr 192.0.2.0/24", "Exclude 192.0.3.10 is outside 192.0.2.0/24"},
		{"gateway", "gateway 10.0.0.1 is outside cidr 198.51.100.0/24", "Gateway 10.0.0.1 is outside 198.51.100.0/24"},
		{"cidr", "cidr 10.0.0.5/24 has host bits set; did you mean 10.0.0.0/24?", "CIDR 10.0.0.5/24 has host bits set; did you mean 10.0.0.0/24?"},
		{"name", `name "B!" is not a valid name: use lower-case letters`, `Name "B!" is not a valid name: use lower-case letters`},
		{"vm.hostname", `vm.hostname "a b" is not a valid hostname`, `Hostname "a b" is not a valid hostname`},
		{"vlan_id", "vlan_id: a value is required", "Vlan id: a value is required"},
		{"ranges[1]", "ranges[1] start 5 is after its end 3", "Range 2 start 5 is after its end 3"},
		// A message that does not start with its field is said as it
		// is, but for its first word.
		{"subnet", "pool vpc-main has no free address in 10.42.2.0/30", "Pool vpc-main has no free address in 10.42.2.0/30"},
		{"prefixLength", "vpc main has no free /16 in 10.42.0.0/16", "VPC main has no free /16 in 10.42.0.0/16"},
		{"name", "names are required", "Names are required"},
		{"prefix", `"10.42.1.0-x_y" is not a prefix`, `"10.42.1.0-x_y" is not a prefix`},
		{"prefix", "nope", "Nope"},
		// An address or a prefix is written as it is, though it starts
		// with a letter.
		{"prefix", "fd12:3456:789a:101::5/64 has host bits set; did you mean fd12:3456:789a:101::/64?", "fd12:3456:789a:101::5/64 has host bits set; did you mean fd12:3456:789a:101::/64?"},
		{"ipv6Gateway", "fd12::1 is outside fd13::/64", "fd12::1 is outside fd13::/64"},
		{"prefix", "face is a word", "Face is a word"},
		{"", "something", "Something"},
	} {
		if got := Plain(tt.field, tt.message); got != tt.want {
			t.Errorf("Plain(%q, %q) = %q, want %q", tt.field, tt.message, got, tt.want)
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, tt := range []struct{ s, want string }{
		{"web-01", ""},
		{"a", ""},
		{strings.Repeat("a", 63), ""},
		{"", "name is required"},
		{strings.Repeat("a", 64), `name "` + strings.Repeat("a", 64) + `" is too long: at most 63 characters`},
		{"B!", `name "B!" is not a valid name: use lower-case letters, digits and '-', starting and ending with a letter or digit`},
		{"-a", `name "-a" is not a valid name: use lower-case letters, digits and '-', starting and ending with a letter or digit`},
		{"a-", `name "a-" is not a valid name: use lower-case letters, digits and '-', starting and ending with a letter or digit`},
	} {
		got := ""
		if e := CheckName("name", tt.s); e != nil {
			got = e.Message
		}
		if got != tt.want {
			t.Errorf("CheckName(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
	if e := CheckZone("zone", ""); e != nil {
		t.Errorf("CheckZone(\"\") = %v, want none", e)
	}
	if e := CheckZone("zone", "Zone A"); e == nil || e.Message != `zone "Zone A" is not a valid zone: use lower-case letters, digits and '-'` {
		t.Errorf("CheckZone(Zone A) = %v", e)
	}
}

// labelRe is the rule of names as a regular expression: a DNS label in
// lower case.
var labelRe = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// FuzzCheckName checks that CheckName takes exactly the DNS labels in
// lower case, as labelRe says, and that Plain and Label never fail on its
// messages.
func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"", "a", "web-01", "-a", "a-", "A", "a_b", "é", strings.Repeat("a", 63), strings.Repeat("a", 64), "a--b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := CheckName("name", s)
		if (e == nil) != labelRe.MatchString(s) {
			t.Fatalf("CheckName(%q) = %v; the rule says valid: %v", s, e, labelRe.MatchString(s))
		}
		if e != nil && !strings.HasPrefix(e.PlainOf(), "Name ") {
			t.Fatalf("the plain words of %q are %q", e.Message, e.PlainOf())
		}
		Label(s)
	})
}

// TestPreviewChecksNameAndZone: the new-pool form's preview says the
// mistakes of the pool's name and zone with the figures of its valid pool,
// and the figures wait only for the pool itself.
func TestPreviewChecksNameAndZone(t *testing.T) {
	name, zone := "B!", "Zone A"
	out := Preview(PreviewInput{Name: &name, Zone: &zone, Pool: PoolSpec{CIDR: "192.0.2.0/24"}})
	var fields []string
	for _, e := range out.Errors {
		fields = append(fields, e.Field)
	}
	if !out.Valid || out.Size != 254 || strings.Join(fields, " ") != "name zone" {
		t.Errorf("the preview of a valid pool with a bad name and zone: valid %v, size %d, errors of %v; want valid, 254, of name and zone", out.Valid, out.Size, fields)
	}
	out = Preview(PreviewInput{Name: &name, Zone: &zone, Pool: PoolSpec{CIDR: "192.0.2.0/24", Gateway: "10.0.0.1"}})
	fields = nil
	for _, e := range out.Errors {
		fields = append(fields, e.Field)
	}
	if out.Valid || strings.Join(fields, " ") != "name gateway zone" {
		t.Errorf("the preview of a bad pool with a bad name and zone: valid %v, errors of %v; want invalid, of name, gateway and zone, in the form's order", out.Valid, fields)
	}
}
