package graphql

import (
	"context"
	"errors"
	"net/netip"
	"sync"

	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
)

// The VPCs and their subnets.
const vpcTypes = `
"A tenant's private network, with its pool vpc-<name> and, with a zone, a router uplink from the zone's public pools."
type VPC {
	uid: ID!
	namespace: String!
	name: String!
	cidr: String!
	zone: String
	pool: IPAMPool!
	router: IPAllocation
	defaultRoute: String
	subnets: [Subnet!]!
	"The VPC's IPv6 prefix, given or delegated (ipv6Delegated); null for a VPC of IPv4 only."
	ipv6Cidr: String
	"True when ipv6Cidr was delegated from a public delegation pool of the VPC's zone: it goes back to the pool with the VPC."
	ipv6Delegated: Boolean!
	"How the interfaces of the VPC's IPv6 subnets get their addresses; null for a VPC of IPv4 only."
	ipv6Addressing: IPv6Addressing
	"The VPC's IPv6 pool vpc-<name>-v6; null for a VPC of IPv4 only."
	ipv6Pool: IPAMPool
	"The VPC's IPv6 uplink, from a public IPv6 pool of addresses of its zone; null when it has none. Floating IPs stay IPv4: IPv6 addresses are routable as they are."
	ipv6Router: IPAllocation
	"The gateway of ipv6Router's pool; null when it has none."
	ipv6DefaultRoute: String
	"How much of ipv6Cidr the VPC's subnets take, in prefixes of length prefixLength (3 of 256 /64s; a subnet longer than that takes the one it lies in); null for a VPC of IPv4 only. The usage history keeps it in /64s: with another prefixLength its history is empty and its forecast has not enough history."
	ipv6Usage(prefixLength: Int = 64): Usage
}

"How the interfaces of a VPC's IPv6 subnets get their addresses: LOWEST_FREE, the lowest free candidate, as in IPv4; STABLE_OPAQUE, the interface's own candidates, derived from a keyed hash of the subnet's prefix, the VM's uid and the NIC (RFC 7217, RFC 7943): the same address after a detach and an attach again, and no walk of the subnet from ::1."
enum IPv6Addressing { LOWEST_FREE STABLE_OPAQUE }

"A part of a VPC's prefix. Its gateway is reserved in every allocation of the subnet."
type Subnet {
	uid: ID!
	name: String!
	cidr: String!
	gateway: String!
	"The subnet's IPv6 prefix, in its VPC's; null for a subnet of IPv4 only."
	ipv6Cidr: String
	"The subnet's IPv6 gateway, reserved: the prefix's first host address unless given; null for a subnet of IPv4 only."
	ipv6Gateway: String
	usage: Usage!
	"How full the subnet's IPv6 prefix is, in addresses: its candidates leave out the subnet-router anycast address and the gateway. Null for a subnet of IPv4 only. Its history and forecast are those of the IPv6 prefix, apart from usage's of the IPv4 one."
	ipv6Usage: Usage
	allocations(` + pageArguments + `): AllocationConnection!
}

input CreateVpcInput {
	namespace: String!
	name: String!
	cidr: String!
	zone: String
	"An IPv6 prefix for the VPC, in RFC 5952 form (a ULA /48 such as fd12:3456:789a::/48); or ipv6PrefixLength, not both. Without either the VPC is of IPv4 only."
	ipv6Cidr: String
	"The length of an IPv6 prefix to delegate to the VPC from its zone's public delegation pools (56); or ipv6Cidr, not both."
	ipv6PrefixLength: Int
	"How the interfaces of the VPC's IPv6 subnets get their addresses; LOWEST_FREE when not given."
	ipv6Addressing: IPv6Addressing
}

input CreateSubnetInput {
	namespace: String!
	vpc: String!
	name: String!
	cidr: String
	prefixLength: Int
	gateway: String
	"The subnet's IPv6 prefix, inside its dual-stack VPC's; or ipv6PrefixLength."
	ipv6Cidr: String
	"The length of the subnet's IPv6 prefix: the VPC's lowest free aligned prefix of that length. In a dual-stack VPC, without ipv6Cidr, 64."
	ipv6PrefixLength: Int
}
`

func addVPCs(b *engine.Builder, svc *ipam.Service) {
	b.Types("vpcs", vpcTypes)
	addVPCQueries(b, svc)
	addVPCMutations(b, svc)
	addVPCFields(b, svc)
	addSubnetFields(b, svc)
}

