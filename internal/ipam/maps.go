package ipam

import (
	"context"
	"net/netip"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/store"
)

// A MapCell is one address of an AddressMap with its state, the reason it
// is not free and, when taken, who holds it.
type MapCell struct {
	Address netip.Addr
	State   candidates.State
	Explain string
	Holder  *Allocation // when taken
}

// An AddressMap is a picture of a pool or a subnet: address by address for
// a /24 or smaller, otherwise block by block.
type AddressMap struct {
	Scope  netip.Prefix
	Cells  []MapCell
	Blocks []candidates.Block
}

// PoolMap draws the pool, or the part of it in scope (a /24 block of a
// large pool) when scope is valid.
func (s *Service) PoolMap(ctx context.Context, actor auth.Actor, p Pool, scope netip.Prefix) (AddressMap, error) {
	cp, err := s.readablePool(ctx, actor, p.Namespace, p.Name)
	if err != nil {
		return AddressMap{}, err
	}
	if cp.row.Namespace == "" && !actor.IsOperator() {
		return AddressMap{}, forbidden("only operators see the map of a public pool")
	}
	req := candidates.Request{}
	if scope.IsValid() {
		if scope.Bits() < cp.spec.Prefix.Bits() || !cp.spec.Prefix.Contains(scope.Addr()) {
			return AddressMap{}, invalid("block", "block %s is outside pool %s's %s", scope, cp.row.Name, cp.spec.Prefix)
		}
		req.Within = scope
	}
	return s.addressMap(ctx, cp, cp.spec.Space(req))
}

// SubnetMap draws a subnet: its own network, broadcast and gateway, and
// the addresses its VMs and nodes hold.
func (s *Service) SubnetMap(ctx context.Context, actor auth.Actor, sub Subnet) (AddressMap, error) {
	if !actor.CanAccess(sub.Namespace) {
		return AddressMap{}, notFound("subnet", sub.Namespace, sub.VPC+"/"+sub.Name)
	}
	cs, err := s.subnet(ctx, sub.Namespace, sub.VPC, sub.Name)
	if err != nil {
		return AddressMap{}, err
	}
	return s.addressMap(ctx, cs.pool, cs.space)
}

func (s *Service) addressMap(ctx context.Context, cp *cachedPool, space candidates.Space) (AddressMap, error) {
	scope := space.Scope()
	m := AddressMap{Scope: scope}
	if scope.Bits() < 24 {
		pv, err := s.views.pool(ctx, cp.row.UID)
		if err != nil {
			return AddressMap{}, err
		}
		pv.read(func(taken candidates.Set) { m.Blocks = space.Map(taken).Blocks })
		return m, nil
	}
	first, last := candidates.Bounds(scope)
	rows, err := store.AllocationsIn(ctx, s.db, cp.row.UID, first, last)
	if err != nil {
		return AddressMap{}, err
	}
	var taken candidates.SetBuilder
	holders := make(map[netip.Addr]*Allocation, len(rows))
	for _, r := range rows {
		a := allocationFromRow(r, cp.row.Name)
		taken.Add(a.Address)
		holders[a.Address] = &a
	}
	set := taken.View()
	for a := scope.Addr(); a.IsValid() && scope.Contains(a); a = a.Next() {
		e := space.Explain(a, set)
		m.Cells = append(m.Cells, MapCell{Address: a, State: e.State, Explain: e.Message, Holder: holders[a]})
	}
	return m, nil
}

// TakenRanges returns the taken addresses of the pool inside scope as
// ranges, for a page to compute its predictions in the browser. It is this
// process's view: a claim may still find an address taken meanwhile.
func (s *Service) TakenRanges(ctx context.Context, actor auth.Actor, p Pool, scope netip.Prefix) ([]candidates.Range, error) {
	cp, err := s.readablePool(ctx, actor, p.Namespace, p.Name)
	if err != nil {
		return nil, err
	}
	pv, err := s.views.pool(ctx, cp.row.UID)
	if err != nil {
		return nil, err
	}
	if !scope.IsValid() {
		scope = cp.spec.Prefix
	}
	var ranges []candidates.Range
	pv.read(func(taken candidates.Set) { ranges = taken.RangesIn(scope) })
	return ranges, nil
}
