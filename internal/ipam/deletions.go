package ipam

import (
	"context"
	"errors"
	"net/netip"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/store"
)

// A Deletion says what deleting a subnet, a VPC or a public pool would
// take with it now, for the page that asks to confirm it: how many
// subnets and addresses go, the router uplinks released, and the refusal
// the delete would meet (VM interfaces left, addresses held), in the
// words of the delete itself. The delete decides again when it runs.
type Deletion struct {
	Subnets   int          // a VPC's subnets
	Addresses int          // the addresses released (node addresses), or a public pool holds
	VMs       int          // the VM interfaces, which refuse the delete of a subnet or a VPC
	Uplinks   []netip.Addr // a VPC's router uplinks, released
	Refusal   error        // nil, or why the delete is refused now
}

// SubnetDeletion says what deleting the subnet name of the VPC
// namespace/vpc would take with it (DeleteSubnet).
func (s *Service) SubnetDeletion(ctx context.Context, actor auth.Actor, namespace, vpc, name string) (Deletion, error) {
	v, err := s.VPC(ctx, actor, namespace, vpc)
	if err != nil {
		return Deletion{}, err
	}
	if !storable(name) {
		return Deletion{}, notFound("subnet", namespace, vpc+"/"+name)
	}
	sub, err := store.Subnet(ctx, s.db, v.UID, name)
	if errors.Is(err, store.ErrNotFound) {
		return Deletion{}, notFound("subnet", namespace, vpc+"/"+name)
	}
	if err != nil {
		return Deletion{}, err
	}
	pool, err := store.Pool(ctx, s.db, namespace, v.PoolName())
	if err != nil {
		return Deletion{}, err
	}
	return s.deletion(ctx, pool.UID, sub.UID, "subnet "+name+" of VPC "+namespace+"/"+vpc)
}

// VPCDeletion says what deleting the VPC namespace/name would take with it
// (DeleteVPC).
func (s *Service) VPCDeletion(ctx context.Context, actor auth.Actor, namespace, name string) (Deletion, error) {
	v, err := s.VPC(ctx, actor, namespace, name)
	if err != nil {
		return Deletion{}, err
	}
	pool, err := store.Pool(ctx, s.db, namespace, v.PoolName())
	if err != nil {
		return Deletion{}, err
	}
	d, err := s.deletion(ctx, pool.UID, "", "VPC "+namespace+"/"+name)
	if err != nil {
		return Deletion{}, err
	}
	subnets, err := store.Subnets(ctx, s.db, v.UID)
	if err != nil {
		return Deletion{}, err
	}
	d.Subnets = len(subnets)
	uplinks, err := store.VPCUplinks(ctx, s.db, namespace, v.UID, v.Zone)
	if err != nil {
		return Deletion{}, err
	}
	for _, u := range uplinks {
		d.Uplinks = append(d.Uplinks, u.Address)
	}
	return d, nil
}

// deletion counts the addresses and the VM interfaces of the pool (of its
// subnet subnetUID when not empty), which is what.
func (s *Service) deletion(ctx context.Context, poolUID, subnetUID, what string) (Deletion, error) {
	all, err := store.CountAllocationsOfKind(ctx, s.db, poolUID, subnetUID, "")
	if err != nil {
		return Deletion{}, err
	}
	d := Deletion{}
	if d.VMs, err = store.CountAllocationsOfKind(ctx, s.db, poolUID, subnetUID, string(OwnerVirtualMachine)); err != nil {
		return Deletion{}, err
	}
	d.Addresses = all - d.VMs
	if d.VMs > 0 {
		d.Refusal = vmsLeft(what, d.VMs)
	}
	return d, nil
}

// PublicPoolDeletion says whether the public pool name may be deleted now
// (DeletePublicPool): Addresses is how many it holds. Operators only.
func (s *Service) PublicPoolDeletion(ctx context.Context, actor auth.Actor, name string) (Deletion, error) {
	if !actor.IsOperator() {
		return Deletion{}, forbidden("only operators delete public pools")
	}
	if !storable(name) {
		return Deletion{}, notFound("pool", "", name)
	}
	p, err := store.Pool(ctx, s.db, "", name)
	if errors.Is(err, store.ErrNotFound) {
		return Deletion{}, notFound("pool", "", name)
	}
	if err != nil {
		return Deletion{}, err
	}
	n, err := store.CountAllocationsOfKind(ctx, s.db, p.UID, "", "")
	if err != nil {
		return Deletion{}, err
	}
	d := Deletion{Addresses: n}
	if n > 0 {
		d.Refusal = poolInUse(name, n)
	}
	return d, nil
}

// VPCAllocation returns the allocation of the VPC namespace/vpc's pool at
// address, as the page that confirms its detach shows it.
func (s *Service) VPCAllocation(ctx context.Context, actor auth.Actor, namespace, vpc, address string) (Allocation, error) {
	v, err := s.VPC(ctx, actor, namespace, vpc)
	if err != nil {
		return Allocation{}, err
	}
	a, err := parseAddr("address", address)
	if err != nil {
		return Allocation{}, err
	}
	pool, err := store.Pool(ctx, s.db, namespace, v.PoolName())
	if err != nil {
		return Allocation{}, err
	}
	rows, err := store.AllocationsIn(ctx, s.db, pool.UID, a, a)
	if err != nil {
		return Allocation{}, err
	}
	if len(rows) == 0 {
		return Allocation{}, notFound("allocation", namespace, pool.Name+" "+a.String())
	}
	return allocationFromRow(rows[0], pool.Name), nil
}
