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

// AttachInterface gives a VM's NIC an address of one family (in.Family,
// IPv4 when zero) in a subnet of a VPC, owner VirtualMachine
// "<hostname>/<nic>". Asking again returns the same address.
func (s *Service) AttachInterface(ctx context.Context, actor auth.Actor, in AttachInterfaceInput) (Allocation, error) {
	if err := refusal.Collect(checkVMRef(in.VM), checkNIC("nic", in.NIC), checkFamily("family", in.Family)); err != nil {
		return Allocation{}, err
	}
	return s.attach(ctx, actor, in.Namespace, in.VPC, in.Subnet, vmOwner(in.VM, in.NIC), in.Family)
}

// AttachNic gives a VM's NIC an address of each family the subnet has, in
// one transaction: both or neither. Asking again returns the same
// addresses; a NIC that holds one of them already gets the other.
func (s *Service) AttachNic(ctx context.Context, actor auth.Actor, in AttachInterfaceInput) (Nic, error) {
	if err := refusal.Collect(checkVMRef(in.VM), checkNIC("nic", in.NIC)); err != nil {
		return Nic{}, err
	}
	if err := checkAttachTarget(actor, in.Namespace, in.VPC, in.Subnet); err != nil {
		return Nic{}, err
	}
	owner := vmOwner(in.VM, in.NIC)
	// A cached subnet may have been deleted (and made again) by another
	// process: the claim then fails on its foreign key, and one more try
	// reads the subnet afresh.
	for attempt := 0; ; attempt++ {
		cs, err := s.subnet(ctx, in.Namespace, in.VPC, in.Subnet)
		if err != nil {
			return Nic{}, err
		}
		// The views are loaded before the transaction takes its
		// connection: loading one takes another.
		for _, f := range []Family{IPv4, IPv6} {
			if side, ok := cs.side(f); ok {
				if _, err := s.views.pool(ctx, side.pool.row.UID); err != nil {
					return Nic{}, err
				}
			}
		}
		nic := Nic{Namespace: in.Namespace, VPC: in.VPC, Subnet: in.Subnet, VM: in.VM, NIC: in.NIC}
		err = s.inTx(ctx, func(tx *store.Tx, undo *undoList) error {
			for _, f := range []Family{IPv4, IPv6} {
				if _, ok := cs.side(f); !ok {
					continue
				}
				r := cs.request(f, owner, in.Namespace, actor.Name)
				a, err := s.claim(ctx, tx, r, undo)
				var exhausted *ExhaustedError
				if errors.As(err, &exhausted) {
					exhausted.Scope = r.within
				}
				if err != nil {
					return err
				}
				if f == IPv4 {
					nic.IPv4 = &a
				} else {
					nic.IPv6 = &a
				}
			}
			return nil
		})
		if errors.Is(err, refusal.ErrNotFound) {
			s.forgetSubnets(in.Namespace, in.VPC, in.Subnet)
			if attempt == 0 {
				continue
			}
			return Nic{}, notFound("subnet", in.Namespace, in.VPC+"/"+in.Subnet)
		}
		if err != nil {
			return Nic{}, err
		}
		return nic, nil
	}
}

// vmOwner is the owner of a VM's NIC.
func vmOwner(vm VMRef, nic int) Owner {
	return Owner{Kind: OwnerVirtualMachine, UID: vm.UID, Name: vm.Hostname + "/" + strconv.Itoa(nic)}
}

// DetachInterface frees the addresses of a VM's NIC, of every family (the
// VM is its uid: the hostname need not be the one it was attached under).
// Detaching what is not attached is not an error: released is false then.
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
	pools := []*cachedPool{cp}
	if cp6, err := s.cachedPool(ctx, in.Namespace, candidates.PrivatePoolNameV6(in.VPC)); err == nil {
		pools = append(pools, cp6)
	} else if !errors.Is(err, refusal.ErrNotFound) {
		return false, err
	}
	owner := store.OwnerKey{Namespace: in.Namespace, Kind: string(OwnerVirtualMachine), UID: in.VM.UID, Ref: strconv.Itoa(in.NIC)}
	for _, cp := range pools {
		_, err := s.release(ctx, cp, netip.Addr{}, owner, actor.Name)
		switch {
		case err == nil:
			released = true
		case !errors.Is(err, store.ErrNotFound):
			return released, err
		}
	}
	return released, nil
}

