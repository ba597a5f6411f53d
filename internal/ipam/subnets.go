package ipam

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/internal/usage"
)

// cachedSubnet is what a claim needs of a subnet. Subnets never change;
// one deleted elsewhere makes the claim fail on the foreign key, and the
// entry is dropped.
type cachedSubnet struct {
	vpc     store.VPCRow
	subnet  store.SubnetRow
	pool    *cachedPool
	space   candidates.Space // every candidate of the subnet
	within  netip.Prefix     // the subnet's prefix
	gateway netip.Addr
	// ipv6 is the subnet's IPv6 side, in the VPC's IPv6 pool; nil when
	// the subnet has no IPv6 prefix.
	ipv6 *subnetSide
}

// A subnetSide is one family of a subnet: its pool (the VPC's pool of
// that family), its candidates, its prefix and its gateway.
type subnetSide struct {
	pool    *cachedPool
	space   candidates.Space
	within  netip.Prefix
	gateway netip.Addr
}

// side returns the subnet's side of the family f (IPv4 when f is zero),
// and whether it has one.
func (cs *cachedSubnet) side(f Family) (subnetSide, bool) {
	if f == IPv6 {
		if cs.ipv6 == nil {
			return subnetSide{}, false
		}
		return *cs.ipv6, true
	}
	return subnetSide{pool: cs.pool, space: cs.space, within: cs.within, gateway: cs.gateway}, true
}

// spaceFor returns the candidates of a request made in the subnet for
// req.Within, the subnet or a prefix inside it: never the subnet's network,
// broadcast or gateway address, nor req's reserved addresses. An IPv6
// request is made in the subnet's IPv6 side, whose space leaves out the
// subnet-router anycast address and has no broadcast.
func (cs *cachedSubnet) spaceFor(req candidates.Request) candidates.Space {
	side, _ := cs.side(familyOf(req.Within.Addr()))
	if req.Within == side.within && req.Reserved.Len() == 0 {
		return side.space
	}
	never := []netip.Addr{side.gateway}
	if side.within.Addr().Is4() && side.within.Bits() <= 30 {
		first, last := candidates.Bounds(side.within)
		never = append(never, first, last)
	}
	req.Reserved = req.Reserved.Union(candidates.SetOf(never...))
	return side.pool.spec.Space(req)
}

func subnetKey(namespace, vpc, subnet string) string {
	return namespace + "\x00" + vpc + "\x00" + subnet
}

// subnet returns the subnet with its VPC, pool and candidates.
func (s *Service) subnet(ctx context.Context, namespace, vpc, name string) (*cachedSubnet, error) {
	key := subnetKey(namespace, vpc, name)
	s.poolsMu.Lock()
	cs, ok := s.subnets[key]
	s.poolsMu.Unlock()
	if ok {
		return cs, nil
	}
	v, err := store.VPC(ctx, s.db, namespace, vpc, false)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("VPC", namespace, vpc)
	}
	if err != nil {
		return nil, err
	}
	row, err := store.Subnet(ctx, s.db, v.UID, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("subnet", namespace, vpc+"/"+name)
	}
	if err != nil {
		return nil, err
	}
	cp, err := s.cachedPool(ctx, namespace, candidates.PrivatePoolName(vpc))
	if err != nil {
		return nil, err
	}
	req, err := cp.spec.ParseRequest(candidates.RequestSpec{Within: row.CIDR.String(), Reserved: []string{row.Gateway.String()}})
	if err != nil {
		return nil, fromCandidates(err)
	}
	cs = &cachedSubnet{vpc: v, subnet: row, pool: cp, space: cp.spec.Space(req), within: req.Within, gateway: row.Gateway}
	if row.IPv6CIDR.IsValid() {
		cp6, err := s.cachedPool(ctx, namespace, candidates.PrivatePoolNameV6(vpc))
		if err != nil {
			return nil, err
		}
		req6, err := cp6.spec.ParseRequest(candidates.RequestSpec{Within: row.IPv6CIDR.String(), Reserved: []string{row.IPv6Gateway.String()}})
		if err != nil {
			return nil, fromCandidates(err)
		}
		cs.ipv6 = &subnetSide{pool: cp6, space: cp6.spec.Space(req6), within: req6.Within, gateway: row.IPv6Gateway}
	}
	s.poolsMu.Lock()
	s.subnets[key] = cs
	s.poolsMu.Unlock()
	return cs, nil
}

// subnetHolding returns the subnet of the private pool cp's VPC that holds
// the prefix within, or a refusal saying what to give.
func (s *Service) subnetHolding(ctx context.Context, cp *cachedPool, within netip.Prefix) (*cachedSubnet, error) {
	vpc := vpcOfPool(cp.row)
	if within.IsValid() {
		row, err := store.SubnetContaining(ctx, s.db, cp.row.VPCUID, within)
		if err == nil {
			return s.subnet(ctx, cp.row.Namespace, vpc, row.Name)
		}
		if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	rows, err := store.Subnets(ctx, s.db, cp.row.VPCUID)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, invalid("within", "%s", candidates.NoSubnet(cp.row.Namespace, vpc))
	}
	const listed = 8
	var cidrs []string
	for _, r := range rows {
		switch {
		case !cp.spec.Prefix.Addr().Is6():
			cidrs = append(cidrs, r.CIDR.String())
		case r.IPv6CIDR.IsValid():
			cidrs = append(cidrs, r.IPv6CIDR.String())
		}
	}
	switch {
	case len(cidrs) == 0:
		return nil, invalid("within", "VPC %s has no subnet with an IPv6 prefix: give one an IPv6 prefix when you create it (ipv6Cidr or ipv6PrefixLength)", vpc)
	case len(cidrs) > listed:
		cidrs = append(cidrs[:listed], fmt.Sprintf("and %d more", len(cidrs)-listed))
	}
	if !within.IsValid() {
		return nil, invalid("within", "within is required in private pool %s: give the cidr of a subnet of VPC %s (%s), or a prefix inside one",
			cp.row.Name, vpc, strings.Join(cidrs, ", "))
	}
	return nil, invalid("within", "within %s is not inside a subnet of VPC %s: give the cidr of one (%s), or a prefix inside one",
		within, vpc, strings.Join(cidrs, ", "))
}

