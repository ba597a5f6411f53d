package graphql

import (
	"context"
	"net/netip"
	"strconv"

	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/ipam"
)

// The allocations: addresses held by owners, their pages, and the claims
// and releases that make and end them.
const allocationTypes = `
"One address held by one owner, named <pool>-<a-b-c-d> in the pool's namespace (null for public pools)."
type IPAllocation {
	name: String!
	namespace: String
	pool: String!
	address: String!
	owner: ObjectReference!
	createdAt: String
}

"What holds an address: kind VirtualMachine, FloatingIP, VPC or Node."
type ObjectReference {
	kind: String!
	uid: String!
	name: String!
}

"A page of allocations in address order. totalCount counts every allocation matching the search."
type AllocationConnection {
	edges: [AllocationEdge!]!
	nodes: [IPAllocation!]!
	pageInfo: PageInfo!
	totalCount: Int!
}

type AllocationEdge {
	cursor: String!
	node: IPAllocation!
}

type PageInfo {
	endCursor: String
	hasNextPage: Boolean!
}

"An owner: kind VirtualMachine (name <hostname>/<nic>), FloatingIP, VPC (name router) or Node (name <subnet>)."
input ObjectReferenceInput {
	kind: String!
	uid: String!
	name: String!
}

input VirtualMachineRefInput {
	uid: String!
	hostname: String!
}

input NodeRefInput {
	uid: String!
	name: String!
}

input AllocateInput {
	namespace: String
	pool: String!
	within: String
	reserved: [String!]
	owner: ObjectReferenceInput!
	ownerNamespace: String
}

input ReleaseInput {
	namespace: String
	pool: String!
	address: String
	owner: ObjectReferenceInput
	ownerNamespace: String
}

input AttachInterfaceInput {
	namespace: String!
	vpc: String!
	subnet: String!
	vm: VirtualMachineRefInput!
	nic: Int!
	"The family attachInterface claims an address of: by default IPv4 where the subnet has it. attachNic claims both and reads no family."
	family: IPFamily
}

"An address family: IPV4 or IPV6."
enum IPFamily { IPV4 IPV6 }

"A VM's NIC in a subnet, with its address of each family the subnet has (null for a family it has not)."
type Nic {
	namespace: String!
	vpc: String!
	subnet: String!
	"The VM: kind VirtualMachine, its uid, name <hostname>/<nic>, as the owner of both addresses."
	vm: ObjectReference!
	nic: Int!
	ipv4: IPAllocation
	ipv6: IPAllocation
}

input DetachInterfaceInput {
	namespace: String!
	vpc: String!
	vm: VirtualMachineRefInput!
	nic: Int!
}

input AttachNodeInput {
	namespace: String!
	vpc: String!
	subnet: String!
	node: NodeRefInput!
	"The family of the address to claim, as AttachInterfaceInput's."
	family: IPFamily
}
`

// pageArguments are the arguments of a field of AllocationConnection.
const pageArguments = `
	"How many allocations, 1 to 1000; 50 when not given."
	first: Int
	"The endCursor of the previous page."
	after: String
	"Keeps the allocations whose address or owner contains it."
	search: String`

