package manifest

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/ipam"
)

var (
	publicPool = ipam.Pool{
		UID: "8c1d6a52-0f3e-4b7a-9d2c-5e4f3a2b1c0d", Name: "public-zone-a", Kind: ipam.Public,
		CIDR: netip.MustParsePrefix("203.0.113.0/24"), Gateway: netip.MustParseAddr("203.0.113.1"),
		Exclude: []string{"203.0.113.2", "203.0.113.3", "203.0.113.10-203.0.113.20"}, Zone: "zone-a",
	}
	barePool = ipam.Pool{UID: "123", Name: "edge", Kind: ipam.Public, CIDR: netip.MustParsePrefix("198.51.100.0/28"), Exclude: []string{}}
	vpc      = ipam.VPC{UID: "5b0e", Namespace: "acme/prod", Name: "main", CIDR: netip.MustParsePrefix("10.42.0.0/16"), Zone: "zone-a"}
	vpcPool  = ipam.Pool{
		UID: "9a7f", Namespace: "acme/prod", Name: "vpc-main", Kind: ipam.Private, VPCUID: vpc.UID,
		CIDR: netip.MustParsePrefix("10.42.0.0/16"), Exclude: []string{},
	}
	allocations = []ipam.Allocation{
		{Namespace: "acme/prod", Name: "vpc-main-10-42-1-7", Pool: "vpc-main", Address: netip.MustParseAddr("10.42.1.7"),
			Owner: ipam.Owner{Kind: ipam.OwnerVirtualMachine, UID: "<vm uuid>", Name: "web-01/0"}},
		{Name: "public-zone-a-203-0-113-4", Pool: "public-zone-a", Address: netip.MustParseAddr("203.0.113.4"),
			Owner: ipam.Owner{Kind: ipam.OwnerVPC, UID: vpc.UID, Name: "router"}},
	}
	vpcs = []VPCItem{
		{
			VPC: vpc, Router: netip.MustParseAddr("203.0.113.4"), DefaultRoute: netip.MustParseAddr("203.0.113.1"),
			Subnets: []ipam.Subnet{
				{Name: "web", CIDR: netip.MustParsePrefix("10.42.1.0/24"), Gateway: netip.MustParseAddr("10.42.1.1")},
				{Name: "db", CIDR: netip.MustParsePrefix("10.42.2.0/24"), Gateway: netip.MustParseAddr("10.42.2.1")},
			},
		},
		{VPC: ipam.VPC{UID: "77", Namespace: "acme/dev", Name: "lab", CIDR: netip.MustParsePrefix("10.0.0.0/8")}},
	}
)

