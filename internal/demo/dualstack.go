package demo

import (
	"context"
	"fmt"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
)

// The dual-stack part of the demo (docs/allocation.md, IPv6): zone-a's
// public IPv6 pools, one handing out router uplinks, one delegating /56s
// to VPCs; acme's VPC cdn with a /56 delegated from it, and globex's VPC
// mesh with a ULA /48 given and stable opaque host addresses; their
// subnets' /64s and VMs with an address of each family.
var (
	// ipv6Pools are zone-a's public IPv6 pools.
	ipv6Pools = []ipam.CreatePublicPoolInput{
		{Name: "public-v6-zone-a", CIDR: "2001:db8:a::/64", Zone: "zone-a"},
		{Name: "delegated-v6-zone-a", CIDR: "2001:db8:a100::/48", Zone: "zone-a", DelegatedPrefixLength: 56},
	}
	// dualStackVPCs are the dual-stack VPCs, with their subnets (each
	// with its /64, the VPC's lowest free) and how many VMs each holds.
	dualStackVPCs = []struct {
		vpc     ipam.CreateVPCInput
		subnets []struct {
			name, cidr string
			vms        int
		}
	}{
		{ipam.CreateVPCInput{Namespace: "acme/prod", Name: "cdn", CIDR: "10.60.0.0/16", Zone: "zone-a", IPv6PrefixLength: 56},
			[]struct {
				name, cidr string
				vms        int
			}{{"lb", "10.60.1.0/24", 3}, {"app", "10.60.2.0/24", 6}}},
		{ipam.CreateVPCInput{Namespace: "globex/dev", Name: "mesh", CIDR: "172.30.0.0/16", Zone: "zone-a", IPv6CIDR: "fd4e:7a2c:91b0::/48", IPv6Addressing: string(ipam.StableOpaque)},
			[]struct {
				name, cidr string
				vms        int
			}{{"svc", "172.30.1.0/24", 4}, {"data", "172.30.2.0/26", 2}}},
	}
)

// loadDualStack loads the dual-stack part: the pools, the VPCs (each with
// an uplink of each family from zone-a), their subnets and NICs.
func loadDualStack(ctx context.Context, svc *ipam.Service) error {
	op := auth.System
	for _, p := range ipv6Pools {
		if _, err := svc.CreatePublicPool(ctx, op, p); err != nil {
			return err
		}
	}
	for _, v := range dualStackVPCs {
		if _, err := svc.CreateVPC(ctx, op, v.vpc); err != nil {
			return err
		}
		for _, s := range v.subnets {
			if _, err := svc.CreateSubnet(ctx, op, ipam.CreateSubnetInput{Namespace: v.vpc.Namespace, VPC: v.vpc.Name, Name: s.name, CIDR: s.cidr}); err != nil {
				return err
			}
			for i := range s.vms {
				host := fmt.Sprintf("%s-%02d", s.name, i+1)
				if _, err := svc.AttachNic(ctx, op, ipam.AttachInterfaceInput{
					Namespace: v.vpc.Namespace, VPC: v.vpc.Name, Subnet: s.name, VM: ipam.VMRef{UID: "demo-vm-" + v.vpc.Name + "-" + host, Hostname: host},
				}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// dualStackSpace tells the spaces of the dual-stack part (its pools, its
// VPCs' pools and subnets, of both families): a demo whose history was
// loaded before this part gets theirs.
func dualStackSpace(u ipam.ObjectUsage) bool {
	for _, v := range dualStackVPCs {
		if u.Pool.Namespace == v.vpc.Namespace && u.VPC == v.vpc.Name {
			return true
		}
	}
	for _, p := range ipv6Pools {
		if u.Pool.Namespace == "" && u.Pool.Name == p.Name {
			return true
		}
	}
	return false
}
