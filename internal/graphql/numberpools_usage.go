package graphql

import (
	"context"
	"fmt"
	"time"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/numbers"
)

// The usage of number pools, in Infrahub's queries: a pool's divisions
// (InfrahubNumberPoolDivisions), the figures of one division
// (InfrahubNumberPoolUtilization) and its numbers
// (InfrahubNumberPoolAllocations); and, its scope ignored, Infrahub's
// queries of any resource pool (InfrahubResourcePoolUtilization,
// InfrahubResourcePoolAllocated). Every figure counts every branch: the
// answers are the same on /graphql and /graphql/<branch>.
const numberPoolUsageTypes = `
"The usage of numbers: size numbers in the ranges, used of them held by an object on a branch at least, utilization = 100 × used / size."
type NumberPoolFigures {
	size: BigInt!
	used: BigInt!
	utilization: Float!
}

"The value of one scope element in a division."
type NumberPoolDivisionEntry {
	"The scope element's name."
	path: String!
	"The peer's id for a relationship, the attribute's value for an attribute."
	value: String!
	"The peer's display label for a relationship, the value for an attribute."
	display_label: String!
}

"A division of a number pool (an allocation scope): one combination of the values of its scope elements."
type NumberPoolDivision {
	"Its entries' display labels joined by ' / ', in the scope's order."
	display_label: String!
	"One entry for each scope element, in the scope's order; none for a pool without a scope."
	entries: [NumberPoolDivisionEntry!]!
	figures: NumberPoolFigures!
	"The division's usage over time, oldest first, since an RFC 3339 time (by default the last 7 days; with DAY, from the start of the day 7 days ago): a point an hour (HOUR, kept 35 days) or a day (DAY, kept 400 days), the last figures of each (used: the numbers of the ranges it holds, size: the numbers in the ranges), and the numbers allocated from the pool and released in it."
	history(since: String, step: UsageStep = HOUR): [UsagePoint!]!
	"When it will be full at the rate of the last 7 days."
	forecast: Forecast!
}

"The divisions of a number pool that hold a number."
type NumberPoolDivisions {
	count: Int!
	"The most used first, ties by display label."
	divisions: [NumberPoolDivision!]!
}

"The value of one scope element in a division: for a relationship, the peer's id; for an attribute, its value."
input NumberPoolDivisionEntryInput {
	"The scope element's name."
	path: String!
	value: String!
}

"A range of a number pool and its figures in a division."
type NumberPoolRangeUsage {
	start: BigInt!
	end: BigInt!
	weight: Int!
	figures: NumberPoolFigures!
}

"The figures of one division of a number pool, and of each of its ranges in it."
type NumberPoolUtilization {
	figures: NumberPoolFigures!
	"The ranges, in the order given."
	ranges: [NumberPoolRangeUsage!]!
}

"An object that holds a number."
type NumberPoolHolder {
	id: ID!
	kind: String!
	display_label: String!
}

"A number held by an object on a branch."
type NumberPoolAllocation {
	value: BigInt!
	branch: String!
	holder: NumberPoolHolder!
	"The holder's division on that branch."
	division: [NumberPoolDivisionEntry!]!
	"The identifier the number was allocated under; null for a number given, not taken from the pool."
	identifier: String
}

"A page of the numbers of a number pool."
type NumberPoolAllocations {
	"How many numbers match, in all pages."
	count: Int!
	"Ascending."
	allocations: [NumberPoolAllocation!]!
}

"The usage of a whole resource pool, its scope ignored: a number held in two divisions counts once."
type PoolUtilization {
	"How many ranges the pool has: one edge each."
	count: Int!
	"Counting every branch."
	utilization: Float!
	"Counting the default branch's objects only."
	utilization_default_branch: Float!
	"Counting the numbers that other branches show and the default branch does not."
	utilization_branches: Float!
	"One edge for each range, in the order given."
	edges: [PoolUtilizationEdge!]!
}

type PoolUtilizationEdge {
	node: ResourcePoolUtilizationResource!
}

"A range of a number pool."
type ResourcePoolUtilizationResource {
	"<pool id>-<position of the range, from 1>."
	id: ID!
	"<start>-<end>."
	display_label: String!
	"CoreNumberPoolRange."
	kind: String!
	weight: Int!
	utilization: Float!
}

"A page of the numbers of a resource pool, its scope ignored."
type PoolAllocated {
	"How many numbers the pool's objects hold, in all pages."
	count: Int!
	"Ascending."
	edges: [PoolAllocatedEdge!]!
}

type PoolAllocatedEdge {
	node: PoolAllocatedNode!
}

"A number of a resource pool: its holder, on a branch."
type PoolAllocatedNode {
	"The holder's id."
	id: ID!
	"The holder's display label."
	display_label: String!
	"The holder's kind."
	kind: String!
	branch: String!
	"The identifier the number was allocated under; null for a number given, not taken from the pool."
	identifier: String
	"The number."
	value: BigInt!
}
`

