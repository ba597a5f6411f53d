package candidates

import (
	"encoding/json"
	"strings"
	"testing"
)

// claimsSpec is VPC acme/prod main with subnets web (three taken after
// the gateway) and tiny (a full /30), and zones a (two pools, the first
// full) and b (one full pool).
var claimsSpec = ClaimsSpec{
	Namespace: "acme/prod", VPC: "main",
	Pool: ClaimPool{Name: "vpc-main", PoolSpec: PoolSpec{CIDR: "10.42.0.0/16"}},
	Subnets: []ClaimSubnet{
		{Name: "web", CIDR: "10.42.1.0/24", Gateway: "10.42.1.1", Taken: "10.42.1.2-10.42.1.4"},
		{Name: "tiny", CIDR: "10.42.2.0/30", Gateway: "10.42.2.1", Taken: "10.42.2.2"},
	},
	Zones: []ClaimZone{
		{Name: "zone-a", Pools: []ClaimPool{
			{Name: "public-a1", PoolSpec: PoolSpec{CIDR: "203.0.113.0/30", Gateway: "203.0.113.1"}, Taken: "203.0.113.2"},
			{Name: "public-a2", PoolSpec: PoolSpec{CIDR: "198.51.100.0/24", Exclude: []string{"198.51.100.1-198.51.100.9"}}, Taken: "198.51.100.10"},
		}},
		{Name: "zone-b", Pools: []ClaimPool{
			{Name: "public-b", PoolSpec: PoolSpec{CIDR: "192.0.2.0/31"}, Taken: "192.0.2.0-192.0.2.1"},
		}},
	},
}

func TestClaims(t *testing.T) {
	spec, err := json.Marshal(claimsSpec)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ request, want string }{
		{`{"interface":{"subnet":"web"}}`, `{"address":"10.42.1.5"}`},
		{`{"interface":{"subnet":"tiny"}}`, `{"errors":[{"field":"subnet","message":"pool vpc-main has no free address in 10.42.2.0/30","plain":"Pool vpc-main has no free address in 10.42.2.0/30"}]}`},
		{`{"interface":{"subnet":"gone"}}`, `{"errors":[{"field":"subnet","message":"subnet acme/prod/main/gone not found","plain":"Subnet acme/prod/main/gone not found"}]}`},
		{`{"floatingIP":{"zone":"zone-a"}}`, `{"address":"198.51.100.11"}`},
		{`{"floatingIP":{"zone":"zone-b"}}`, `{"errors":[{"field":"zone","message":"zone zone-b has no free address in its public pools","plain":"Zone zone-b has no free address in its public pools"}]}`},
		{`{"floatingIP":{"zone":"zone-c"}}`, `{"errors":[{"field":"zone","message":"zone zone-c has no public pool","plain":"Zone zone-c has no public pool"}]}`},
		{`{"floatingIP":{"zone":""}}`, `{"errors":[{"field":"zone","message":"no zone has a public pool","plain":"No zone has a public pool"}]}`},
		{`{"subnet":{"prefixLength":24}}`, `{"cidr":"10.42.0.0/24","gateway":"10.42.0.1"}`},
		{`{"subnet":{"prefixLength":30}}`, `{"cidr":"10.42.0.0/30","gateway":"10.42.0.1"}`},
		{`{"subnet":{"cidr":"10.42.2.0/24"}}`, `{"errors":[{"field":"cidr","message":"cidr 10.42.2.0/24 overlaps subnet tiny (10.42.2.0/30) of VPC main","plain":"CIDR 10.42.2.0/24 overlaps subnet tiny (10.42.2.0/30) of VPC main"}]}`},
		{`{"subnet":{"cidr":"10.42.3.0/24","gateway":"10.42.3.255"}}`, `{"cidr":"10.42.3.0/24","errors":[{"field":"gateway","message":"gateway 10.42.3.255 is the broadcast address of 10.42.3.0/24","plain":"Gateway 10.42.3.255 is the broadcast address of 10.42.3.0/24"}]}`},
		{`{"subnet":{"prefixLength":16}}`, `{"errors":[{"field":"prefixLength","message":"vpc main has no free /16 in 10.42.0.0/16","plain":"VPC main has no free /16 in 10.42.0.0/16"}]}`},
		{`{}`, `{"errors":[{"field":"input","message":"input names no claim: give interface, floatingIP or subnet","plain":"Input names no claim: give interface, floatingIP or subnet"}]}`},
		{`{"subnet":{"size":24}}`, `{"errors":[{"field":"input","message":"input is not a claim request: json: unknown field \"size\"","plain":"Input is not a claim request: json: unknown field \"size\""}]}`},
		{`not json`, `{"errors":[{"field":"input","message":"input is not a claim request: invalid character 'o' in literal null (expecting 'u')","plain":"Input is not a claim request: invalid character 'o' in literal null (expecting 'u')"}]}`},
	}
	for _, tt := range tests {
		if got := string(PredictClaimJSON(spec, []byte(tt.request))); got != tt.want {
			t.Errorf("PredictClaimJSON(%s) = %s, want %s", tt.request, got, tt.want)
		}
	}

	// An empty VPC says to create a subnet, in the server's words.
	empty := ClaimsSpec{Namespace: "acme/prod", VPC: "new", Pool: ClaimPool{Name: "vpc-new", PoolSpec: PoolSpec{CIDR: "10.9.0.0/16"}}}
	c, err := ParseClaims(empty)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Interface(""); err == nil || err.Error() != "VPC acme/prod/new has no subnet: create one, then allocate within it" {
		t.Errorf("Interface in a VPC without subnets: %v", err)
	}
}

