package graphql

import (
	"context"
	"errors"
	"math"
	"time"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/forecast"
	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/usage"
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
	"The family of its cidr: a pool is of one family. A VPC's IPv6 pool is vpc-<name>-v6."
	family: IPFamily!
	"The length of the prefixes a public IPv6 pool delegates to VPCs (56: the pool's lowest free aligned /56 at each claim); null for a pool that hands out addresses."
	delegatedPrefixLength: Int
	gateway: String
	exclude: [String!]!
	zone: String
	"How full it is: in addresses, or, for a pool that delegates prefixes, in prefixes of that length (unit)."
	usage: Usage!
	allocations(` + pageArguments + `): AllocationConnection!
}

"How full a pool or a subnet is. size is the number of candidates; utilization is used in percent of size."
type Usage {
	"The number of candidates, when it fits GraphQL's Int (up to 2^31 − 1, as every IPv4 figure does). Past it (an IPv6 prefix's) size is never a wrong number but a field error INVALID_ARGUMENT that gives the figure and names sizeExact; as GraphQL has it, the nearest nullable field above is then null."
	size: Int!
	"size, exact at any size (0 to 2^128 − 1): a BigInt, a decimal string."
	sizeExact: BigInt!
	"The candidates held, when it fits GraphQL's Int; past it an error, as for size: usedExact answers it."
	used: Int!
	"used, exact at any size: a BigInt, a decimal string."
	usedExact: BigInt!
	"The candidates free, when it fits GraphQL's Int; past it an error, as for size: freeExact answers it."
	free: Int!
	"free, exact at any size: a BigInt, a decimal string."
	freeExact: BigInt!
	utilization: Float!
	"What size, used and free count: addresses (a pool that hands out addresses, a subnet), or prefixes of one length, /56s for a pool that delegates /56s (3 of 256 /56s)."
	unit: String!
	"The usage over time, oldest first, since an RFC 3339 time (by default the last 7 days; with DAY, from the start of the day 7 days ago): a point an hour (HOUR, kept 35 days) or a day (DAY, kept 400 days), the last figures of each."
	history(since: String, step: UsageStep = HOUR): [UsagePoint!]!
	"When it will be full at the rate of the last 7 days."
	forecast: Forecast!
}

"The points of a usage history: an hour or a day."
enum UsageStep { HOUR DAY }

"The usage in an hour or a day (at: its start, RFC 3339, UTC): the last figures written in it, and the claims and releases made in it (for a division of a number pool, the numbers allocated from the pool and released)."
type UsagePoint {
	at: String!
	"As Usage.used: an error past GraphQL's Int, where usedExact answers."
	used: Int!
	"used, exact at any size: a BigInt, a decimal string."
	usedExact: BigInt!
	"As Usage.size: an error past GraphQL's Int, where sizeExact answers."
	size: Int!
	"size, exact at any size: a BigInt, a decimal string."
	sizeExact: BigInt!
	claims: Int!
	releases: Int!
}

"When a pool, a subnet or a division of a number pool will be full: a line fitted through its usage of the last 7 days, extended to its size (docs/operations.md). fullAt (RFC 3339) and daysLeft are null unless it fills up; basis says it in words: full in about 23 days (at the rate of the last 7 days), not filling up, not enough history yet, or full."
type Forecast {
	fullAt: String
	daysLeft: Float
	basis: String!
}

input CreatePublicPoolInput {
	name: String!
	"An IPv4 prefix, or an IPv6 prefix in RFC 5952 form (2001:db8::/32): another spelling of a valid prefix is refused with the canonical one."
	cidr: String!
	gateway: String
	exclude: [String!]
	zone: String
	"Makes an IPv6 pool delegate prefixes of this length to VPCs of its zone (CreateVpcInput.ipv6PrefixLength) rather than hand out addresses: 56 gives each VPC the pool's lowest free aligned /56."
	delegatedPrefixLength: Int
}

