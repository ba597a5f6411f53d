package ipam

import (
	"context"
	"errors"
	"net/netip"
	"strings"

	"github.com/jmoiron/sqlx"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/store"
)

// cachedSubnet is what a claim needs of a subnet. Subnets never change;
// one deleted elsewhere makes the claim fail on the foreign key, and the
// entry is dropped.
type cachedSubnet struct {
	vpc    store.VPCRow
	subnet store.SubnetRow
	pool   *cachedPool
	space  candidates.Space
	within netip.Prefix
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
	cp, err := s.cachedPool(ctx, namespace, "vpc-"+vpc)
	if err != nil {
		return nil, err
	}
	req, err := cp.spec.ParseRequest(candidates.RequestSpec{Within: row.CIDR, Reserved: []string{row.Gateway}})
	if err != nil {
		return nil, fromCandidates(err)
	}
	cs = &cachedSubnet{vpc: v, subnet: row, pool: cp, space: cp.spec.Space(req), within: req.Within}
	s.poolsMu.Lock()
	s.subnets[key] = cs
	s.poolsMu.Unlock()
	return cs, nil
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

// CreateSubnet carves a subnet out of a VPC. It lies inside the VPC's
// prefix and overlaps no sibling; its gateway, the first host unless
// given, is reserved in every claim of the subnet.
func (s *Service) CreateSubnet(ctx context.Context, actor auth.Actor, in CreateSubnetInput) (Subnet, error) {
	if err := checkNamespace("namespace", in.Namespace); err != nil {
		return Subnet{}, err
	}
	if err := checkName("vpc", in.VPC); err != nil {
		return Subnet{}, err
	}
	if err := checkName("name", in.Name); err != nil {
		return Subnet{}, err
	}
	cidr, err := parsePrefix("cidr", in.CIDR)
	if err != nil {
		return Subnet{}, err
	}
	if cidr.Bits() == 32 {
		return Subnet{}, invalid("cidr", "cidr %s leaves no address once the gateway is reserved; use a /31 or larger", cidr)
	}
	lo := cidr.Addr()
	if cidr.Bits() <= 30 {
		lo = lo.Next()
	}
	gateway := lo
	if in.Gateway != "" {
		if gateway, err = parseAddr("gateway", in.Gateway); err != nil {
			return Subnet{}, err
		}
		if _, err := candidates.ParsePool(candidates.PoolSpec{CIDR: cidr.String(), Gateway: gateway.String()}); err != nil {
			return Subnet{}, fromCandidates(err)
		}
	}
	if !actor.CanAccess(in.Namespace) {
		return Subnet{}, notFound("VPC", in.Namespace, in.VPC)
	}
	var vpc store.VPCRow
	var row store.SubnetRow
	err = s.inTx(ctx, func(tx *sqlx.Tx, _ *undoList) error {
		var err error
		vpc, err = store.VPC(ctx, tx, in.Namespace, in.VPC, true)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("VPC", in.Namespace, in.VPC)
		}
		if err != nil {
			return err
		}
		vcidr, _ := netip.ParsePrefix(vpc.CIDR)
		if cidr.Bits() < vcidr.Bits() || !vcidr.Contains(cidr.Addr()) {
			return invalid("cidr", "cidr %s is outside VPC %s's %s", cidr, in.VPC, vcidr)
		}
		if other, err := store.OverlappingSubnet(ctx, tx, vpc.UID, cidr.String()); err == nil {
			return conflict("cidr %s overlaps subnet %s (%s) of VPC %s", cidr, other.Name, other.CIDR, in.VPC)
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		row, err = store.InsertSubnet(ctx, tx, store.SubnetRow{UID: newUID(), VPCUID: vpc.UID, Name: in.Name, CIDR: cidr.String(), Gateway: gateway.String(), CreatedBy: actor.Name})
		if errors.Is(err, store.ErrObjectExists) {
			return conflict("subnet %s exists already in VPC %s/%s", in.Name, in.Namespace, in.VPC)
		}
		if err != nil {
			return err
		}
		return store.InsertAudit(ctx, tx, store.AuditEntry{
			Actor: actor.Name, Action: "create", Namespace: in.Namespace, ObjectKind: "Subnet", ObjectName: in.VPC + "/" + in.Name,
			After: store.JSON(map[string]any{"uid": row.UID, "cidr": row.CIDR, "gateway": row.Gateway}),
		})
	})
	if err != nil {
		return Subnet{}, err
	}
	return subnetFromRow(row, vpcFromRow(vpc)), nil
}

// DeleteSubnet deletes a subnet and the node addresses in it. A subnet
// that still holds VM interfaces is refused.
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
	err := s.inTx(ctx, func(tx *sqlx.Tx, _ *undoList) error {
		v, err := store.VPC(ctx, tx, namespace, vpc, true)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("VPC", namespace, vpc)
		}
		if err != nil {
			return err
		}
		sub, err := store.Subnet(ctx, tx, v.UID, name)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("subnet", namespace, vpc+"/"+name)
		}
		if err != nil {
			return err
		}
		pool, err := store.Pool(ctx, tx, namespace, "vpc-"+vpc)
		if err != nil {
			return err
		}
		vms, err := store.CountAllocationsOfKind(ctx, tx, pool.UID, sub.UID, OwnerVirtualMachine)
		if err != nil {
			return err
		}
		if vms > 0 {
			return conflict("subnet %s of VPC %s/%s still has %s; detach %s first", name, namespace, vpc, plural(vms, "VM interface", "VM interfaces"), them(vms))
		}
		if _, err := store.ReleaseAllocations(ctx, tx, pool.UID, sub.UID, "", pool.Name, actor.Name); err != nil {
			return err
		}
		if err := store.DeleteSubnet(ctx, tx, sub.UID); errors.Is(err, store.ErrInUse) {
			return conflict("subnet %s of VPC %s/%s was given a VM interface meanwhile; detach it first", name, namespace, vpc)
		} else if err != nil {
			return err
		}
		return store.InsertAudit(ctx, tx, store.AuditEntry{
			Actor: actor.Name, Action: "delete", Namespace: namespace, ObjectKind: "Subnet", ObjectName: vpc + "/" + name,
			Before: store.JSON(map[string]any{"uid": sub.UID, "cidr": sub.CIDR, "gateway": sub.Gateway}),
		})
	})
	s.forgetSubnets(namespace, vpc, name)
	if err == nil {
		if cp, cerr := s.cachedPool(ctx, namespace, "vpc-"+vpc); cerr == nil {
			s.views.forget(cp.row.UID)
		}
	}
	return err
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
// addresses less its gateway.
func (s *Service) SubnetUsage(ctx context.Context, actor auth.Actor, sub Subnet) (Usage, error) {
	if !actor.CanAccess(sub.Namespace) {
		return Usage{}, notFound("subnet", sub.Namespace, sub.VPC+"/"+sub.Name)
	}
	cs, err := s.subnet(ctx, sub.Namespace, sub.VPC, sub.Name)
	if err != nil {
		return Usage{}, err
	}
	used, err := store.CountAllocationsOfKind(ctx, s.db, cs.pool.row.UID, cs.subnet.UID, "")
	if err != nil {
		return Usage{}, err
	}
	size := cs.space.Size()
	return Usage{Size: size, Used: used, Free: size - used}, nil
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
