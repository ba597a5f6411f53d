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
}

"A part of a VPC's prefix. Its gateway is reserved in every allocation of the subnet."
type Subnet {
	uid: ID!
	name: String!
	cidr: String!
	gateway: String!
	usage: Usage!
	allocations(` + pageArguments + `): AllocationConnection!
}

input CreateVpcInput {
	namespace: String!
	name: String!
	cidr: String!
	zone: String
}

input CreateSubnetInput {
	namespace: String!
	vpc: String!
	name: String!
	cidr: String
	prefixLength: Int
	gateway: String
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
	b.Query(`"The next count prefixes of length prefixLength that createSubnet would give in the VPC, lowest first; nothing is stored."
		previewSubnet(namespace: String!, vpc: String!, prefixLength: Int!, count: Int = 1): [String!]!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			ps, err := svc.PreviewSubnet(ctx, st.actor, stringArg(p.Args, "namespace"), stringArg(p.Args, "vpc"),
				intArg(p.Args, "prefixLength"), intArg(p.Args, "count"))
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
		"uid":       func(v *vpcNode) any { return v.UID },
		"namespace": func(v *vpcNode) any { return v.Namespace },
		"name":      func(v *vpcNode) any { return v.Name },
		"cidr":      func(v *vpcNode) any { return v.CIDR.String() },
		"zone":      func(v *vpcNode) any { return optional(v.Zone) },
	})
	b.Resolve("VPC", "pool", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		return svc.VPCPool(ctx, st.actor, p.Source.(*vpcNode).VPC)
	}))
	b.Resolve("VPC", "router", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		r, err := p.Source.(*vpcNode).routerOf(ctx, svc, st)
		if err != nil || !r.ok {
			return nil, err
		}
		return r.uplink, nil
	}))
	b.Resolve("VPC", "defaultRoute", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		r, err := p.Source.(*vpcNode).routerOf(ctx, svc, st)
		if err != nil || !r.ok {
			return nil, err
		}
		return addr(r.defaultRoute), nil
	}))
	b.Resolve("VPC", "subnets", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		return svc.Subnets(ctx, st.actor, p.Source.(*vpcNode).VPC)
	}))
}

func addSubnetFields(b *engine.Builder, svc *ipam.Service) {
	properties(b, "Subnet", map[string]func(ipam.Subnet) any{
		"uid":     func(s ipam.Subnet) any { return s.UID },
		"name":    func(s ipam.Subnet) any { return s.Name },
		"cidr":    func(s ipam.Subnet) any { return s.CIDR.String() },
		"gateway": func(s ipam.Subnet) any { return s.Gateway.String() },
	})
	b.Resolve("Subnet", "usage", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		sub := p.Source.(ipam.Subnet)
		u, err := svc.SubnetUsage(ctx, st.actor, sub)
		return usageOf{u, sub.Namespace, sub.UID}, err
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
// route are read once for both fields.
type vpcNode struct {
	ipam.VPC
	once   sync.Once
	router router
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

// routerOf reads the VPC's router uplink and default route, once.
func (v *vpcNode) routerOf(ctx context.Context, svc *ipam.Service, st *requestState) (*router, error) {
	v.once.Do(func() {
		v.router.uplink, v.router.defaultRoute, v.router.ok, v.router.err = svc.Router(ctx, st.actor, v.VPC)
	})
	return &v.router, v.router.err
}
