package main

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/search"
	"pivirt.hu/ipam/internal/store"
)

// searchKinds are the queries of the search's mix, each as often.
var searchKinds = []string{"address held", "address free", "prefix", "hostname", "uid", "namespace",
	"start of an address", "VLAN number", "site name", "display label", "Text value"}

// searchSchema is the kinds of the search's objects: sites, and VLANs of a
// site with a number and a description. Kinds of their own, so that the
// other measurements' schema (numbersSchema) is not theirs.
const searchSchema = `version: "1.0"
nodes:
  - name: Site
    namespace: Dc
    display_label: "{{ name__value }}"
    attributes:
      - {name: name, kind: Text}
      - {name: region, kind: Text}
  - name: VLAN
    namespace: Dc
    display_label: "{{ name__value }}"
    attributes:
      - {name: name, kind: Text}
      - {name: vlan_id, kind: Number}
      - {name: description, kind: Text, optional: true}
    relationships:
      - {name: site, peer: DcSite, cardinality: one, optional: false}
`

// searchSites is how many of the search's objects are sites: the others
// are VLANs, as many in each site, numbered from 100.
const searchSites = 1000

// searchResult is the time of a search on a database of size allocations
// (a million: config.searchSize): the console's search page (the
// whole handler: session, queries, rendering), for the mix and by kind of
// query, and the domain's Search alone for the mix.
type searchResult struct {
	size         int
	objects      int // objects of kinds, besides the allocations
	page, domain figure
	kinds        map[string]figure
	bytes        int // the largest page of the mix
	// tenant is the domain's Search of a tenant of another namespace (100
	// VMs of its own) for the start of a name that a ninth of the owners
	// share (host-1 … host-9): nothing it may see.
	tenant figure
}

// slowest is the kind of query of the highest p50 on the search page,
// and its figure.
func (s searchResult) slowest() (string, figure) {
	kind := searchKinds[0]
	for _, k := range searchKinds {
		if s.kinds[k].P50 > s.kinds[kind].P50 {
			kind = k
		}
	}
	return kind, s.kinds[kind]
}

// searchFillSQL gives the pool $1 $2 allocations of VMs host-<i>/0 with
// uid uid-<i>, of namespace $3 in subnet $4, at the offsets 2 to $2+1 of
// its prefix (the first host is the subnet's gateway).
const searchFillSQL = `INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, subnet_uid, created_by)
	SELECT p.namespace, p.name || '-' || replace(host(a), '.', '-'), p.uid, a, 'VirtualMachine', 'uid-' || i, 'host-' || i || '/0', $3, $4::uuid, 'bench'
	FROM pools p, generate_series(2, $2::int + 1) i, LATERAL (SELECT host(p.cidr)::inet + i AS a) x
	WHERE p.uid = $1`

// searchQuery is a query of the mix and what its answer must be, asked
// for first hits (0: the page's default) when it is checked.
type searchQuery struct {
	kind, q string
	first   int
	check   func(ipam.SearchResult) error
}

// searchObjectsFillSQL writes $4 sites of the kind $1 (name $2:
// dc-site-<i>, region $3) and, in each, $5 VLANs of the kind $6 (name $7:
// vlan<n>-dc-site-<i>, vlan_id $8: n from 100, description $9: port <p>
// of switch sw-<s>, s of $11 switches numbered from 1000, site $10), as a
// migration would write them: 100 000 objects through the service would
// take minutes.
const searchObjectsFillSQL = `WITH sites AS (
		INSERT INTO object_versions (branch_id, object_id, kind, data, from_seq)
		SELECT 1, gen_random_uuid(), $1, jsonb_build_object($2::text, 'dc-site-' || i, $3::text, 'region ' || (i % 20)), nextval('changes_seq')
		FROM generate_series(1, $4::int) i
		RETURNING object_id, data ->> $2::text AS name
	)
	INSERT INTO object_versions (branch_id, object_id, kind, data, from_seq)
	SELECT 1, gen_random_uuid(), $6, jsonb_build_object($7::text, 'vlan' || (100 + j) || '-' || s.name, $8::text, 100 + j,
			$9::text, 'port ' || (j % 48) || ' of switch sw-' || (1000 + (s.n * $5::int + j) % $11::int), $10::text, s.object_id::text), nextval('changes_seq')
	FROM (SELECT object_id, name, row_number() OVER (ORDER BY name) n FROM sites) s, generate_series(0, $5::int - 1) j`