func addAllocations(b *engine.Builder, svc *ipam.Service) {
	b.Types("allocations", allocationTypes)
	b.Query(`"The next count addresses a claim in the pool would get, within a prefix and skipping reserved addresses; nothing is stored."
		previewAllocation(namespace: String, pool: String!, within: String, reserved: [String!], count: Int = 1): [String!]!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			as, err := svc.Preview(ctx, st.actor, stringArg(p.Args, "namespace"), stringArg(p.Args, "pool"),
				stringArg(p.Args, "within"), stringsArg(p.Args, "reserved"), intArg(p.Args, "count"))
			return addrStrings(as), err
		}))
	b.Mutation(`"Allocate: the owner's address in the pool if it holds one, otherwise the lowest free candidate within the prefix, skipping reserved addresses."
		allocate(input: AllocateInput!): IPAllocation!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			in := objectArg(p.Args, "input")
			return svc.Allocate(ctx, st.actor, ipam.AllocateInput{
				Namespace: stringArg(in, "namespace"), Pool: stringArg(in, "pool"), Within: stringArg(in, "within"),
				Reserved: stringsArg(in, "reserved"), Owner: ownerArg(objectArg(in, "owner")), OwnerNamespace: stringArg(in, "ownerNamespace"),
			})
		}))
	b.Mutation(`"Frees the address of a pool named by address or by owner: true when it was held, false when there was nothing to free."
		release(input: ReleaseInput!): Boolean!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			in := objectArg(p.Args, "input")
			rel := ipam.ReleaseInput{Namespace: stringArg(in, "namespace"), Pool: stringArg(in, "pool"), Address: stringArg(in, "address"),
				OwnerNamespace: stringArg(in, "ownerNamespace")}
			if o := objectArg(in, "owner"); o != nil {
				owner := ownerArg(o)
				rel.Owner = &owner
			}
			return svc.Release(ctx, st.actor, rel)
		}))
	addInterfaceMutations(b, svc)
	addAllocationFields(b)
}

// addInterfaceMutations adds the claims of VMs' NICs and of hosts in a
// VPC's subnets.
func addInterfaceMutations(b *engine.Builder, svc *ipam.Service) {
	b.Mutation(`"Gives a VM's NIC an address in a subnet, owner VirtualMachine <hostname>/<nic>; asking again returns the same address."
		attachInterface(input: AttachInterfaceInput!): IPAllocation!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			in := objectArg(p.Args, "input")
			return svc.AttachInterface(ctx, st.actor, attachArg(in))
		}))
	b.Mutation(`"Gives a VM's NIC, in one transaction, an address of each family the subnet has (both or neither), owner VirtualMachine <hostname>/<nic>; asking again returns the same addresses."
		attachNic(input: AttachInterfaceInput!): Nic!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			return svc.AttachNic(ctx, st.actor, attachArg(objectArg(p.Args, "input")))
		}))
	b.Mutation(`"Frees the address of a VM's NIC: true when it held one, false when there was nothing to free. Every family's: a NIC of a dual-stack subnet loses its IPv4 and its IPv6 address."
		detachInterface(input: DetachInterfaceInput!): Boolean!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			in := objectArg(p.Args, "input")
			return svc.DetachInterface(ctx, st.actor, ipam.DetachInterfaceInput{
				Namespace: stringArg(in, "namespace"), VPC: stringArg(in, "vpc"), VM: vmRefArg(in), NIC: intArg(in, "nic"),
			})
		}))
	b.Mutation(`"Gives a host its own address in a subnet, owner Node <subnet>."
		attachNode(input: AttachNodeInput!): IPAllocation!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			in := objectArg(p.Args, "input")
			node := objectArg(in, "node")
			return svc.AttachNode(ctx, st.actor, ipam.AttachNodeInput{
				Namespace: stringArg(in, "namespace"), VPC: stringArg(in, "vpc"), Subnet: stringArg(in, "subnet"),
				Node: ipam.NodeRef{UID: stringArg(node, "uid"), Name: stringArg(node, "name")}, Family: ipam.Family(stringArg(in, "family")),
			})
		}))
}

func addAllocationFields(b *engine.Builder) {
	properties(b, "IPAllocation", map[string]func(ipam.Allocation) any{
		"name":      func(a ipam.Allocation) any { return a.Name },
		"namespace": func(a ipam.Allocation) any { return optional(a.Namespace) },
		"pool":      func(a ipam.Allocation) any { return a.Pool },
		"address":   func(a ipam.Allocation) any { return a.Address.String() },
		"owner":     func(a ipam.Allocation) any { return a.Owner },
		"createdAt": func(a ipam.Allocation) any { return timestamp(a.CreatedAt) },
	})
	properties(b, "Nic", map[string]func(ipam.Nic) any{
		"namespace": func(n ipam.Nic) any { return n.Namespace },
		"vpc":       func(n ipam.Nic) any { return n.VPC },
		"subnet":    func(n ipam.Nic) any { return n.Subnet },
		"vm": func(n ipam.Nic) any {
			return ipam.Owner{Kind: ipam.OwnerVirtualMachine, UID: n.VM.UID, Name: n.VM.Hostname + "/" + strconv.Itoa(n.NIC)}
		},
		"nic":  func(n ipam.Nic) any { return n.NIC },
		"ipv4": func(n ipam.Nic) any { return allocationOrNull(n.IPv4) },
		"ipv6": func(n ipam.Nic) any { return allocationOrNull(n.IPv6) },
	})
	properties(b, "ObjectReference", map[string]func(ipam.Owner) any{
		"kind": func(o ipam.Owner) any { return o.Kind },
		"uid":  func(o ipam.Owner) any { return o.UID },
		"name": func(o ipam.Owner) any { return o.Name },
	})
	properties(b, "AllocationConnection", map[string]func(ipam.AllocationPage) any{
		"edges":      func(p ipam.AllocationPage) any { return p.Allocations },
		"nodes":      func(p ipam.AllocationPage) any { return p.Allocations },
		"pageInfo":   func(p ipam.AllocationPage) any { return p },
		"totalCount": func(p ipam.AllocationPage) any { return p.Total },
	})
	properties(b, "AllocationEdge", map[string]func(ipam.Allocation) any{
		"cursor": func(a ipam.Allocation) any { return a.Address.String() },
		"node":   func(a ipam.Allocation) any { return a },
	})
	properties(b, "PageInfo", map[string]func(ipam.AllocationPage) any{
		"endCursor":   func(p ipam.AllocationPage) any { return optional(p.EndCursor) },
		"hasNextPage": func(p ipam.AllocationPage) any { return p.HasNext },
	})
}

// pageArgs reads the arguments of an allocations field. An explicit first
// of 0 is refused here: the domain reads 0 as "not given".
func pageArgs(args map[string]any) (ipam.Page, error) {
	page := ipam.Page{After: stringArg(args, "after"), Search: stringArg(args, "search")}
	if first, ok := args["first"].(int); ok {
		if first == 0 {
			return page, &codedError{code: codeInvalidArgument, message: "first 0 is out of range: 1 to 1000", field: "first"}
		}
		page.First = first
	}
	return page, nil
}

// attachArg reads an AttachInterfaceInput.
func attachArg(in map[string]any) ipam.AttachInterfaceInput {
	return ipam.AttachInterfaceInput{
		Namespace: stringArg(in, "namespace"), VPC: stringArg(in, "vpc"), Subnet: stringArg(in, "subnet"),
		VM: vmRefArg(in), NIC: intArg(in, "nic"), Family: ipam.Family(stringArg(in, "family")),
	}
}

func vmRefArg(in map[string]any) ipam.VMRef {
	vm := objectArg(in, "vm")
	return ipam.VMRef{UID: stringArg(vm, "uid"), Hostname: stringArg(vm, "hostname")}
}

func ownerArg(o map[string]any) ipam.Owner {
	return ipam.Owner{Kind: ipam.OwnerKind(stringArg(o, "kind")), UID: stringArg(o, "uid"), Name: stringArg(o, "name")}
}

// allocationOrNull is *a, or null when a is nil.
func allocationOrNull(a *ipam.Allocation) any {
	if a == nil {
		return nil
	}
	return *a
}

func addrStrings(as []netip.Addr) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.String()
	}
	return out
}
