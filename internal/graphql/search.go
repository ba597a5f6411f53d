package graphql

import (
	"context"
	"fmt"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/ipam"
)

// The global search: who holds an address, and what a query names.
const searchTypes = `
"What search found for a query: at most first hits, an address's first, then pools, VPCs, subnets and allocations; more is true when more matched."
type SearchResult {
	query: String!
	form: SearchForm!
	hits: [SearchHit!]!
	more: Boolean!
}

"How a query was read: an IPv4 ADDRESS, an IPv4 PREFIX (masked), or TEXT: a VM's hostname or uid, a floating IP's name, an owner's name or uid, a namespace, the start of a pool's, VPC's or subnet's name."
enum SearchForm { ADDRESS PREFIX TEXT }

"What a hit is: an ALLOCATION (an address held), a POOL, a VPC, a SUBNET, or an ADDRESS that nobody the actor may see holds, with why it is free or not."
enum SearchHitKind { ADDRESS POOL VPC SUBNET ALLOCATION }

"What an address is in a pool: FREE, TAKEN (by an owner the actor may not see), the NETWORK or BROADCAST address of the pool or its subnet, the GATEWAY of the pool or its subnet, EXCLUDED by the pool, OUTSIDE every subnet of a VPC's pool (claims are made in subnets), or OUTSIDE_POOL: in no pool the actor may see."
enum AddressState { FREE TAKEN NETWORK BROADCAST GATEWAY EXCLUDED OUTSIDE OUTSIDE_POOL }

"One thing search found. match says what matched: address, prefix, hostname, floating IP name, owner name, uid, name or namespace. namespace is the pool's, VPC's or subnet's (null for a public pool and its addresses). An ALLOCATION has pool, poolKind, address, owner, ownerNamespace, subnet when it lies in one, and vpc: the VPC it lies in, a router uplink's VPC, or for a floating IP the first VPC of its namespace, whose page lists it. A POOL, VPC or SUBNET has its cidr (a subnet its gateway). An ADDRESS has state and explanation, and the pool, vpc and subnet it lies in, cidr and gateway being the subnet's or else the pool's; no pool when state is OUTSIDE_POOL. since (RFC 3339) and createdBy: when and by whom the allocation, pool, VPC or subnet was made."
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
}
`

// searchForms, hitKinds and addressStates are the names of the values of
// SearchForm, SearchHitKind and AddressState.
var (
	searchForms = map[ipam.SearchForm]string{ipam.SearchAddress: "ADDRESS", ipam.SearchPrefix: "PREFIX", ipam.SearchText: "TEXT"}
	hitKinds    = map[ipam.HitKind]string{ipam.HitAddress: "ADDRESS", ipam.HitPool: "POOL", ipam.HitVPC: "VPC", ipam.HitSubnet: "SUBNET",
		ipam.HitAllocation: "ALLOCATION"}
	addressStates = map[candidates.State]string{candidates.Free: "FREE", candidates.Taken: "TAKEN", candidates.Network: "NETWORK",
		candidates.Broadcast: "BROADCAST", candidates.Gateway: "GATEWAY", candidates.Excluded: "EXCLUDED", candidates.Outside: "OUTSIDE",
		candidates.OutsidePool: "OUTSIDE_POOL"}
)

func addSearch(b *engine.Builder, svc *ipam.Service) {
	b.Types("search", searchTypes)
	b.Query(fmt.Sprintf(`"Who holds an address, and what else a query names, among what the actor may see: operators everything, tenants their namespaces' objects, what their owners hold, and public pools (see SearchResult and SearchHit). first: 1 to %d, %d when not given."
		search(query: String!, first: Int): SearchResult!`, ipam.MaxSearchHits, ipam.DefaultSearchHits),
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			first, given := p.Args["first"].(int)
			if given && first == 0 {
				// The domain reads 0 as not given.
				return nil, invalidField("first", "first 0 is out of range: 1 to %d", ipam.MaxSearchHits)
			}
			return svc.Search(ctx, st.actor, stringArg(p.Args, "query"), first)
		}))
	properties(b, "SearchResult", map[string]func(ipam.SearchResult) any{
		"query": func(r ipam.SearchResult) any { return r.Query },
		"form":  func(r ipam.SearchResult) any { return searchForms[r.Form] },
		"hits":  func(r ipam.SearchResult) any { return r.Hits },
		"more":  func(r ipam.SearchResult) any { return r.More },
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
			if h.Kind != ipam.HitAllocation {
				return nil
			}
			return h.Owner
		},
		"ownerNamespace": func(h ipam.SearchHit) any { return optional(h.OwnerNamespace) },
		"since":          func(h ipam.SearchHit) any { return timestamp(h.Since) },
		"createdBy":      func(h ipam.SearchHit) any { return optional(h.By) },
		"state": func(h ipam.SearchHit) any {
			if h.Kind != ipam.HitAddress {
				return nil
			}
			return addressStates[h.State]
		},
		"explanation": func(h ipam.SearchHit) any { return optional(h.Explain) },
	})
}