// addNumberPoolUsage adds the queries of the pools' usage, over pools.
func addNumberPoolUsage(b *engine.Builder, pools *numbers.Service) {
	b.Types("numberpoolusage", numberPoolUsageTypes)
	b.Query(`"The divisions (allocation scopes) of the number pool pool_id that hold at least one of its numbers on a branch (a number of its ranges, or one allocated from it; not another pool's of the same attribute), the most used first; a pool without a scope has one, without entries, once it holds a number."
		InfrahubNumberPoolDivisions(pool_id: ID!): NumberPoolDivisions!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			pool := stringArg(p.Args, "pool_id")
			l, err := pools.Divisions(ctx, st.actor, pool)
			return poolDivisions{l, pool}, err
		}))
	b.Query(`"The figures of one division of the number pool pool_id, and of each of its ranges in it. On a scoped pool, division gives a value for every scope element; on a pool without a scope, give no division."
		InfrahubNumberPoolUtilization(pool_id: ID!, division: [NumberPoolDivisionEntryInput!]): NumberPoolUtilization!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			return pools.Utilization(ctx, st.actor, stringArg(p.Args, "pool_id"), divisionArg(p.Args))
		}))
	b.Query(`"The numbers of the number pool pool_id (of its ranges, or allocated from it) held in its divisions that match division (some of the scope elements, or none for every division), on every branch, ascending: limit of them (at most `+fmt.Sprint(branch.MaxPage)+`, the default) from offset."
		InfrahubNumberPoolAllocations(pool_id: ID!, division: [NumberPoolDivisionEntryInput!], limit: Int, offset: Int): NumberPoolAllocations!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			limit, offset, err := limitOffset(p.Args)
			if err != nil {
				return nil, err
			}
			return pools.Allocations(ctx, st.actor, stringArg(p.Args, "pool_id"), divisionArg(p.Args), limit, offset)
		}))
	b.Query(`"The figures of the whole number pool pool_id, its scope ignored, with one edge for each range."
		InfrahubResourcePoolUtilization(pool_id: ID!): PoolUtilization!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			return pools.ResourcePoolUtilization(ctx, st.actor, stringArg(p.Args, "pool_id"))
		}))
	b.Query(`"Every number of the number pool pool_id (of its ranges, or allocated from it) held on every branch, ascending, its scope ignored: limit of them (at most `+fmt.Sprint(branch.MaxPage)+`, the default) from offset. resource_id is ignored for number pools."
		InfrahubResourcePoolAllocated(pool_id: ID!, resource_id: ID, limit: Int, offset: Int): PoolAllocated!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			limit, offset, err := limitOffset(p.Args)
			if err != nil {
				return nil, err
			}
			return pools.ResourcePoolAllocated(ctx, st.actor, stringArg(p.Args, "pool_id"), stringArg(p.Args, "resource_id"), limit, offset)
		}))
	addNumberPoolUsageFields(b, pools)
}

// divisionArg reads the argument division: nil when it is not given.
func divisionArg(args map[string]any) []numbers.EntryInput {
	items, _ := args["division"].([]any)
	var out []numbers.EntryInput
	for _, item := range items {
		m, _ := item.(map[string]any)
		out = append(out, numbers.EntryInput{Path: stringArg(m, "path"), Value: stringArg(m, "value")})
	}
	return out
}

func addNumberPoolUsageFields(b *engine.Builder, pools *numbers.Service) {
	addNumberPoolDivisionFields(b, pools)
	properties(b, "NumberPoolFigures", map[string]func(numbers.Figures) any{
		"size":        func(f numbers.Figures) any { return f.Size },
		"used":        func(f numbers.Figures) any { return f.Used },
		"utilization": func(f numbers.Figures) any { return f.Utilization },
	})
	properties(b, "NumberPoolDivisionEntry", map[string]func(numbers.Entry) any{
		"path":          func(e numbers.Entry) any { return e.Path },
		"value":         func(e numbers.Entry) any { return e.Value },
		"display_label": func(e numbers.Entry) any { return e.DisplayLabel },
	})
	properties(b, "NumberPoolRangeUsage", map[string]func(numbers.RangeUsage) any{
		"start":   func(r numbers.RangeUsage) any { return r.Start },
		"end":     func(r numbers.RangeUsage) any { return r.End },
		"weight":  func(r numbers.RangeUsage) any { return r.Weight },
		"figures": func(r numbers.RangeUsage) any { return r.Figures },
	})
	properties(b, "NumberPoolUtilization", map[string]func(numbers.Usage) any{
		"figures": func(u numbers.Usage) any { return u.Figures },
		"ranges":  func(u numbers.Usage) any { return u.Ranges },
	})
	properties(b, "NumberPoolHolder", map[string]func(numbers.Holder) any{
		"id":            func(h numbers.Holder) any { return h.ID },
		"kind":          func(h numbers.Holder) any { return h.Kind },
		"display_label": func(h numbers.Holder) any { return h.DisplayLabel },
	})
	properties(b, "NumberPoolAllocation", map[string]func(numbers.Allocation) any{
		"value":      func(a numbers.Allocation) any { return a.Value },
		"branch":     func(a numbers.Allocation) any { return a.Branch },
		"holder":     func(a numbers.Allocation) any { return a.Holder },
		"division":   func(a numbers.Allocation) any { return a.Division },
		"identifier": func(a numbers.Allocation) any { return optional(a.Identifier) },
	})
	properties(b, "NumberPoolAllocations", map[string]func(numbers.AllocationPage) any{
		"count":       func(pg numbers.AllocationPage) any { return pg.Count },
		"allocations": func(pg numbers.AllocationPage) any { return pg.Allocations },
	})
	properties(b, "PoolUtilization", map[string]func(numbers.PoolUtilization) any{
		"count":                      func(u numbers.PoolUtilization) any { return u.Count },
		"utilization":                func(u numbers.PoolUtilization) any { return u.Utilization },
		"utilization_default_branch": func(u numbers.PoolUtilization) any { return u.UtilizationDefaultBranch },
		"utilization_branches":       func(u numbers.PoolUtilization) any { return u.UtilizationBranches },
		"edges":                      func(u numbers.PoolUtilization) any { return u.Ranges },
	})
	b.Resolve("PoolUtilizationEdge", "node", func(_ context.Context, prm engine.Params) (any, error) { return prm.Source, nil })
	properties(b, "ResourcePoolUtilizationResource", map[string]func(numbers.RangeUtilization) any{
		"id":            func(r numbers.RangeUtilization) any { return r.ID },
		"display_label": func(r numbers.RangeUtilization) any { return r.DisplayLabel },
		"kind":          func(r numbers.RangeUtilization) any { return r.Kind },
		"weight":        func(r numbers.RangeUtilization) any { return r.Weight },
		"utilization":   func(r numbers.RangeUtilization) any { return r.Utilization },
	})
	properties(b, "PoolAllocated", map[string]func(numbers.AllocatedPage) any{
		"count": func(pg numbers.AllocatedPage) any { return pg.Count },
		"edges": func(pg numbers.AllocatedPage) any { return pg.Nodes },
	})
	b.Resolve("PoolAllocatedEdge", "node", func(_ context.Context, prm engine.Params) (any, error) { return prm.Source, nil })
	properties(b, "PoolAllocatedNode", map[string]func(numbers.AllocatedNode) any{
		"id":            func(n numbers.AllocatedNode) any { return n.ID },
		"display_label": func(n numbers.AllocatedNode) any { return n.DisplayLabel },
		"kind":          func(n numbers.AllocatedNode) any { return n.Kind },
		"branch":        func(n numbers.AllocatedNode) any { return n.Branch },
		"identifier":    func(n numbers.AllocatedNode) any { return optional(n.Identifier) },
		"value":         func(n numbers.AllocatedNode) any { return n.Value },
	})
}

// poolDivisions are the divisions of the pool (its id as given), whose
// histories the NumberPoolDivision type's fields read.
type poolDivisions struct {
	numbers.DivisionList
	pool string
}

// A poolDivision is a division of the pool (its id as given).
type poolDivision struct {
	numbers.Division
	pool string
}

// addNumberPoolDivisionFields resolves the fields of divisions: their
// figures, and their history and forecast as pools' and subnets' Usage.
func addNumberPoolDivisionFields(b *engine.Builder, pools *numbers.Service) {
	properties(b, "NumberPoolDivision", map[string]func(poolDivision) any{
		"display_label": func(d poolDivision) any { return d.DisplayLabel },
		"entries":       func(d poolDivision) any { return d.Entries },
		"figures":       func(d poolDivision) any { return d.Figures },
	})
	b.Resolve("NumberPoolDivision", "history", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		step, since, err := historyArgs(p.Args, time.Now())
		if err != nil {
			return nil, err
		}
		d := p.Source.(poolDivision)
		return pools.DivisionHistory(ctx, st.actor, d.pool, d.Input(), step, since)
	}))
	b.Resolve("NumberPoolDivision", "forecast", resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
		d := p.Source.(poolDivision)
		return pools.DivisionForecast(ctx, st.actor, d.pool, d.Input(), d.Figures, time.Now())
	}))
	properties(b, "NumberPoolDivisions", map[string]func(poolDivisions) any{
		"count": func(l poolDivisions) any { return l.Count },
		"divisions": func(l poolDivisions) any {
			out := make([]poolDivision, len(l.Divisions))
			for i, d := range l.Divisions {
				out[i] = poolDivision{d, l.pool}
			}
			return out
		},
	})
}
