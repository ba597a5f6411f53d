package graphql

import (
	"context"
	"errors"

	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/ipam"
)

// The pools: public pools and VPCs' private pools, their usage and their
// allocations.
const poolTypes = `
"Who made a pool: operators (PUBLIC, cluster-scoped) or the VPC it belongs to (PRIVATE)."
enum PoolKind { PUBLIC PRIVATE }

"A pool of addresses: public (cluster-scoped, namespace null) or a VPC's private pool vpc-<name>."
type IPAMPool {
	uid: ID!
	name: String!
	namespace: String
	kind: PoolKind!
	cidr: String!
	gateway: String
	exclude: [String!]!
	zone: String
	usage: Usage!
	allocations(` + pageArguments + `): AllocationConnection!
}

"How full a pool or a subnet is. size is the number of candidates; utilization is used in percent of size."
type Usage {
	size: Int!
	used: Int!
	free: Int!
	utilization: Float!
}

input CreatePublicPoolInput {
	name: String!
	cidr: String!
	gateway: String
	exclude: [String!]
	zone: String
}
`

// poolKinds are the names of the values of PoolKind.
var poolKinds = map[ipam.PoolKind]string{ipam.Public: "PUBLIC", ipam.Private: "PRIVATE"}

func addPools(b *engine.Builder, svc *ipam.Service) {
	b.Types("pools", poolTypes)
	b.Query(`"The pools the actor may see, of kind and of namespace when given."
		pools(kind: PoolKind, namespace: String): [IPAMPool!]!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			var kind ipam.PoolKind
			for k, name := range poolKinds {
				if p.Args["kind"] == name {
					kind = k
				}
			}
			return svc.Pools(ctx, st.actor, kind, stringArg(p.Args, "namespace"))
		}))
	b.Query(`"The pool namespace/name (no namespace: a public pool); null when it does not exist or is not visible."
		pool(namespace: String, name: String!): IPAMPool`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			pool, err := svc.Pool(ctx, st.actor, stringArg(p.Args, "namespace"), stringArg(p.Args, "name"))
			if errors.Is(err, ipam.ErrNotFound) {
				return nil, nil
			}
			return pool, err
		}))
	b.Mutation(`"Creates a public pool (operators only). Two public pools never overlap."
		createPublicPool(input: CreatePublicPoolInput!): IPAMPool!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			in := objectArg(p.Args, "input")
			return svc.CreatePublicPool(ctx, st.actor, ipam.CreatePublicPoolInput{
				Name: stringArg(in, "name"), CIDR: stringArg(in, "cidr"), Gateway: stringArg(in, "gateway"),
				Exclude: stringsArg(in, "exclude"), Zone: stringArg(in, "zone"),
			})
		}))
	b.Mutation(`"Deletes a public pool (operators only); refused while it holds addresses."
		deletePublicPool(name: String!): Boolean!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			return done(svc.DeletePublicPool(ctx, st.actor, stringArg(p.Args, "name")))
		}))
	addPoolFields(b, svc)
}

func addPoolFields(b *engine.Builder, svc *ipam.Service) {
	properties(b, "IPAMPool", map[string]func(ipam.Pool) any{
		"uid":       func(p ipam.Pool) any { return p.UID },
		"name":      func(p ipam.Pool) any { return p.Name },
		"namespace": func(p ipam.Pool) any { return optional(p.Namespace) },
		"kind":      func(p ipam.Pool) any { return poolKinds[p.Kind] },
		"cidr":      func(p ipam.Pool) any { return p.CIDR.String() },
		"gateway":   func(p ipam.Pool) any { return addr(p.Gateway) },
		"exclude":   func(p ipam.Pool) any { return p.Exclude },
		"zone":      func(p ipam.Pool) any { return optional(p.Zone) },
	})
	b.Resolve("IPAMPool", "usage", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		return svc.PoolUsage(ctx, st.actor, p.Source.(ipam.Pool))
	}))
	b.Resolve("IPAMPool", "allocations", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		page, err := pageArgs(p.Args)
		if err != nil {
			return nil, err
		}
		return svc.PoolAllocations(ctx, st.actor, p.Source.(ipam.Pool), page)
	}))
	properties(b, "Usage", map[string]func(ipam.Usage) any{
		"size":        func(u ipam.Usage) any { return u.Size },
		"used":        func(u ipam.Usage) any { return u.Used },
		"free":        func(u ipam.Usage) any { return u.Free },
		"utilization": func(u ipam.Usage) any { return u.Utilization() },
	})
}