func addVPCQueries(b *engine.Builder, svc *ipam.Service) {
	b.Query(`"The VPCs the actor may see, of namespace when given."
		vpcs(namespace: String): [VPC!]!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			vs, err := svc.VPCs(ctx, st.actor, stringArg(p.Args, "namespace"))
			return vpcNodes(vs), err
		}))
	b.Query(`"The VPC namespace/name; null when it does not exist or is not visible."
		vpc(namespace: String!, name: String!): VPC`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			v, err := svc.VPC(ctx, st.actor, stringArg(p.Args, "namespace"), stringArg(p.Args, "name"))
			switch {
			case errors.Is(err, refusal.ErrNotFound):
				return nil, nil
			case err != nil:
				return nil, err
			}
			return newVPCNode(v), nil
		}))
	b.Query(`"The next count prefixes of length prefixLength that createSubnet would give in the VPC, lowest first; nothing is stored. Of family IPV4 (the default) its cidr, of IPV6 a dual-stack VPC's ipv6Cidr, as createSubnet's ipv6PrefixLength."
		previewSubnet(namespace: String!, vpc: String!, prefixLength: Int!, count: Int = 1, family: IPFamily): [String!]!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			ps, err := svc.PreviewSubnetFamily(ctx, st.actor, stringArg(p.Args, "namespace"), stringArg(p.Args, "vpc"),
				ipam.Family(stringArg(p.Args, "family")), intArg(p.Args, "prefixLength"), intArg(p.Args, "count"))
			out := make([]string, len(ps))
			for i, p := range ps {
				out[i] = p.String()
			}
			return out, err
		}))
}

func addVPCMutations(b *engine.Builder, svc *ipam.Service) {
	b.Mutation(`"Creates a VPC with its pool vpc-<name> and, with a zone, its router uplink."
		createVpc(input: CreateVpcInput!): VPC!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			in := objectArg(p.Args, "input")
			v, err := svc.CreateVPC(ctx, st.actor, ipam.CreateVPCInput{
				Namespace: stringArg(in, "namespace"), Name: stringArg(in, "name"), CIDR: stringArg(in, "cidr"), Zone: stringArg(in, "zone"),
				IPv6CIDR: stringArg(in, "ipv6Cidr"), IPv6PrefixLength: intArg(in, "ipv6PrefixLength"), IPv6Addressing: stringArg(in, "ipv6Addressing"),
			})
			if err != nil {
				return nil, err
			}
			return newVPCNode(v), nil
		}))
	b.Mutation(`"Deletes a VPC with its subnets, pool and node addresses, and releases its uplink; refused while it has VM interfaces."
		deleteVpc(namespace: String!, name: String!): Boolean!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			return done(svc.DeleteVPC(ctx, st.actor, stringArg(p.Args, "namespace"), stringArg(p.Args, "name")))
		}))
	b.Mutation(`"Creates a subnet inside a VPC's prefix: cidr, or the lowest free prefix of length prefixLength (one of them); the gateway defaults to the first host."
		createSubnet(input: CreateSubnetInput!): Subnet!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			in := objectArg(p.Args, "input")
			return svc.CreateSubnet(ctx, st.actor, ipam.CreateSubnetInput{
				Namespace: stringArg(in, "namespace"), VPC: stringArg(in, "vpc"), Name: stringArg(in, "name"),
				CIDR: stringArg(in, "cidr"), PrefixLength: intArg(in, "prefixLength"), Gateway: stringArg(in, "gateway"),
				IPv6CIDR: stringArg(in, "ipv6Cidr"), IPv6PrefixLength: intArg(in, "ipv6PrefixLength"),
			})
		}))
	b.Mutation(`"Deletes a subnet and its node addresses; refused while it has VM interfaces."
		deleteSubnet(namespace: String!, vpc: String!, name: String!): Boolean!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			return done(svc.DeleteSubnet(ctx, st.actor, stringArg(p.Args, "namespace"), stringArg(p.Args, "vpc"), stringArg(p.Args, "name")))
		}))
}

