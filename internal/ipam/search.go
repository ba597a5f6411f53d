package ipam

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/search"
	"pivirt.hu/ipam/internal/store"
)

// The bounds of a sq.
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
	SearchPrefix  SearchForm = "prefix"  // an IPv4 prefix, or the start of an address (10.42.1.): what overlaps it, what lies in it
	SearchText    SearchForm = "text"    // a hostname, a uid, a name, a namespace, a label, a value, a number
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
//     being the subnet's or else the pool's; no pool when it lies in none;
//   - number pool: NumberPool, Since and By;
//   - number: Number, its NumberPool, its Division and its holder (Object);
//   - object: Object, and Value, what matched (Match: the display label,
//     the attribute's name, or "id").
type SearchHit struct {
	Kind search.HitKind
	// Match is what matched the query (search.MatchAddress, search.MatchHostname, …).
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
	// Object is an object hit's object, or a number hit's holder.
	Object search.ObjectRef
	// NumberPool is a number pool hit's pool, or a number hit's.
	NumberPool search.NumberPoolRef
	Number     int64
	Division   search.NumberDivision
	Value      string
}

// SearchOptions are a search's options.
type SearchOptions struct {
	// First is how many hits at most: DefaultSearchHits when 0, 1 to
	// MaxSearchHits.
	First int
	// Branch is the branch whose objects are found besides main's
	// (search.Query.Branch).
	Branch string
	// Finder, when set, finds the number pools, the numbers and the
	// objects of kinds a text names; without it, a search finds the IP
	// half alone.
	Finder search.Finder
}

// A SearchResult is what Search found for a query.
type SearchResult struct {
	Query string // as given, trimmed
	Form  SearchForm
	// Prefix is what an address or a prefix was read as: a /32, a masked
	// prefix, or the prefix the start of an address begins (10.42.1. is
	// 10.42.1.0/24).
	Prefix netip.Prefix
	Hits   []SearchHit
	// More says that more matched than the First hits returned.
	More  bool
	First int
}

