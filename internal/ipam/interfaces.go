package ipam

import (
	"context"
	"errors"
	"net/netip"
	"strconv"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/routing"
	"pivirt.hu/ipam/internal/store"
)

// AttachInterface gives a VM's NIC an address in a subnet of a VPC, owner
// VirtualMachine "<hostname>/<nic>". Asking again returns the same address.
func (s *Service) AttachInterface(ctx context.Context, actor auth.Actor, in AttachInterfaceInput) (Allocation, error) {
	if err := refusal.Collect(checkVMRef(in.VM), checkNIC("nic", in.NIC)); err != nil {
		return Allocation{}, err
	}
	return s.attach(ctx, actor, in.Namespace, in.VPC, in.Subnet, Owner{Kind: OwnerVirtualMachine, UID: in.VM.UID, Name: in.VM.Hostname + "/" + strconv.Itoa(in.NIC)})
}

// DetachInterface frees the address of a VM's NIC (the VM is its uid: the
// hostname need not be the one it was attached under). Detaching what is
// not attached is not an error: released is false then.
func (s *Service) DetachInterface(ctx context.Context, actor auth.Actor, in DetachInterfaceInput) (released bool, err error) {
	if err := checkVMRef(in.VM); err != nil {
		return false, err
	}
	if err := checkNIC("nic", in.NIC); err != nil {
		return false, err
	}
	if err := checkNamespace("namespace", in.Namespace); err != nil {
		return false, err
	}
	if err := checkName("vpc", in.VPC); err != nil {
		return false, err
	}
	if !actor.CanAccess(in.Namespace) {
		return false, notFound("VPC", in.Namespace, in.VPC)
	}
	cp, err := s.cachedPool(ctx, in.Namespace, candidates.PrivatePoolName(in.VPC))
	if errors.Is(err, refusal.ErrNotFound) {
		return false, notFound("VPC", in.Namespace, in.VPC)
	}
	if err != nil {
		return false, err
	}
	owner := store.OwnerKey{Namespace: in.Namespace, Kind: string(OwnerVirtualMachine), UID: in.VM.UID, Ref: strconv.Itoa(in.NIC)}
	_, err = s.release(ctx, cp, netip.Addr{}, owner, actor.Name)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// AttachNode gives a host its own address in a subnet, owner Node
// "<subnet>".
func (s *Service) AttachNode(ctx context.Context, actor auth.Actor, in AttachNodeInput) (Allocation, error) {
	if err := checkUID("node.uid", in.Node.UID); err != nil {
		return Allocation{}, err
	}
	if err := checkHostname("node.name", in.Node.Name); err != nil {
		return Allocation{}, err
	}
	return s.attach(ctx, actor, in.Namespace, in.VPC, in.Subnet, Owner{Kind: OwnerNode, UID: in.Node.UID, Name: in.Subnet})
}

// attach claims an address of a subnet for the owner.
func (s *Service) attach(ctx context.Context, actor auth.Actor, namespace, vpc, subnet string, owner Owner) (Allocation, error) {
	if err := checkNamespace("namespace", namespace); err != nil {
		return Allocation{}, err
	}
	if err := checkName("vpc", vpc); err != nil {
		return Allocation{}, err
	}
	if err := checkName("subnet", subnet); err != nil {
		return Allocation{}, err
	}
	if !actor.CanAccess(namespace) {
		return Allocation{}, notFound("VPC", namespace, vpc)
	}
	// A cached subnet may have been deleted (and made again) by another
	// process: the claim then fails on its foreign key, and one more try
	// reads the subnet afresh.
	for attempt := 0; ; attempt++ {
		cs, err := s.subnet(ctx, namespace, vpc, subnet)
		if err != nil {
			return Allocation{}, err
		}
		a, err := s.claimOnce(ctx, claimRequest{
			pool: cs.pool, space: cs.space, within: cs.within, owner: owner, ownerNS: namespace,
			subnetUID: cs.subnet.UID, actor: actor.Name,
			forward: &routing.Claim{PoolNamespace: namespace, Pool: cs.pool.row.Name, PoolUID: cs.pool.row.UID, VPC: vpc, Subnet: subnet,
				OwnerKind: string(owner.Kind), OwnerUID: owner.UID, OwnerName: owner.Name, OwnerNamespace: namespace, Actor: actor.Name},
		})
		var exhausted *ExhaustedError
		switch {
		case errors.As(err, &exhausted):
			exhausted.Scope = cs.within
		case errors.Is(err, refusal.ErrNotFound):
			s.forgetSubnets(namespace, vpc, subnet)
			if attempt == 0 {
				continue
			}
			return Allocation{}, notFound("subnet", namespace, vpc+"/"+subnet)
		}
		return a, err
	}
}

func checkVMRef(vm VMRef) error {
	return refusal.Collect(checkHostname("vm.hostname", vm.Hostname), checkUID("vm.uid", vm.UID))
}