// AttachNode gives a host its own address of one family (in.Family, IPv4
// when zero) in a subnet, owner Node "<subnet>".
func (s *Service) AttachNode(ctx context.Context, actor auth.Actor, in AttachNodeInput) (Allocation, error) {
	if err := checkUID("node.uid", in.Node.UID); err != nil {
		return Allocation{}, err
	}
	if err := checkHostname("node.name", in.Node.Name); err != nil {
		return Allocation{}, err
	}
	if err := checkFamily("family", in.Family); err != nil {
		return Allocation{}, err
	}
	return s.attach(ctx, actor, in.Namespace, in.VPC, in.Subnet, Owner{Kind: OwnerNode, UID: in.Node.UID, Name: in.Subnet}, in.Family)
}

// checkAttachTarget checks the subnet an attach names, and that the actor
// may see it.
func checkAttachTarget(actor auth.Actor, namespace, vpc, subnet string) error {
	if err := checkNamespace("namespace", namespace); err != nil {
		return err
	}
	if err := checkName("vpc", vpc); err != nil {
		return err
	}
	if err := checkName("subnet", subnet); err != nil {
		return err
	}
	if !actor.CanAccess(namespace) {
		return notFound("VPC", namespace, vpc)
	}
	return nil
}

// attach claims an address of the family f of a subnet for the owner.
func (s *Service) attach(ctx context.Context, actor auth.Actor, namespace, vpc, subnet string, owner Owner, f Family) (Allocation, error) {
	if err := checkAttachTarget(actor, namespace, vpc, subnet); err != nil {
		return Allocation{}, err
	}
	// A cached subnet may have been deleted (and made again) by another
	// process: the claim then fails on its foreign key, and one more try
	// reads the subnet afresh.
	for attempt := 0; ; attempt++ {
		cs, err := s.subnet(ctx, namespace, vpc, subnet)
		if err != nil {
			return Allocation{}, err
		}
		side, ok := cs.side(f)
		if !ok {
			return Allocation{}, invalid("family", "subnet %s of VPC %s/%s has no IPv6 prefix: attach its IPv4 address (family IPV4)", subnet, namespace, vpc)
		}
		r := cs.request(f, owner, namespace, actor.Name)
		r.forward = &routing.Claim{PoolNamespace: namespace, Pool: side.pool.row.Name, PoolUID: side.pool.row.UID, VPC: vpc, Subnet: subnet,
			OwnerKind: string(owner.Kind), OwnerUID: owner.UID, OwnerName: owner.Name, OwnerNamespace: namespace, Actor: actor.Name}
		a, err := s.claimOnce(ctx, r)
		var exhausted *ExhaustedError
		switch {
		case errors.As(err, &exhausted):
			exhausted.Scope = side.within
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

// request is the claim of an address of the family f of the subnet (which
// has a side of f) for the owner. A VM's interface in an IPv6 subnet of a
// VPC of stable opaque addresses takes its own candidates
// (candidates.Space.NextOpaque).
func (cs *cachedSubnet) request(f Family, owner Owner, ownerNS, actor string) claimRequest {
	side, _ := cs.side(f)
	r := claimRequest{pool: side.pool, space: side.space, within: side.within, owner: owner, ownerNS: ownerNS,
		subnetUID: cs.subnet.UID, actor: actor}
	if f == IPv6 && cs.vpc.IPv6Addressing == string(StableOpaque) && owner.Kind == OwnerVirtualMachine {
		nic, _ := strconv.Atoi(owner.ref())
		r.opaque = &opaqueOwner{key: cs.vpc.IPv6Key, vmUID: owner.UID, nic: nic}
	}
	return r
}

// checkFamily checks a family asked for: IPV4, IPV6, or none.
func checkFamily(field string, f Family) error {
	switch f {
	case "", IPv4, IPv6:
		return nil
	}
	return invalid(field, "%s %s is not a family: %s or %s", field, describe(string(f)), IPv4, IPv6)
}

func checkVMRef(vm VMRef) error {
	return refusal.Collect(checkHostname("vm.hostname", vm.Hostname), checkUID("vm.uid", vm.UID))
}
