package graphql

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/numbers"
)

// The number pools of docs/numbers.md, for operators: the built-in kind
// CoreNumberPool in Infrahub's form (the query CoreNumberPool answering
// PaginatedCoreNumberPool {count edges {node}}, and CoreNumberPoolCreate,
// CoreNumberPoolUpdate and CoreNumberPoolDelete answering {ok object}),
// and the queries of the pools' usage (numberpools_usage.go). A pool is the
// same on every branch: the resolvers do not read the branch addressed.
// Tenants are served no part of them.
const numberPoolTypes = `
"A number pool: it gives the objects of a kind (node) the numbers of one of their Number attributes (node_attribute), from its ranges, tried by descending weight (ties in the order given), the lowest free number of a range first. With an allocation scope, it allocates separately in each of its divisions: each combination of the values of its scope elements, such as a VLAN's site. The same on every branch."
type CoreNumberPool {
	"The pool's id, a UUID."
	id: ID!
	"The pool's name."
	display_label: String!
	name: TextAttribute!
	"Null when it has none."
	description: TextAttribute!
	"The node or generic whose objects the pool gives numbers, as the default branch's schema names it now."
	node: TextAttribute!
	"The Number attribute of node that the pool allocates, as the default branch's schema names it now."
	node_attribute: TextAttribute!
	"The lowest number of the pool's ranges."
	start_range: NumberAttribute!
	"The highest number of the pool's ranges."
	end_range: NumberAttribute!
	"The attributes and relationships of node that divide the pool's numbers, in order, as the default branch's schema names them now; [] for a pool that allocates from one space."
	allocation_scope: AllocationScopeAttribute!
	"The ranges, in the order given."
	ranges: [NumberPoolRange!]!
}

"The scope elements of a number pool, by name."
type AllocationScopeAttribute {
	value: [String!]!
}

"The scope elements of a number pool: names of attributes and relationships of its kind, each declared on the kind itself, required, of cardinality one and holding a single scalar value, other than the attribute the pool allocates. Fixed when the pool is created."
input AllocationScopeAttributeInput {
	value: [String!]
}

"A span of numbers of a pool, both ends included, and its weight."
type NumberPoolRange {
	start: BigInt!
	end: BigInt!
	"Ranges are tried by descending weight, ties in the order given."
	weight: Int!
}

"A span of numbers of a pool, both ends included, and its weight. The ranges of a pool may not overlap."
input NumberPoolRangeInput {
	start: BigInt!
	end: BigInt!
	"Ranges are tried by descending weight, ties in the order given."
	weight: Int = 1
}

"An end of a pool's only range (start_range, end_range)."
input NumberPoolBoundInput {
	value: BigInt!
}

"A new number pool. Give its ranges as ranges, or as start_range with end_range, the shorthand for one range of weight 1."
input CoreNumberPoolCreateInput {
	name: TextAttributeCreate
	description: TextAttributeCreate
	"A node or a generic of the default branch's schema."
	node: TextAttributeCreate
	"A Number attribute of node."
	node_attribute: TextAttributeCreate
	ranges: [NumberPoolRangeInput!]
	start_range: NumberPoolBoundInput
	end_range: NumberPoolBoundInput
	"Optional: without one, the pool allocates from one space shared by every object."
	allocation_scope: AllocationScopeAttributeInput
}

"The changes of a number pool: its name, its description, its ranges (ranges, or start_range with end_range, replace them all). Its node, node_attribute and allocation_scope cannot change: given, they must be the pool's."
input CoreNumberPoolUpdateInput {
	"The id of the pool to change."
	id: ID!
	name: TextAttributeUpdate
	description: TextAttributeUpdate
	node: TextAttributeUpdate
	node_attribute: TextAttributeUpdate
	ranges: [NumberPoolRangeInput!]
	start_range: NumberPoolBoundInput
	end_range: NumberPoolBoundInput
	allocation_scope: AllocationScopeAttributeInput
}

"A page of number pools."
type PaginatedCoreNumberPool {
	"How many pools match, in all pages."
	count: Int!
	edges: [EdgedCoreNumberPool!]!
}

"A number pool."
type EdgedCoreNumberPool {
	node: CoreNumberPool!
}

"The answer of CoreNumberPoolCreate."
type CoreNumberPoolCreate {
	ok: Boolean!
	"The pool created."
	object: CoreNumberPool
}

"The answer of CoreNumberPoolUpdate."
type CoreNumberPoolUpdate {
	ok: Boolean!
	"The pool as it is now."
	object: CoreNumberPool
}

"The answer of CoreNumberPoolDelete."
type CoreNumberPoolDelete {
	ok: Boolean!
	"The pool as it was before it was deleted."
	object: CoreNumberPool
}
`

