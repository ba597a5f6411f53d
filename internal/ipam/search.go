package ipam

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/store"
)

// The bounds of a search.
const (
	DefaultSearchHits = 50  // when first is not given
	MaxSearchHits     = 500 // the most first may ask for
	maxSearchLen      = 253 // a hostname's longest
)

// A SearchForm is what a query was read as.
type SearchForm string

// The forms of a query.
const (
	SearchAddress SearchForm = "address" // an IPv4 address: who holds it, or why nobody does
	SearchPrefix  SearchForm = "prefix"  // an IPv4 prefix: what overlaps it, what lies in it
	SearchText    SearchForm = "text"    // a hostname, a uid, a name or a namespace
)

// A HitKind is what a search hit is.
type HitKind string

// The kinds of hit, in the order a result lists them.
const (
	HitAddress    HitKind = "address" // an address nobody holds (or nobody the actor may see), with why it is free or not
	HitPool       HitKind = "pool"
	HitVPC        HitKind = "vpc"
	HitSubnet     HitKind = "subnet"
	HitAllocation HitKind = "allocation"
)

// What a hit matched, in the words the console shows.
const (
	MatchAddress        = "address"
	MatchPrefix         = "prefix"
	MatchHostname       = "hostname"
	MatchFloatingIPName = "floating IP name"
	MatchOwnerName      = "owner name"
	MatchUID            = "uid"
	MatchName           = "name"
	MatchNamespace      = "namespace"
)

// A SearchHit is one thing a search found. Which fields are set depends
// on its kind:
//
//   - allocation: Namespace (the pool's, "" for a public pool), Pool,
//     PoolKind, VPC (the private pool's, the uplink's router, or for a
//     floating IP the first VPC of its namespace, whose page lists it),
//     Subnet, Address, Owner, OwnerNamespace, Since and By;
//   - pool: Namespace, Pool, PoolKind, VPC (a private pool's), CIDR,
//     Gateway, Since, By;
//   - vpc: Namespace, VPC, CIDR, Since, By;
//   - subnet: Namespace, VPC, Subnet, CIDR (and Gateway), Since, By;
//   - address: Address, State and Explain, and the pool (Namespace, Pool,
//     PoolKind, VPC) and subnet (Subnet) it lies in, CIDR and Gateway
//     being the subnet's or else the pool's; no pool when it lies in none.
type SearchHit struct {
	Kind HitKind
	// Match is what matched the query (MatchAddress, MatchHostname, …).
	Match          string
	Namespace      string
	Pool           string
	PoolKind       PoolKind
	VPC            string
	Subnet         string
	Address        netip.Addr
	CIDR           netip.Prefix
	Gateway        netip.Addr
	Owner          Owner
	OwnerNamespace string
	Since          time.Time
	By             string
	State          candidates.State
	Explain        string
}

// A SearchResult is what Search found for a query.
type SearchResult struct {
	Query string // as given, trimmed
	Form  SearchForm
	Hits  []SearchHit
	// More says that more matched than the First hits returned.
	More  bool
	First int
}

// Search finds what the query names, among what the actor may see
// (operators everything; tenants the objects of their namespaces, the
// addresses their owners hold, and public pools): an IPv4 address (who
// holds it, or for each pool it lies in why nobody does: network,
// broadcast, gateway, excluded, in no subnet, or free), an IPv4 prefix
// (the pools, VPCs and subnets overlapping it and the allocations in it),
// or a text: a VM's hostname or uid, a floating IP's name, any owner's
// name or uid, a namespace (its objects and what its owners hold), or the
// start of a pool's, VPC's or subnet's name. It returns at most first hits
// (DefaultSearchHits when 0, MaxSearchHits at most): the address's, then
// pools, VPCs, subnets and allocations.
func (s *Service) Search(ctx context.Context, actor auth.Actor, query string, first int) (SearchResult, error) {
	switch {
	case first == 0:
		first = DefaultSearchHits
	case first < 0 || first > MaxSearchHits:
		return SearchResult{}, invalid("first", "first %d is out of range: 1 to %d", first, MaxSearchHits)
	}
	query = strings.TrimSpace(query)
	switch {
	case query == "":
		return SearchResult{}, invalid("query", "query is empty: give an address (10.42.1.7), a prefix (10.42.0.0/16), a VM's hostname or uid, a floating IP's name or a namespace")
	case len(query) > maxSearchLen:
		return SearchResult{}, invalid("query", "query is too long: at most %d characters", maxSearchLen)
	case !storable(query):
		return SearchResult{}, invalid("query", "query %s holds a NUL or is not UTF-8", describe(query))
	}
	res := SearchResult{Query: query, First: first}
	scope := store.Scope{Everything: actor.IsOperator()}
	if actor.Role == auth.Tenant {
		scope.Patterns = actor.Namespaces
	}
	search := store.Search{Text: query, Scope: scope, Limit: first + 1}
	var err error
	if prefix, ok, perr := parseSearchPrefix(query); perr != nil {
		return SearchResult{}, perr
	} else if ok && prefix.IsSingleIP() {
		res.Form = SearchAddress
		res.Hits, err = s.searchAddress(ctx, actor, prefix.Addr(), search)
	} else if ok {
		res.Form, search.Prefix = SearchPrefix, prefix
		res.Hits, err = s.searchObjects(ctx, search, MatchPrefix)
	} else {
		res.Form = SearchText
		res.Hits, err = s.searchObjects(ctx, search, "")
	}
	if err != nil {
		return SearchResult{}, err
	}
	if len(res.Hits) > first {
		res.Hits, res.More = res.Hits[:first], true
	}
	return res, nil
}