func TestParseClaimsNamesEachMistake(t *testing.T) {
	tests := []struct{ claims, want string }{
		{`{"namespace":"a","vpc":"v","pool":{"name":"vpc-v","cidr":"10.0.0.0/16"},"subnets":[{"name":"s","cidr":"10.1.0.0/24","gateway":"10.1.0.1","taken":"x"}]}`,
			`subnets[0].taken[0] "x" is not an IPv4 address such as 10.0.0.1; subnets[0].cidr 10.1.0.0/24 is outside cidr 10.0.0.0/16; subnets[0].gateway 10.1.0.1 is outside 10.0.0.0/16`},
		{`{"namespace":"a","vpc":"v","pool":{"name":"vpc-v","cidr":"10.0.0.5/16"}}`, `pool.cidr 10.0.0.5/16 has host bits set; did you mean 10.0.0.0/16?`},
		{`{"namespace":"a","vpc":"v","pool":{"name":"vpc-v","cidr":"10.0.0.0/16"},"zones":[{"name":"z","pools":[{"name":"p","cidr":"10.0.0.0/24","gateway":"10.0.1.1","taken":"10.0.0.9-10.0.0.1"}]}]}`,
			`zones[0].pools[0].gateway 10.0.1.1 is outside cidr 10.0.0.0/24; zones[0].pools[0].taken[0] "10.0.0.9-10.0.0.1" is a descending range; write 10.0.0.1-10.0.0.9`},
		{`{"vpc":"v","extra":1}`, `claims is not a claims spec: json: unknown field "extra"`},
	}
	for _, tt := range tests {
		_, err := ParseClaimsJSON([]byte(tt.claims))
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseClaimsJSON(%s) = %v, want %s", tt.claims, err, tt.want)
		}
		var out ClaimPrediction
		if err := json.Unmarshal(PredictClaimJSON([]byte(tt.claims), []byte(`{"interface":{"subnet":"s"}}`)), &out); err != nil || out.Errors.Error() != tt.want {
			t.Errorf("PredictClaimJSON about %s = %v (%v), want the claims' mistakes", tt.claims, out.Errors, err)
		}
	}
	if _, err := ParseClaimsJSON(make([]byte, MaxPreviewInput+1)); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("ParseClaimsJSON of %d bytes = %v, want it refused", MaxPreviewInput+1, err)
	}
}