// searchSwitches is how many switches the descriptions of vlans VLANs
// name: 5 000, or one a VLAN when fewer; numbered from 1000, their numbers
// have four digits, and none is a part of another.
func searchSwitches(vlans int) int { return min(5000, vlans) }

// fillSearchObjects loads searchSchema, writes objects objects of its kinds
// (searchSites sites, VLANs in them) and creates a pool of the VLANs'
// numbers scoped by site, which records what they hold.
func fillSearchObjects(ctx context.Context, db *store.DB, nums *numbers.Service, objects int) error {
	f, err := schema.Parse("search.yaml", []byte(searchSchema))
	if err != nil {
		return err
	}
	if _, err := nums.Branches().LoadSchema(ctx, operator, branch.Main, f); err != nil {
		return err
	}
	s, err := nums.Branches().Schema(ctx, branch.Main)
	if err != nil {
		return err
	}
	id := func(kind, element string) string {
		if a, ok := s.Attribute(kind, element); ok {
			return a.ID
		}
		r, _ := s.Relationship(kind, element)
		return r.ID
	}
	site, _ := s.Kind("DcSite")
	vlan, _ := s.Kind("DcVLAN")
	sites := min(searchSites, objects/2)
	perSite := (objects - sites) / sites
	if _, err := db.ExecContext(ctx, searchObjectsFillSQL, site.ID, id("DcSite", "name"), id("DcSite", "region"), sites,
		perSite, vlan.ID, id("DcVLAN", "name"), id("DcVLAN", "vlan_id"), id("DcVLAN", "description"), id("DcVLAN", "site"),
		searchSwitches(sites*perSite)); err != nil {
		return fmt.Errorf("writing the objects: %w", err)
	}
	if _, err := db.ExecContext(ctx, `VACUUM (ANALYZE) object_versions`); err != nil {
		return err
	}
	_, err = nums.CreatePool(ctx, operator, numbers.PoolInput{Name: "Dc VLAN IDs per site", Node: "DcVLAN", NodeAttribute: "vlan_id",
		Ranges: []numbers.Range{{Start: 100, End: 4094, Weight: 1}}, AllocationScope: []string{"site"}})
	return err
}

