package graphql

import (
	"context"

	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/ipam"
)

// The quotas operators set on namespace patterns, as they bind one
// namespace (docs/allocation.md, "Quotas").
const quotaTypes = `
"A quota as it binds one namespace: the limits set for every namespace its pattern matches, and what this namespace holds. A kind the quota does not limit is null."
type Quota {
	"The pattern the quota is set for: a namespace, or acme/* for every namespace under acme."
	pattern: String!
	"The namespace whose use of the limits this is."
	namespace: String!
	"The namespace's VPCs."
	vpcs: QuotaLimit
	"The subnets of the namespace's VPCs."
	subnets: QuotaLimit
	"The namespace's floating IPs."
	floatingIps: QuotaLimit
	"Every address the namespace's owners hold: VM interfaces, node addresses, router uplinks, floating IPs."
	addresses: QuotaLimit
}

"A limit of a quota and what the namespace holds of it. A claim that would take used past limit is refused with QUOTA_EXCEEDED."
type QuotaLimit {
	limit: Int!
	used: Int!
	"How many more the namespace may claim: limit - used, 0 when it holds the limit or more (a limit lowered below what it held)."
	remaining: Int!
}
`

// A quotaLimit is one limit of a quota with the namespace's use of it.
type quotaLimit struct{ limit, used int64 }

func addQuotas(b *engine.Builder, svc *ipam.Service) {
	b.Types("quotas", quotaTypes)
	b.Query(`"The quotas that bind namespace, in pattern order, each with what the namespace holds; none for a namespace the actor may not see."
		quotas(namespace: String!): [Quota!]!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			return svc.NamespaceQuotas(ctx, st.actor, stringArg(p.Args, "namespace"))
		}))
	limit := func(kind ipam.QuotaKind) func(ipam.NamespaceQuota) any {
		return func(q ipam.NamespaceQuota) any {
			n, ok := q.Limits[kind]
			if !ok {
				return nil
			}
			return quotaLimit{limit: n, used: q.Used[kind]}
		}
	}
	properties(b, "Quota", map[string]func(ipam.NamespaceQuota) any{
		"pattern":     func(q ipam.NamespaceQuota) any { return q.Pattern },
		"namespace":   func(q ipam.NamespaceQuota) any { return q.Namespace },
		"vpcs":        limit(ipam.QuotaVPCs),
		"subnets":     limit(ipam.QuotaSubnets),
		"floatingIps": limit(ipam.QuotaFloatingIPs),
		"addresses":   limit(ipam.QuotaAddresses),
	})
	properties(b, "QuotaLimit", map[string]func(quotaLimit) any{
		"limit":     func(l quotaLimit) any { return int(l.limit) },
		"used":      func(l quotaLimit) any { return int(l.used) },
		"remaining": func(l quotaLimit) any { return int(max(l.limit-l.used, 0)) },
	})
}