func TestRangeList(t *testing.T) {
	set, err := ParseRangeList("taken", "10.0.0.9,10.0.0.1-10.0.0.3,10.0.0.4")
	if err != nil {
		t.Fatal(err)
	}
	if got := RangeList(set.Ranges()); got != "10.0.0.1-10.0.0.4,10.0.0.9" {
		t.Errorf("RangeList = %q, want 10.0.0.1-10.0.0.4,10.0.0.9", got)
	}
	if got := RangeList(nil); got != "" {
		t.Errorf("RangeList(nil) = %q, want empty", got)
	}
}

// dualStackSpec is claimsSpec with an IPv6 prefix: web has one, with two
// addresses taken after its gateway; tiny has none.
func dualStackSpec(addressing string) ClaimsSpec {
	spec := claimsSpec
	spec.PoolV6 = &ClaimPool{Name: "vpc-main-v6", PoolSpec: PoolSpec{CIDR: "fd12:3456:789a::/48"}}
	spec.IPv6Addressing, spec.OpaqueKey = addressing, testKey
	spec.Subnets = []ClaimSubnet{
		{Name: "web", CIDR: "10.42.1.0/24", Gateway: "10.42.1.1", IPv6CIDR: "fd12:3456:789a:1::/64", IPv6Gateway: "fd12:3456:789a:1::1",
			Taken: "10.42.1.2-10.42.1.4,fd12:3456:789a:1::2-fd12:3456:789a:1::3"},
		spec.Subnets[1],
	}
	return spec
}