// forgetSubnets drops the cached subnets of a VPC (all of them when name
// is empty: the VPC is gone).
func (s *Service) forgetSubnets(namespace, vpc string, names ...string) {
	s.poolsMu.Lock()
	defer s.poolsMu.Unlock()
	s.forgetLayoutLocked(namespace, vpc)
	if len(names) == 0 {
		prefix := subnetKey(namespace, vpc, "")
		for k := range s.subnets {
			if strings.HasPrefix(k, prefix) {
				delete(s.subnets, k)
			}
		}
		return
	}
	for _, n := range names {
		delete(s.subnets, subnetKey(namespace, vpc, n))
	}
}

// CreateSubnet carves a subnet out of a VPC: the prefix given (CIDR), or
// the lowest aligned block of a length (PrefixLength) that overlaps no
// other subnet. It lies inside the VPC's prefix and overlaps no sibling;
// its gateway, the first host unless given, is reserved in every claim of
// the subnet.
func (s *Service) CreateSubnet(ctx context.Context, actor auth.Actor, in CreateSubnetInput) (Subnet, error) {
	if err := checkNamespace("namespace", in.Namespace); err != nil {
		return Subnet{}, err
	}
	if err := checkName("vpc", in.VPC); err != nil {
		return Subnet{}, err
	}
	if _, err := checkSubnetInput(in); err != nil {
		return Subnet{}, err
	}
	if !actor.CanAccess(in.Namespace) {
		return Subnet{}, notFound("VPC", in.Namespace, in.VPC)
	}
	if sub, done, err := s.createSubnetFromView(ctx, actor, in); done {
		return sub, err
	}
	var vpc store.VPCRow
	var row store.SubnetRow
	var subs *vpcSubnets
	var gen uint64
	err := s.inTx(ctx, func(tx *store.Tx, _ *undoList) error {
		// The quota lock before the VPC's row, as every transaction takes
		// them (docs/allocation.md, "Quotas").
		if err := store.LockQuotas(ctx, tx, in.Namespace); err != nil {
			return err
		}
		var err error
		vpc, err = store.VPC(ctx, tx, in.Namespace, in.VPC, true)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("VPC", in.Namespace, in.VPC)
		}
		if err != nil {
			return err
		}
		if subs, gen, err = s.takeLayout(ctx, tx, vpc); err != nil {
			return err
		}
		row, err = s.createSubnetIn(ctx, tx, actor, vpc, in, subs)
		return err
	})
	if err != nil {
		return Subnet{}, err
	}
	s.keepLayout(vpc, subs, gen)
	return subnetFromRow(row, vpcFromRow(vpc)), nil
}

// createSubnetFromView creates the subnet in one statement
// (store.CreateSubnet), planned on this process's view of the VPC and its
// subnets, when it has one, and reports whether it is done: created, or
// failed for a reason other than those a transaction says in its words.
// It is not done when there is no view, when the plan is refused, or
// when the statement stored nothing (the VPC is not as seen, a quota is
// reached, the name or the prefix planned is taken, an address linked is
// refused): CreateSubnet's transaction then creates the subnet, planned
// on the siblings read afresh when another create took the prefix
// planned, or refuses it with its messages.
func (s *Service) createSubnetFromView(ctx context.Context, actor auth.Actor, in CreateSubnetInput) (Subnet, bool, error) {
	key := subnetKey(in.Namespace, in.VPC, "")
	s.poolsMu.Lock()
	subs, gen := s.layouts[key], s.layoutsGen
	delete(s.layouts, key)
	s.poolsMu.Unlock()
	if subs == nil {
		return Subnet{}, false, nil
	}
	vpc := subs.vpc
	defer s.keepLayout(vpc, subs, gen)
	plan, err := planSubnet(subs, vpc, in)
	if err != nil {
		return Subnet{}, false, nil
	}
	row := store.SubnetRow{UID: newUID(), VPCUID: vpc.UID, Name: in.Name, CIDR: plan.v4.Prefix, Gateway: plan.v4.Gateway,
		IPv6CIDR: plan.v6.Prefix, IPv6Gateway: plan.v6.Gateway, CreatedBy: actor.Name}
	row, err = store.CreateSubnet(ctx, s.db, store.SubnetCreate{VPC: vpc, Subnet: row,
		Pool: candidates.PrivatePoolName(vpc.Name), Never: neverLinked(plan.v4.Prefix, plan.v4.Gateway), Audit: subnetCreated(actor, vpc, row)})
	switch {
	case errors.Is(err, store.ErrTransactionNeeded):
		return Subnet{}, false, nil
	case err != nil:
		return Subnet{}, true, err
	}
	subs.add(row)
	return subnetFromRow(row, vpcFromRow(vpc)), true, nil
}