// Search finds what the query names, among what the actor may see
// (operators everything; tenants the objects of their namespaces, the
// addresses their owners hold, and public pools): an IPv4 address (who
// holds it, or for each pool it lies in why nobody does: network,
// broadcast, gateway, excluded, in no subnet, or free), an IPv4 prefix
// (the pools, VPCs and subnets overlapping it and the allocations in it)
// or the start of one, up to a dot or after it (10.42.1. and 10.42.1 are
// 10.42.1.0/24, 10.42. is 10.42.0.0/16), or a text: a VM's hostname or
// uid, a floating IP's name, any owner's name or uid, a namespace (its
// objects and what its owners hold), the start of a pool's, VPC's or
// subnet's name and, with opts.Finder, what it finds (number pools, their
// numbers, objects of kinds: operators only). It returns at most
// opts.First hits (DefaultSearchHits when 0, MaxSearchHits at most): the
// address's, then pools, VPCs, subnets and allocations, then the Finder's.
func (s *Service) Search(ctx context.Context, actor auth.Actor, query string, opts SearchOptions) (SearchResult, error) {
	first := opts.First
	switch {
	case first == 0:
		first = DefaultSearchHits
	case first < 0 || first > MaxSearchHits:
		return SearchResult{}, invalid("first", "first %d is out of range: 1 to %d", first, MaxSearchHits)
	}
	query = strings.TrimSpace(query)
	switch {
	case query == "":
		return SearchResult{}, invalid("query", "query is empty: give an address (10.42.1.7), a prefix (10.42.0.0/16 or 10.42.), a VM's hostname or uid, a floating IP's name, a namespace, an object's label or value, or a number")
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
	sq := store.Search{Text: query, Scope: scope, Limit: first + 1}
	var err error
	if prefix, ok, perr := parseSearchPrefix(query); perr != nil {
		return SearchResult{}, perr
	} else if ok && prefix.IsSingleIP() {
		res.Form, res.Prefix = SearchAddress, prefix
		res.Hits, err = s.searchAddress(ctx, actor, prefix.Addr(), sq)
	} else if ok {
		res.Form, res.Prefix, sq.Prefix = SearchPrefix, prefix, prefix
		res.Hits, err = s.searchObjects(ctx, sq, search.MatchPrefix)
	} else {
		res.Form = SearchText
		wait, cancel := findBeside(ctx, actor, query, opts, first+1)
		defer cancel()
		if res.Hits, err = s.searchObjects(ctx, sq, ""); err == nil && wait != nil {
			var found []SearchHit
			found, res.More, err = wait()
			res.Hits = append(res.Hits, found...)
		}
	}
	if err != nil {
		return SearchResult{}, err
	}
	if len(res.Hits) > first {
		res.Hits, res.More = res.Hits[:first], true
	}
	return res, nil
}

// findBeside starts opts.Finder on text, for limit hits at most, while
// the caller reads its own (the Finder's statements run on connections of
// their own: a text's search takes the longer of the two, not their sum),
// and returns what waits for its answer, nil without a Finder, and what
// cancels it when the caller returns without waiting.
func findBeside(ctx context.Context, actor auth.Actor, text string, opts SearchOptions, limit int) (wait func() ([]SearchHit, bool, error), cancel func()) {
	if opts.Finder == nil {
		return nil, func() {}
	}
	type answer struct {
		hits []search.Hit
		more bool
		err  error
	}
	ctx, cancel = context.WithCancel(ctx)
	done := make(chan answer, 1)
	go func() {
		hits, more, err := opts.Finder.Find(ctx, actor, search.Query{Text: text, Branch: opts.Branch, Limit: limit})
		done <- answer{hits, more, err}
	}()
	return func() ([]SearchHit, bool, error) {
		a := <-done
		hits := make([]SearchHit, len(a.hits))
		for i, h := range a.hits {
			hits[i] = SearchHit{Kind: h.Kind, Match: h.Match, Since: h.Since, By: h.By, Object: h.Object, NumberPool: h.NumberPool,
				Number: h.Number, Division: h.Division, Value: h.Value}
		}
		return hits, a.more, a.err
	}, cancel
}

// parseSearchPrefix reads query as an address (a /32 or a /128), a
// prefix, masked ("10.42.1.7/24" is 10.42.1.0/24), or the start of an IPv4
// address (partialAddress); ok is false for a text. An IPv6 address is
// read in any spelling (upper case, leading zeros, no "::", an IPv4 tail,
// a zone, which is dropped); an IPv4-mapped one is the IPv4 address.
func parseSearchPrefix(query string) (p netip.Prefix, ok bool, err error) {
	if a, perr := netip.ParseAddr(query); perr == nil {
		a = a.Unmap().WithZone("")
		p = netip.PrefixFrom(a, a.BitLen())
	} else if p, perr = netip.ParsePrefix(query); perr != nil {
		return partialAddress(query)
	}
	if p.Addr().Is4In6() {
		p = netip.PrefixFrom(p.Addr().Unmap(), max(p.Bits()-96, 0))
	}
	return p.Masked(), true, nil
}

// partialAddress reads query as the start of an IPv4 address: one to three
// of its bytes in decimal (no leading zero), dotted, with at least one dot
// and maybe a dot after the last ("10.", "10.42", "10.42.1."), which is the
// prefix of the bytes given (10.0.0.0/8, 10.42.0.0/16, 10.42.1.0/24); ok
// is false for anything else.
func partialAddress(query string) (netip.Prefix, bool, error) {
	parts := strings.Split(query, ".")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if !strings.Contains(query, ".") || len(parts) == 0 || len(parts) > 3 {
		return netip.Prefix{}, false, nil
	}
	var b [4]byte
	for i, part := range parts {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 || n > 255 || strconv.Itoa(n) != part {
			return netip.Prefix{}, false, nil
		}
		b[i] = byte(n)
	}
	return netip.PrefixFrom(netip.AddrFrom4(b), 8*len(parts)), true, nil
}

// searchObjects finds the pools, VPCs, subnets and allocations of s: in
// or overlapping its prefix (match search.MatchPrefix), or named by its text.
func (s *Service) searchObjects(ctx context.Context, sq store.Search, match string) ([]SearchHit, error) {
	pools, err := store.SearchPools(ctx, s.db, sq)
	if err != nil {
		return nil, err
	}
	vpcs, err := store.SearchVPCs(ctx, s.db, sq)
	if err != nil {
		return nil, err
	}
	subnets, err := store.SearchSubnets(ctx, s.db, sq)
	if err != nil {
		return nil, err
	}
	allocations, err := store.SearchAllocations(ctx, s.db, sq)
	if err != nil {
		return nil, err
	}
	hits := make([]SearchHit, 0, len(pools)+len(vpcs)+len(subnets)+len(allocations))
	text := strings.ToLower(sq.Text)
	named := func(name, uid, namespace string) string {
		switch {
		case match != "":
			return match
		case strings.HasPrefix(strings.ToLower(name), text):
			return search.MatchName
		case uid == text:
			return search.MatchUID
		}
		return search.MatchNamespace
	}
	for _, p := range pools {
		hits = append(hits, SearchHit{Kind: search.HitPool, Match: named(p.Name, p.UID, p.Namespace), Namespace: p.Namespace, Pool: p.Name,
			PoolKind: PoolKind(p.Kind), VPC: vpcOfPool(p), CIDR: p.CIDR, Gateway: p.Gateway, Since: p.CreatedAt, By: p.CreatedBy})
	}
	for _, v := range vpcs {
		hits = append(hits, SearchHit{Kind: search.HitVPC, Match: named(v.Name, v.UID, v.Namespace), Namespace: v.Namespace, VPC: v.Name,
			CIDR: v.CIDR, Since: v.CreatedAt, By: v.CreatedBy})
	}
	for _, sub := range subnets {
		hits = append(hits, SearchHit{Kind: search.HitSubnet, Match: named(sub.Name, sub.UID, sub.Namespace), Namespace: sub.Namespace,
			VPC: sub.VPC, Subnet: sub.Name, CIDR: sub.CIDR, Gateway: sub.Gateway, Since: sub.CreatedAt, By: sub.CreatedBy})
	}
	for _, a := range allocations {
		hits = append(hits, allocationHit(a, allocationMatch(a)))
	}
	return hits, nil
}

// allocationHit is the hit of an allocation that matched as match.
func allocationHit(a store.SearchAllocationRow, match string) SearchHit {
	return SearchHit{Kind: search.HitAllocation, Match: match, Namespace: a.Namespace, Pool: a.Pool, PoolKind: PoolKind(a.PoolKind),
		VPC: a.VPC, Subnet: a.Subnet, Address: a.Address, Owner: Owner{Kind: OwnerKind(a.OwnerKind), UID: a.OwnerUID, Name: a.OwnerName},
		OwnerNamespace: a.OwnerNamespace, Since: a.CreatedAt, By: a.CreatedBy}
}

// allocationMatch says in words how an allocation matched.
func allocationMatch(a store.SearchAllocationRow) string {
	switch a.Match {
	case store.InPrefix:
		return search.MatchPrefix
	case store.ByOwnerUID:
		return search.MatchUID
	case store.ByOwnerNamespace:
		return search.MatchNamespace
	}
	switch OwnerKind(a.OwnerKind) {
	case OwnerVirtualMachine:
		return search.MatchHostname
	case OwnerFloatingIP:
		return search.MatchFloatingIPName
	}
	return search.MatchOwnerName
}

// searchAddress finds who holds the address a in each pool the actor may
// see that holds it and, in each where nobody does (nobody the actor may
// see), says why: one hit a pool. An address in none of them is one hit
// of state OutsidePool.
func (s *Service) searchAddress(ctx context.Context, actor auth.Actor, a netip.Addr, sq store.Search) ([]SearchHit, error) {
	sq.Prefix = netip.PrefixFrom(a, a.BitLen())
	pools, err := store.SearchPools(ctx, s.db, sq)
	if err != nil {
		return nil, err
	}
	if len(pools) == 0 {
		where := "in no pool"
		if !actor.IsOperator() {
			where = "in no pool you may see"
		}
		return []SearchHit{{Kind: search.HitAddress, Match: search.MatchAddress, Address: a, State: candidates.OutsidePool, Explain: fmt.Sprintf("%s is %s", a, where)}}, nil
	}
	subnets, err := store.SearchSubnets(ctx, s.db, sq)
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
			hits = append(hits, allocationHit(h, search.MatchAddress))
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
	hit := SearchHit{Kind: search.HitAddress, Match: search.MatchAddress, Address: a, Namespace: p.Namespace, Pool: p.Name, PoolKind: PoolKind(p.Kind),
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
		if a.Is6() {
			hit.CIDR, hit.Gateway = in.IPv6CIDR, in.IPv6Gateway
		}
		if a == hit.Gateway {
			hit.State, hit.Explain = candidates.Gateway, subnetGateway(a, in.Name)
			return hit, nil
		}
		req, err := cp.spec.ParseRequest(candidates.RequestSpec{Within: hit.CIDR.String()})
		if err != nil {
			return SearchHit{}, fromCandidates(err)
		}
		space = cp.spec.Space(req)
	}
	e := space.Explain(a, takenSet)
	hit.State, hit.Explain = e.State, e.Message
	return hit, nil
}
