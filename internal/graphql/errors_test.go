package graphql

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestErrorCodes sends every mutation bad input and checks the code, the
// field and the message of the answer, and that the database is unchanged.
func TestErrorCodes(t *testing.T) {
	e := newEnv(t)
	e.seed()
	e.ok("acme", attachInterface, nil, "namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", "vm-1", "hostname", "web-01", "nic", 0)
	e.ok("acme", claimFloatingIp, nil, "namespace", "acme/prod", "name", "web", "zone", "zone-a")
	// zone-b has a single candidate, which VPC edge holds.
	e.ok("op", createPublicPool, nil, "name", "public-zone-b", "cidr", "198.18.0.0/30", "gateway", "198.18.0.1", "zone", "zone-b")
	e.ok("acme", createVpc, nil, "namespace", "acme/prod", "name", "edge", "cidr", "10.0.0.0/16", "zone", "zone-b")

	long := strings.Repeat("a", 64)
	tests := []struct {
		name    string
		token   string
		query   string
		code    string
		field   string
		message string // the exact message, or a part of it after "~"
	}{
		// createPublicPool
		{"pool cidr not an address", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "not-an-address"}) { name } }`,
			codeInvalidArgument, "cidr", `cidr "not-an-address" is not an IPv4 prefix such as 10.0.0.0/24`},
		{"pool cidr without length", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "198.51.100.0"}) { name } }`,
			codeInvalidArgument, "cidr", "~has no prefix length"},
		{"pool cidr host bits", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "10.0.0.5/24"}) { name } }`,
			codeInvalidArgument, "cidr", "cidr 10.0.0.5/24 has host bits set; did you mean 10.0.0.0/24?"},
		{"pool cidr IPv6 not canonical", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "2001:DB8:0::/32"}) { name } }`,
			codeInvalidArgument, "cidr", "cidr 2001:DB8:0::/32 is not in canonical form; did you mean 2001:db8::/32?"},
		{"pool cidr IPv6 with zeros", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "2001:0db8::/32"}) { name } }`,
			codeInvalidArgument, "cidr", "cidr 2001:0db8::/32 is not in canonical form; did you mean 2001:db8::/32?"},
		{"pool cidr IPv6 host bits", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "2001:db8::1/32"}) { name } }`,
			codeInvalidArgument, "cidr", "cidr 2001:db8::1/32 has host bits set; did you mean 2001:db8::/32?"},
		{"pool gateway IPv6 not canonical", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "2001:db8::/64", gateway: "2001:DB8::1"}) { name } }`,
			codeInvalidArgument, "gateway", "gateway 2001:DB8::1 is not in canonical form; did you mean 2001:db8::1?"},
		{"pool exclude IPv6 not canonical", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "2001:db8::/64", exclude: ["2001:db8::0:5"]}) { name } }`,
			codeInvalidArgument, "exclude[0]", "exclude[0] 2001:db8::0:5 is not in canonical form; did you mean 2001:db8::5?"},
		{"pool cidr empty", "op", `mutation { createPublicPool(input: {name: "p2", cidr: ""}) { name } }`,
			codeInvalidArgument, "cidr", "cidr is required"},
		{"pool cidr too large", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "10.0.0.0/7"}) { name } }`,
			codeInvalidArgument, "cidr", "~too large"},
		{"pool gateway outside", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "198.51.100.0/24", gateway: "10.0.0.1"}) { name } }`,
			codeInvalidArgument, "gateway", "gateway 10.0.0.1 is outside cidr 198.51.100.0/24"},
		{"pool gateway network address", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "198.51.100.0/24", gateway: "198.51.100.0"}) { name } }`,
			codeInvalidArgument, "gateway", "gateway 198.51.100.0 is the network address of 198.51.100.0/24"},
		{"pool gateway IPv6", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "198.51.100.0/24", gateway: "2001:db8::1"}) { name } }`,
			codeInvalidArgument, "gateway", "gateway 2001:db8::1 is not IPv4 as cidr 198.51.100.0/24 is; a pool holds addresses of one family"},
		{"pool exclude outside", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "198.51.100.0/24", exclude: ["198.51.100.9", "10.0.0.1"]}) { name } }`,
			codeInvalidArgument, "exclude[1]", "exclude[1] 10.0.0.1 is outside cidr 198.51.100.0/24"},
		{"pool exclude not an address", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "198.51.100.0/24", exclude: ["nope"]}) { name } }`,
			codeInvalidArgument, "exclude[0]", "~exclude[0]"},
		{"pool overlapping", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "203.0.113.128/25"}) { name } }`,
			codeConflict, "", "cidr 203.0.113.128/25 overlaps public pool public-zone-a (203.0.113.0/24)"},
		{"pool containing another", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "203.0.0.0/16"}) { name } }`,
			codeConflict, "", "~public-zone-a"},
		{"pool name taken", "op", `mutation { createPublicPool(input: {name: "public-zone-a", cidr: "198.51.100.0/24"}) { name } }`,
			codeConflict, "", "~public pool public-zone-a exists already"},
		{"pool name empty", "op", `mutation { createPublicPool(input: {name: "", cidr: "198.51.100.0/24"}) { name } }`,
			codeInvalidArgument, "name", "name is required"},
		{"pool name too long", "op", `mutation { createPublicPool(input: {name: "` + long + `", cidr: "198.51.100.0/24"}) { name } }`,
			codeInvalidArgument, "name", `name "` + long + `" is too long: at most 63 characters`},
		{"pool name upper case", "op", `mutation { createPublicPool(input: {name: "Pub", cidr: "198.51.100.0/24"}) { name } }`,
			codeInvalidArgument, "name", "~is not a valid name"},
		{"pool zone invalid", "op", `mutation { createPublicPool(input: {name: "p2", cidr: "198.51.100.0/24", zone: "Zone A"}) { name } }`,
			codeInvalidArgument, "zone", "~is not a valid zone"},
		{"pool by a tenant", "acme", `mutation { createPublicPool(input: {name: "p2", cidr: "198.51.100.0/24"}) { name } }`,
			codeForbidden, "", "~only operators create public pools"},
		{"pool without cidr", "op", `mutation { createPublicPool(input: {name: "p2"}) { name } }`,
			codeInvalidArgument, "", "~cidr"},
		{"delete unknown pool", "op", `mutation { deletePublicPool(name: "nope") }`,
			codeNotFound, "", "pool nope not found"},
		{"delete pool by a tenant", "acme", `mutation { deletePublicPool(name: "public-zone-a") }`,
			codeForbidden, "", "~only operators delete public pools"},
		{"delete pool in use", "op", `mutation { deletePublicPool(name: "public-zone-a") }`,
			codeConflict, "", "public pool public-zone-a still holds 2 addresses; release them first"},

		// createVpc
		{"vpc cidr host bits", "acme", `mutation { createVpc(input: {namespace: "acme/prod", name: "v2", cidr: "10.0.0.5/24"}) { name } }`,
			codeInvalidArgument, "cidr", "cidr 10.0.0.5/24 has host bits set; did you mean 10.0.0.0/24?"},
		{"vpc cidr not an address", "acme", `mutation { createVpc(input: {namespace: "acme/prod", name: "v2", cidr: "ten/8"}) { name } }`,
			codeInvalidArgument, "cidr", `cidr "ten/8" is not an IPv4 prefix such as 10.0.0.0/24`},
		{"vpc cidr IPv6", "acme", `mutation { createVpc(input: {namespace: "acme/prod", name: "v2", cidr: "fd00::/48"}) { name } }`,
			codeInvalidArgument, "cidr", "cidr fd00::/48 is not IPv4: give the VPC's IPv4 prefix as cidr, and an IPv6 one as ipv6Cidr"},
		{"vpc cidr too small", "acme", `mutation { createVpc(input: {namespace: "acme/prod", name: "v2", cidr: "10.0.0.0/30"}) { name } }`,
			codeInvalidArgument, "cidr", "cidr 10.0.0.0/30 is not a VPC prefix: use /8 to /28"},
		{"vpc namespace empty", "acme", `mutation { createVpc(input: {namespace: "", name: "v2", cidr: "10.0.0.0/16"}) { name } }`,
			codeInvalidArgument, "namespace", "namespace is required"},
		{"vpc namespace invalid", "acme", `mutation { createVpc(input: {namespace: "acme//prod", name: "v2", cidr: "10.0.0.0/16"}) { name } }`,
			codeInvalidArgument, "namespace", "~is not a valid namespace"},
		{"vpc name empty", "acme", `mutation { createVpc(input: {namespace: "acme/prod", name: "", cidr: "10.0.0.0/16"}) { name } }`,
			codeInvalidArgument, "name", "name is required"},
		{"vpc name too long", "acme", `mutation { createVpc(input: {namespace: "acme/prod", name: "` + long + `", cidr: "10.0.0.0/16"}) { name } }`,
			codeInvalidArgument, "name", "~is too long: at most 63 characters"},
		{"vpc unknown zone", "acme", `mutation { createVpc(input: {namespace: "acme/prod", name: "v2", cidr: "10.0.0.0/16", zone: "zone-x"}) { name } }`,
			codeInvalidArgument, "zone", "zone zone-x has no public pool"},
		{"vpc exists", "acme", `mutation { createVpc(input: {namespace: "acme/prod", name: "main", cidr: "10.0.0.0/16"}) { name } }`,
			codeConflict, "", "VPC acme/prod/main exists already"},
		{"vpc in another tenant's namespace", "acme", `mutation { createVpc(input: {namespace: "globex/prod", name: "v2", cidr: "10.0.0.0/16"}) { name } }`,
			codeForbidden, "", "~namespace globex/prod"},
		{"vpc in an exhausted zone", "acme", `mutation { createVpc(input: {namespace: "acme/prod", name: "v2", cidr: "10.0.0.0/16", zone: "zone-b"}) { name } }`,
			codePoolExhausted, "", "zone zone-b has no free address in its public pools"},
		{"delete unknown vpc", "acme", `mutation { deleteVpc(namespace: "acme/prod", name: "nope") }`,
			codeNotFound, "", "VPC acme/prod/nope not found"},
		{"delete vpc with interfaces", "acme", `mutation { deleteVpc(namespace: "acme/prod", name: "main") }`,
			codeConflict, "", "VPC acme/prod/main still has 1 VM interface; detach it first"},

		// createSubnet
		{"subnet outside the vpc", "acme", `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "main", name: "s2", cidr: "10.43.0.0/24"}) { name } }`,
			codeInvalidArgument, "cidr", "cidr 10.43.0.0/24 is outside VPC main's 10.42.0.0/16"},
		{"subnet larger than the vpc", "acme", `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "main", name: "s2", cidr: "10.0.0.0/8"}) { name } }`,
			codeInvalidArgument, "cidr", "cidr 10.0.0.0/8 is outside VPC main's 10.42.0.0/16"},
		{"subnet overlapping a sibling", "acme", `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "main", name: "s2", cidr: "10.42.1.128/25"}) { name } }`,
			codeConflict, "", "cidr 10.42.1.128/25 overlaps subnet web (10.42.1.0/24) of VPC main"},
		{"subnet host bits", "acme", `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "main", name: "s2", cidr: "10.42.2.5/24"}) { name } }`,
			codeInvalidArgument, "cidr", "cidr 10.42.2.5/24 has host bits set; did you mean 10.42.2.0/24?"},
		{"subnet of a cidr and a size", "acme", `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "main", name: "s2", cidr: "10.42.2.0/24", prefixLength: 24}) { name } }`,
			codeInvalidArgument, "cidr", "cidr and prefixLength both name the subnet's prefix: give one of them"},
		{"subnet of neither a cidr nor a size", "acme", `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "main", name: "s2"}) { name } }`,
			codeInvalidArgument, "cidr", "cidr or prefixLength is required: the subnet's prefix, or its length to take the lowest free one"},
		{"subnet larger than the vpc by size", "acme", `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "main", name: "s2", prefixLength: 12}) { name } }`,
			codeInvalidArgument, "prefixLength", "prefixLength 12 is out of range for VPC main's 10.42.0.0/16: 16 to 31"},
		{"subnet of a size the vpc has no room for", "acme", `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "main", name: "s2", prefixLength: 16}) { name } }`,
			codePoolExhausted, "", "vpc main has no free /16 in 10.42.0.0/16"},
		{"preview of a subnet size the vpc has no room for", "acme", `{ previewSubnet(namespace: "acme/prod", vpc: "main", prefixLength: 16) }`,
			codePoolExhausted, "", "vpc main has no free /16 in 10.42.0.0/16"},
		{"vpc name too long for its pool", "acme", `mutation { createVpc(input: {namespace: "acme/prod", name: "` + long[:60] + `", cidr: "10.9.0.0/16"}) { name } }`,
			codeInvalidArgument, "name", `name "` + long[:60] + `" is too long for a VPC: at most 59 characters, since its pool is named vpc-<name>`},
		{"allocate in a private pool without within", "acme", `mutation { allocate(input: {namespace: "acme/prod", pool: "vpc-main", owner: {kind: "VirtualMachine", uid: "n", name: "x/0"}}) { address } }`,
			codeInvalidArgument, "within", "within is required in private pool vpc-main: give the cidr of a subnet of VPC main (10.42.1.0/24), or a prefix inside one"},
		{"allocate for a router as a tenant", "acme", `mutation { allocate(input: {namespace: "acme/prod", pool: "vpc-main", within: "10.42.1.0/24", owner: {kind: "VPC", uid: "n", name: "router"}}) { address } }`,
			codeForbidden, "", "forbidden: tenants allocate for VirtualMachine owners only: createVpc claims a VPC's router uplink"},
		{"release by owner in a public pool without owner namespace", "op", `mutation { release(input: {pool: "public-zone-a", owner: {kind: "Node", uid: "n", name: "x"}}) }`,
			codeInvalidArgument, "ownerNamespace", "ownerNamespace is required to release by owner in a public pool: the tenant namespace of the owner"},
		{"subnet /32", "acme", `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "main", name: "s2", cidr: "10.42.2.5/32"}) { name } }`,
			codeInvalidArgument, "cidr", "~leaves no address"},
		{"subnet gateway not an address", "acme", `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "main", name: "s2", cidr: "10.42.2.0/24", gateway: "gw"}) { name } }`,
			codeInvalidArgument, "gateway", `gateway "gw" is not an IPv4 address such as 10.0.0.1`},
		{"subnet gateway outside", "acme", `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "main", name: "s2", cidr: "10.42.2.0/24", gateway: "10.42.3.1"}) { name } }`,
			codeInvalidArgument, "gateway", "gateway 10.42.3.1 is outside cidr 10.42.2.0/24"},
		{"subnet name empty", "acme", `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "main", name: "", cidr: "10.42.2.0/24"}) { name } }`,
			codeInvalidArgument, "name", "name is required"},
		{"subnet exists", "acme", `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "main", name: "web", cidr: "10.42.2.0/24"}) { name } }`,
			codeConflict, "", "subnet web exists already in VPC acme/prod/main"},
		{"subnet of an unknown vpc", "acme", `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "nope", name: "s2", cidr: "10.42.2.0/24"}) { name } }`,
			codeNotFound, "", "VPC acme/prod/nope not found"},
		{"delete unknown subnet", "acme", `mutation { deleteSubnet(namespace: "acme/prod", vpc: "main", name: "nope") }`,
			codeNotFound, "", "subnet acme/prod/main/nope not found"},
		{"delete subnet with interfaces", "acme", `mutation { deleteSubnet(namespace: "acme/prod", vpc: "main", name: "web") }`,
			codeConflict, "", "subnet web of VPC acme/prod/main still has 1 VM interface; detach it first"},

		// attachInterface, detachInterface, attachNode
		{"attach to an unknown subnet", "acme", `mutation { attachInterface(input: {namespace: "acme/prod", vpc: "main", subnet: "nope", vm: {uid: "u", hostname: "h"}, nic: 0}) { address } }`,
			codeNotFound, "", "subnet acme/prod/main/nope not found"},
		{"attach to an unknown vpc", "acme", `mutation { attachInterface(input: {namespace: "acme/prod", vpc: "nope", subnet: "web", vm: {uid: "u", hostname: "h"}, nic: 0}) { address } }`,
			codeNotFound, "", "VPC acme/prod/nope not found"},
		{"attach nic out of range", "acme", `mutation { attachInterface(input: {namespace: "acme/prod", vpc: "main", subnet: "web", vm: {uid: "u", hostname: "h"}, nic: -1}) { address } }`,
			codeInvalidArgument, "nic", "nic -1 is out of range: 0 to 1023"},
		{"attach hostname empty", "acme", `mutation { attachInterface(input: {namespace: "acme/prod", vpc: "main", subnet: "web", vm: {uid: "u", hostname: ""}, nic: 0}) { address } }`,
			codeInvalidArgument, "vm.hostname", "vm.hostname is required"},
		{"attach uid empty", "acme", `mutation { attachInterface(input: {namespace: "acme/prod", vpc: "main", subnet: "web", vm: {uid: "", hostname: "h"}, nic: 0}) { address } }`,
			codeInvalidArgument, "vm.uid", "vm.uid is required"},
		{"attach without vm", "acme", `mutation { attachInterface(input: {namespace: "acme/prod", vpc: "main", subnet: "web", nic: 0}) { address } }`,
			codeInvalidArgument, "", "~vm"},
		{"detach from an unknown vpc", "acme", `mutation { detachInterface(input: {namespace: "acme/prod", vpc: "nope", vm: {uid: "u", hostname: "h"}, nic: 0}) }`,
			codeNotFound, "", "VPC acme/prod/nope not found"},
		{"detach hostname invalid", "acme", `mutation { detachInterface(input: {namespace: "acme/prod", vpc: "main", vm: {uid: "u", hostname: "-h"}, nic: 0}) }`,
			codeInvalidArgument, "vm.hostname", "~is not a valid hostname"},
		{"node uid empty", "acme", `mutation { attachNode(input: {namespace: "acme/prod", vpc: "main", subnet: "web", node: {uid: "", name: "hv-1"}}) { address } }`,
			codeInvalidArgument, "node.uid", "node.uid is required"},
		{"node in an unknown subnet", "acme", `mutation { attachNode(input: {namespace: "acme/prod", vpc: "main", subnet: "nope", node: {uid: "n", name: "hv-1"}}) { address } }`,
			codeNotFound, "", "subnet acme/prod/main/nope not found"},

		// claimFloatingIp, releaseFloatingIp
		{"floating ip with zone and pool", "acme", `mutation { claimFloatingIp(input: {namespace: "acme/prod", name: "f2", zone: "zone-a", pool: "public-zone-a"}) { address } }`,
			codeInvalidArgument, "zone", "zone or pool is required, and only one of them"},
		{"floating ip without zone or pool", "acme", `mutation { claimFloatingIp(input: {namespace: "acme/prod", name: "f2"}) { address } }`,
			codeInvalidArgument, "zone", "zone or pool is required, and only one of them"},
		{"floating ip in an exhausted zone", "acme", `mutation { claimFloatingIp(input: {namespace: "acme/prod", name: "f2", zone: "zone-b"}) { address } }`,
			codePoolExhausted, "", "zone zone-b has no free address in its public pools"},
		{"floating ip from an exhausted pool", "acme", `mutation { claimFloatingIp(input: {namespace: "acme/prod", name: "f2", pool: "public-zone-b"}) { address } }`,
			codePoolExhausted, "", "pool public-zone-b has no free address in 198.18.0.0/30"},
		{"allocate in an exhausted pool", "op", `mutation { allocate(input: {pool: "public-zone-b", owner: {kind: "Node", uid: "n", name: "x"}, ownerNamespace: "acme/prod"}) { address } }`,
			codePoolExhausted, "", "pool public-zone-b has no free address in 198.18.0.0/30"},
		{"floating ip from an unknown pool", "acme", `mutation { claimFloatingIp(input: {namespace: "acme/prod", name: "f2", pool: "nope"}) { address } }`,
			codeNotFound, "", "pool nope not found"},
		{"floating ip from a private pool", "acme", `mutation { claimFloatingIp(input: {namespace: "acme/prod", name: "f2", pool: "vpc-main"}) { address } }`,
			codeNotFound, "", "pool vpc-main not found"},
		{"floating ip from an unknown zone", "acme", `mutation { claimFloatingIp(input: {namespace: "acme/prod", name: "f2", zone: "zone-x"}) { address } }`,
			codeInvalidArgument, "zone", "zone zone-x has no public pool"},
		{"floating ip name too long", "acme", `mutation { claimFloatingIp(input: {namespace: "acme/prod", name: "` + long + `", zone: "zone-a"}) { address } }`,
			codeInvalidArgument, "name", "~too long"},
		{"floating ip in another tenant's namespace", "acme", `mutation { claimFloatingIp(input: {namespace: "globex/prod", name: "f2", zone: "zone-a"}) { address } }`,
			codeForbidden, "", "~namespace globex/prod"},
		{"release an unknown floating ip", "acme", `mutation { releaseFloatingIp(namespace: "acme/prod", name: "nope") }`,
			codeNotFound, "", "floating IP acme/prod/nope not found"},

		// allocate, release
		{"allocate in an unknown pool", "op", `mutation { allocate(input: {pool: "nope", owner: {kind: "Node", uid: "n", name: "x"}, ownerNamespace: "acme/prod"}) { address } }`,
			codeNotFound, "", "pool nope not found"},
		{"allocate within not a prefix", "acme", `mutation { allocate(input: {namespace: "acme/prod", pool: "vpc-main", within: "web", owner: {kind: "Node", uid: "n", name: "x"}}) { address } }`,
			codeInvalidArgument, "within", `within "web" is not an IPv4 prefix such as 10.0.0.0/24`},
		{"allocate within outside", "acme", `mutation { allocate(input: {namespace: "acme/prod", pool: "vpc-main", within: "10.43.0.0/24", owner: {kind: "Node", uid: "n", name: "x"}}) { address } }`,
			codeInvalidArgument, "within", "within 10.43.0.0/24 is outside cidr 10.42.0.0/16"},
		{"allocate reserved not an address", "acme", `mutation { allocate(input: {namespace: "acme/prod", pool: "vpc-main", reserved: ["x"], owner: {kind: "Node", uid: "n", name: "x"}}) { address } }`,
			codeInvalidArgument, "reserved[0]", `reserved[0] "x" is not an IPv4 address such as 10.0.0.1`},
		{"allocate owner kind unknown", "acme", `mutation { allocate(input: {namespace: "acme/prod", pool: "vpc-main", owner: {kind: "Pod", uid: "n", name: "x"}}) { address } }`,
			codeInvalidArgument, "owner.kind", `owner.kind "Pod" is not one of VirtualMachine, FloatingIP, VPC, Node`},
		{"allocate owner name of a VM", "acme", `mutation { allocate(input: {namespace: "acme/prod", pool: "vpc-main", owner: {kind: "VirtualMachine", uid: "n", name: "web-01"}}) { address } }`,
			codeInvalidArgument, "owner.name", "~<hostname>/<nic index>"},
		{"allocate outside the held address", "acme", `mutation { allocate(input: {namespace: "acme/prod", pool: "vpc-main", within: "10.42.1.128/25", owner: {kind: "VirtualMachine", uid: "vm-1", name: "web-01/0"}}) { address } }`,
			codeConflict, "", "VirtualMachine web-01/0 already holds 10.42.1.2 in pool vpc-main, outside 10.42.1.128/25"},
		{"allocate in a public pool as a tenant", "acme", `mutation { allocate(input: {pool: "public-zone-a", owner: {kind: "Node", uid: "n", name: "x"}, ownerNamespace: "acme/prod"}) { address } }`,
			codeForbidden, "", "~use floating IPs instead"},
		{"allocate in a public pool without owner namespace", "op", `mutation { allocate(input: {pool: "public-zone-a", owner: {kind: "Node", uid: "n", name: "x"}}) { address } }`,
			codeInvalidArgument, "ownerNamespace", "~ownerNamespace is required"},
		{"release with address and owner", "acme", `mutation { release(input: {namespace: "acme/prod", pool: "vpc-main", address: "10.42.1.2", owner: {kind: "Node", uid: "n", name: "x"}}) }`,
			codeInvalidArgument, "address", "address and owner name the allocation twice: give one"},
		{"release without address or owner", "acme", `mutation { release(input: {namespace: "acme/prod", pool: "vpc-main"}) }`,
			codeInvalidArgument, "address", "address or owner is required"},
		{"release an IPv6 address", "acme", `mutation { release(input: {namespace: "acme/prod", pool: "vpc-main", address: "fd00::1"}) }`,
			codeInvalidArgument, "address", `address "fd00::1" is not an IPv4 address such as 10.0.0.1`},
		{"release in an unknown pool", "acme", `mutation { release(input: {namespace: "acme/prod", pool: "nope", address: "10.42.1.2"}) }`,
			codeNotFound, "", "pool acme/prod/nope not found"},
		{"release in a public pool as a tenant", "acme", `mutation { release(input: {pool: "public-zone-a", address: "203.0.113.5"}) }`,
			codeForbidden, "", "~use floating IPs instead"},

		// Queries whose arguments are wrong.
		{"preview count 0", "acme", `{ previewAllocation(pool: "public-zone-a", count: 0) }`,
			codeInvalidArgument, "count", "~count 0 is out of range"},
		{"preview in an unknown pool", "acme", `{ previewAllocation(namespace: "acme/prod", pool: "nope") }`,
			codeNotFound, "", "pool acme/prod/nope not found"},
		{"allocations first too large", "acme", `{ pool(namespace: "acme/prod", name: "vpc-main") { allocations(first: 1001) { totalCount } } }`,
			codeInvalidArgument, "first", "first 1001 is out of range: 1 to 1000"},
		{"allocations first 0", "acme", `{ pool(namespace: "acme/prod", name: "vpc-main") { allocations(first: 0) { totalCount } } }`,
			codeInvalidArgument, "first", "first 0 is out of range: 1 to 1000"},
		{"allocations after not a cursor", "acme", `{ pool(namespace: "acme/prod", name: "vpc-main") { allocations(after: "x") { totalCount } } }`,
			codeInvalidArgument, "after", `after "x" is not a cursor of this list`},

		// Requests refused before they run: syntax, validation.
		{"syntax error", "op", `mutation { createPublicPool(input: {name: "p2" cidr: }) { name } }`,
			codeInvalidArgument, "", "~Syntax Error"},
		{"unknown field", "op", `{ pools { color } }`,
			codeInvalidArgument, "", `~Cannot query field "color"`},
		{"argument of the wrong type", "acme", `mutation { attachInterface(input: {namespace: "acme/prod", vpc: "main", subnet: "web", vm: {uid: "u", hostname: "h"}, nic: "zero"}) { address } }`,
			codeInvalidArgument, "", "~nic"},
		{"unknown enum value", "op", `{ pools(kind: SHARED) { name } }`,
			codeInvalidArgument, "", "~SHARED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e.with(t)
			before := e.counts()
			res := e.query(tt.token, tt.query)
			if got := res.code(t); got != tt.code {
				t.Errorf("code %s, want %s; answer %s", got, tt.code, res.body)
			}
			got := res.Errors[0]
			if got.Extensions.Field != tt.field {
				t.Errorf("field %q, want %q; answer %s", got.Extensions.Field, tt.field, res.body)
			}
			if part, ok := strings.CutPrefix(tt.message, "~"); ok {
				if !strings.Contains(got.Message, part) {
					t.Errorf("message %q, want it to contain %q", got.Message, part)
				}
			} else if got.Message != tt.message {
				t.Errorf("message %q, want %q", got.Message, tt.message)
			}
			if tt.field != "" && !strings.HasPrefix(got.Message, tt.field) {
				t.Errorf("message %q does not start with the field %s", got.Message, tt.field)
			}
			if strings.HasPrefix(tt.query, "mutation") && string(res.Data) != "" && string(res.Data) != "null" {
				t.Errorf("a refused mutation answered data %s", res.Data)
			}
			if after := e.counts(); !reflect.DeepEqual(before, after) {
				t.Errorf("the refusal changed the database: %v, then %v", before, after)
			}
		})
	}
}