// A poolAnswer is what a mutation of a pool answers: ok, and the pool.
type poolAnswer struct{ pool numbers.Pool }

// addNumberPools adds the kind CoreNumberPool and the queries of the
// pools' usage, over pools.
func addNumberPools(b *engine.Builder, pools *numbers.Service) {
	b.Types("numberpools", numberPoolTypes)
	b.Query(`"The number pools, by name: those of ids, and the one named name__value, when given; limit of them (at most `+fmt.Sprint(branch.MaxPage)+`, the default) from offset. The same on every branch."
		CoreNumberPool(ids: [ID!], name__value: String, limit: Int, offset: Int): PaginatedCoreNumberPool!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			limit, offset, err := limitOffset(p.Args)
			if err != nil {
				return nil, err
			}
			f := numbers.PoolFilter{IDs: stringsArg(p.Args, "ids"), Name: stringArg(p.Args, "name__value")}
			return pools.Pools(ctx, st.actor, f, limit, offset)
		}))
	b.Mutation(`"Creates a number pool, checked against the default branch's schema; the numbers that objects of its kind hold already, on any branch, are recorded, and the pool skips them."
		CoreNumberPoolCreate(data: CoreNumberPoolCreateInput!): CoreNumberPoolCreate`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			in, err := poolInput(objectArg(p.Args, "data"))
			if err != nil {
				return nil, err
			}
			pool, err := pools.CreatePool(ctx, st.actor, in)
			if err != nil {
				return nil, err
			}
			return poolAnswer{pool}, nil
		}))
	b.Mutation(`"Changes the name, the description or the ranges of a number pool; its allocation scope cannot change."
		CoreNumberPoolUpdate(data: CoreNumberPoolUpdateInput!): CoreNumberPoolUpdate`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			data := objectArg(p.Args, "data")
			in, err := poolUpdate(data)
			if err != nil {
				return nil, err
			}
			pool, err := pools.UpdatePool(ctx, st.actor, stringArg(data, "id"), in)
			if err != nil {
				return nil, err
			}
			return poolAnswer{pool}, nil
		}))
	b.Mutation(`"Deletes a number pool and what it recorded; the objects keep their numbers."
		CoreNumberPoolDelete(data: DeleteInput!): CoreNumberPoolDelete`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			pool, err := pools.DeletePool(ctx, st.actor, stringArg(objectArg(p.Args, "data"), "id"))
			if err != nil {
				return nil, err
			}
			return poolAnswer{pool}, nil
		}))
	addNumberPoolFields(b)
	addNumberPoolUsage(b, pools)
}

func addNumberPoolFields(b *engine.Builder) {
	properties(b, "CoreNumberPool", map[string]func(numbers.Pool) any{
		"id":               func(p numbers.Pool) any { return p.ID },
		"display_label":    func(p numbers.Pool) any { return p.Name },
		"name":             func(p numbers.Pool) any { return attributeValue{p.Name} },
		"description":      func(p numbers.Pool) any { return attributeValue{optional(p.Description)} },
		"node":             func(p numbers.Pool) any { return attributeValue{p.Kind} },
		"node_attribute":   func(p numbers.Pool) any { return attributeValue{p.Attribute} },
		"start_range":      func(p numbers.Pool) any { return attributeValue{lowest(p.Ranges)} },
		"end_range":        func(p numbers.Pool) any { return attributeValue{highest(p.Ranges)} },
		"allocation_scope": func(p numbers.Pool) any { return attributeValue{p.ScopeNames()} },
		"ranges":           func(p numbers.Pool) any { return p.Ranges },
	})
	properties(b, "AllocationScopeAttribute", map[string]func(attributeValue) any{"value": func(v attributeValue) any { return v.value }})
	properties(b, "NumberPoolRange", map[string]func(numbers.Range) any{
		"start":  func(r numbers.Range) any { return r.Start },
		"end":    func(r numbers.Range) any { return r.End },
		"weight": func(r numbers.Range) any { return r.Weight },
	})
	properties(b, "PaginatedCoreNumberPool", map[string]func(numbers.PoolPage) any{
		"count": func(pg numbers.PoolPage) any { return pg.Count },
		"edges": func(pg numbers.PoolPage) any { return pg.Pools },
	})
	b.Resolve("EdgedCoreNumberPool", "node", func(_ context.Context, prm engine.Params) (any, error) { return prm.Source, nil })
	for _, typ := range []string{"CoreNumberPoolCreate", "CoreNumberPoolUpdate", "CoreNumberPoolDelete"} {
		properties(b, typ, map[string]func(poolAnswer) any{
			"ok":     func(poolAnswer) any { return true },
			"object": func(a poolAnswer) any { return a.pool },
		})
	}
}

// lowest is the lowest number of ranges; null when there are none.
func lowest(ranges []numbers.Range) any {
	var out any
	for _, r := range ranges {
		if n, ok := out.(int64); !ok || r.Start < n {
			out = r.Start
		}
	}
	return out
}

// highest is the highest number of ranges; null when there are none.
func highest(ranges []numbers.Range) any {
	var out any
	for _, r := range ranges {
		if n, ok := out.(int64); !ok || r.End > n {
			out = r.End
		}
	}
	return out
}

// poolInput reads the input of CoreNumberPoolCreate.
func poolInput(data map[string]any) (numbers.PoolInput, error) {
	ranges, err := rangesInput(data)
	if err != nil {
		return numbers.PoolInput{}, err
	}
	text := func(name string) string {
		if s := textInput(data, name); s != nil {
			return *s
		}
		return ""
	}
	return numbers.PoolInput{Name: text("name"), Description: text("description"), Node: text("node"), NodeAttribute: text("node_attribute"),
		Ranges: ranges, AllocationScope: scopeInput(data)}, nil
}

// poolUpdate reads the input of CoreNumberPoolUpdate: what it does not
// give is nil, and kept.
func poolUpdate(data map[string]any) (numbers.PoolUpdate, error) {
	ranges, err := rangesInput(data)
	if err != nil {
		return numbers.PoolUpdate{}, err
	}
	return numbers.PoolUpdate{Name: textInput(data, "name"), Description: textInput(data, "description"), Ranges: ranges,
		AllocationScope: scopeInput(data), Node: textInput(data, "node"), NodeAttribute: textInput(data, "node_attribute")}, nil
}

// textInput reads the input of a Text attribute: nil when it is not given
// or given {}, "" when given null or {value: null}.
func textInput(data map[string]any, name string) *string {
	v, given := data[name]
	if !given {
		return nil
	}
	s := ""
	m, ok := v.(map[string]any)
	if !ok {
		return &s
	}
	value, ok := m["value"]
	if !ok {
		return nil
	}
	s, _ = value.(string)
	return &s
}

// scopeInput reads allocation_scope: nil when it is not given or given {};
// the names given otherwise, none for null or {value: null}.
func scopeInput(data map[string]any) []string {
	v, given := data["allocation_scope"]
	if !given {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return []string{}
	}
	if _, ok := m["value"]; !ok {
		return nil
	}
	if names := stringsArg(m, "value"); names != nil {
		return names
	}
	return []string{}
}

// rangesInput reads the ranges of a pool's input: ranges (none when null),
// or start_range with end_range, one range of weight 1; nil when neither is
// given.
func rangesInput(data map[string]any) ([]numbers.Range, error) {
	list, given := data["ranges"]
	start, hasStart := objectArg(data, "start_range")["value"]
	end, hasEnd := objectArg(data, "end_range")["value"]
	switch {
	case given && (hasStart || hasEnd):
		return nil, invalidField("ranges", "ranges: give ranges, or start_range with end_range, not both")
	case hasStart && !hasEnd:
		return nil, invalidField("end_range", "end_range: start_range and end_range go together; give both")
	case hasEnd && !hasStart:
		return nil, invalidField("start_range", "start_range: start_range and end_range go together; give both")
	case hasStart:
		s, ok := wholeNumber(start)
		if !ok {
			return nil, invalidField("start_range", "start_range: expected a whole number")
		}
		e, ok := wholeNumber(end)
		if !ok {
			return nil, invalidField("end_range", "end_range: expected a whole number")
		}
		return []numbers.Range{{Start: s, End: e, Weight: 1}}, nil
	case !given:
		return nil, nil
	}
	items, _ := list.([]any)
	out := make([]numbers.Range, 0, len(items))
	for i, item := range items {
		m, _ := item.(map[string]any)
		s, ok := wholeNumber(m["start"])
		if !ok {
			return nil, invalidField("ranges", "ranges[%d].start: expected a whole number", i)
		}
		e, ok := wholeNumber(m["end"])
		if !ok {
			return nil, invalidField("ranges", "ranges[%d].end: expected a whole number", i)
		}
		out = append(out, numbers.Range{Start: s, End: e, Weight: intArg(m, "weight")})
	}
	return out, nil
}

// wholeNumber reads a BigInt: an int64 from a literal, a json.Number from
// a variable, or a float holding a whole number.
func wholeNumber(v any) (int64, bool) {
	switch v := v.(type) {
	case int64:
		return v, true
	case int:
		return int64(v), true
	case json.Number:
		n, err := v.Int64()
		return n, err == nil
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int64(v), true
		}
	}
	return 0, false
}