// subnetCreated is the audit entry of the subnet row of vpc created by
// actor.
func subnetCreated(actor auth.Actor, vpc store.VPCRow, row store.SubnetRow) store.AuditEntry {
	return store.AuditEntry{
		Actor: actor.Name, Action: audit.Create, Namespace: vpc.Namespace, ObjectKind: audit.KindSubnet, ObjectName: vpc.Name + "/" + row.Name,
		After: store.JSON(subnetAudit(row)),
	}
}

// A vpcSubnets is a VPC and its subnets as a process sees them: what a
// subnet is planned in, without reading the VPC or every sibling at each
// create (docs/allocation.md, "Subnets"). A create takes the VPC's out of
// Service.layouts, so that no other create of this process reads it
// meanwhile, and puts it back once it stored the subnet or stored nothing,
// unless views were dropped since (layoutsGen): a deletion here, made
// under the VPC's row lock, or a notification of one elsewhere. A view
// may lack a subnet created by another process, never hold one deleted
// but through a notification not yet received, or by a deletion here that
// began after the create took the view (the create is then as if made
// before it); the exclusion constraints turn away a plan made on a view
// that lacks a subnet, and the plan is made again on the siblings read
// afresh.
type vpcSubnets struct {
	vpc    store.VPCRow // as read with the subnets, or by the last create
	v4, v6 []candidates.NamedPrefix
	// merged4 and merged6 cover what v4 and v6 cover, siblings merged
	// into their parent, in address order: a subnet by size is planned
	// on them, which the lowest free block does not tell apart, so that
	// the plan does not sort every sibling at each create.
	merged4, merged6 []netip.Prefix
	readInTx         bool // read by the transaction that holds it
}

// loadVPCSubnets reads the subnets of vpc as ext sees them.
func loadVPCSubnets(ctx context.Context, ext store.Ext, vpc store.VPCRow) (*vpcSubnets, error) {
	rows, err := store.Subnets(ctx, ext, vpc.UID)
	if err != nil {
		return nil, err
	}
	subs := &vpcSubnets{vpc: vpc, v4: make([]candidates.NamedPrefix, 0, len(rows)), readInTx: true}
	for _, r := range rows {
		subs.v4 = append(subs.v4, candidates.NamedPrefix{Name: r.Name, Prefix: r.CIDR})
		if r.IPv6CIDR.IsValid() {
			subs.v6 = append(subs.v6, candidates.NamedPrefix{Name: r.Name, Prefix: r.IPv6CIDR})
		}
	}
	subs.merged4, subs.merged6 = mergedPrefixes(subs.v4), mergedPrefixes(subs.v6)
	return subs, nil
}

// add records the subnet row.
func (v *vpcSubnets) add(r store.SubnetRow) {
	v.v4 = append(v.v4, candidates.NamedPrefix{Name: r.Name, Prefix: r.CIDR})
	v.merged4 = mergeInto(v.merged4, r.CIDR)
	if r.IPv6CIDR.IsValid() {
		v.v6 = append(v.v6, candidates.NamedPrefix{Name: r.Name, Prefix: r.IPv6CIDR})
		v.merged6 = mergeInto(v.merged6, r.IPv6CIDR)
	}
}

// layout returns the VPC's prefix of the family f and its subnets' of
// that family: to plan the prefix req gives, none when none overlaps it
// (found in the merged prefixes), else named (the overlap names the
// lowest); to plan a prefix by size, merged.
func (v *vpcSubnets) layout(vpc VPC, f Family, req candidates.SubnetRequest) candidates.VPCLayout {
	l := candidates.VPCLayout{Name: vpc.Name, Prefix: vpc.CIDR, Subnets: v.v4}
	merged := v.merged4
	if f == IPv6 {
		l.Prefix, l.Subnets, merged = vpc.IPv6CIDR, v.v6, v.merged6
	}
	switch {
	case req.Prefix.IsValid() && !overlapsAny(merged, req.Prefix):
		l.Subnets = nil
	case !req.Prefix.IsValid():
		l.Subnets = make([]candidates.NamedPrefix, len(merged))
		for i, p := range merged {
			l.Subnets[i] = candidates.NamedPrefix{Prefix: p}
		}
	}
	return l
}

// overlapsAny reports whether p overlaps one of merged (as mergedPrefixes
// returns them): the last that starts before p, which may hold it, or the
// first that starts in it.
func overlapsAny(merged []netip.Prefix, p netip.Prefix) bool {
	i, _ := slices.BinarySearchFunc(merged, p, func(a, b netip.Prefix) int { return a.Addr().Compare(b.Addr()) })
	return i < len(merged) && merged[i].Overlaps(p) || i > 0 && merged[i-1].Overlaps(p)
}

// mergedPrefixes returns the prefixes of subnets, which overlap none of
// each other, in address order with siblings merged into their parent.
func mergedPrefixes(subnets []candidates.NamedPrefix) []netip.Prefix {
	ps := make([]netip.Prefix, len(subnets))
	for i, s := range subnets {
		ps[i] = s.Prefix
	}
	slices.SortFunc(ps, func(a, b netip.Prefix) int { return a.Addr().Compare(b.Addr()) })
	out := ps[:0]
	for _, p := range ps {
		out = append(out, p)
		for n := len(out); n >= 2; n = len(out) {
			parent, ok := siblingsParent(out[n-2], out[n-1])
			if !ok {
				break
			}
			out = append(out[:n-2], parent)
		}
	}
	return out
}

