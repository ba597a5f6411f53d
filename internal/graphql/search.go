package graphql

import (
	"context"
	"fmt"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/search"
)

// The global search: who holds an address, and what a query names. Every
// schema has it, so it declares BigInt, which the schemas of kinds use too.
const searchTypes = `
"A whole number of 64 bits, signed: the value of a Number attribute, a number of a number pool. Written as a JSON number, which JavaScript reads exactly up to 2^53. An exact figure of a usage (sizeExact, usedExact, freeExact: a count of addresses or prefixes, 0 to 2^128 − 1) is a BigInt too, written as a decimal string, which every client reads exactly; the values of number pools stay JSON numbers."
scalar BigInt

"What search found for a query: at most first hits, an address's first, then pools, VPCs, subnets and allocations, then number pools, numbers and objects of kinds; more is true when more matched. prefix is what an ADDRESS or a PREFIX was read as (10.42.1. is 10.42.1.0/24)."
type SearchResult {
	query: String!
	form: SearchForm!
	prefix: String
	hits: [SearchHit!]!
	more: Boolean!
}

"How a query was read: an IPv4 ADDRESS, an IPv4 PREFIX (masked) or the start of an address (10.42.1., 10.42.1 and 10.42. are prefixes), or TEXT: a VM's hostname or uid, a floating IP's name, an owner's name or uid, a namespace, the start of a pool's, VPC's or subnet's name, a number pool's name, an object's display label or Text value or a part of it, a Number value, an id. An IPv6 ADDRESS in any spelling (FD12:3456:789A:0:0:0:0:2 is fd12:3456:789a::2) or PREFIX (fd12:3456:789a::/56)."
enum SearchForm { ADDRESS PREFIX TEXT }

"What a hit is: an ALLOCATION (an address held), a POOL, a VPC, a SUBNET, or an ADDRESS that nobody the actor may see holds, with why it is free or not; for operators, a NUMBER_POOL, a NUMBER of a number pool held in one of its divisions, an OBJECT of a kind."
enum SearchHitKind { ADDRESS POOL VPC SUBNET ALLOCATION NUMBER_POOL NUMBER OBJECT }

"An object of a kind, as a hit names it: its id, its node kind (IpamVLAN), its display label, and the branch that shows it so: main, or the branch of the request (/graphql/<branch>) when that branch's version of it is not main's live one."
type SearchObject {
	id: ID!
	kind: String!
	label: String!
	branch: String!
}

"A number pool, as a hit names it, with the kind and the Number attribute it hands out."
type SearchNumberPool {
	id: ID!
	name: String!
	description: String!
	kind: String!
	attribute: String!
}

"The division of a number pool a number is held in: its display label (empty for a pool without a scope), its values as a JSON list in the scope's order (the division argument of the pool's queries takes them by path), and the objects among them (a site)."
type SearchDivision {
	label: String!
	key: String!
	objects: [SearchObject!]!
}

"What an address is in a pool: FREE, TAKEN (by an owner the actor may not see), the NETWORK or BROADCAST address of the pool or its subnet, the GATEWAY of the pool or its subnet, EXCLUDED by the pool, OUTSIDE every subnet of a VPC's pool (claims are made in subnets), or OUTSIDE_POOL: in no pool the actor may see. In IPv6: ANYCAST, the subnet-router anycast address of the pool or its subnet (its prefix's first, never handed out); there is no broadcast address."
enum AddressState { FREE TAKEN NETWORK BROADCAST GATEWAY EXCLUDED OUTSIDE OUTSIDE_POOL ANYCAST }

"One thing search found. match says what matched: address, prefix, hostname, floating IP name, owner name, uid, name or namespace; display label, number, id or an attribute's name. namespace is the pool's, VPC's or subnet's (null for a public pool and its addresses). An ALLOCATION has pool, poolKind, address, owner, ownerNamespace, subnet when it lies in one, and vpc: the VPC it lies in, a router uplink's VPC, or for a floating IP the first VPC of its namespace, whose page lists it. A POOL, VPC or SUBNET has its cidr (a subnet its gateway). An ADDRESS has state and explanation, and the pool, vpc and subnet it lies in, cidr and gateway being the subnet's or else the pool's; no pool when state is OUTSIDE_POOL. since (RFC 3339) and createdBy: when and by whom the allocation, pool, VPC, subnet or number pool was made. A NUMBER_POOL has numberPool. A NUMBER has number, its numberPool, its division and its holder (object). An OBJECT has object and value, what matched: its label, the attribute's value, its id."
type SearchHit {
	kind: SearchHitKind!
	match: String!
	namespace: String
	pool: String
	poolKind: PoolKind
	vpc: String
	subnet: String
	address: String
	cidr: String
	gateway: String
	owner: ObjectReference
	ownerNamespace: String
	since: String
	createdBy: String
	state: AddressState
	explanation: String
	object: SearchObject
	numberPool: SearchNumberPool
	number: BigInt
	division: SearchDivision
	value: String
}
`

// searchForms, hitKinds and addressStates are the names of the values of
// SearchForm, SearchHitKind and AddressState.
var (
	searchForms = map[ipam.SearchForm]string{ipam.SearchAddress: "ADDRESS", ipam.SearchPrefix: "PREFIX", ipam.SearchText: "TEXT"}
	hitKinds    = map[search.HitKind]string{search.HitAddress: "ADDRESS", search.HitPool: "POOL", search.HitVPC: "VPC", search.HitSubnet: "SUBNET",
		search.HitAllocation: "ALLOCATION", search.HitNumberPool: "NUMBER_POOL", search.HitNumber: "NUMBER", search.HitObject: "OBJECT"}
	addressStates = map[candidates.State]string{candidates.Free: "FREE", candidates.Taken: "TAKEN", candidates.Network: "NETWORK",
		candidates.Broadcast: "BROADCAST", candidates.Gateway: "GATEWAY", candidates.Excluded: "EXCLUDED", candidates.Outside: "OUTSIDE",
		candidates.OutsidePool: "OUTSIDE_POOL", candidates.Anycast: "ANYCAST"}
)

