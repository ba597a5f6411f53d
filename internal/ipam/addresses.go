package ipam

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// An AddressRelease is how the holder of an address lets it go: by its own
// operation, as the API does.
type AddressRelease string

// The ways to let an address go.
const (
	ReleaseNone       AddressRelease = ""                    // nobody holds it, or the actor may not let it go
	ReleaseDetach     AddressRelease = "detach"              // a VM's interface in a VPC: DetachInterface
	ReleaseFloatingIP AddressRelease = "release-floating-ip" // a floating IP: ReleaseFloatingIP
	ReleaseByOwner    AddressRelease = "release"             // a node's address, or an operator's in a public pool: Release by owner
)

// An AddressDetail is one address of a pool as its own page shows it: who
// holds it and since when, or why nobody does; its pool, and the VPC and
// subnet it belongs to.
type AddressDetail struct {
	Address netip.Addr
	Pool    Pool
	// VPC is the VPC of a private pool, of a router's uplink or, for a
	// floating IP, the first VPC of its namespace (whose page lists it);
	// the zero VPC when there is none.
	VPC VPC
	// Subnet is the subnet of the VPC the address lies in; the zero Subnet
	// when it lies in none.
	Subnet  Subnet
	State   candidates.State
	Explain string
	// Holder is who holds the address, nil when nobody does.
	Holder *Allocation
	// Release is how the actor may let the holder go; when it may not,
	// Kept says why (empty when nobody holds the address).
	Release AddressRelease
	Kept    string
}

// Address returns the address of the pool namespace/pool if the actor may
// see it: operators every address of every pool; tenants the addresses of
// the private pools of their namespaces, and those of public pools that
// their namespaces' owners hold, as Search shows them (TestAddress). Any other, and anything that is
// not an address of the pool, answers as not found.
func (s *Service) Address(ctx context.Context, actor auth.Actor, namespace, pool, address string) (AddressDetail, error) {
	missing := notFound("address", namespace, pool+"/"+address)
	a, err := netip.ParseAddr(address)
	if err != nil || a.String() != address || !storable(namespace, pool) {
		return AddressDetail{}, missing
	}
	cp, err := s.readablePool(ctx, actor, namespace, pool)
	if errors.Is(err, refusal.ErrNotFound) || err == nil && !cp.spec.Prefix.Contains(a) {
		return AddressDetail{}, missing
	}
	if err != nil {
		return AddressDetail{}, err
	}
	held, err := store.AllocationsAt(ctx, s.db, a, []string{cp.row.UID})
	if err != nil {
		return AddressDetail{}, err
	}
	d := AddressDetail{Address: a, Pool: poolFromRow(cp.row)}
	var taken candidates.Set
	if len(held) > 0 {
		h := allocationFromRow(held[0].AllocationRow, cp.row.Name)
		d.Holder, taken = &h, candidates.SetOf(a)
		if held[0].VPC != "" {
			d.VPC = VPC{Namespace: h.OwnerNamespace, Name: held[0].VPC}
		}
	}
	if d.Pool.Kind == Public && !actor.IsOperator() && (d.Holder == nil || !actor.CanAccess(d.Holder.OwnerNamespace)) {
		return AddressDetail{}, missing
	}
	e := cp.spec.Candidates().Explain(a, taken)
	if cp.row.VPCUID != "" {
		if e, err = s.explainInVPC(ctx, cp, &d, taken); err != nil {
			return AddressDetail{}, err
		}
	}
	d.State, d.Explain = e.State, e.Message
	d.Release, d.Kept = releaseOf(actor, d)
	return d, nil
}