func TestClaimsDualStack(t *testing.T) {
	lowest, err := json.Marshal(dualStackSpec(""))
	if err != nil {
		t.Fatal(err)
	}
	opaque, err := json.Marshal(dualStackSpec(StableOpaque))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		claims        []byte
		request, want string
	}{
		{lowest, `{"interface":{"subnet":"web"}}`, `{"address":"10.42.1.5","ipv6Address":"fd12:3456:789a:1::4"}`},
		{lowest, `{"interface":{"subnet":"web","family":"IPV4"}}`, `{"address":"10.42.1.5"}`},
		{lowest, `{"interface":{"subnet":"web","family":"IPV6"}}`, `{"ipv6Address":"fd12:3456:789a:1::4"}`},
		{lowest, `{"interface":{"subnet":"tiny"}}`, `{"errors":[{"field":"subnet","message":"pool vpc-main has no free address in 10.42.2.0/30","plain":"Pool vpc-main has no free address in 10.42.2.0/30"}]}`},
		{lowest, `{"interface":{"subnet":"tiny","family":"IPV6"}}`, `{"errors":[{"field":"subnet","message":"subnet acme/prod/main/tiny has no IPv6 prefix","plain":"Subnet acme/prod/main/tiny has no IPv6 prefix"}]}`},
		{lowest, `{"interface":{"subnet":"gone"}}`, `{"errors":[{"field":"subnet","message":"subnet acme/prod/main/gone not found","plain":"Subnet acme/prod/main/gone not found"}]}`},
		{lowest, `{"interface":{"subnet":"web","family":"IPV5"}}`, `{"errors":[{"field":"family","message":"family \"IPV5\" is not IPV4 or IPV6","plain":"Family \"IPV5\" is not IPV4 or IPV6"}]}`},
		{opaque, `{"interface":{"subnet":"web","vmUid":"` + testUID + `","nic":0}}`, `{"address":"10.42.1.5","ipv6Address":"fd12:3456:789a:1:1f59:b8c9:babf:ed54"}`},
		{opaque, `{"interface":{"subnet":"web","family":"IPV6","vmUid":"` + testUID + `","nic":1}}`, `{"ipv6Address":"fd12:3456:789a:1:66da:f0dc:d0ee:92fc"}`},
		{lowest, `{"ipv6Subnet":{"prefixLength":64}}`, `{"ipv6Cidr":"fd12:3456:789a::/64","ipv6Gateway":"fd12:3456:789a::1"}`},
		{lowest, `{"subnet":{"prefixLength":24},"ipv6Subnet":{"prefixLength":64}}`, `{"cidr":"10.42.0.0/24","gateway":"10.42.0.1","ipv6Cidr":"fd12:3456:789a::/64","ipv6Gateway":"fd12:3456:789a::1"}`},
		{lowest, `{"subnet":{"prefixLength":24},"ipv6Subnet":{"cidr":"fd12:3456:789a:1::/64"}}`,
			`{"cidr":"10.42.0.0/24","gateway":"10.42.0.1","errors":[{"field":"ipv6Cidr","message":"ipv6Cidr fd12:3456:789a:1::/64 overlaps subnet web (fd12:3456:789a:1::/64) of VPC main","plain":"IPv6 CIDR fd12:3456:789a:1::/64 overlaps subnet web (fd12:3456:789a:1::/64) of VPC main"}]}`},
		{lowest, `{"ipv6Subnet":{"prefixLength":128}}`, `{"errors":[{"field":"ipv6PrefixLength","message":"ipv6PrefixLength 128 is out of range: 8 to 127","plain":"IPv6 prefix length 128 is out of range: 8 to 127"}]}`},
	}
	for _, tt := range tests {
		if got := string(PredictClaimJSON(tt.claims, []byte(tt.request))); got != tt.want {
			t.Errorf("PredictClaimJSON(%s) = %s, want %s", tt.request, got, tt.want)
		}
	}
	spec, _ := json.Marshal(claimsSpec)
	if got, want := string(PredictClaimJSON(spec, []byte(`{"ipv6Subnet":{"prefixLength":64}}`))), `{"errors":[{"field":"ipv6Cidr","message":"VPC acme/prod/main has no IPv6 prefix","plain":"VPC acme/prod/main has no IPv6 prefix"}]}`; got != want {
		t.Errorf("an IPv6 subnet in an IPv4 VPC = %s, want %s", got, want)
	}
	for claims, want := range map[string]string{
		`{"namespace":"a","vpc":"v","pool":{"name":"vpc-v","cidr":"10.0.0.0/16"},"subnets":[{"name":"s","cidr":"10.0.1.0/24","gateway":"10.0.1.1","ipv6Cidr":"fd00::/64"}]}`:                                                 "subnets[0].ipv6Cidr fd00::/64: the VPC has no IPv6 prefix (poolV6)",
		`{"namespace":"a","vpc":"v","pool":{"name":"vpc-v","cidr":"10.0.0.0/16"},"poolV6":{"name":"vpc-v-v6","cidr":"10.1.0.0/16"}}`:                                                                                         "poolV6.cidr 10.1.0.0/16 is not IPv6",
		`{"namespace":"a","vpc":"v","pool":{"name":"vpc-v","cidr":"10.0.0.0/16"},"poolV6":{"name":"vpc-v-v6","cidr":"fd00::/48"},"subnets":[{"name":"s","cidr":"10.0.1.0/24","gateway":"10.0.1.1","ipv6Cidr":"fd01::/64"}]}`: "subnets[0].ipv6Cidr fd01::/64 is outside cidr fd00::/48",
		`{"namespace":"a","vpc":"v","pool":{"name":"vpc-v","cidr":"10.0.0.0/16"},"ipv6Addressing":"RANDOM"}`:                                                                                                                 `ipv6Addressing "RANDOM" is not LOWEST_FREE or STABLE_OPAQUE`,
	} {
		if _, err := ParseClaimsJSON([]byte(claims)); err == nil || err.Error() != want {
			t.Errorf("ParseClaimsJSON(%s) = %v, want %s", claims, err, want)
		}
	}
}