// mergeInto adds p, which overlaps none of merged, to merged (as
// mergedPrefixes returns it).
func mergeInto(merged []netip.Prefix, p netip.Prefix) []netip.Prefix {
	i, _ := slices.BinarySearchFunc(merged, p, func(a, b netip.Prefix) int { return a.Addr().Compare(b.Addr()) })
	merged = slices.Insert(merged, i, p)
	for {
		if i > 0 {
			if parent, ok := siblingsParent(merged[i-1], merged[i]); ok {
				merged = slices.Replace(merged, i-1, i+1, parent)
				i--
				continue
			}
		}
		if i+1 < len(merged) {
			if parent, ok := siblingsParent(merged[i], merged[i+1]); ok {
				merged = slices.Replace(merged, i, i+2, parent)
				continue
			}
		}
		return merged
	}
}

// siblingsParent returns the parent of the prefixes a and b when they are
// its lower and upper halves.
func siblingsParent(a, b netip.Prefix) (netip.Prefix, bool) {
	if a.Bits() != b.Bits() || a.Bits() == 0 || a.Addr().Is4() != b.Addr().Is4() || a.Addr().Compare(b.Addr()) >= 0 {
		return netip.Prefix{}, false
	}
	parent := netip.PrefixFrom(a.Addr(), a.Bits()-1).Masked()
	if netip.PrefixFrom(b.Addr(), b.Bits()-1).Masked() != parent {
		return netip.Prefix{}, false
	}
	return parent, true
}

// takeLayout takes this process's view of the subnets of vpc, whose row
// tx has locked, out of s.layouts, or reads them when it has none; and
// the count of dropped views keepLayout checks.
func (s *Service) takeLayout(ctx context.Context, tx *store.Tx, vpc store.VPCRow) (*vpcSubnets, uint64, error) {
	key := subnetKey(vpc.Namespace, vpc.Name, "")
	s.poolsMu.Lock()
	subs, gen := s.layouts[key], s.layoutsGen
	delete(s.layouts, key)
	s.poolsMu.Unlock()
	if subs != nil && subs.vpc.UID == vpc.UID {
		subs.vpc, subs.readInTx = vpc, false
		return subs, gen, nil
	}
	subs, err := loadVPCSubnets(ctx, tx, vpc)
	return subs, gen, err
}

// keepLayout puts back the view subs of vpc's subnets once the
// transaction that took it committed, unless views were dropped since it
// was taken (gen) or another is there.
func (s *Service) keepLayout(vpc store.VPCRow, subs *vpcSubnets, gen uint64) {
	key := subnetKey(vpc.Namespace, vpc.Name, "")
	s.poolsMu.Lock()
	defer s.poolsMu.Unlock()
	if _, ok := s.layouts[key]; !ok && s.layoutsGen == gen {
		s.layouts[key] = subs
	}
}

// forgetLayoutLocked drops the view of the VPC's subnets; s.poolsMu is
// held.
func (s *Service) forgetLayoutLocked(namespace, vpc string) {
	delete(s.layouts, subnetKey(namespace, vpc, ""))
	s.layoutsGen++
}

// checkSubnetInput checks what CreateSubnet can check without the
// database, as the browser's prediction does: every mistake at once.
func checkSubnetInput(in CreateSubnetInput) (candidates.SubnetRequest, error) {
	req, err := candidates.ParseSubnetSpec(candidates.SubnetSpec{CIDR: in.CIDR, PrefixLength: in.PrefixLength, Gateway: in.Gateway})
	_, err6 := ipv6SubnetRequest(in)
	if err := refusal.Collect(checkName("name", in.Name), err, err6); err != nil {
		return candidates.SubnetRequest{}, err
	}
	return req, nil
}

// defaultIPv6SubnetBits is the length of a subnet's IPv6 prefix in a
// dual-stack VPC when neither its IPv6 prefix nor a length is given.
const defaultIPv6SubnetBits = 64

// ipv6SubnetRequest reads the IPv6 prefix of a new subnet: the one given
// (IPv6CIDR), or the length of the lowest free one (IPv6PrefixLength,
// default 64), with the enumerator's checks and messages under the IPv6
// fields' names.
func ipv6SubnetRequest(in CreateSubnetInput) (candidates.SubnetRequest, error) {
	spec := candidates.SubnetSpec{CIDR: in.IPv6CIDR, PrefixLength: in.IPv6PrefixLength}
	switch {
	case spec.CIDR != "" && spec.PrefixLength != 0:
		return candidates.SubnetRequest{}, invalid("ipv6Cidr", "ipv6Cidr and ipv6PrefixLength both name the subnet's IPv6 prefix: give one of them")
	case spec.CIDR == "" && spec.PrefixLength == 0:
		spec.PrefixLength = defaultIPv6SubnetBits
	}
	req, err := candidates.ParseSubnetSpecV6(spec)
	if err != nil {
		return candidates.SubnetRequest{}, renameFields(err, ipv6Fields)
	}
	return req, nil
}

// ipv6Fields renames the enumerator's fields of a subnet or a VPC to their
// IPv6 fields'.
var ipv6Fields = map[string]string{"cidr": "ipv6Cidr", "prefixLength": "ipv6PrefixLength", "gateway": "ipv6Gateway"}

