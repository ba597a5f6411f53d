package ipam

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/refusal"
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
// large pool) when scope is valid. A block is drawn as a part of the
// pool: its first and last addresses are candidates like any other.
func (s *Service) PoolMap(ctx context.Context, actor auth.Actor, p Pool, scope netip.Prefix) (AddressMap, error) {
	cp, err := s.readablePool(ctx, actor, p.Namespace, p.Name)
	if err != nil {
		return AddressMap{}, err
	}
	if cp.row.Namespace == "" && !actor.IsOperator() {
		return AddressMap{}, forbidden("only operators see the map of a public pool")
	}
	switch {
	case !scope.IsValid():
		scope = cp.spec.Prefix
	case scope.Bits() < cp.spec.Prefix.Bits() || !cp.spec.Prefix.Contains(scope.Addr()):
		return AddressMap{}, invalid("block", "block %s is outside pool %s's %s", scope, cp.row.Name, cp.spec.Prefix)
	case scope.Bits() < 24 && scope != cp.spec.Prefix:
		return AddressMap{}, invalid("block", "block %s is larger than a /24: give a /24 of pool %s, or none for the whole pool", scope, cp.row.Name)
	}
	scope = scope.Masked()
	space := cp.spec.Candidates()
	if cp.row.VPCUID == "" || scope.Bits() < 24 {
		return s.addressMap(ctx, cp, space, scope, space.Explain)
	}
	explain, err := s.explainInSubnets(ctx, cp, space, scope)
	if err != nil {
		return AddressMap{}, err
	}
	return s.addressMap(ctx, cp, space, scope, explain)
}

// SubnetMap draws a subnet: its own network, broadcast and gateway (as
// the gateway, though its space reserves it), and the addresses its VMs
// and nodes hold.
func (s *Service) SubnetMap(ctx context.Context, actor auth.Actor, sub Subnet) (AddressMap, error) {
	if !actor.CanAccess(sub.Namespace) {
		return AddressMap{}, notFound("subnet", sub.Namespace, sub.VPC+"/"+sub.Name)
	}
	cs, err := s.subnet(ctx, sub.Namespace, sub.VPC, sub.Name)
	if err != nil {
		return AddressMap{}, err
	}
	return s.addressMap(ctx, cs.pool, cs.space, cs.within, cs.explain)
}

// An explainer says why an address is or is not available, given the
// taken addresses: a space's Explain, or a subnet's (cachedSubnet.explain).
type explainer func(netip.Addr, candidates.Set) candidates.Explanation

// explain is the subnet's space's Explain, but for its gateway, which the
// space holds as a reserved address: the gateway of the subnet.
func (cs *cachedSubnet) explain(a netip.Addr, taken candidates.Set) candidates.Explanation {
	if a == cs.gateway {
		return candidates.Explanation{Address: a, State: candidates.Gateway, Message: subnetGateway(a, cs.subnet.Name)}
	}
	return cs.space.Explain(a, taken)
}

// subnetGateway says that a is the gateway of the subnet named.
func subnetGateway(a netip.Addr, subnet string) string {
	return fmt.Sprintf("%s is the gateway of subnet %s", a, subnet)
}

// inNoSubnet says that a, in the private pool of the VPC named, lies in
// none of its subnets.
func inNoSubnet(a netip.Addr, vpc string) string {
	return fmt.Sprintf("%s is in no subnet of VPC %s: addresses are handed out in subnets only", a, vpc)
}

// explainInSubnets explains the addresses in scope of space, a VPC's
// private pool, as its subnets do: an address of a subnet is that
// subnet's network, broadcast, gateway, taken or free; a free address in
// no subnet is Outside, since it is never handed out.
func (s *Service) explainInSubnets(ctx context.Context, cp *cachedPool, space candidates.Space, scope netip.Prefix) (explainer, error) {
	rows, err := store.Subnets(ctx, s.db, cp.row.VPCUID)
	if err != nil {
		return nil, err
	}
	vpc := vpcOfPool(cp.row)
	var in []*cachedSubnet
	for _, r := range rows {
		if !r.CIDR.Overlaps(scope) {
			continue
		}
		cs, err := s.subnet(ctx, cp.row.Namespace, vpc, r.Name)
		if errors.Is(err, refusal.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		in = append(in, cs)
	}
	return func(a netip.Addr, taken candidates.Set) candidates.Explanation {
		for _, cs := range in {
			if cs.within.Contains(a) {
				return cs.explain(a, taken)
			}
		}
		e := space.Explain(a, taken)
		if e.State == candidates.Free {
			e.State, e.Message = candidates.Outside, inNoSubnet(a, vpc)
		}
		return e
	}, nil
}

// addressMap draws scope, a part of space: block by block when it is
// larger than a /24 (scope is then space's own), otherwise address by
// address, each explained by explain.
func (s *Service) addressMap(ctx context.Context, cp *cachedPool, space candidates.Space, scope netip.Prefix, explain explainer) (AddressMap, error) {
	m := AddressMap{Scope: scope}
	if scope.Addr().Is6() && scope.Bits() < 120 {
		// Too many addresses to draw one by one: the console draws such a
		// prefix as a grid of its children (views/zoom.go).
		return m, nil
	}
	if scope.Bits() < 24 {
		pv, err := s.views.pool(ctx, cp.row.UID)
		if err != nil {
			return AddressMap{}, err
		}
		pv.Read(func(taken candidates.Set) { m.Blocks = space.Map(taken).Blocks })
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
		e := explain(a, set)
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
	pv.Read(func(taken candidates.Set) { ranges = taken.RangesIn(scope) })
	return ranges, nil
}
