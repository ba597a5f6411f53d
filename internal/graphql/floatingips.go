package graphql

import (
	"context"

	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/ipam"
)

// The floating IPs: public addresses tenants hold.
const floatingIPTypes = `
"A public address a tenant holds, from a public pool."
type FloatingIP {
	uid: ID!
	namespace: String!
	name: String!
	address: String!
	pool: String!
	zone: String
}

input ClaimFloatingIpInput {
	namespace: String!
	name: String!
	zone: String
	pool: String
}
`

func addFloatingIPs(b *engine.Builder, svc *ipam.Service) {
	b.Types("floatingips", floatingIPTypes)
	b.Query(`"The floating IPs the actor may see, of namespace when given."
		floatingIps(namespace: String): [FloatingIP!]!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			return svc.FloatingIPs(ctx, st.actor, stringArg(p.Args, "namespace"))
		}))
	b.Mutation(`"Claims a public address from a zone's public pools or from one pool (give one of zone and pool)."
		claimFloatingIp(input: ClaimFloatingIpInput!): FloatingIP!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			in := objectArg(p.Args, "input")
			return svc.ClaimFloatingIP(ctx, st.actor, ipam.ClaimFloatingIPInput{
				Namespace: stringArg(in, "namespace"), Name: stringArg(in, "name"), Zone: stringArg(in, "zone"), Pool: stringArg(in, "pool"),
			})
		}))
	b.Mutation(`"Frees a floating IP and its address."
		releaseFloatingIp(namespace: String!, name: String!): Boolean!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			return done(svc.ReleaseFloatingIP(ctx, st.actor, stringArg(p.Args, "namespace"), stringArg(p.Args, "name")))
		}))
	properties(b, "FloatingIP", map[string]func(ipam.FloatingIP) any{
		"uid":       func(f ipam.FloatingIP) any { return f.UID },
		"namespace": func(f ipam.FloatingIP) any { return f.Namespace },
		"name":      func(f ipam.FloatingIP) any { return f.Name },
		"address":   func(f ipam.FloatingIP) any { return f.Address.String() },
		"pool":      func(f ipam.FloatingIP) any { return f.Pool },
		"zone":      func(f ipam.FloatingIP) any { return optional(f.Zone) },
	})
}
