package ipam

import (
	"context"
	"net/netip"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/store"
)

// TablePerPage is the number of rows of a page of an allocation table
// when the query does not say.
const TablePerPage = 50

// A TableQuery asks for one page of a pool's or a subnet's allocation
// table.
type TableQuery struct {
	// Prefix, as the user wrote it, keeps the rows inside it (an address
	// alone is its /32 or /128); "" keeps them all.
	Prefix string
	// Search keeps the allocations whose address or owner holds it; a
	// table searched lists no free addresses.
	Search string
	// Page is the page asked for, from 1; past the last, the last.
	Page int
	// PerPage is the number of rows of a page, 1 to 1000; 0 is
	// TablePerPage.
	PerPage int
}

// A TableRow is a line of an allocation table: an allocation, or a run
// of free addresses.
type TableRow struct {
	// Allocation is nil for a run of free addresses.
	Allocation *Allocation
	// From and To are the row's addresses: the allocation's, or the
	// first and the last of the run.
	From, To netip.Addr
	// Subnet is the name of the subnet the row lies in, "" for none.
	Subnet string
	// VPC is the VPC whose page shows the allocation's owner (its
	// namespace and name), the zero VPC for none: a private pool's VPC,
	// a router's, for a floating IP the first VPC of its namespace.
	VPC VPC
}

// Free returns the number of free addresses of a run, exactly (an IPv6
// run's may pass 2^64), 0 for an allocation.
func (r TableRow) Free() candidates.Count {
	if r.Allocation != nil {
		return candidates.Count{}
	}
	return candidates.Row{From: r.From, To: r.To}.Size()
}

// An AllocationTable is one page of a pool's or a subnet's allocation
// table: every allocation a row, and every run of free addresses a row,
// in address order, as NetBox lists a prefix's addresses.
type AllocationTable struct {
	Rows []TableRow
	// Prefix is the prefix the rows were kept in, the zero Prefix for
	// none; Search the search they were kept by.
	Prefix netip.Prefix
	Search string
	// Page is the page shown, from 1, of Pages (at least 1).
	Page, Pages int
	// Allocations counts the allocations kept; Free the free addresses
	// kept (none when searched), exactly: an IPv6 table's may pass 2^64.
	Allocations int
	Free        candidates.Count
}

// tableScope is what a table lists: the addresses of scope in a pool,
// the free ones among cand, named by what in messages.
type tableScope struct {
	pool  *cachedPool
	scope netip.Prefix
	cand  candidates.Set
	what  string
	// subnets name the free runs.
	subnets []store.SubnetRow
}

// PoolTable returns a page of the allocation table of the pool p, if the
// actor may read its overview (see PoolSummaries). The free addresses of
// a public pool are its candidates; those of a VPC's private pool, its
// subnets' (claims are made in subnets only).
func (s *Service) PoolTable(ctx context.Context, actor auth.Actor, p Pool, q TableQuery) (AllocationTable, error) {
	cp, err := s.readablePool(ctx, actor, p.Namespace, p.Name)
	if err == nil && !mayOverview(actor, cp.pool) {
		err = notFound("pool", p.Namespace, p.Name)
	}
	if err != nil {
		return AllocationTable{}, err
	}
	t := tableScope{pool: cp, scope: cp.spec.Prefix, what: "pool " + cp.row.Name}
	if cp.row.VPCUID == "" {
		t.cand = cp.spec.Candidates().Set()
		return s.table(ctx, t, q)
	}
	if t.subnets, err = store.Subnets(ctx, s.db, cp.row.VPCUID); err != nil {
		return AllocationTable{}, err
	}
	var free []candidates.Range
	for _, sub := range t.subnets {
		within, gateway := sub.CIDR, sub.Gateway
		if cp.spec.Prefix.Addr().Is6() {
			within, gateway = sub.IPv6CIDR, sub.IPv6Gateway
		}
		if !within.IsValid() {
			continue
		}
		req, err := cp.spec.ParseRequest(candidates.RequestSpec{Within: within.String(), Reserved: []string{gateway.String()}})
		if err != nil {
			return AllocationTable{}, fromCandidates(err)
		}
		free = append(free, cp.spec.Space(req).Set().Ranges()...)
	}
	t.cand = candidates.SetOfRanges(free...)
	return s.table(ctx, t, q)
}

// SubnetTable returns a page of the allocation table of the subnet sub,
// if the actor may see its VPC. Its free addresses are its host
// addresses less its gateway.
func (s *Service) SubnetTable(ctx context.Context, actor auth.Actor, sub Subnet, q TableQuery) (AllocationTable, error) {
	if !actor.CanAccess(sub.Namespace) {
		return AllocationTable{}, notFound("subnet", sub.Namespace, sub.VPC+"/"+sub.Name)
	}
	cs, err := s.subnet(ctx, sub.Namespace, sub.VPC, sub.Name)
	if err != nil {
		return AllocationTable{}, err
	}
	return s.table(ctx, tableScope{pool: cs.pool, scope: cs.subnet.CIDR, cand: cs.space.Set(), what: "subnet " + cs.subnet.Name,
		subnets: []store.SubnetRow{cs.subnet}}, q)
}