// parseSearchPrefix reads query as an IPv4 address (a /32) or prefix, the
// latter masked ("10.42.1.7/24" is 10.42.1.0/24); ok is false for a text.
// IPv6 is refused: every pool is IPv4.
func parseSearchPrefix(query string) (p netip.Prefix, ok bool, err error) {
	if a, perr := netip.ParseAddr(query); perr == nil {
		p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
	} else if p, perr = netip.ParsePrefix(query); perr != nil {
		return netip.Prefix{}, false, nil
	}
	if !p.Addr().Is4() {
		return netip.Prefix{}, false, invalid("query", "query %s is IPv6: pools hold IPv4 addresses only", query)
	}
	return p.Masked(), true, nil
}

// searchObjects finds the pools, VPCs, subnets and allocations of s: in
// or overlapping its prefix (match MatchPrefix), or named by its text.
func (s *Service) searchObjects(ctx context.Context, search store.Search, match string) ([]SearchHit, error) {
	pools, err := store.SearchPools(ctx, s.db, search)
	if err != nil {
		return nil, err
	}
	vpcs, err := store.SearchVPCs(ctx, s.db, search)
	if err != nil {
		return nil, err
	}
	subnets, err := store.SearchSubnets(ctx, s.db, search)
	if err != nil {
		return nil, err
	}
	allocations, err := store.SearchAllocations(ctx, s.db, search)
	if err != nil {
		return nil, err
	}
	hits := make([]SearchHit, 0, len(pools)+len(vpcs)+len(subnets)+len(allocations))
	text := strings.ToLower(search.Text)
	named := func(name, uid, namespace string) string {
		switch {
		case match != "":
			return match
		case strings.HasPrefix(strings.ToLower(name), text):
			return MatchName
		case uid == text:
			return MatchUID
		}
		return MatchNamespace
	}
	for _, p := range pools {
		hits = append(hits, SearchHit{Kind: HitPool, Match: named(p.Name, p.UID, p.Namespace), Namespace: p.Namespace, Pool: p.Name,
			PoolKind: PoolKind(p.Kind), VPC: vpcOfPool(p), CIDR: p.CIDR, Gateway: p.Gateway, Since: p.CreatedAt, By: p.CreatedBy})
	}
	for _, v := range vpcs {
		hits = append(hits, SearchHit{Kind: HitVPC, Match: named(v.Name, v.UID, v.Namespace), Namespace: v.Namespace, VPC: v.Name,
			CIDR: v.CIDR, Since: v.CreatedAt, By: v.CreatedBy})
	}
	for _, sub := range subnets {
		hits = append(hits, SearchHit{Kind: HitSubnet, Match: named(sub.Name, sub.UID, sub.Namespace), Namespace: sub.Namespace,
			VPC: sub.VPC, Subnet: sub.Name, CIDR: sub.CIDR, Gateway: sub.Gateway, Since: sub.CreatedAt, By: sub.CreatedBy})
	}
	for _, a := range allocations {
		hits = append(hits, allocationHit(a, allocationMatch(a)))
	}
	return hits, nil
}

// allocationHit is the hit of an allocation that matched as match.
func allocationHit(a store.SearchAllocationRow, match string) SearchHit {
	return SearchHit{Kind: HitAllocation, Match: match, Namespace: a.Namespace, Pool: a.Pool, PoolKind: PoolKind(a.PoolKind),
		VPC: a.VPC, Subnet: a.Subnet, Address: a.Address, Owner: Owner{Kind: a.OwnerKind, UID: a.OwnerUID, Name: a.OwnerName},
		OwnerNamespace: a.OwnerNamespace, Since: a.CreatedAt, By: a.CreatedBy}
}