// TestInternalErrorsAreHidden checks that a failure of the database is
// answered as INTERNAL with a request id, logged, and never shown.
func TestInternalErrorsAreHidden(t *testing.T) {
	e := newEnv(t)
	e.seed()
	e.db.Close()
	res := e.query("acme", `{ vpcs { name } }`)
	if code := res.code(t); code != codeInternal {
		t.Fatalf("code %s, want %s; answer %s", code, codeInternal, res.body)
	}
	m := regexp.MustCompile(`^internal error \(request id ([0-9a-f]{16})\)$`).FindStringSubmatch(res.Errors[0].Message)
	if m == nil {
		t.Fatalf("message %q, want internal error (request id …)", res.Errors[0].Message)
	}
	if strings.Contains(string(res.body), "sql") || strings.Contains(string(res.body), "store") {
		t.Errorf("the answer shows the database's error: %s", res.body)
	}
	logs := e.logs.String()
	if !strings.Contains(logs, "request_id="+m[1]) || !strings.Contains(logs, "database is closed") {
		t.Errorf("the log does not hold the request id %s and the error:\n%s", m[1], logs)
	}
}

// TestTimeout checks that a request that runs out of time says so.
func TestTimeout(t *testing.T) {
	e := newEnv(t)
	e.seed()
	e.handler.timeout = 1
	res := e.query("acme", `{ vpcs { name subnets { name } } }`)
	if len(res.Errors) == 0 {
		t.Fatalf("a request without time succeeded: %s", res.body)
	}
	for _, err := range res.Errors {
		if err.Extensions.Code != codeInternal || !strings.Contains(err.Message, "exceeded its time limit of 1ns") {
			t.Errorf("error %+v, want INTERNAL: the request exceeded its time limit", err)
		}
	}
}
