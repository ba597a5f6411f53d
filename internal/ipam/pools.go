package ipam

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/internal/usage"
)

// CreatePublicPool creates a public pool. Operators only; two public pools
// never overlap. A pool that exists with the same spec is returned as it
// is; one that exists with another spec is refused, since a pool's spec
// never changes.
func (s *Service) CreatePublicPool(ctx context.Context, actor auth.Actor, in CreatePublicPoolInput) (Pool, error) {
	if !actor.IsOperator() {
		return Pool{}, forbidden("only operators create public pools")
	}
	row, err := publicPoolRow(actor, in)
	if err != nil {
		return Pool{}, err
	}
	err = store.InTx(ctx, s.db, func(tx *store.Tx) error {
		row, err = createPublicPool(ctx, tx, actor, row)
		return err
	})
	if err != nil {
		return Pool{}, err
	}
	return poolFromRow(row), nil
}

// publicPoolRow validates in: every mistake at once (ValidatePublicPool).
func publicPoolRow(actor auth.Actor, in CreatePublicPoolInput) (store.PoolRow, error) {
	if err := ValidatePublicPool(in); err != nil {
		return store.PoolRow{}, err
	}
	spec, err := candidates.ParsePool(candidates.PoolSpec{CIDR: in.CIDR, Gateway: in.Gateway, Exclude: in.Exclude})
	if err != nil {
		return store.PoolRow{}, fromCandidates(err)
	}
	return store.PoolRow{
		UID: newUID(), Name: in.Name, Kind: string(Public), CIDR: spec.Prefix, Gateway: spec.Gateway,
		Exclude: normalizeExcludes(in.Exclude), Zone: in.Zone, Labels: in.Labels, DelegatedPrefixLength: in.DelegatedPrefixLength,
		CreatedBy: actor.Name,
	}, nil
}

// createPublicPool stores row in tx, or returns the pool of the same spec
// stored already, with its own uid and labels.
func createPublicPool(ctx context.Context, tx *store.Tx, actor auth.Actor, row store.PoolRow) (store.PoolRow, error) {
	if existing, err := store.Pool(ctx, tx, "", row.Name); err == nil {
		if existing.CIDR == row.CIDR && existing.Gateway == row.Gateway && existing.Zone == row.Zone &&
			slices.Equal(existing.Exclude, row.Exclude) && existing.DelegatedPrefixLength == row.DelegatedPrefixLength {
			return existing, nil
		}
		return store.PoolRow{}, fieldConflict("name", "public pool %s exists already with another spec (%s); change its gateway, excludes or zone with updatePublicPool, or create another pool", row.Name, specSummary(existing))
	} else if !errors.Is(err, store.ErrNotFound) {
		return store.PoolRow{}, err
	}
	if other, err := store.OverlappingPublicPool(ctx, tx, row.CIDR); err == nil {
		return store.PoolRow{}, fieldConflict("cidr", "cidr %s overlaps public pool %s (%s)", row.CIDR, other.Name, other.CIDR)
	} else if !errors.Is(err, store.ErrNotFound) {
		return store.PoolRow{}, err
	}
	created, err := store.InsertPool(ctx, tx, row)
	if errors.Is(err, store.ErrObjectExists) {
		// The name is taken, or an overlapping pool was made meanwhile.
		if other, oerr := store.OverlappingPublicPool(ctx, tx, row.CIDR); oerr == nil {
			return store.PoolRow{}, fieldConflict("cidr", "cidr %s overlaps public pool %s (%s)", row.CIDR, other.Name, other.CIDR)
		}
		return store.PoolRow{}, conflict("a public pool named %s exists already", row.Name)
	}
	if err != nil {
		return store.PoolRow{}, err
	}
	return created, store.InsertAudit(ctx, tx, store.AuditEntry{
		Actor: actor.Name, Action: audit.Create, ObjectKind: audit.KindPool, ObjectName: created.Name, After: store.JSON(poolAudit(created)),
	})
}

