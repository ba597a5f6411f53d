package manifest

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/usage"
)

// The pools and VPCs of a dual-stack cluster: a public IPv6 pool of
// addresses, a delegation pool of /56s, VPC main with a delegated /56 and
// its IPv6 pool, VPC lab with a given ULA /48 and stable opaque addresses.
var (
	uplinksV6 = ipam.Pool{UID: "u6", Name: "uplinks-v6", Kind: ipam.Public, CIDR: netip.MustParsePrefix("2001:db8::/64"),
		Gateway: netip.MustParseAddr("2001:db8::1"), Exclude: []string{"2001:db8::2-2001:db8::ff"}, Zone: "zone-a"}
	delegation = ipam.Pool{UID: "d6", Name: "delegated-v6", Kind: ipam.Public, CIDR: netip.MustParsePrefix("2001:db8:100::/40"),
		Exclude: []string{}, Zone: "zone-a", DelegatedPrefixLength: 56}
	mainV6Pool = ipam.Pool{UID: "p6", Namespace: "acme/prod", Name: "vpc-main-v6", Kind: ipam.Private, VPCUID: mainUID,
		CIDR: netip.MustParsePrefix("2001:db8:100::/56"), Exclude: []string{}}
	dualStack = []VPCItem{
		{
			VPC: ipam.VPC{UID: mainUID, Namespace: "acme/prod", Name: "main", CIDR: netip.MustParsePrefix("10.42.0.0/16"), Zone: "zone-a",
				IPv6CIDR: netip.MustParsePrefix("2001:db8:100::/56"), IPv6Delegated: true, IPv6Addressing: ipam.LowestFree},
			Router: netip.MustParseAddr("203.0.113.4"), DefaultRoute: netip.MustParseAddr("203.0.113.1"),
			IPv6Router: netip.MustParseAddr("2001:db8::4"), IPv6DefaultRoute: netip.MustParseAddr("2001:db8::1"),
			Subnets: []ipam.Subnet{
				{Name: "web", CIDR: netip.MustParsePrefix("10.42.1.0/24"), Gateway: netip.MustParseAddr("10.42.1.1"),
					IPv6CIDR: netip.MustParsePrefix("2001:db8:100::/64"), IPv6Gateway: netip.MustParseAddr("2001:db8:100::1")},
				{Name: "db", CIDR: netip.MustParsePrefix("10.42.2.0/24"), Gateway: netip.MustParseAddr("10.42.2.1")},
			},
		},
		{VPC: ipam.VPC{UID: "77d0c3b2-5e4f-4a6b-9c8d-7e6f5a4b3c2d", Namespace: "acme/dev", Name: "lab", CIDR: netip.MustParsePrefix("10.0.0.0/8"),
			IPv6CIDR: netip.MustParsePrefix("fd12:3456:789a::/48"), IPv6Addressing: ipam.StableOpaque}},
	}
)

// dualStackPrinted is what WritePoolsYAML and WriteVPCsYAML print of them.
const dualStackPrinted = `apiVersion: pivirt.hu/v1
kind: IPAMPool
metadata:
  name: uplinks-v6
  uid: u6
spec:
  cidr: 2001:db8::/64
  kind: public
  gateway: 2001:db8::1
  exclude: ['2001:db8::2-2001:db8::ff']
  zone: zone-a
---
apiVersion: pivirt.hu/v1
kind: IPAMPool
metadata:
  name: delegated-v6
  uid: d6
spec:
  cidr: 2001:db8:100::/40
  kind: public
  zone: zone-a
  delegatedPrefixLength: 56
---
apiVersion: pivirt.hu/v1
kind: IPAMPool
metadata:
  name: vpc-main-v6
  namespace: acme/prod
  uid: p6
  ownerRefs: [{kind: VPC, uid: ` + mainUID + `, controller: true}]
spec:
  cidr: 2001:db8:100::/56
  kind: private
---
apiVersion: pivirt.hu/v1
kind: VPC
metadata:
  name: main
  namespace: acme/prod
  uid: ` + mainUID + `
spec:
  cidr: 10.42.0.0/16
  zone: zone-a
  ipv6PrefixLength: 56
  subnets:
    - {name: web, cidr: 10.42.1.0/24, gateway: 10.42.1.1, ipv6Cidr: '2001:db8:100::/64'}
    - {name: db, cidr: 10.42.2.0/24, gateway: 10.42.2.1}
status:
  pool: vpc-main
  router: 203.0.113.4
  defaultRoute: 203.0.113.1
  ipv6Pool: vpc-main-v6
  ipv6Router: 2001:db8::4
  ipv6DefaultRoute: 2001:db8::1
  ipv6Cidr: 2001:db8:100::/56
---
apiVersion: pivirt.hu/v1
kind: VPC
metadata:
  name: lab
  namespace: acme/dev
  uid: 77d0c3b2-5e4f-4a6b-9c8d-7e6f5a4b3c2d
spec:
  cidr: 10.0.0.0/8
  ipv6Cidr: fd12:3456:789a::/48
  ipv6Addressing: STABLE_OPAQUE
status:
  pool: vpc-lab
  ipv6Pool: vpc-lab-v6
`