// explainInVPC fills in the VPC of d, an address of the VPC's private
// pool cp, and the subnet it lies in, and explains it as that subnet does
// (as explainInSubnets does for a map).
func (s *Service) explainInVPC(ctx context.Context, cp *cachedPool, d *AddressDetail, taken candidates.Set) (candidates.Explanation, error) {
	d.VPC = VPC{UID: cp.row.VPCUID, Namespace: cp.row.Namespace, Name: vpcOfPool(cp.row)}
	e := cp.spec.Candidates().Explain(d.Address, taken)
	row, err := store.SubnetContaining(ctx, s.db, cp.row.VPCUID, netip.PrefixFrom(d.Address, 32))
	switch {
	case errors.Is(err, store.ErrNotFound):
		if e.State == candidates.Free {
			e.State, e.Message = candidates.Outside, inNoSubnet(d.Address, d.VPC.Name)
		}
		return e, nil
	case err != nil:
		return e, err
	}
	d.Subnet = subnetFromRow(row, d.VPC)
	cs, err := s.subnet(ctx, d.VPC.Namespace, d.VPC.Name, row.Name)
	if err != nil {
		return e, err
	}
	return cs.explain(d.Address, taken), nil
}

// releaseOf says how the actor may let the holder of d go, or why not.
func releaseOf(actor auth.Actor, d AddressDetail) (AddressRelease, string) {
	h := d.Holder
	switch {
	case h == nil:
		return ReleaseNone, ""
	case h.Owner.Kind == OwnerVPC:
		return ReleaseNone, fmt.Sprintf("The uplink of VPC %s goes with its VPC: delete the VPC to release %s.", cmp.Or(d.VPC.Name, h.Owner.UID), d.Address)
	case h.Owner.Kind == OwnerFloatingIP:
		return ReleaseFloatingIP, ""
	case d.Pool.Kind == Public && !actor.IsOperator():
		return ReleaseNone, fmt.Sprintf("Only operators release addresses of public pool %s directly.", d.Pool.Name)
	case h.Owner.Kind == OwnerVirtualMachine && d.Pool.Kind == Private:
		return ReleaseDetach, ""
	}
	return ReleaseByOwner, ""
}

// A ReleaseAddressInput names an address of a pool and the owner that was
// seen holding it.
type ReleaseAddressInput struct {
	Namespace, Pool string
	Address         string
	Owner           Owner
	// OwnerNamespace is the owner's tenant namespace, also for the
	// addresses of public pools.
	OwnerNamespace string
}

// ReleaseAddress lets the owner seen holding an address go, by the
// owner's own operation (see AddressRelease): a VM's interface is
// detached, a floating IP released, a node's address (or one an operator
// allocated in a public pool) released by owner, each with its rules,
// refusals and audit. A VPC's uplink goes with its VPC only. released is
// false when the owner no longer holds the address: then nothing changes,
// not even what another owner now holds there.
func (s *Service) ReleaseAddress(ctx context.Context, actor auth.Actor, in ReleaseAddressInput) (released bool, err error) {
	d, err := s.Address(ctx, actor, in.Namespace, in.Pool, in.Address)
	if err != nil {
		return false, err
	}
	if h := d.Holder; h == nil || h.Owner != in.Owner || h.OwnerNamespace != in.OwnerNamespace {
		return false, nil
	}
	switch d.Release {
	case ReleaseDetach:
		host, nic, _ := strings.Cut(d.Holder.Owner.Name, "/")
		n, err := ParseNIC(nic)
		if err != nil {
			return false, err
		}
		return s.DetachInterface(ctx, actor, DetachInterfaceInput{Namespace: d.Pool.Namespace, VPC: d.VPC.Name, VM: VMRef{UID: d.Holder.Owner.UID, Hostname: host}, NIC: n})
	case ReleaseFloatingIP:
		err := s.ReleaseFloatingIP(ctx, actor, d.Holder.OwnerNamespace, d.Holder.Owner.Name)
		if errors.Is(err, refusal.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	case ReleaseByOwner:
		return s.Release(ctx, actor, ReleaseInput{Namespace: d.Pool.Namespace, Pool: d.Pool.Name, Owner: &d.Holder.Owner, OwnerNamespace: d.Holder.OwnerNamespace})
	}
	return false, conflict("%s", d.Kept)
}