// normalizeExcludes trims what the user wrote and drops empty entries.
func normalizeExcludes(in []string) []string {
	out := make([]string, 0, len(in))
	for _, e := range in {
		if a, b, ok := cutRange(e); ok {
			out = append(out, a+"-"+b)
		} else if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// coveredShown is how many of the allocations that refuse a change of a
// public pool's spec the refusal names.
const coveredShown = 3

// UpdatePublicPool changes a public pool's gateway, excludes or zone.
// Operators only. The new gateway and excludes may not cover an address
// the pool holds, and the zone may not change while the pool holds routers'
// uplinks (a VPC's uplink is in its zone's pools): refused naming some of
// them and how many. The change takes the pool's row FOR UPDATE: it waits
// for the claims in progress in the pool, then sees what they stored, and
// the claims that come meanwhile wait for it and choose their address
// again under the new spec (docs/allocation.md, "When a public pool's spec
// changes"). A change that changes nothing stores nothing; any other
// leaves one audit entry with the pool before and after.
func (s *Service) UpdatePublicPool(ctx context.Context, actor auth.Actor, in UpdatePublicPoolInput) (Pool, error) {
	if !actor.IsOperator() {
		return Pool{}, forbidden("only operators change public pools")
	}
	if err := checkName("name", in.Name); err != nil {
		return Pool{}, err
	}
	// A bad zone is refused with the spec's mistakes, all at once.
	var zoneErr error
	if in.Zone != nil {
		zoneErr = checkZone("zone", *in.Zone)
	}
	var out store.PoolRow
	err := store.InTx(ctx, s.db, func(tx *store.Tx) error {
		before, err := store.LockPublicPool(ctx, tx, in.Name)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("pool", "", in.Name)
		}
		if err != nil {
			return err
		}
		next, spec, err := updatedSpec(before, in)
		if err != nil || zoneErr != nil {
			return refusal.Collect(err, zoneErr)
		}
		if next.Gateway == before.Gateway && slices.Equal(next.Exclude, before.Exclude) && next.Zone == before.Zone {
			out = before
			return nil
		}
		if next.Gateway != before.Gateway || !slices.Equal(next.Exclude, before.Exclude) {
			if err := refuseCovered(ctx, tx, before, next, spec); err != nil {
				return err
			}
		}
		if next.Zone != before.Zone {
			if err := refuseMovedUplinks(ctx, tx, before, next.Zone); err != nil {
				return err
			}
		}
		if out, err = store.UpdatePoolSpec(ctx, tx, next); err != nil {
			return err
		}
		return store.InsertAudit(ctx, tx, store.AuditEntry{
			Actor: actor.Name, Action: audit.Update, ObjectKind: audit.KindPool, ObjectName: in.Name,
			Before: store.JSON(poolAudit(before)), After: store.JSON(poolAudit(out)),
		})
	})
	if err != nil {
		return Pool{}, err
	}
	if fresh, err := newCachedPool(out); err == nil {
		s.remember(fresh)
	}
	return poolFromRow(out), nil
}

// updatedSpec is the pool before with the changes of in, and its spec
// parsed: validated against its prefix as a new pool's spec is.
func updatedSpec(before store.PoolRow, in UpdatePublicPoolInput) (store.PoolRow, candidates.Pool, error) {
	spec := candidates.PoolSpec{CIDR: before.CIDR.String(), Exclude: before.Exclude}
	if before.Gateway.IsValid() {
		spec.Gateway = before.Gateway.String()
	}
	if in.Gateway != nil {
		spec.Gateway = strings.TrimSpace(*in.Gateway)
	}
	if in.Exclude != nil {
		spec.Exclude = *in.Exclude
	}
	parsed, err := candidates.ParsePool(spec)
	if err != nil {
		return store.PoolRow{}, candidates.Pool{}, fromCandidates(err)
	}
	next := before
	next.Gateway, next.Exclude = parsed.Gateway, normalizeExcludes(spec.Exclude)
	if in.Zone != nil {
		next.Zone = *in.Zone
	}
	return next, parsed, nil
}

// refuseCovered refuses next, the pool before with the spec parsed, when
// its gateway or excludes cover addresses the pool holds, naming some of
// them.
func refuseCovered(ctx context.Context, tx *store.Tx, before, next store.PoolRow, spec candidates.Pool) error {
	var ranges []store.AddressRange
	if next.Gateway.IsValid() {
		ranges = append(ranges, store.AddressRange{From: next.Gateway, To: next.Gateway})
	}
	for _, r := range spec.Exclude.Ranges() {
		ranges = append(ranges, store.AddressRange{From: r.From, To: r.To})
	}
	if len(ranges) == 0 {
		return nil
	}
	covered, n, err := store.SampleAllocations(ctx, tx, before.UID, "", ranges, coveredShown)
	if err != nil || n == 0 {
		return err
	}
	field, what := "exclude", "the excludes"
	if next.Gateway != before.Gateway && next.Gateway.IsValid() {
		gw := []store.AddressRange{{From: next.Gateway, To: next.Gateway}}
		_, held, err := store.SampleAllocations(ctx, tx, before.UID, "", gw, 1)
		switch {
		case err != nil:
			return err
		case held > 0 && held < n:
			field, what = "gateway", "gateway "+next.Gateway.String()+" and the excludes"
		case held > 0:
			field, what = "gateway", "gateway "+next.Gateway.String()
		}
	}
	return fieldConflict(field, "public pool %s holds %s that %s would cover: %s; release %s first, or leave %s out",
		before.Name, plural(n, "address", "addresses"), what, holders(covered, n), them(n), them(n))
}

// refuseMovedUplinks refuses to move the pool p to zone while it holds
// routers' uplinks, naming some of their VPCs.
func refuseMovedUplinks(ctx context.Context, tx *store.Tx, p store.PoolRow, zone string) error {
	uplinks, n, err := store.SampleAllocations(ctx, tx, p.UID, string(OwnerVPC), nil, coveredShown)
	if err != nil || n == 0 {
		return err
	}
	vpcs, err := store.VPCs(ctx, tx)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(uplinks))
	for _, u := range uplinks {
		name := u.OwnerNamespace + "/?"
		for _, v := range vpcs {
			if v.UID == u.OwnerUID {
				name = v.Namespace + "/" + v.Name
			}
		}
		names = append(names, name+" at "+u.Address.String())
	}
	if n > len(names) {
		names = append(names, strconv.Itoa(n-len(names))+" more")
	}
	return fieldConflict("zone", "public pool %s holds the router uplinks of %s of zone %s (%s): a router's uplink is in its VPC's zone; delete those VPCs before moving the pool to %s",
		p.Name, plural(n, "VPC", "VPCs"), describeZone(p.Zone), strings.Join(names, ", "), describeZone(zone))
}