"What updatePublicPool changes of the public pool name: a field left out keeps its value; null (or an empty string, an empty list) removes the gateway, the excludes or the zone."
input UpdatePublicPoolInput {
	name: String!
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
			if errors.Is(err, refusal.ErrNotFound) {
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
				Exclude: stringsArg(in, "exclude"), Zone: stringArg(in, "zone"), DelegatedPrefixLength: intArg(in, "delegatedPrefixLength"),
			})
		}))
	b.Mutation(`"Changes a public pool's gateway, excludes or zone (operators only; its cidr never changes). Refused (CONFLICT) while the new gateway or excludes would cover an address the pool holds, naming some and how many, and a change of zone while the pool holds routers' uplinks. Claims in progress in the pool finish first; claims made meanwhile wait, then follow the new spec."
		updatePublicPool(input: UpdatePublicPoolInput!): IPAMPool!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			in := objectArg(p.Args, "input")
			up := ipam.UpdatePublicPoolInput{Name: stringArg(in, "name")}
			if _, ok := in["gateway"]; ok {
				up.Gateway = ptr(stringArg(in, "gateway"))
			}
			if _, ok := in["exclude"]; ok {
				up.Exclude = ptr(append([]string{}, stringsArg(in, "exclude")...))
			}
			if _, ok := in["zone"]; ok {
				up.Zone = ptr(stringArg(in, "zone"))
			}
			return svc.UpdatePublicPool(ctx, st.actor, up)
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
		"family":    func(p ipam.Pool) any { return string(p.Family()) },
		"delegatedPrefixLength": func(p ipam.Pool) any {
			if p.DelegatedPrefixLength == 0 {
				return nil
			}
			return p.DelegatedPrefixLength
		},
		"gateway": func(p ipam.Pool) any { return addr(p.Gateway) },
		"exclude": func(p ipam.Pool) any { return p.Exclude },
		"zone":    func(p ipam.Pool) any { return optional(p.Zone) },
	})
	b.Resolve("IPAMPool", "usage", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		pool := p.Source.(ipam.Pool)
		u, err := svc.PoolUsage(ctx, st.actor, pool)
		return usageOf{u, pool.Namespace, pool.UID}, err
	}))
	b.Resolve("IPAMPool", "allocations", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		page, err := pageArgs(p.Args)
		if err != nil {
			return nil, err
		}
		return svc.PoolAllocations(ctx, st.actor, p.Source.(ipam.Pool), page)
	}))
	addUsageFields(b, svc)
}

// addUsageFields resolves the fields of a usage, of its history and of
// its forecast.
func addUsageFields(b *engine.Builder, svc *ipam.Service) {
	figureFields(b, "Usage", map[string]func(usageOf) candidates.Count{
		"size": func(u usageOf) candidates.Count { size, _, _ := u.Counts(); return size },
		"used": func(u usageOf) candidates.Count { _, used, _ := u.Counts(); return used },
		"free": func(u usageOf) candidates.Count { _, _, free := u.Counts(); return free },
	})
	properties(b, "Usage", map[string]func(usageOf) any{
		"utilization": func(u usageOf) any { return u.Utilization() },
		"unit":        func(u usageOf) any { return unit(u.Figures) },
	})
	b.Resolve("Usage", "history", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		step, since, err := historyArgs(p.Args, time.Now())
		if err != nil {
			return nil, err
		}
		u := p.Source.(usageOf)
		if u.uid == "" {
			return []usage.Point{}, nil
		}
		return svc.UsageHistory(ctx, st.actor, u.namespace, u.uid, step, since)
	}))
	figureFields(b, "UsagePoint", map[string]func(usage.Point) candidates.Count{
		"used": func(u usage.Point) candidates.Count { _, used := u.Counts(); return used },
		"size": func(u usage.Point) candidates.Count { size, _ := u.Counts(); return size },
	})
	properties(b, "UsagePoint", map[string]func(usage.Point) any{
		"at":       func(u usage.Point) any { return u.At.UTC().Format(time.RFC3339) },
		"claims":   func(u usage.Point) any { return u.Claims },
		"releases": func(u usage.Point) any { return u.Releases },
	})
	b.Resolve("Usage", "forecast", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		u := p.Source.(usageOf)
		if u.uid == "" {
			return usage.ForecastOf(nil, u.Figures, time.Now()), nil
		}
		return svc.UsageForecast(ctx, st.actor, u.namespace, u.uid, u.Figures, time.Now())
	}))
	properties(b, "Forecast", map[string]func(forecast.Forecast) any{
		"fullAt": func(f forecast.Forecast) any {
			if f.State != forecast.Filling {
				return nil
			}
			return f.FullAt.UTC().Format(time.RFC3339)
		},
		"daysLeft": func(f forecast.Forecast) any {
			if f.State != forecast.Filling {
				return nil
			}
			return math.Round(f.DaysLeft*10) / 10
		},
		"basis": func(f forecast.Forecast) any { return f.String() },
	})
}

// historyArgs reads the arguments of a history field: its step
// (usage.Hour for HOUR, the default, or usage.Day) and since,
// by default the last 7 days (usage.ForecastWindow, the dashboard's week),
// from the start of the day they begin in for days, as usage.ChartOf reads
// days.
func historyArgs(args map[string]any, now time.Time) (string, time.Time, error) {
	step := usage.Hour
	if args["step"] == "DAY" {
		step = usage.Day
	}
	given, ok := args["since"].(string)
	if !ok {
		since := now.Add(-usage.ForecastWindow)
		if step == usage.Day {
			since = since.Truncate(24 * time.Hour)
		}
		return step, since, nil
	}
	since, err := time.Parse(time.RFC3339, given)
	if err != nil {
		return "", time.Time{}, invalidField("since", "since: give a time in RFC 3339, such as 2026-11-24T00:00:00Z")
	}
	return step, since, nil
}

// usageOf is the usage of the space whose history is kept under uid (a
// pool, a subnet, or the IPv6 side of a subnet or a VPC:
// ipam.ObjectUsage.HistoryUID), of namespace ("" for a public pool),
// whose history the Usage type's fields read; without a uid, a usage
// without history (a VPC's IPv6 prefix counted in prefixes of another
// length than the history's).
type usageOf struct {
	usage.Figures
	namespace, uid string
}
