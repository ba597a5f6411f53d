package ipam

import (
	"pivirt.hu/ipam/internal/store"
)

// The domain's objects from the store's rows, which hold Go and netip
// values already (a stored value the store cannot read is its error).

func poolFromRow(r store.PoolRow) Pool {
	p := Pool{
		UID: r.UID, Namespace: r.Namespace, Name: r.Name, Kind: PoolKind(r.Kind), CIDR: r.CIDR, Gateway: r.Gateway,
		Exclude: r.Exclude, Zone: r.Zone, VPCUID: r.VPCUID, Labels: r.Labels, DelegatedPrefixLength: r.DelegatedPrefixLength,
		CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy,
	}
	if p.Exclude == nil {
		p.Exclude = []string{}
	}
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	return p
}

func allocationFromRow(r store.AllocationRow, pool string) Allocation {
	return Allocation{
		UID: r.UID, Namespace: r.Namespace, Name: r.Name, Pool: pool, PoolUID: r.PoolUID, Address: r.Address,
		Owner:          Owner{Kind: OwnerKind(r.OwnerKind), UID: r.OwnerUID, Name: r.OwnerName},
		OwnerNamespace: r.OwnerNamespace, SubnetUID: r.SubnetUID,
		CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy,
	}
}

func vpcFromRow(r store.VPCRow) VPC {
	return VPC{
		UID: r.UID, Namespace: r.Namespace, Name: r.Name, CIDR: r.CIDR, Zone: r.Zone,
		IPv6CIDR: r.IPv6CIDR, IPv6Delegated: r.IPv6Delegated, IPv6Addressing: IPv6Addressing(r.IPv6Addressing),
		CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy,
	}
}

func subnetFromRow(r store.SubnetRow, v VPC) Subnet {
	return Subnet{
		UID: r.UID, VPCUID: r.VPCUID, Namespace: v.Namespace, VPC: v.Name, Name: r.Name,
		CIDR: r.CIDR, Gateway: r.Gateway, IPv6CIDR: r.IPv6CIDR, IPv6Gateway: r.IPv6Gateway,
		CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy,
	}
}

func floatingIPFromRow(r store.FloatingIPRow) FloatingIP {
	return FloatingIP{
		UID: r.UID, Namespace: r.Namespace, Name: r.Name, Address: r.Address, Pool: r.Pool, Zone: r.Zone,
		CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy,
	}
}