// describeZone names a zone in a message, "no zone" for none.
func describeZone(zone string) string {
	if zone == "" {
		return "no zone"
	}
	return zone
}

// holders lists the allocations shown of n, each address with its owner,
// and says how many more there are.
func holders(shown []store.AllocationRow, n int) string {
	parts := make([]string, 0, len(shown)+1)
	for _, a := range shown {
		parts = append(parts, a.Address.String()+" ("+a.OwnerKind+" "+a.OwnerNamespace+"/"+a.OwnerName+")")
	}
	if n > len(shown) {
		parts = append(parts, strconv.Itoa(n-len(shown))+" more")
	}
	return strings.Join(parts, ", ")
}

// DeletePublicPool deletes a public pool that holds no address.
func (s *Service) DeletePublicPool(ctx context.Context, actor auth.Actor, name string) error {
	if !actor.IsOperator() {
		return forbidden("only operators delete public pools")
	}
	if err := checkName("name", name); err != nil {
		return err
	}
	cp, err := s.cachedPool(ctx, "", name)
	if err != nil {
		return err
	}
	err = store.InTx(ctx, s.db, func(tx *store.Tx) error {
		n, err := store.CountAllocationsOfKind(ctx, tx, cp.row.UID, "", "")
		if err != nil {
			return err
		}
		if n > 0 {
			return poolInUse(name, n)
		}
		if cp.row.DelegatedPrefixLength != 0 {
			d, err := store.CountDelegatedPrefixes(ctx, tx, cp.row.UID)
			if err != nil {
				return err
			}
			if d > 0 {
				return conflict("public pool %s has delegated %s to VPCs; delete those VPCs first", name, plural(int(d), "prefix", "prefixes"))
			}
		}
		if err := store.DeletePool(ctx, tx, cp.row.UID); errors.Is(err, store.ErrInUse) {
			return conflict("public pool %s was given an address meanwhile; release it first", name)
		} else if err != nil {
			return err
		}
		return store.InsertAudit(ctx, tx, store.AuditEntry{
			Actor: actor.Name, Action: audit.Delete, ObjectKind: audit.KindPool, ObjectName: name, Before: store.JSON(poolAudit(cp.row)),
		})
	})
	s.forgetPool(cp)
	return err
}