// TestDualStackRoundTrip: IPv6 pools and dual-stack VPCs are printed in
// the form above, and Parse reads what was printed as the inputs that
// make them again: a delegated prefix by its length, a given one as it
// is, the subnets' IPv6 prefixes as they are.
func TestDualStackRoundTrip(t *testing.T) {
	var b strings.Builder
	if err := WritePoolsYAML(&b, []ipam.Pool{uplinksV6, delegation, mainV6Pool}); err != nil {
		t.Fatal(err)
	}
	b.WriteString("---\n")
	if err := WriteVPCsYAML(&b, dualStack); err != nil {
		t.Fatal(err)
	}
	if b.String() != dualStackPrinted {
		t.Errorf("wrote:\n%s\nwant:\n%s", b.String(), dualStackPrinted)
	}
	got, err := Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("Parse(what was printed): %v\n%s", err, b.String())
	}
	want := []ipam.ApplyObject{
		public(ipam.CreatePublicPoolInput{Name: "uplinks-v6", CIDR: "2001:db8::/64", Gateway: "2001:db8::1", Exclude: []string{"2001:db8::2-2001:db8::ff"}, Zone: "zone-a"}),
		public(ipam.CreatePublicPoolInput{Name: "delegated-v6", CIDR: "2001:db8:100::/40", Zone: "zone-a", DelegatedPrefixLength: 56}),
		private(ipam.PrivatePoolInput{Namespace: "acme/prod", Name: "vpc-main-v6", CIDR: "2001:db8:100::/56", VPCUID: mainUID}),
		vpcObject(ipam.ApplyVPCInput{
			CreateVPCInput: ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a", IPv6PrefixLength: 56}, UID: mainUID,
			Subnets: []ipam.CreateSubnetInput{
				{Name: "web", CIDR: "10.42.1.0/24", Gateway: "10.42.1.1", IPv6CIDR: "2001:db8:100::/64"},
				{Name: "db", CIDR: "10.42.2.0/24", Gateway: "10.42.2.1"},
			},
		}),
		vpcObject(ipam.ApplyVPCInput{CreateVPCInput: ipam.CreateVPCInput{Namespace: "acme/dev", Name: "lab", CIDR: "10.0.0.0/8",
			IPv6CIDR: "fd12:3456:789a::/48", IPv6Addressing: "STABLE_OPAQUE"}, UID: "77d0c3b2-5e4f-4a6b-9c8d-7e6f5a4b3c2d"}),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse = %s\nwant %s", objectsString(got), objectsString(want))
	}
}

// TestDualStackTables: the pools table gives IPv6 figures exact, and a
// delegation pool's in its prefixes; the VPCs table a dual-stack VPC's two
// prefixes.
func TestDualStackTables(t *testing.T) {
	addresses := candidates.CountOf(1<<63 - 1).Add(candidates.CountOf(1 << 63)) // 2^64 − 1
	var b strings.Builder
	err := WritePoolsTable(&b, []PoolItem{
		{Pool: uplinksV6, Usage: usage.Exact(addresses, candidates.CountOf(3), "")},
		{Pool: delegation, Usage: usage.Exact(candidates.CountOf(65536), candidates.CountOf(1), usage.Prefixes(56))},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `NAMESPACE   NAME           KIND     CIDR                GATEWAY       ZONE     USED   SIZE
-           uplinks-v6     public   2001:db8::/64       2001:db8::1   zone-a   3      18446744073709551615
-           delegated-v6   public   2001:db8:100::/40   -             zone-a   1      65536 /56s
`
	if b.String() != want {
		t.Errorf("wrote:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteVPCsTable(&b, dualStack); err != nil {
		t.Fatal(err)
	}
	want = `NAMESPACE   NAME   CIDR                             ZONE     ROUTER        DEFAULT-ROUTE   SUBNETS
acme/prod   main   10.42.0.0/16,2001:db8:100::/56   zone-a   203.0.113.4   203.0.113.1     2
acme/dev    lab    10.0.0.0/8,fd12:3456:789a::/48   -        -             -               0
`
	if b.String() != want {
		t.Errorf("wrote:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestParseDualStackRefuses: a prefix length that is no whole number is
// refused with its path.
func TestParseDualStackRefuses(t *testing.T) {
	for _, tt := range []struct{ manifest, want string }{
		{pool("p6", "cidr: 2001:db8::/32", "kind: public", "delegatedPrefixLength: fifty-six"),
			"spec.delegatedPrefixLength: must be a whole number such as 56, got fifty-six"},
		{vpcDoc("cidr: 10.42.0.0/16", "ipv6PrefixLength: [56]"),
			"spec.ipv6PrefixLength: must be a whole number such as 56, got a list"},
		{vpcDoc("cidr: 10.42.0.0/16", "ipv6Cidr: fd12:3456:789a::/48", "subnets: [{name: web, cidr: 10.42.1.0/24, ipv6PrefixLength: '64'}]"),
			"spec.subnets[0].ipv6PrefixLength: must be a whole number; write it without quotes: 64"},
	} {
		_, err := Parse(strings.NewReader(tt.manifest))
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q) = %v, want %s", tt.manifest, err, tt.want)
		}
	}
}