func TestWriteYAML(t *testing.T) {
	tests := []struct {
		name  string
		write func(*strings.Builder) error
		want  string
	}{
		{"pools", func(b *strings.Builder) error { return WritePoolsYAML(b, []ipam.Pool{publicPool, barePool, vpcPool}) }, `apiVersion: pivirt.hu/v1
kind: IPAMPool
metadata:
  name: public-zone-a
  uid: 8c1d6a52-0f3e-4b7a-9d2c-5e4f3a2b1c0d
spec:
  cidr: 203.0.113.0/24
  kind: public
  gateway: 203.0.113.1
  exclude: [203.0.113.2, 203.0.113.3, 203.0.113.10-203.0.113.20]
  zone: zone-a
---
apiVersion: pivirt.hu/v1
kind: IPAMPool
metadata:
  name: edge
  uid: "123"
spec:
  cidr: 198.51.100.0/28
  kind: public
---
apiVersion: pivirt.hu/v1
kind: IPAMPool
metadata:
  name: vpc-main
  namespace: acme/prod
  uid: 9a7f
  ownerRefs: [{kind: VPC, uid: 5b0e, controller: true}]
spec:
  cidr: 10.42.0.0/16
  kind: private
`},
		{"allocations", func(b *strings.Builder) error { return WriteAllocationsYAML(b, allocations) }, `apiVersion: pivirt.hu/v1
kind: IPAllocation
metadata:
  name: vpc-main-10-42-1-7
  namespace: acme/prod
  labels: {pivirt.hu/managed-by: director}
spec:
  pool: vpc-main
  address: 10.42.1.7
  owner: {kind: VirtualMachine, uid: <vm uuid>, name: web-01/0}
---
apiVersion: pivirt.hu/v1
kind: IPAllocation
metadata:
  name: public-zone-a-203-0-113-4
  labels: {pivirt.hu/managed-by: director}
spec:
  pool: public-zone-a
  address: 203.0.113.4
  owner: {kind: VPC, uid: 5b0e, name: router}
`},
		{"vpcs", func(b *strings.Builder) error { return WriteVPCsYAML(b, vpcs) }, `apiVersion: pivirt.hu/v1
kind: VPC
metadata:
  name: main
  namespace: acme/prod
  uid: 5b0e
spec:
  cidr: 10.42.0.0/16
  zone: zone-a
status:
  pool: vpc-main
  router: 203.0.113.4
  defaultRoute: 203.0.113.1
  subnets:
    - {name: web, cidr: 10.42.1.0/24, gateway: 10.42.1.1}
    - {name: db, cidr: 10.42.2.0/24, gateway: 10.42.2.1}
---
apiVersion: pivirt.hu/v1
kind: VPC
metadata:
  name: lab
  namespace: acme/dev
  uid: "77"
spec:
  cidr: 10.0.0.0/8
status:
  pool: vpc-lab
  subnets: []
`},
		{"no pools", func(b *strings.Builder) error { return WritePoolsYAML(b, nil) }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.write(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("wrote:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}

func TestWriteTables(t *testing.T) {
	tests := []struct {
		name  string
		write func(*strings.Builder) error
		want  string
	}{
		{"pools", func(b *strings.Builder) error {
			return WritePoolsTable(b, []PoolItem{
				{Pool: publicPool, Usage: ipam.Usage{Size: 238, Used: 2, Free: 236}},
				{Pool: barePool, Usage: ipam.Usage{Size: 14, Free: 14}},
				{Pool: vpcPool, Usage: ipam.Usage{Size: 65534, Used: 1, Free: 65533}},
			})
		}, `NAMESPACE   NAME            KIND      CIDR              GATEWAY       ZONE     USED   SIZE
-           public-zone-a   public    203.0.113.0/24    203.0.113.1   zone-a   2      238
-           edge            public    198.51.100.0/28   -             -        0      14
acme/prod   vpc-main        private   10.42.0.0/16      -             -        1      65534
`},
		{"allocations", func(b *strings.Builder) error { return WriteAllocationsTable(b, allocations) },
			`NAMESPACE   NAME                        POOL            ADDRESS       OWNER-KIND       OWNER-NAME
acme/prod   vpc-main-10-42-1-7          vpc-main        10.42.1.7     VirtualMachine   web-01/0
-           public-zone-a-203-0-113-4   public-zone-a   203.0.113.4   VPC              router
`},
		{"vpcs", func(b *strings.Builder) error { return WriteVPCsTable(b, vpcs) }, `NAMESPACE   NAME   CIDR           ZONE     ROUTER        SUBNETS
acme/prod   main   10.42.0.0/16   zone-a   203.0.113.4   2
acme/dev    lab    10.0.0.0/8     -        -             0
`},
		{"no vpcs", func(b *strings.Builder) error { return WriteVPCsTable(b, nil) }, "NAMESPACE   NAME   CIDR   ZONE   ROUTER   SUBNETS\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.write(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("wrote:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}

// TestPoolsRoundTrip checks that what WritePoolsYAML prints of public
// pools, Parse reads as the same pools.
func TestPoolsRoundTrip(t *testing.T) {
	var b strings.Builder
	if err := WritePoolsYAML(&b, []ipam.Pool{publicPool, barePool}); err != nil {
		t.Fatal(err)
	}
	got, err := Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("Parse(what WritePoolsYAML wrote): %v\n%s", err, b.String())
	}
	want := []ipam.CreatePublicPoolInput{
		{Name: publicPool.Name, CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Exclude: publicPool.Exclude, Zone: "zone-a"},
		{Name: barePool.Name, CIDR: "198.51.100.0/28"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse = %#v\nwant %#v", got, want)
	}
}