// table reads a page of t's table. Unsearched, the page's rows are found
// by their number in this process's view of the pool (a walk of its
// ranges: the time of a page does not grow with its number), then read
// from the database between the page's first and last address, and the
// free runs drawn again from what the database holds there: a claim made
// by another process that this view has not met yet shows on its page. A
// search counts its matches and pages them in the database.
func (s *Service) table(ctx context.Context, t tableScope, q TableQuery) (AllocationTable, error) {
	perPage := q.PerPage
	switch {
	case perPage == 0:
		perPage = TablePerPage
	case perPage < 0 || perPage > 1000:
		return AllocationTable{}, invalid("perPage", "perPage %d is out of range: 1 to 1000", perPage)
	}
	switch {
	case len(q.Search) > 100:
		return AllocationTable{}, invalid("search", "search is too long: at most 100 characters")
	case !storable(q.Search):
		return AllocationTable{}, invalid("search", "search %s holds a NUL or is not UTF-8", describe(q.Search))
	}
	out := AllocationTable{Search: q.Search, Page: max(q.Page, 1), Rows: []TableRow{}}
	bounds := t.scope
	if q.Prefix != "" {
		p, err := t.prefix(q.Prefix)
		if err != nil {
			return AllocationTable{}, err
		}
		if !p.Overlaps(t.scope) {
			return AllocationTable{}, invalid("prefix", "%s is outside %s (%s): give a prefix inside it", p, t.what, t.scope)
		}
		out.Prefix = p
		if p.Bits() > t.scope.Bits() {
			bounds = p
		}
	}
	first, last := candidates.Bounds(bounds)
	pages := func(rows int) int { return max(1, (rows+perPage-1)/perPage) }
	if q.Search != "" {
		f := store.TableFilter{PoolUID: t.pool.row.UID, From: first, To: last, Search: q.Search}
		n, err := store.CountTableAllocations(ctx, s.db, f)
		if err != nil {
			return AllocationTable{}, err
		}
		out.Allocations, out.Pages = n, pages(n)
		out.Page = min(out.Page, out.Pages)
		f.Offset, f.Limit = (out.Page-1)*perPage, perPage
		got, err := store.TableAllocations(ctx, s.db, f)
		if err != nil {
			return AllocationTable{}, err
		}
		for _, r := range got {
			out.Rows = append(out.Rows, t.row(r))
		}
		return out, nil
	}

	pv, err := s.views.pool(ctx, t.pool.row.UID)
	if err != nil {
		return AllocationTable{}, err
	}
	var rows []candidates.Row
	pv.Read(func(taken candidates.Set) {
		l := candidates.NewListing(t.cand, taken, candidates.Range{From: first, To: last})
		var count candidates.ListingCount
		rows, count = l.Page((out.Page-1)*perPage, perPage)
		out.Pages, out.Allocations, out.Free = pages(count.Rows), count.Taken, count.FreeCount
		if out.Page > out.Pages {
			out.Page = out.Pages
			rows, _ = l.Page((out.Page-1)*perPage, perPage)
		}
	})
	if len(rows) == 0 {
		return out, nil
	}
	// The database's allocations of the page: at most twice the page,
	// should this view lag that far; the page then ends at the last.
	from, to := rows[0].From, rows[len(rows)-1].To
	got, err := store.TableAllocations(ctx, s.db, store.TableFilter{PoolUID: t.pool.row.UID, From: from, To: to, Limit: 2 * perPage})
	if err != nil {
		return AllocationTable{}, err
	}
	if len(got) == 2*perPage {
		to = got[len(got)-1].Address
	}
	var taken candidates.SetBuilder
	held := make(map[netip.Addr]store.TableAllocationRow, len(got))
	for _, r := range got {
		taken.Add(r.Address)
		held[r.Address] = r
	}
	page, _ := candidates.NewListing(t.cand, taken.View(), candidates.Range{From: from, To: to}).Page(0, 4*perPage+1)
	for _, r := range page {
		if !r.Free {
			out.Rows = append(out.Rows, t.row(held[r.From]))
			continue
		}
		row := TableRow{From: r.From, To: r.To}
		for _, sub := range t.subnets {
			if sub.CIDR.Contains(r.From) || sub.IPv6CIDR.Contains(r.From) {
				row.Subnet = sub.Name
			}
		}
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}

// row is the table's row of the allocation r.
func (t tableScope) row(r store.TableAllocationRow) TableRow {
	a := allocationFromRow(r.AllocationRow, t.pool.row.Name)
	return TableRow{Allocation: &a, From: r.Address, To: r.Address, Subnet: r.Subnet, VPC: VPC{Namespace: r.VPCNamespace, Name: r.VPC}}
}

// prefix reads the prefix the table is filtered by, as the user wrote
// it: a prefix of the table's family without host bits, or an address
// alone, in any spelling netip reads (2001:DB8:0::/64 is 2001:db8::/64).
func (t tableScope) prefix(s string) (netip.Prefix, error) {
	family, other, example := "IPv4", "IPv6", "10.42.3.0/28"
	six := t.scope.Addr().Is6()
	if six {
		family, other, example = "IPv6", "IPv4", "2001:db8:0:1::/64"
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		a, addrErr := netip.ParseAddr(s)
		if addrErr != nil || a.Zone() != "" {
			return netip.Prefix{}, invalid("prefix", "%s is not a prefix: write one such as %s, or an address", describe(s), example)
		}
		p = netip.PrefixFrom(a, a.BitLen())
	}
	switch {
	case p.Addr().Is6() != six:
		return netip.Prefix{}, invalid("prefix", "%s is %s, and %s (%s) holds %s addresses: give an %s prefix or address", p, other, t.what, t.scope, family, family)
	case p.Masked() != p:
		return netip.Prefix{}, invalid("prefix", "%s has host bits set; did you mean %s?", p, p.Masked())
	}
	return p, nil
}