// renameFields renames the fields of the enumerator's mistakes in err by
// names, in each message's first word too.
func renameFields(err error, names map[string]string) error {
	var errs candidates.Errors
	if !errors.As(err, &errs) {
		return fromCandidates(err)
	}
	out := make([]error, 0, len(errs))
	for _, e := range errs {
		field, msg := e.Field, e.Message
		if to, ok := names[field]; ok {
			if rest, ok := strings.CutPrefix(msg, field); ok {
				msg = to + rest
			}
			field = to
		}
		out = append(out, &refusal.InvalidError{Field: field, Message: msg})
	}
	return refusal.Collect(out...)
}

// createSubnet creates a subnet of vpc, whose row tx has locked, planned
// on its siblings read in tx.
func (s *Service) createSubnet(ctx context.Context, tx *store.Tx, actor auth.Actor, vpc store.VPCRow, in CreateSubnetInput) (store.SubnetRow, error) {
	subs, err := loadVPCSubnets(ctx, tx, vpc)
	if err != nil {
		return store.SubnetRow{}, err
	}
	return s.createSubnetIn(ctx, tx, actor, vpc, in, subs)
}

// createSubnetIn creates a subnet of vpc, whose row tx has locked: of two
// transactions creating subnets in one VPC, the second reads the first's
// subnet (READ COMMITTED). It is refused past the namespace's quotas of
// subnets. Its prefix and gateway are planned as the browser predicts
// them (candidates.VPCLayout.Plan) on subs, the VPC's subnets, which it
// records the new one in; when subs was not read in tx and the insert is
// turned away, they are read afresh and the subnet planned again. The
// exclusion constraints subnets_no_overlap and subnets_ipv6_no_overlap
// refuse an overlap whatever happens.
func (s *Service) createSubnetIn(ctx context.Context, tx *store.Tx, actor auth.Actor, vpc store.VPCRow, in CreateSubnetInput, subs *vpcSubnets) (store.SubnetRow, error) {
	if _, err := checkSubnetInput(in); err != nil {
		return store.SubnetRow{}, err
	}
	plan, err := planSubnet(subs, vpc, in)
	if err != nil {
		return store.SubnetRow{}, err
	}
	if _, err := s.checkQuota(ctx, tx, vpc.Namespace, QuotaSubnets); err != nil {
		return store.SubnetRow{}, err
	}
	var row store.SubnetRow
	for {
		row, err = store.InsertSubnet(ctx, tx, store.SubnetRow{UID: newUID(), VPCUID: vpc.UID, Name: in.Name, CIDR: plan.v4.Prefix, Gateway: plan.v4.Gateway,
			IPv6CIDR: plan.v6.Prefix, IPv6Gateway: plan.v6.Gateway, CreatedBy: actor.Name})
		if !errors.Is(err, store.ErrObjectExists) || subs.readInTx {
			break
		}
		// The view lacks a subnet made by another process: plan again on
		// the siblings as tx sees them.
		if subs, err = loadVPCSubnets(ctx, tx, vpc); err != nil {
			return store.SubnetRow{}, err
		}
		if plan, err = planSubnet(subs, vpc, in); err != nil {
			return store.SubnetRow{}, err
		}
	}
	if errors.Is(err, store.ErrObjectExists) {
		if err := overlapRefusal(ctx, tx, vpc, plan.v4.Prefix); err != nil {
			return store.SubnetRow{}, err
		}
		if plan.v6.Prefix.IsValid() {
			if err := overlapRefusal(ctx, tx, vpc, plan.v6.Prefix); err != nil {
				return store.SubnetRow{}, err
			}
		}
		return store.SubnetRow{}, conflict("subnet %s exists already in VPC %s/%s", in.Name, vpc.Namespace, vpc.Name)
	}
	if err != nil {
		return store.SubnetRow{}, err
	}
	subs.add(row)
	if err := s.linkAddresses(ctx, tx, vpc, row, plan.v4.Prefix, plan.v4.Gateway); err != nil {
		return store.SubnetRow{}, err
	}
	return row, store.InsertAudit(ctx, tx, subnetCreated(actor, vpc, row))
}

// A dualPlan is what a new subnet gets in each family; v6 is zero in a
// VPC without an IPv6 prefix.
type dualPlan struct{ v4, v6 candidates.SubnetPlan }

// planSubnet plans the prefixes and gateways of the subnet in among the
// subnets subs of vpc.
func planSubnet(subs *vpcSubnets, vpc store.VPCRow, in CreateSubnetInput) (dualPlan, error) {
	var out dualPlan
	req, err := checkSubnetInput(in)
	if err != nil {
		return out, err
	}
	v := vpcFromRow(vpc)
	if out.v4, err = subs.layout(v, IPv4, req).Plan(req); err != nil {
		return out, fromPlan(err)
	}
	if vpc.IPv6CIDR.IsValid() {
		if out.v6, err = planIPv6Subnet(subs, v, in); err != nil {
			return out, err
		}
	} else if in.IPv6CIDR != "" || in.IPv6PrefixLength != 0 {
		field := "ipv6Cidr"
		if in.IPv6CIDR == "" {
			field = "ipv6PrefixLength"
		}
		return out, invalid(field, "VPC %s/%s has no IPv6 prefix, so its subnets have none: leave %s out", vpc.Namespace, vpc.Name, field)
	}
	return out, nil
}

