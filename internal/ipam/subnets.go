package ipam

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
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
}

// spaceFor returns the candidates of a request made in the subnet for
// req.Within, the subnet or a prefix inside it: never the subnet's network,
// broadcast or gateway address, nor req's reserved addresses.
func (cs *cachedSubnet) spaceFor(req candidates.Request) candidates.Space {
	if req.Within == cs.within && req.Reserved.Len() == 0 {
		return cs.space
	}
	never := []netip.Addr{cs.gateway}
	if cs.within.Bits() <= 30 {
		first, last := candidates.Bounds(cs.within)
		never = append(never, first, last)
	}
	req.Reserved = req.Reserved.Union(candidates.SetOf(never...))
	return cs.pool.spec.Space(req)
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
	cidrs := make([]string, 0, listed+1)
	for i, r := range rows {
		if i == listed {
			cidrs = append(cidrs, fmt.Sprintf("and %d more", len(rows)-listed))
			break
		}
		cidrs = append(cidrs, r.CIDR.String())
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
	var vpc store.VPCRow
	var row store.SubnetRow
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
		row, err = s.createSubnet(ctx, tx, actor, vpc, in)
		return err
	})
	if err != nil {
		return Subnet{}, err
	}
	return subnetFromRow(row, vpcFromRow(vpc)), nil
}

// checkSubnetInput checks what CreateSubnet can check without the
// database, as the browser's prediction does: every mistake at once.
func checkSubnetInput(in CreateSubnetInput) (candidates.SubnetRequest, error) {
	req, err := candidates.ParseSubnetSpec(candidates.SubnetSpec{CIDR: in.CIDR, PrefixLength: in.PrefixLength, Gateway: in.Gateway})
	if err := refusal.Collect(checkName("name", in.Name), err); err != nil {
		return candidates.SubnetRequest{}, err
	}
	return req, nil
}

// createSubnet creates a subnet of vpc, whose row tx has locked: of two
// transactions creating subnets in one VPC, the second reads the first's
// subnet (READ COMMITTED). It is refused past the namespace's quotas of
// subnets. Its prefix and gateway are planned as the
// browser predicts them (candidates.VPCLayout.Plan); the exclusion
// constraint subnets_no_overlap refuses an overlap whatever happens.
func (s *Service) createSubnet(ctx context.Context, tx *store.Tx, actor auth.Actor, vpc store.VPCRow, in CreateSubnetInput) (store.SubnetRow, error) {
	req, err := checkSubnetInput(in)
	if err != nil {
		return store.SubnetRow{}, err
	}
	layout, err := vpcLayout(ctx, tx, vpcFromRow(vpc))
	if err != nil {
		return store.SubnetRow{}, err
	}
	plan, err := layout.Plan(req)
	if err != nil {
		return store.SubnetRow{}, fromPlan(err)
	}
	if _, err := s.checkQuota(ctx, tx, vpc.Namespace, QuotaSubnets); err != nil {
		return store.SubnetRow{}, err
	}
	cidr, gateway := plan.Prefix, plan.Gateway
	row, err := store.InsertSubnet(ctx, tx, store.SubnetRow{UID: newUID(), VPCUID: vpc.UID, Name: in.Name, CIDR: cidr, Gateway: gateway, CreatedBy: actor.Name})
	if errors.Is(err, store.ErrObjectExists) {
		if err := overlapRefusal(ctx, tx, vpc, cidr); err != nil {
			return store.SubnetRow{}, err
		}
		return store.SubnetRow{}, conflict("subnet %s exists already in VPC %s/%s", in.Name, vpc.Namespace, vpc.Name)
	}
	if err != nil {
		return store.SubnetRow{}, err
	}
	if err := s.linkAddresses(ctx, tx, vpc, row, cidr, gateway); err != nil {
		return store.SubnetRow{}, err
	}
	return row, store.InsertAudit(ctx, tx, store.AuditEntry{
		Actor: actor.Name, Action: audit.Create, Namespace: vpc.Namespace, ObjectKind: audit.KindSubnet, ObjectName: vpc.Name + "/" + in.Name,
		After: store.JSON(subnetAudit(row)),
	})
}