// measureSearch fills a /10 subnet of a /8 VPC with cfg.searchSize
// allocations, and writes cfg.searchObjects objects of kinds, checks one
// answer of each kind, then times the mix through the console's search
// page and through the domain alone, as an operator.
// The other measurements' VPCs overlap this one (10.0.0.0/8 of the VPC
// read's, 10.42.0.0/16 of the claims'), as private VPCs do: an address
// lies in each of their pools, and its search answers for every one.
func measureSearch(ctx context.Context, cfg config, dsn string) (searchResult, error) {
	searchSize := cfg.searchSize
	out := searchResult{size: searchSize, kinds: map[string]figure{}}
	db, svc, closeService, err := openService(ctx, dsn)
	if err != nil {
		return out, err
	}
	defer closeService()
	nums, err := numbers.New(ctx, numbers.Config{DB: db, URL: dsn, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return out, err
	}
	defer nums.Close()
	out.objects = cfg.searchObjects
	progress("search: writing %d objects of kinds (%d sites, VLANs in them) and a pool of the VLANs' numbers", cfg.searchObjects, min(searchSites, cfg.searchObjects/2))
	if err := fillSearchObjects(ctx, db, nums, cfg.searchObjects); err != nil {
		return out, err
	}
	sites := min(searchSites, cfg.searchObjects/2)
	perSite := (cfg.searchObjects - sites) / sites
	query := func(q string, first int) (ipam.SearchResult, error) {
		return svc.Search(ctx, operator, q, ipam.SearchOptions{First: first, Finder: nums})
	}
	const ns = "bench/search"
	if _, err := svc.CreateVPC(ctx, operator, ipam.CreateVPCInput{Namespace: ns, Name: "net", CIDR: "10.0.0.0/8"}); err != nil {
		return out, err
	}
	sub, err := svc.CreateSubnet(ctx, operator, ipam.CreateSubnetInput{Namespace: ns, VPC: "net", Name: "big", CIDR: "10.0.0.0/10"})
	if err != nil {
		return out, err
	}
	p, err := svc.Pool(ctx, operator, ns, "vpc-net")
	if err != nil {
		return out, err
	}
	progress("search: filling a /10 subnet with %d allocations", searchSize)
	if _, err := db.ExecContext(ctx, searchFillSQL, p.UID, searchSize, ns, sub.UID); err != nil {
		return out, fmt.Errorf("filling the subnet: %w", err)
	}
	if err := vacuum(ctx, db); err != nil {
		return out, err
	}

	rng := rand.New(rand.NewPCG(15, 15))
	held := func() int { return 2 + rng.IntN(searchSize) }
	next := map[string]func() searchQuery{
		"address held": func() searchQuery {
			i := held()
			a := offsetAddr(searchBase, i)
			return searchQuery{q: a.String(), first: ipam.MaxSearchHits, check: atAddress(ns, a, func(h ipam.SearchHit) bool {
				return h.Kind == search.HitAllocation && h.Owner.UID == fmt.Sprint("uid-", i)
			})}
		},
		"address free": func() searchQuery {
			a := offsetAddr(searchBase, searchSize+2+rng.IntN(1<<22-searchSize-3))
			return searchQuery{q: a.String(), first: ipam.MaxSearchHits, check: atAddress(ns, a, func(h ipam.SearchHit) bool {
				return h.Kind == search.HitAddress && h.Explain == a.String()+" is free"
			})}
		},
		"prefix": func() searchQuery {
			b := offsetAddr(searchBase, 256*(1+rng.IntN(searchSize/256-2)))
			return searchQuery{q: b.String() + "/24", check: more(func(h ipam.SearchHit) bool {
				return h.Kind == search.HitAllocation && netip.PrefixFrom(b, 24).Contains(h.Address) || h.Kind != search.HitAllocation
			})}
		},
		"hostname": func() searchQuery {
			i := held()
			return searchQuery{q: fmt.Sprint("host-", i), check: first(func(h ipam.SearchHit) bool {
				return h.Match == search.MatchHostname && h.Owner.Name == fmt.Sprintf("host-%d/0", i)
			})}
		},
		"uid": func() searchQuery {
			i := held()
			return searchQuery{q: fmt.Sprint("uid-", i), check: hits(1, func(h ipam.SearchHit) bool { return h.Match == search.MatchUID && h.Owner.UID == fmt.Sprint("uid-", i) })}
		},
		"namespace": func() searchQuery {
			return searchQuery{q: ns, check: more(func(h ipam.SearchHit) bool { return h.Match == search.MatchNamespace })}
		},
		// 10.0.<k>. is 10.0.<k>.0/24, inside the filled range.
		"start of an address": func() searchQuery {
			b := offsetAddr(searchBase, 256*(1+rng.IntN(searchSize/256-2))).As4()
			p := netip.PrefixFrom(netip.AddrFrom4(b), 24)
			return searchQuery{q: fmt.Sprintf("%d.%d.%d.", b[0], b[1], b[2]), check: more(func(h ipam.SearchHit) bool {
				return h.Kind == search.HitAllocation && p.Contains(h.Address) || h.Kind != search.HitAllocation
			})}
		},
		// A VLAN's number: held in every site, the first 50 of them.
		"VLAN number": func() searchQuery {
			n := 100 + rng.IntN(perSite)
			return searchQuery{q: fmt.Sprint(n), check: more(func(h ipam.SearchHit) bool {
				return h.Kind == search.HitNumber && h.Number == int64(n) && strings.HasPrefix(h.Object.Label, fmt.Sprintf("vlan%d-dc-site-", n)) &&
					h.Division.Label == strings.TrimPrefix(h.Object.Label, fmt.Sprintf("vlan%d-", n))
			})}
		},
		// A site's name, a part of the labels of its VLANs and of other
		// sites' (dc-site-17 of dc-site-170): the site first.
		"site name": func() searchQuery {
			label := fmt.Sprintf("dc-site-%d", 1+rng.IntN(sites))
			return searchQuery{q: label, check: first(func(h ipam.SearchHit) bool {
				return h.Kind == search.HitObject && h.Object.Label == label && h.Object.Kind == "DcSite" && h.Match == search.MatchLabel
			})}
		},
		// A VLAN's whole label: the VLAN first.
		"display label": func() searchQuery {
			label := fmt.Sprintf("vlan%d-dc-site-%d", 100+rng.IntN(perSite), 1+rng.IntN(sites))
			return searchQuery{q: label, check: first(func(h ipam.SearchHit) bool {
				return h.Kind == search.HitObject && h.Object.Label == label && h.Match == search.MatchLabel
			})}
		},
		// The end of VLANs' descriptions: those of one switch.
		"Text value": func() searchQuery {
			q := fmt.Sprintf("of switch sw-%d", 1000+rng.IntN(searchSwitches(sites*perSite)))
			return searchQuery{q: q, check: first(func(h ipam.SearchHit) bool {
				return h.Kind == search.HitObject && h.Match == "description" && strings.HasSuffix(h.Value, q)
			})}
		},
	}
	for _, kind := range searchKinds {
		sq := next[kind]()
		res, err := query(sq.q, sq.first)
		if err == nil {
			err = sq.check(res)
		}
		if err != nil {
			return out, fmt.Errorf("search %q (%s): %w", sq.q, kind, err)
		}
	}

	get, closeConsole, err := signedInConsole(ctx, db, svc, nums)
	if err != nil {
		return out, err
	}
	defer closeConsole()
	mix := func() []searchQuery {
		var qs []searchQuery
		for _, kind := range searchKinds {
			for range cfg.pageN {
				sq := next[kind]()
				sq.kind = kind
				qs = append(qs, sq)
			}
		}
		rng.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
		return qs
	}
	page := func(sq searchQuery) (time.Duration, error) {
		d, size, err := get("/search?" + url.Values{"q": {sq.q}}.Encode())
		out.bytes = max(out.bytes, size)
		return d, err
	}
	domain := func(sq searchQuery) (time.Duration, error) {
		start := time.Now()
		_, err := query(sq.q, 0)
		return time.Since(start), err
	}
	for _, sq := range mix()[:3*len(searchKinds)] { // the caches and the connections, as a serving process has them
		if _, err := page(sq); err != nil {
			return out, err
		}
	}
	var pageRuns, domainRuns []run
	kindRuns := map[string][]run{}
	for r := range cfg.runs {
		byKind := map[string]*run{}
		for _, kind := range searchKinds {
			byKind[kind] = &run{}
		}
		for _, m := range []struct {
			op     func(searchQuery) (time.Duration, error)
			runs   *[]run
			byKind bool
		}{{page, &pageRuns, true}, {domain, &domainRuns, false}} {
			var rr run
			start := time.Now()
			for _, sq := range mix() {
				d, err := m.op(sq)
				if err != nil {
					return out, err
				}
				rr.lat, rr.ops = append(rr.lat, d), rr.ops+1
				if m.byKind {
					k := byKind[sq.kind]
					k.lat, k.ops = append(k.lat, d), k.ops+1
				}
			}
			rr.elapsed = time.Since(start)
			*m.runs = append(*m.runs, rr)
		}
		var each []string
		for _, kind := range searchKinds {
			kindRuns[kind] = append(kindRuns[kind], *byKind[kind])
			each = append(each, fmt.Sprintf("%s %.2f", kind, byKind[kind].stats().p50))
		}
		progress("  run %d: console page p50 %.2f ms, p99 %.2f ms (by kind, p50 ms: %s); the domain alone p50 %.2f ms",
			r+1, pageRuns[r].stats().p50, pageRuns[r].stats().p99, strings.Join(each, ", "), domainRuns[r].stats().p50)
	}
	// A tenant's search for the start of a name that other namespaces'
	// owners share reads their entries of the index of names and drops
	// them: its own VPC holds 100 VMs, none of them named so.
	tenant := auth.Actor{Name: "bench-tenant", Role: auth.Tenant, Namespaces: []string{"bench/elsewhere/*"}}
	const tenantNS = "bench/elsewhere/prod"
	if _, err := svc.CreateVPC(ctx, operator, ipam.CreateVPCInput{Namespace: tenantNS, Name: "net", CIDR: "10.0.0.0/8"}); err != nil {
		return out, err
	}
	if _, err := svc.CreateSubnet(ctx, operator, ipam.CreateSubnetInput{Namespace: tenantNS, VPC: "net", Name: "web", CIDR: "10.1.0.0/24"}); err != nil {
		return out, err
	}
	for i := range 100 {
		if _, err := svc.AttachInterface(ctx, operator, ipam.AttachInterfaceInput{Namespace: tenantNS, VPC: "net", Subnet: "web",
			VM: ipam.VMRef{UID: fmt.Sprint("web-", i), Hostname: fmt.Sprint("web-", i)}}); err != nil {
			return out, err
		}
	}
	var tenantRuns []run
	for r := range cfg.runs {
		var rr run
		start := time.Now()
		for i := range cfg.pageN {
			q := fmt.Sprint("host-", 1+i%9)
			t0 := time.Now()
			res, err := svc.Search(ctx, tenant, q, ipam.SearchOptions{Finder: nums})
			d := time.Since(t0)
			if err == nil && len(res.Hits) > 0 {
				err = fmt.Errorf("a tenant of bench/elsewhere/* found %d hits", len(res.Hits))
			}
			if err != nil {
				return out, fmt.Errorf("search %q as a tenant: %w", q, err)
			}
			rr.lat, rr.ops = append(rr.lat, d), rr.ops+1
		}
		rr.elapsed = time.Since(start)
		tenantRuns = append(tenantRuns, rr)
		progress("  run %d: a tenant's search for host-1 … host-9 (a ninth of the owners each, none its own): p50 %.2f ms", r+1, rr.stats().p50)
	}
	out.page, out.domain, out.tenant = figureOf(pageRuns), figureOf(domainRuns), figureOf(tenantRuns)
	for kind, runs := range kindRuns {
		out.kinds[kind] = figureOf(runs)
	}
	return out, nil
}

// searchBase is the first address of the VPC the search runs on.
var searchBase = netip.MustParseAddr("10.0.0.0")

// atAddress checks the answer of a search for the address a: one hit in
// the namespace ns, as ok says, and every other hit an answer for a in
// another namespace's pool (who holds it there, or why nobody does), none
// left out (more: false). Private VPCs overlap: an address lies in the
// pool of every VPC whose prefix holds it, and its search answers for each.
func atAddress(ns string, a netip.Addr, ok func(ipam.SearchHit) bool) func(ipam.SearchResult) error {
	return func(r ipam.SearchResult) error {
		own := 0
		for _, h := range r.Hits {
			switch {
			case h.Address != a || h.Kind != search.HitAllocation && h.Kind != search.HitAddress:
				return fmt.Errorf("answered a hit that is not about %s: %+v", a, h)
			case h.Namespace != ns:
			case !ok(h):
				return fmt.Errorf("answered, in %s: %+v", ns, h)
			default:
				own++
			}
		}
		if own != 1 || r.More {
			return fmt.Errorf("answered %d hits in %s of %d (more: %v), want 1 and every other namespace's: %+v", own, ns, len(r.Hits), r.More, r.Hits)
		}
		return nil
	}
}

// hits checks that an answer is n hits, each as ok says.
func hits(n int, ok func(ipam.SearchHit) bool) func(ipam.SearchResult) error {
	return func(r ipam.SearchResult) error {
		if len(r.Hits) != n || r.More || slices.ContainsFunc(r.Hits, func(h ipam.SearchHit) bool { return !ok(h) }) {
			return fmt.Errorf("answered %d hits (more: %v): %+v", len(r.Hits), r.More, r.Hits)
		}
		return nil
	}
}

// more checks that an answer is a full page with more to come, each hit
// as ok says.
func more(ok func(ipam.SearchHit) bool) func(ipam.SearchResult) error {
	return func(r ipam.SearchResult) error {
		if len(r.Hits) != ipam.DefaultSearchHits || !r.More || slices.ContainsFunc(r.Hits, func(h ipam.SearchHit) bool { return !ok(h) }) {
			return fmt.Errorf("answered %d hits (more: %v), want a full page and more: %+v", len(r.Hits), r.More, r.Hits)
		}
		return nil
	}
}

// first checks that an answer's first hit is as ok says.
func first(ok func(ipam.SearchHit) bool) func(ipam.SearchResult) error {
	return func(r ipam.SearchResult) error {
		if len(r.Hits) == 0 || !ok(r.Hits[0]) {
			return fmt.Errorf("answered %+v", r.Hits)
		}
		return nil
	}
}