// fromPlan turns the refusal of a subnet's plan into the domain's: an
// overlap is a conflict of its cidr (ipv6Cidr for an IPv6 prefix), no free
// prefix an exhausted VPC.
func fromPlan(err error) error {
	var overlap *candidates.OverlapError
	var none *candidates.NoFreePrefixError
	switch {
	case errors.As(err, &overlap) && overlap.Prefix.Addr().Is6():
		return fieldConflict("ipv6Cidr", "ipv6Cidr%s", strings.TrimPrefix(overlap.Error(), "cidr"))
	case errors.As(err, &overlap):
		return fieldConflict("cidr", "%s", overlap.Error())
	case errors.As(err, &none):
		return &ExhaustedError{VPC: none.VPC, Bits: none.Bits, Scope: none.Scope}
	}
	return fromCandidates(err)
}

// planIPv6Subnet plans the IPv6 prefix of a new subnet of the dual-stack
// VPC v among its subnets subs: the one given, inside the VPC's IPv6
// prefix and overlapping no sibling's, or the lowest free aligned one of
// its length; its gateway is its first host address, the one after the
// subnet-router anycast address (candidates.DefaultGateway). The
// exclusion constraint subnets_ipv6_no_overlap refuses an overlap
// whatever happens.
func planIPv6Subnet(subs *vpcSubnets, v VPC, in CreateSubnetInput) (candidates.SubnetPlan, error) {
	req, err := ipv6SubnetRequest(in)
	if err != nil {
		return candidates.SubnetPlan{}, err
	}
	plan, err := subs.layout(v, IPv6, req).Plan(req)
	var errs candidates.Errors
	if errors.As(err, &errs) {
		return candidates.SubnetPlan{}, renameFields(err, ipv6Fields)
	}
	if err != nil {
		return candidates.SubnetPlan{}, fromPlan(err)
	}
	return plan, nil
}

// vpcLayout returns the VPC's prefix of the family f and its subnets' of
// that family, as ext sees them.
func vpcLayout(ctx context.Context, ext store.Ext, v VPC, f Family) (candidates.VPCLayout, error) {
	rows, err := store.Subnets(ctx, ext, v.UID)
	if err != nil {
		return candidates.VPCLayout{}, err
	}
	layout := candidates.VPCLayout{Name: v.Name, Prefix: v.CIDR, Subnets: make([]candidates.NamedPrefix, 0, len(rows))}
	if f == IPv6 {
		layout.Prefix = v.IPv6CIDR
	}
	for _, r := range rows {
		p := r.CIDR
		if f == IPv6 {
			p = r.IPv6CIDR
		}
		if p.IsValid() {
			layout.Subnets = append(layout.Subnets, candidates.NamedPrefix{Name: r.Name, Prefix: p})
		}
	}
	return layout, nil
}

// nextSubnets returns the next count prefixes of length bits that subnets
// of the VPC would get, as the browser computes them: the same code, the
// same messages.
func nextSubnets(layout candidates.VPCLayout, bits, count int) ([]netip.Prefix, error) {
	subnets := make([]string, len(layout.Subnets))
	for i, s := range layout.Subnets {
		subnets[i] = s.Prefix.String()
	}
	out := candidates.SubnetPreview(candidates.SubnetPreviewInput{VPC: layout.Name, CIDR: layout.Prefix.String(), Subnets: subnets, PrefixLength: bits, Count: count})
	switch {
	case !out.Valid:
		return nil, fromCandidates(out.Errors)
	case len(out.Next) == 0:
		return nil, &ExhaustedError{VPC: layout.Name, Bits: bits, Scope: layout.Prefix}
	}
	return out.Next, nil
}

// overlapRefusal refuses cidr if it overlaps a subnet of the VPC.
func overlapRefusal(ctx context.Context, tx *store.Tx, vpc store.VPCRow, cidr netip.Prefix) error {
	other, err := store.OverlappingSubnet(ctx, tx, vpc.UID, cidr)
	switch {
	case err == nil:
		return fromPlan(&candidates.OverlapError{VPC: vpc.Name, Prefix: cidr, Subnet: candidates.NamedPrefix{Name: other.Name, Prefix: other.CIDR}})
	case errors.Is(err, store.ErrNotFound):
		return nil
	}
	return err
}

// linkAddresses makes the new subnet row the subnet of the addresses of the
// VPC's pool in its prefix (addresses claimed before subnets had to hold
// every private address), refusing if one is the subnet's network,
// broadcast or gateway address.
func (s *Service) linkAddresses(ctx context.Context, tx *store.Tx, vpc store.VPCRow, row store.SubnetRow, cidr netip.Prefix, gateway netip.Addr) error {
	pool, err := store.Pool(ctx, tx, vpc.Namespace, candidates.PrivatePoolName(vpc.Name))
	if err != nil {
		return err
	}
	addrs, err := store.LinkAllocations(ctx, tx, pool.UID, row.UID, cidr)
	if err != nil {
		return err
	}
	never := neverLinked(cidr, gateway)
	for _, a := range addrs {
		switch {
		case a == gateway:
			return fieldConflict("gateway", "%s, the gateway of subnet %s, is held already; give another gateway or release it first", a, cidr)
		case slices.Contains(never, a):
			return fieldConflict("cidr", "%s, an edge of subnet %s, is held already; release it first", a, cidr)
		}
	}
	return nil
}

// neverLinked returns the addresses of the IPv4 subnet of prefix cidr
// and gateway that no address held before it may be: its gateway and, in
// a /30 or a larger one, its network and broadcast addresses.
func neverLinked(cidr netip.Prefix, gateway netip.Addr) []netip.Addr {
	if cidr.Bits() > 30 {
		return []netip.Addr{gateway}
	}
	first, last := candidates.Bounds(cidr)
	return []netip.Addr{gateway, first, last}
}

