package ipam

import (
	"fmt"
	"net/netip"

	"pivirt.hu/ipam/internal/store"
)

func poolFromRow(r store.PoolRow) (Pool, error) {
	cidr, err := netip.ParsePrefix(r.CIDR)
	if err != nil {
		return Pool{}, fmt.Errorf("ipam: the stored pool %s has cidr %q: %w", r.Name, r.CIDR, err)
	}
	p := Pool{
		UID: r.UID, Namespace: r.Namespace, Name: r.Name, Kind: PoolKind(r.Kind), CIDR: cidr,
		Exclude: []string(r.Exclude), Zone: r.Zone, VPCUID: r.VPCUID.String, Labels: r.Labels,
		CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy,
	}
	if p.Exclude == nil {
		p.Exclude = []string{}
	}
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	if r.Gateway.Valid {
		if p.Gateway, err = netip.ParseAddr(r.Gateway.String); err != nil {
			return Pool{}, fmt.Errorf("ipam: the stored pool %s has gateway %q: %w", r.Name, r.Gateway.String, err)
		}
	}
	return p, nil
}

func allocationFromRow(r store.AllocationRow, pool string) Allocation {
	a, _ := netip.ParseAddr(r.Address)
	return Allocation{
		UID: r.UID, Namespace: r.Namespace, Name: r.Name, Pool: pool, PoolUID: r.PoolUID, Address: a,
		Owner:          Owner{Kind: r.OwnerKind, UID: r.OwnerUID, Name: r.OwnerName},
		OwnerNamespace: r.OwnerNamespace, SubnetUID: r.SubnetUID.String,
		CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy,
	}
}

func vpcFromRow(r store.VPCRow) VPC {
	cidr, _ := netip.ParsePrefix(r.CIDR)
	return VPC{UID: r.UID, Namespace: r.Namespace, Name: r.Name, CIDR: cidr, Zone: r.Zone, CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy}
}

func subnetFromRow(r store.SubnetRow, v VPC) Subnet {
	cidr, _ := netip.ParsePrefix(r.CIDR)
	gw, _ := netip.ParseAddr(r.Gateway)
	return Subnet{
		UID: r.UID, VPCUID: r.VPCUID, Namespace: v.Namespace, VPC: v.Name, Name: r.Name,
		CIDR: cidr, Gateway: gw, CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy,
	}
}

func floatingIPFromRow(r store.FloatingIPRow) FloatingIP {
	a, _ := netip.ParseAddr(r.Address)
	return FloatingIP{
		UID: r.UID, Namespace: r.Namespace, Name: r.Name, Address: a, Pool: r.Pool, Zone: r.Zone,
		CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy,
	}
}
