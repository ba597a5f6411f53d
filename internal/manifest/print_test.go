package manifest

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/usage"
)

var (
	publicPool = ipam.Pool{
		UID: "8c1d6a52-0f3e-4b7a-9d2c-5e4f3a2b1c0d", Name: "public-zone-a", Kind: ipam.Public,
		CIDR: netip.MustParsePrefix("203.0.113.0/24"), Gateway: netip.MustParseAddr("203.0.113.1"),
		Exclude: []string{"203.0.113.2", "203.0.113.3", "203.0.113.10-203.0.113.20"}, Zone: "zone-a",
	}
	barePool = ipam.Pool{UID: "123", Name: "edge", Kind: ipam.Public, CIDR: netip.MustParsePrefix("198.51.100.0/28"), Exclude: []string{},
		Labels: map[string]string{"team": "net", "pivirt.hu/tier": "gold", "canary": "true", "empty": ""}}
	vpc     = ipam.VPC{UID: mainUID, Namespace: "acme/prod", Name: "main", CIDR: netip.MustParsePrefix("10.42.0.0/16"), Zone: "zone-a"}
	vpcPool = ipam.Pool{
		UID: "9a7f", Namespace: "acme/prod", Name: "vpc-main", Kind: ipam.Private, VPCUID: vpc.UID,
		CIDR: netip.MustParsePrefix("10.42.0.0/16"), Exclude: []string{},
	}
	allocations = []ipam.Allocation{
		{UID: "0c6f2d4e-7a1b-4c3d-9e8f-1a2b3c4d5e6f", Namespace: "acme/prod", Name: "vpc-main-10-42-1-7", Pool: "vpc-main", Address: netip.MustParseAddr("10.42.1.7"),
			Owner:     ipam.Owner{Kind: ipam.OwnerVirtualMachine, UID: "<vm uuid>", Name: "web-01/0"},
			CreatedAt: time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.FixedZone("CET", 3600))},
		{UID: "1d7a3e5f-8b2c-4d4e-8f9a-2b3c4d5e6f70", Name: "public-zone-a-203-0-113-4", Pool: "public-zone-a", Address: netip.MustParseAddr("203.0.113.4"),
			Owner:     ipam.Owner{Kind: ipam.OwnerVPC, UID: vpc.UID, Name: "router"},
			CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)},
	}
	vpcs = []VPCItem{
		{
			VPC: vpc, Router: netip.MustParseAddr("203.0.113.4"), DefaultRoute: netip.MustParseAddr("203.0.113.1"),
			Subnets: []ipam.Subnet{
				{Name: "web", CIDR: netip.MustParsePrefix("10.42.1.0/24"), Gateway: netip.MustParseAddr("10.42.1.1")},
				{Name: "db", CIDR: netip.MustParsePrefix("10.42.2.0/24"), Gateway: netip.MustParseAddr("10.42.2.7")},
			},
		},
		{VPC: ipam.VPC{UID: "77d0c3b2-5e4f-4a6b-9c8d-7e6f5a4b3c2d", Namespace: "acme/dev", Name: "lab", CIDR: netip.MustParsePrefix("10.0.0.0/8")}},
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
  labels: {canary: "true", empty: "", pivirt.hu/tier: gold, team: net}
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
  ownerRefs: [{kind: VPC, uid: 5b0e8f4a-1c2d-4e3f-8a9b-0c1d2e3f4a5b, controller: true}]
spec:
  cidr: 10.42.0.0/16
  kind: private
`},
		{"allocations", func(b *strings.Builder) error { return WriteAllocationsYAML(b, allocations) }, `apiVersion: pivirt.hu/v1
kind: IPAllocation
metadata:
  name: vpc-main-10-42-1-7
  namespace: acme/prod
  uid: 0c6f2d4e-7a1b-4c3d-9e8f-1a2b3c4d5e6f
  creationTimestamp: "2025-03-14T14:09:26Z"
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
  uid: 1d7a3e5f-8b2c-4d4e-8f9a-2b3c4d5e6f70
  creationTimestamp: "2025-01-02T03:04:05Z"
  labels: {pivirt.hu/managed-by: director}
spec:
  pool: public-zone-a
  address: 203.0.113.4
  owner: {kind: VPC, uid: 5b0e8f4a-1c2d-4e3f-8a9b-0c1d2e3f4a5b, name: router}
`},
		{"vpcs", func(b *strings.Builder) error { return WriteVPCsYAML(b, vpcs) }, `apiVersion: pivirt.hu/v1
kind: VPC
metadata:
  name: main
  namespace: acme/prod
  uid: 5b0e8f4a-1c2d-4e3f-8a9b-0c1d2e3f4a5b
spec:
  cidr: 10.42.0.0/16
  zone: zone-a
  subnets:
    - {name: web, cidr: 10.42.1.0/24, gateway: 10.42.1.1}
    - {name: db, cidr: 10.42.2.0/24, gateway: 10.42.2.7}
status:
  pool: vpc-main
  router: 203.0.113.4
  defaultRoute: 203.0.113.1
---
apiVersion: pivirt.hu/v1
kind: VPC
metadata:
  name: lab
  namespace: acme/dev
  uid: 77d0c3b2-5e4f-4a6b-9c8d-7e6f5a4b3c2d
spec:
  cidr: 10.0.0.0/8
status:
  pool: vpc-lab
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
				{Pool: publicPool, Usage: usage.Figures{Size: 238, Used: 2, Free: 236}},
				{Pool: barePool, Usage: usage.Figures{Size: 14, Free: 14}},
				{Pool: vpcPool, Usage: usage.Figures{Size: 65534, Used: 1, Free: 65533}},
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
		{"vpcs", func(b *strings.Builder) error { return WriteVPCsTable(b, vpcs) }, `NAMESPACE   NAME   CIDR           ZONE     ROUTER        DEFAULT-ROUTE   SUBNETS
acme/prod   main   10.42.0.0/16   zone-a   203.0.113.4   203.0.113.1     2
acme/dev    lab    10.0.0.0/8     -        -             -               0
`},
		{"a vpc without a default route", func(b *strings.Builder) error {
			return WriteVPCsTable(b, []VPCItem{{VPC: ipam.VPC{Namespace: "acme/prod", Name: "edge", CIDR: netip.MustParsePrefix("10.9.0.0/16"), Zone: "zone-c"},
				Router: netip.MustParseAddr("192.0.2.7")}})
		}, `NAMESPACE   NAME   CIDR          ZONE     ROUTER      DEFAULT-ROUTE   SUBNETS
acme/prod   edge   10.9.0.0/16   zone-c   192.0.2.7   none            0
`},
		{"no vpcs", func(b *strings.Builder) error { return WriteVPCsTable(b, nil) }, "NAMESPACE   NAME   CIDR   ZONE   ROUTER   DEFAULT-ROUTE   SUBNETS\n"},
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

// TestRoundTrip checks that what WritePoolsYAML and WriteVPCsYAML print,
// Parse reads as the same pools (labels included) and VPCs (subnets
// included, status left out).
func TestRoundTrip(t *testing.T) {
	var b strings.Builder
	if err := WritePoolsYAML(&b, []ipam.Pool{publicPool, barePool, vpcPool}); err != nil {
		t.Fatal(err)
	}
	b.WriteString("---\n")
	if err := WriteVPCsYAML(&b, vpcs); err != nil {
		t.Fatal(err)
	}
	got, err := Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("Parse(what was printed): %v\n%s", err, b.String())
	}
	want := []ipam.ApplyObject{
		public(ipam.CreatePublicPoolInput{Name: publicPool.Name, CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Exclude: publicPool.Exclude, Zone: "zone-a"}),
		public(ipam.CreatePublicPoolInput{Name: barePool.Name, CIDR: "198.51.100.0/28", Labels: barePool.Labels}),
		private(ipam.PrivatePoolInput{Namespace: "acme/prod", Name: "vpc-main", CIDR: "10.42.0.0/16", VPCUID: mainUID}),
		vpcObject(ipam.ApplyVPCInput{
			CreateVPCInput: ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"}, UID: mainUID,
			Subnets: []ipam.CreateSubnetInput{{Name: "web", CIDR: "10.42.1.0/24", Gateway: "10.42.1.1"}, {Name: "db", CIDR: "10.42.2.0/24", Gateway: "10.42.2.7"}},
		}),
		vpcObject(ipam.ApplyVPCInput{CreateVPCInput: ipam.CreateVPCInput{Namespace: "acme/dev", Name: "lab", CIDR: "10.0.0.0/8"}, UID: "77d0c3b2-5e4f-4a6b-9c8d-7e6f5a4b3c2d"}),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse = %s\nwant %s", objectsString(got), objectsString(want))
	}
}