// PreviewSubnet returns the next count free prefixes of length bits a
// subnet of the VPC would get, lowest first; nothing is stored.
func (s *Service) PreviewSubnet(ctx context.Context, actor auth.Actor, namespace, vpc string, bits, count int) ([]netip.Prefix, error) {
	v, err := s.VPC(ctx, actor, namespace, vpc)
	if err != nil {
		return nil, err
	}
	layout, err := vpcLayout(ctx, s.db, v, IPv4)
	if err != nil {
		return nil, err
	}
	return nextSubnets(layout, bits, count)
}

// DeleteSubnet deletes a subnet and the node addresses in it. A subnet
// that still holds VM interfaces is refused, also one attached while the
// delete runs: the delete keeps VM interfaces, and the foreign key of any
// left refuses it.
func (s *Service) DeleteSubnet(ctx context.Context, actor auth.Actor, namespace, vpc, name string) error {
	if err := checkNamespace("namespace", namespace); err != nil {
		return err
	}
	if err := checkName("vpc", vpc); err != nil {
		return err
	}
	if err := checkName("name", name); err != nil {
		return err
	}
	if !actor.CanAccess(namespace) {
		return notFound("subnet", namespace, vpc+"/"+name)
	}
	var pool store.PoolRow
	var pools []store.PoolRow // the VPC's pools: IPv4, then IPv6
	var sub store.SubnetRow
	err := s.inTx(ctx, func(tx *store.Tx, _ *undoList) error {
		v, err := store.VPC(ctx, tx, namespace, vpc, true)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("VPC", namespace, vpc)
		}
		if err != nil {
			return err
		}
		// Under the VPC's lock, before the subnet goes: no create of this
		// process plans on a view that holds it (vpcSubnets).
		s.poolsMu.Lock()
		s.forgetLayoutLocked(namespace, vpc)
		s.poolsMu.Unlock()
		sub, err = store.Subnet(ctx, tx, v.UID, name)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("subnet", namespace, vpc+"/"+name)
		}
		if err != nil {
			return err
		}
		if pool, err = store.Pool(ctx, tx, namespace, candidates.PrivatePoolName(vpc)); err != nil {
			return err
		}
		pools = []store.PoolRow{pool}
		if v.IPv6CIDR.IsValid() {
			pool6, err := store.Pool(ctx, tx, namespace, candidates.PrivatePoolNameV6(vpc))
			if err != nil {
				return err
			}
			pools = append(pools, pool6)
		}
		if err := s.refuseVMsIn(ctx, tx, pools, sub.UID, "subnet "+name+" of VPC "+namespace+"/"+vpc); err != nil {
			return err
		}
		for _, p := range pools {
			if _, err := store.ReleaseAllocations(ctx, tx, p.UID, sub.UID, string(OwnerVirtualMachine), p.Name, actor.Name); err != nil {
				return err
			}
		}
		if err := store.DeleteSubnet(ctx, tx, sub.UID); err != nil {
			return err
		}
		return store.InsertAudit(ctx, tx, store.AuditEntry{
			Actor: actor.Name, Action: audit.Delete, Namespace: namespace, ObjectKind: audit.KindSubnet, ObjectName: vpc + "/" + name,
			Before: store.JSON(subnetAudit(sub)),
		})
	})
	if errors.Is(err, store.ErrInUse) {
		err = s.inUse(ctx, pool.UID, sub.UID, "subnet "+name+" of VPC "+namespace+"/"+vpc)
	}
	s.forgetSubnets(namespace, vpc, name)
	if err == nil {
		for _, p := range pools {
			s.views.forget(p.UID)
		}
	}
	return err
}

// inUse explains why the delete of what failed on a foreign key: a VM
// interface was attached to it while the delete ran.
func (s *Service) inUse(ctx context.Context, poolUID, subnetUID, what string) error {
	if err := s.refuseVMs(ctx, s.db, poolUID, subnetUID, what); err != nil {
		return err
	}
	return conflict("%s was given an address while it was being deleted; try again", what)
}

// refuseVMs refuses to delete what (a subnet, a VPC) while the pool (its
// subnet subnetUID, when not empty) holds VM interfaces.
func (s *Service) refuseVMs(ctx context.Context, ext store.Ext, poolUID, subnetUID, what string) error {
	vms, err := store.CountAllocationsOfKind(ctx, ext, poolUID, subnetUID, string(OwnerVirtualMachine))
	switch {
	case err != nil:
		return err
	case vms > 0:
		return vmsLeft(what, vms)
	}
	return nil
}

// refuseVMsIn refuses to delete what while the pools of its VPC (its
// subnet subnetUID, when not empty) hold VM interfaces: a NIC holds an
// address of each family, so the pool that holds the most counts them.
func (s *Service) refuseVMsIn(ctx context.Context, ext store.Ext, pools []store.PoolRow, subnetUID, what string) error {
	most := 0
	for _, p := range pools {
		n, err := store.CountAllocationsOfKind(ctx, ext, p.UID, subnetUID, string(OwnerVirtualMachine))
		if err != nil {
			return err
		}
		most = max(most, n)
	}
	if most > 0 {
		return vmsLeft(what, most)
	}
	return nil
}

// vmsLeft refuses to delete what while it has n VM interfaces.
func vmsLeft(what string, n int) error {
	return conflict("%s still has %s; detach %s first", what, plural(n, "VM interface", "VM interfaces"), them(n))
}