// fromPlan turns the refusal of a subnet's plan into the domain's: an
// overlap is a conflict of its cidr, no free prefix an exhausted VPC.
func fromPlan(err error) error {
	var overlap *candidates.OverlapError
	var none *candidates.NoFreePrefixError
	switch {
	case errors.As(err, &overlap):
		return fieldConflict("cidr", "%s", overlap.Error())
	case errors.As(err, &none):
		return &ExhaustedError{VPC: none.VPC, Bits: none.Bits, Scope: none.Scope}
	}
	return fromCandidates(err)
}

// vpcLayout returns the VPC's prefix and its subnets, as ext sees them.
func vpcLayout(ctx context.Context, ext store.Ext, v VPC) (candidates.VPCLayout, error) {
	rows, err := store.Subnets(ctx, ext, v.UID)
	if err != nil {
		return candidates.VPCLayout{}, err
	}
	layout := candidates.VPCLayout{Name: v.Name, Prefix: v.CIDR, Subnets: make([]candidates.NamedPrefix, 0, len(rows))}
	for _, r := range rows {
		layout.Subnets = append(layout.Subnets, candidates.NamedPrefix{Name: r.Name, Prefix: r.CIDR})
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
	first, last := candidates.Bounds(cidr)
	for _, a := range addrs {
		switch {
		case a == gateway:
			return fieldConflict("gateway", "%s, the gateway of subnet %s, is held already; give another gateway or release it first", a, cidr)
		case cidr.Bits() <= 30 && (a == first || a == last):
			return fieldConflict("cidr", "%s, an edge of subnet %s, is held already; release it first", a, cidr)
		}
	}
	return nil
}

// PreviewSubnet returns the next count free prefixes of length bits a
// subnet of the VPC would get, lowest first; nothing is stored.
func (s *Service) PreviewSubnet(ctx context.Context, actor auth.Actor, namespace, vpc string, bits, count int) ([]netip.Prefix, error) {
	v, err := s.VPC(ctx, actor, namespace, vpc)
	if err != nil {
		return nil, err
	}
	layout, err := vpcLayout(ctx, s.db, v)
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
	var sub store.SubnetRow
	err := s.inTx(ctx, func(tx *store.Tx, _ *undoList) error {
		v, err := store.VPC(ctx, tx, namespace, vpc, true)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("VPC", namespace, vpc)
		}
		if err != nil {
			return err
		}
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
		if err := s.refuseVMs(ctx, tx, pool.UID, sub.UID, "subnet "+name+" of VPC "+namespace+"/"+vpc); err != nil {
			return err
		}
		if _, err := store.ReleaseAllocations(ctx, tx, pool.UID, sub.UID, string(OwnerVirtualMachine), pool.Name, actor.Name); err != nil {
			return err
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
		if cp, cerr := s.cachedPool(ctx, namespace, candidates.PrivatePoolName(vpc)); cerr == nil {
			s.views.forget(cp.row.UID)
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
	if !actor.CanAccess(sub.Namespace) {
		return usage.Figures{}, notFound("subnet", sub.Namespace, sub.VPC+"/"+sub.Name)
	}
	cs, err := s.subnet(ctx, sub.Namespace, sub.VPC, sub.Name)
	if err != nil {
		return usage.Figures{}, err
	}
	pv, err := s.views.pool(ctx, cs.pool.row.UID)
	if err != nil {
		return usage.Figures{}, err
	}
	var free int
	pv.Read(func(taken candidates.Set) { free = cs.space.Free(taken) })
	size := cs.space.Size()
	return usage.Figures{Size: size, Used: size - free, Free: free}, nil
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