func addVPCFields(b *engine.Builder, svc *ipam.Service) {
	properties(b, "VPC", map[string]func(*vpcNode) any{
		"uid":           func(v *vpcNode) any { return v.UID },
		"namespace":     func(v *vpcNode) any { return v.Namespace },
		"name":          func(v *vpcNode) any { return v.Name },
		"cidr":          func(v *vpcNode) any { return v.CIDR.String() },
		"zone":          func(v *vpcNode) any { return optional(v.Zone) },
		"ipv6Cidr":      func(v *vpcNode) any { return prefix(v.IPv6CIDR) },
		"ipv6Delegated": func(v *vpcNode) any { return v.IPv6Delegated },
		"ipv6Addressing": func(v *vpcNode) any {
			if !v.IPv6CIDR.IsValid() {
				return nil
			}
			return string(v.IPv6Addressing)
		},
	})
	b.Resolve("VPC", "ipv6Pool", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		v := p.Source.(*vpcNode)
		if !v.IPv6CIDR.IsValid() {
			return nil, nil
		}
		return svc.Pool(ctx, st.actor, v.Namespace, v.IPv6PoolName())
	}))
	b.Resolve("VPC", "ipv6Usage", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		v := p.Source.(*vpcNode)
		if !v.IPv6CIDR.IsValid() {
			return nil, nil
		}
		bits := intArg(p.Args, "prefixLength")
		u, err := svc.VPCIPv6Usage(ctx, st.actor, v.VPC, bits)
		if bits != ipam.VPCIPv6HistoryBits {
			return usageOf{Figures: u}, err
		}
		return usageOf{u, v.Namespace, v.UID}, err
	}))
	b.Resolve("VPC", "pool", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		return svc.VPCPool(ctx, st.actor, p.Source.(*vpcNode).VPC)
	}))
	for family, fields := range map[ipam.Family][2]string{ipam.IPv4: {"router", "defaultRoute"}, ipam.IPv6: {"ipv6Router", "ipv6DefaultRoute"}} {
		b.Resolve("VPC", fields[0], resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			r, err := p.Source.(*vpcNode).routerOf(ctx, svc, st, family)
			if err != nil || !r.ok {
				return nil, err
			}
			return r.uplink, nil
		}))
		b.Resolve("VPC", fields[1], resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			r, err := p.Source.(*vpcNode).routerOf(ctx, svc, st, family)
			if err != nil || !r.ok {
				return nil, err
			}
			return addr(r.defaultRoute), nil
		}))
	}
	b.Resolve("VPC", "subnets", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		return svc.Subnets(ctx, st.actor, p.Source.(*vpcNode).VPC)
	}))
}

func addSubnetFields(b *engine.Builder, svc *ipam.Service) {
	properties(b, "Subnet", map[string]func(ipam.Subnet) any{
		"uid":         func(s ipam.Subnet) any { return s.UID },
		"name":        func(s ipam.Subnet) any { return s.Name },
		"cidr":        func(s ipam.Subnet) any { return s.CIDR.String() },
		"gateway":     func(s ipam.Subnet) any { return s.Gateway.String() },
		"ipv6Cidr":    func(s ipam.Subnet) any { return prefix(s.IPv6CIDR) },
		"ipv6Gateway": func(s ipam.Subnet) any { return addr(s.IPv6Gateway) },
	})
	b.Resolve("Subnet", "usage", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		sub := p.Source.(ipam.Subnet)
		u, err := svc.SubnetUsage(ctx, st.actor, sub)
		return usageOf{u, sub.Namespace, sub.UID}, err
	}))
	b.Resolve("Subnet", "ipv6Usage", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		sub := p.Source.(ipam.Subnet)
		if !sub.IPv6CIDR.IsValid() {
			return nil, nil
		}
		u, err := svc.SubnetIPv6Usage(ctx, st.actor, sub)
		return usageOf{u, sub.Namespace, ipam.SubnetIPv6HistoryUID(sub)}, err
	}))
	b.Resolve("Subnet", "allocations", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		page, err := pageArgs(p.Args)
		if err != nil {
			return nil, err
		}
		return svc.SubnetAllocations(ctx, st.actor, p.Source.(ipam.Subnet), page)
	}))
}

// A vpcNode is a VPC as a source of the VPC type: its router and default
// route of each family are read once for both fields.
type vpcNode struct {
	ipam.VPC
	once, once6     sync.Once
	router, router6 router
}

type router struct {
	uplink       ipam.Allocation
	defaultRoute netip.Addr
	ok           bool
	err          error
}

func newVPCNode(v ipam.VPC) *vpcNode { return &vpcNode{VPC: v} }

func vpcNodes(vs []ipam.VPC) []*vpcNode {
	out := make([]*vpcNode, len(vs))
	for i, v := range vs {
		out[i] = newVPCNode(v)
	}
	return out
}

// routerOf reads the VPC's router uplink and default route of the family
// f, once.
func (v *vpcNode) routerOf(ctx context.Context, svc *ipam.Service, st *requestState, f ipam.Family) (*router, error) {
	if f == ipam.IPv6 {
		v.once6.Do(func() {
			v.router6.uplink, v.router6.defaultRoute, v.router6.ok, v.router6.err = svc.IPv6Router(ctx, st.actor, v.VPC)
		})
		return &v.router6, v.router6.err
	}
	v.once.Do(func() {
		v.router.uplink, v.router.defaultRoute, v.router.ok, v.router.err = svc.Router(ctx, st.actor, v.VPC)
	})
	return &v.router, v.router.err
}