// Subnets lists a VPC's subnets in address order.
func (s *Service) Subnets(ctx context.Context, actor auth.Actor, v VPC) ([]Subnet, error) {
	if !actor.CanAccess(v.Namespace) {
		return nil, notFound("VPC", v.Namespace, v.Name)
	}
	rows, err := store.Subnets(ctx, s.db, v.UID)
	if err != nil {
		return nil, err
	}
	out := make([]Subnet, 0, len(rows))
	for _, r := range rows {
		out = append(out, subnetFromRow(r, v))
	}
	return out, nil
}

// SubnetUsage returns how full a subnet is: its candidates are its host
// addresses less its gateway. As PoolUsage, the figures are this process's
// view of the VPC's pool, read without a query whatever the subnet's size
// (the time of a tenant's VPC page must not grow with its subnets):
// exact for what this process claimed and for releases anywhere; claims
// made by other processes count once this process meets them, or at the
// next refresh of the views.
func (s *Service) SubnetUsage(ctx context.Context, actor auth.Actor, sub Subnet) (usage.Figures, error) {
	return s.subnetUsage(ctx, actor, sub, IPv4)
}

// SubnetIPv6Usage returns how full a subnet's IPv6 prefix is, in
// addresses, exact at 128 bits: its candidates leave out the subnet-router
// anycast address and the gateway. The zero Figures for a subnet without
// an IPv6 prefix.
func (s *Service) SubnetIPv6Usage(ctx context.Context, actor auth.Actor, sub Subnet) (usage.Figures, error) {
	return s.subnetUsage(ctx, actor, sub, IPv6)
}

// subnetUsage returns how full the subnet's side of the family f is.
func (s *Service) subnetUsage(ctx context.Context, actor auth.Actor, sub Subnet, f Family) (usage.Figures, error) {
	if !actor.CanAccess(sub.Namespace) {
		return usage.Figures{}, notFound("subnet", sub.Namespace, sub.VPC+"/"+sub.Name)
	}
	cs, err := s.subnet(ctx, sub.Namespace, sub.VPC, sub.Name)
	if err != nil {
		return usage.Figures{}, err
	}
	side, ok := cs.side(f)
	if !ok {
		return usage.Figures{}, nil
	}
	pv, err := s.views.pool(ctx, side.pool.row.UID)
	if err != nil {
		return usage.Figures{}, err
	}
	var free candidates.Count
	pv.Read(func(taken candidates.Set) { free = side.space.FreeCount(taken) })
	size := side.space.Count()
	return usage.Exact(size, size.Sub(free), ""), nil
}

// VPCIPv6Usage returns how much of the VPC's IPv6 prefix its subnets take,
// in prefixes of length bits (64 when 0): "3 of 65,536 /64s" for a /48. A
// subnet longer than /bits takes the /bits it lies in. The zero Figures
// for a VPC without an IPv6 prefix.
func (s *Service) VPCIPv6Usage(ctx context.Context, actor auth.Actor, v VPC, bits int) (usage.Figures, error) {
	if !actor.CanAccess(v.Namespace) {
		return usage.Figures{}, notFound("VPC", v.Namespace, v.Name)
	}
	if bits == 0 {
		bits = defaultIPv6SubnetBits
	}
	if !v.IPv6CIDR.IsValid() {
		return usage.Figures{}, nil
	}
	if bits < v.IPv6CIDR.Bits() || bits > 128 {
		return usage.Figures{}, invalid("prefixLength", "prefixLength %d is out of range for VPC %s's %s: %d to 128", bits, v.Name, v.IPv6CIDR, v.IPv6CIDR.Bits())
	}
	rows, err := store.Subnets(ctx, s.db, v.UID)
	if err != nil {
		return usage.Figures{}, err
	}
	subnets := make([]netip.Prefix, len(rows))
	for i, r := range rows {
		subnets[i] = r.IPv6CIDR
	}
	return prefixesTaken(v.IPv6CIDR, subnets, bits), nil
}

// prefixesTaken counts the prefixes of length bits of prefix that the
// subnets' IPv6 prefixes take (the invalid ones, of IPv4 subnets, take
// none): a subnet longer than /bits takes the /bits it lies in.
func prefixesTaken(prefix netip.Prefix, subnets []netip.Prefix, bits int) usage.Figures {
	var used candidates.Count
	touched := map[netip.Prefix]bool{}
	for _, p := range subnets {
		switch {
		case !p.IsValid():
		case p.Bits() <= bits:
			used = used.Add(candidates.PrefixCount(p, bits))
		default:
			touched[netip.PrefixFrom(p.Addr(), bits).Masked()] = true
		}
	}
	used = used.Add(candidates.CountOf(uint64(len(touched))))
	return usage.Exact(candidates.PrefixCount(prefix, bits), used, usage.Prefixes(bits))
}

// SubnetAllocations returns a page of a subnet's allocations.
func (s *Service) SubnetAllocations(ctx context.Context, actor auth.Actor, sub Subnet, page Page) (AllocationPage, error) {
	if !actor.CanAccess(sub.Namespace) {
		return AllocationPage{}, notFound("subnet", sub.Namespace, sub.VPC+"/"+sub.Name)
	}
	cs, err := s.subnet(ctx, sub.Namespace, sub.VPC, sub.Name)
	if err != nil {
		return AllocationPage{}, err
	}
	return s.allocationPage(ctx, store.AllocationFilter{PoolUID: cs.pool.row.UID, SubnetUID: cs.subnet.UID}, cs.pool.row.Name, page, nil)
}