func addSearch(b *engine.Builder, svc *ipam.Service) {
	b.Types("search", searchTypes)
	b.Query(fmt.Sprintf(`"Who holds an address, and what else a query names, among what the actor may see: operators everything (objects of kinds on main and on the branch of the request), tenants their namespaces' objects, what their owners hold, and public pools (see SearchResult and SearchHit). first: 1 to %d, %d when not given."
		search(query: String!, first: Int): SearchResult!`, ipam.MaxSearchHits, ipam.DefaultSearchHits),
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			first, given := p.Args["first"].(int)
			if given && first == 0 {
				// The domain reads 0 as not given.
				return nil, invalidField("first", "first 0 is out of range: 1 to %d", ipam.MaxSearchHits)
			}
			return svc.Search(ctx, st.actor, stringArg(p.Args, "query"), ipam.SearchOptions{First: first, Branch: st.branch, Finder: st.finder})
		}))
	properties(b, "SearchResult", map[string]func(ipam.SearchResult) any{
		"query": func(r ipam.SearchResult) any { return r.Query },
		"form":  func(r ipam.SearchResult) any { return searchForms[r.Form] },
		"prefix": func(r ipam.SearchResult) any {
			if !r.Prefix.IsValid() {
				return nil
			}
			return r.Prefix.String()
		},
		"hits": func(r ipam.SearchResult) any { return r.Hits },
		"more": func(r ipam.SearchResult) any { return r.More },
	})
	properties(b, "SearchHit", map[string]func(ipam.SearchHit) any{
		"kind":      func(h ipam.SearchHit) any { return hitKinds[h.Kind] },
		"match":     func(h ipam.SearchHit) any { return h.Match },
		"namespace": func(h ipam.SearchHit) any { return optional(h.Namespace) },
		"pool":      func(h ipam.SearchHit) any { return optional(h.Pool) },
		"poolKind": func(h ipam.SearchHit) any {
			if h.Pool == "" {
				return nil
			}
			return poolKinds[h.PoolKind]
		},
		"vpc":     func(h ipam.SearchHit) any { return optional(h.VPC) },
		"subnet":  func(h ipam.SearchHit) any { return optional(h.Subnet) },
		"address": func(h ipam.SearchHit) any { return addr(h.Address) },
		"cidr": func(h ipam.SearchHit) any {
			if !h.CIDR.IsValid() {
				return nil
			}
			return h.CIDR.String()
		},
		"gateway": func(h ipam.SearchHit) any { return addr(h.Gateway) },
		"owner": func(h ipam.SearchHit) any {
			if h.Kind != search.HitAllocation {
				return nil
			}
			return h.Owner
		},
		"ownerNamespace": func(h ipam.SearchHit) any { return optional(h.OwnerNamespace) },
		"since":          func(h ipam.SearchHit) any { return timestamp(h.Since) },
		"createdBy":      func(h ipam.SearchHit) any { return optional(h.By) },
		"state": func(h ipam.SearchHit) any {
			if h.Kind != search.HitAddress {
				return nil
			}
			return addressStates[h.State]
		},
		"explanation": func(h ipam.SearchHit) any { return optional(h.Explain) },
	})
	addSearchKindsProperties(b)
}

// addSearchKindsProperties resolves the fields of what a hit of a number
// pool, a number or an object of a kind names.
func addSearchKindsProperties(b *engine.Builder) {
	properties(b, "SearchHit", map[string]func(ipam.SearchHit) any{
		"object": func(h ipam.SearchHit) any {
			if h.Object.ID == "" {
				return nil
			}
			return h.Object
		},
		"numberPool": func(h ipam.SearchHit) any {
			if h.NumberPool.ID == "" {
				return nil
			}
			return h.NumberPool
		},
		"number": func(h ipam.SearchHit) any {
			if h.Kind != search.HitNumber {
				return nil
			}
			return h.Number
		},
		"division": func(h ipam.SearchHit) any {
			if h.Kind != search.HitNumber {
				return nil
			}
			return h.Division
		},
		"value": func(h ipam.SearchHit) any { return optional(h.Value) },
	})
	properties(b, "SearchObject", map[string]func(search.ObjectRef) any{
		"id":     func(o search.ObjectRef) any { return o.ID },
		"kind":   func(o search.ObjectRef) any { return o.Kind },
		"label":  func(o search.ObjectRef) any { return o.Label },
		"branch": func(o search.ObjectRef) any { return o.Branch },
	})
	properties(b, "SearchNumberPool", map[string]func(search.NumberPoolRef) any{
		"id":          func(p search.NumberPoolRef) any { return p.ID },
		"name":        func(p search.NumberPoolRef) any { return p.Name },
		"description": func(p search.NumberPoolRef) any { return p.Description },
		"kind":        func(p search.NumberPoolRef) any { return p.Kind },
		"attribute":   func(p search.NumberPoolRef) any { return p.Attribute },
	})
	properties(b, "SearchDivision", map[string]func(search.NumberDivision) any{
		"label": func(d search.NumberDivision) any { return d.Label },
		"key":   func(d search.NumberDivision) any { return d.Key },
		"objects": func(d search.NumberDivision) any {
			if d.Objects == nil {
				return []search.ObjectRef{}
			}
			return d.Objects
		},
	})
}