// poolInUse refuses to delete the public pool name while it holds n
// addresses.
func poolInUse(name string, n int) error {
	return conflict("public pool %s still holds %s; release %s first", name, plural(n, "address", "addresses"), them(n))
}

// Pools lists the pools the actor may see: every pool for operators; for
// tenants, the private pools of their namespaces and the public pools.
// kind and namespace filter when not empty.
func (s *Service) Pools(ctx context.Context, actor auth.Actor, kind PoolKind, namespace string) ([]Pool, error) {
	rows, err := store.Pools(ctx, s.db, string(kind))
	if err != nil {
		return nil, err
	}
	out := []Pool{}
	for _, r := range rows {
		if r.Namespace != "" && !actor.CanAccess(r.Namespace) || namespace != "" && r.Namespace != namespace {
			continue
		}
		out = append(out, poolFromRow(r))
	}
	return out, nil
}

// Pool returns the pool namespace/name if the actor may see it, as the
// database has it now.
func (s *Service) Pool(ctx context.Context, actor auth.Actor, namespace, name string) (Pool, error) {
	if namespace != "" && !actor.CanAccess(namespace) || !storable(namespace, name) {
		return Pool{}, notFound("pool", namespace, name)
	}
	row, err := store.Pool(ctx, s.db, namespace, name)
	if errors.Is(err, store.ErrNotFound) {
		return Pool{}, notFound("pool", namespace, name)
	}
	if err != nil {
		return Pool{}, err
	}
	return poolFromRow(row), nil
}

// PoolUsage returns how full the pool is. A tenant looking at a public
// pool sees the figures of the whole pool: how many addresses are left is
// what it needs to know, not who holds them.
//
// The figures are this process's view of the pool (see views.go), read
// without a query whatever the pool's size: exact for what this process
// claimed and for releases anywhere; claims made by other processes count
// once this process meets them, or at the next refresh of the views.
func (s *Service) PoolUsage(ctx context.Context, actor auth.Actor, p Pool) (usage.Figures, error) {
	cp, err := s.readablePool(ctx, actor, p.Namespace, p.Name)
	if err != nil {
		return usage.Figures{}, err
	}
	return s.usage(ctx, cp)
}

// usage counts the pool's candidates and the free ones in its view, exact
// at 128 bits; a delegation pool counts its prefixes of the delegated
// length, and those it delegated.
func (s *Service) usage(ctx context.Context, cp *cachedPool) (usage.Figures, error) {
	pv, err := s.views.pool(ctx, cp.row.UID)
	if err != nil {
		return usage.Figures{}, err
	}
	if bits := cp.row.DelegatedPrefixLength; bits != 0 {
		var used candidates.Count
		pv.Read(func(taken candidates.Set) { used = taken.Count() })
		return usage.Exact(candidates.PrefixCount(cp.spec.Prefix, bits), used, usage.Prefixes(bits)), nil
	}
	space := cp.spec.Candidates()
	var free candidates.Count
	pv.Read(func(taken candidates.Set) { free = space.FreeCount(taken) })
	size := space.Count()
	return usage.Exact(size, size.Sub(free), ""), nil
}

// PoolAllocations returns a page of the pool's allocations in address
// order. Tenants see, of a public pool, only the addresses they hold.
func (s *Service) PoolAllocations(ctx context.Context, actor auth.Actor, p Pool, page Page) (AllocationPage, error) {
	cp, err := s.readablePool(ctx, actor, p.Namespace, p.Name)
	if err != nil {
		return AllocationPage{}, err
	}
	f := store.AllocationFilter{PoolUID: cp.row.UID}
	var all func() (int, error)
	if cp.row.Namespace == "" && !actor.IsOperator() {
		f.OwnerNamespaces = s.ownerNamespaces(ctx, actor)
	} else {
		// Every allocation of the pool: its usage counts them.
		all = func() (int, error) {
			u, err := s.usage(ctx, cp)
			return u.Used, err
		}
	}
	return s.allocationPage(ctx, f, cp.row.Name, page, all)
}