// allocationMatch says in words how an allocation matched.
func allocationMatch(a store.SearchAllocationRow) string {
	switch a.Match {
	case store.InPrefix:
		return MatchPrefix
	case store.ByOwnerUID:
		return MatchUID
	case store.ByOwnerNamespace:
		return MatchNamespace
	}
	switch a.OwnerKind {
	case OwnerVirtualMachine:
		return MatchHostname
	case OwnerFloatingIP:
		return MatchFloatingIPName
	}
	return MatchOwnerName
}

// searchAddress finds who holds the address a in each pool the actor may
// see that holds it and, in each where nobody does (nobody the actor may
// see), says why: one hit a pool. An address in none of them is one hit
// of state OutsidePool.
func (s *Service) searchAddress(ctx context.Context, actor auth.Actor, a netip.Addr, search store.Search) ([]SearchHit, error) {
	search.Prefix = netip.PrefixFrom(a, 32)
	pools, err := store.SearchPools(ctx, s.db, search)
	if err != nil {
		return nil, err
	}
	if len(pools) == 0 {
		where := "in no pool"
		if !actor.IsOperator() {
			where = "in no pool you may see"
		}
		return []SearchHit{{Kind: HitAddress, Match: MatchAddress, Address: a, State: candidates.OutsidePool, Explain: fmt.Sprintf("%s is %s", a, where)}}, nil
	}
	subnets, err := store.SearchSubnets(ctx, s.db, search)
	if err != nil {
		return nil, err
	}
	uids := make([]string, len(pools))
	for i, p := range pools {
		uids[i] = p.UID
	}
	held, err := store.AllocationsAt(ctx, s.db, a, uids)
	if err != nil {
		return nil, err
	}
	holders := make(map[string]store.SearchAllocationRow, len(held))
	for _, h := range held {
		holders[h.PoolUID] = h
	}
	var hits []SearchHit
	for _, p := range pools {
		h, taken := holders[p.UID]
		if taken && actor.CanAccess(h.OwnerNamespace) {
			hits = append(hits, allocationHit(h, MatchAddress))
			continue
		}
		var in *store.SearchSubnetRow
		for i := range subnets {
			if subnets[i].VPCUID == p.VPCUID {
				in = &subnets[i]
			}
		}
		hit, err := explainAddress(p, in, a, taken)
		if err != nil {
			return nil, err
		}
		hits = append(hits, hit)
	}
	return hits, nil
}

// explainAddress says why nobody holds a in pool p, or that somebody does
// (taken: somebody the actor may not see), a lying in the subnet in of p's
// VPC (nil: in none, or p is public).
func explainAddress(p store.PoolRow, in *store.SearchSubnetRow, a netip.Addr, taken bool) (SearchHit, error) {
	hit := SearchHit{Kind: HitAddress, Match: MatchAddress, Address: a, Namespace: p.Namespace, Pool: p.Name, PoolKind: PoolKind(p.Kind),
		CIDR: p.CIDR, Gateway: p.Gateway}
	cp, err := newCachedPool(p)
	if err != nil {
		return SearchHit{}, err
	}
	var takenSet candidates.Set
	if taken {
		takenSet = candidates.SetOf(a)
	}
	space := cp.spec.Candidates()
	if hit.VPC = vpcOfPool(p); hit.VPC != "" {
		if in == nil {
			hit.State, hit.Explain = candidates.Outside, inNoSubnet(a, hit.VPC)
			return hit, nil
		}
		hit.Subnet, hit.CIDR, hit.Gateway = in.Name, in.CIDR, in.Gateway
		if a == in.Gateway {
			hit.State, hit.Explain = candidates.Gateway, subnetGateway(a, in.Name)
			return hit, nil
		}
		req, err := cp.spec.ParseRequest(candidates.RequestSpec{Within: in.CIDR.String()})
		if err != nil {
			return SearchHit{}, fromCandidates(err)
		}
		space = cp.spec.Space(req)
	}
	e := space.Explain(a, takenSet)
	hit.State, hit.Explain = e.State, e.Message
	return hit, nil
}

// vpcOfPool is the name of the VPC of a private pool ("vpc-<name>"), ""
// for a public pool.
func vpcOfPool(p store.PoolRow) string {
	if p.VPCUID == "" {
		return ""
	}
	return strings.TrimPrefix(p.Name, "vpc-")
}
