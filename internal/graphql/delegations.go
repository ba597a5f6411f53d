package graphql

import (
	"context"

	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/ipam"
)

// The prefixes public IPv6 delegation pools gave to VPCs.
const delegationTypes = `
"A prefix a public IPv6 delegation pool gave to a VPC (createVpc with ipv6PrefixLength), which holds it until it is deleted."
type Delegation {
	"The prefix, of the pool's delegatedPrefixLength, in RFC 5952 form."
	prefix: String!
	"The namespace of the VPC that holds it."
	namespace: String!
	"The name of the VPC that holds it."
	vpc: String!
	"When it was delegated, in RFC 3339."
	createdAt: String!
	"Who made the VPC it was delegated to."
	createdBy: String!
}

extend type IPAMPool {
	"The prefixes a delegation pool gave, in address order: every one for operators, those of a tenant's namespaces for a tenant; empty for a pool that hands out addresses."
	delegations: [Delegation!]!
}
`

func addDelegations(b *engine.Builder, svc *ipam.Service) {
	b.Types("delegations", delegationTypes)
	b.Resolve("IPAMPool", "delegations", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		pool := p.Source.(ipam.Pool)
		if pool.DelegatedPrefixLength == 0 {
			return []ipam.Delegation{}, nil
		}
		return svc.Delegations(ctx, st.actor, pool)
	}))
	properties(b, "Delegation", map[string]func(ipam.Delegation) any{
		"prefix":    func(d ipam.Delegation) any { return d.Prefix.String() },
		"namespace": func(d ipam.Delegation) any { return d.Namespace },
		"vpc":       func(d ipam.Delegation) any { return d.VPC },
		"createdAt": func(d ipam.Delegation) any { return timestamp(d.CreatedAt) },
		"createdBy": func(d ipam.Delegation) any { return d.CreatedBy },
	})
}