// ownerNamespaces lists the namespaces in which the tenant holds addresses
// of public pools: those of its VPCs and floating IPs.
func (s *Service) ownerNamespaces(ctx context.Context, actor auth.Actor) []string {
	out := []string{}
	if vs, err := store.VPCs(ctx, s.db); err == nil {
		for _, v := range vs {
			if actor.CanAccess(v.Namespace) {
				out = append(out, v.Namespace)
			}
		}
	}
	if fs, err := store.FloatingIPs(ctx, s.db); err == nil {
		for _, f := range fs {
			if actor.CanAccess(f.Namespace) {
				out = append(out, f.Namespace)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// allocationPage reads a page of allocations. all, when not nil, counts
// every allocation f matches without a search, faster than the database.
func (s *Service) allocationPage(ctx context.Context, f store.AllocationFilter, pool string, page Page, all func() (int, error)) (AllocationPage, error) {
	first := page.First
	switch {
	case first == 0:
		first = 50
	case first < 0 || first > 1000:
		return AllocationPage{}, invalid("first", "first %d is out of range: 1 to 1000", first)
	}
	if page.After != "" {
		a, err := netip.ParseAddr(page.After)
		if err != nil || a.Zone() != "" {
			return AllocationPage{}, invalid("after", "after %s is not a cursor of this list", describe(page.After))
		}
		f.After = a
	}
	switch {
	case len(page.Search) > 100:
		return AllocationPage{}, invalid("search", "search is too long: at most 100 characters")
	case !storable(page.Search):
		return AllocationPage{}, invalid("search", "search %s holds a NUL or is not UTF-8", describe(page.Search))
	}
	f.Search, f.Limit = page.Search, first+1
	rows, err := store.Allocations(ctx, s.db, f)
	if err != nil {
		return AllocationPage{}, err
	}
	var total int
	if all != nil && f.Search == "" {
		total, err = all()
	} else {
		total, err = store.CountAllocations(ctx, s.db, f)
	}
	if err != nil {
		return AllocationPage{}, err
	}
	out := AllocationPage{Total: total, Allocations: []Allocation{}}
	if len(rows) > first {
		rows, out.HasNext = rows[:first], true
	}
	for _, r := range rows {
		out.Allocations = append(out.Allocations, allocationFromRow(r, pool))
	}
	if len(rows) > 0 {
		out.EndCursor = rows[len(rows)-1].Address.String()
	}
	return out, nil
}

// poolAudit is what the audit log keeps of a pool.
func poolAudit(r store.PoolRow) audit.Pool {
	p := audit.Pool{UID: r.UID, Namespace: r.Namespace, Name: r.Name, Kind: r.Kind, CIDR: r.CIDR.String(), Exclude: r.Exclude, Zone: r.Zone}
	if r.Gateway.IsValid() {
		p.Gateway = r.Gateway.String()
	}
	if len(r.Labels) > 0 {
		p.Labels = r.Labels
	}
	p.DelegatedPrefixLength = r.DelegatedPrefixLength
	return p
}

// subnetAudit is the audit log's document of a subnet.
func subnetAudit(r store.SubnetRow) audit.Subnet {
	a := audit.Subnet{UID: r.UID, CIDR: r.CIDR.String(), Gateway: r.Gateway.String()}
	if r.IPv6CIDR.IsValid() {
		a.IPv6CIDR, a.IPv6Gateway = r.IPv6CIDR.String(), r.IPv6Gateway.String()
	}
	return a
}

// specSummary writes a pool's spec in a few words, for messages.
func specSummary(r store.PoolRow) string {
	parts := []string{"cidr " + r.CIDR.String()}
	if r.Gateway.IsValid() {
		parts = append(parts, "gateway "+r.Gateway.String())
	}
	if len(r.Exclude) > 0 {
		parts = append(parts, "exclude "+strings.Join(r.Exclude, ","))
	}
	if r.Zone != "" {
		parts = append(parts, "zone "+r.Zone)
	}
	if r.DelegatedPrefixLength != 0 {
		parts = append(parts, "delegatedPrefixLength "+strconv.Itoa(r.DelegatedPrefixLength))
	}
	return strings.Join(parts, ", ")
}
