package store

import (
	"context"
	"fmt"
	"net/netip"
)

// A VPCSummaryRow is a VPC with what a list of VPCs shows of it: its
// private pool, how many addresses the pool holds, and its router's
// uplink.
type VPCSummaryRow struct {
	VPCRow
	Pool PoolRow
	// Used counts the allocations of the pool.
	Used int
	// Router is the uplink's address, the zero Addr for a VPC without one;
	// RouterPool is its pool and RouterGateway that pool's gateway, the
	// zero Addr when it has none.
	Router        netip.Addr
	RouterPool    string
	RouterGateway netip.Addr
}

// vpcSummaryScan is a VPCSummaryRow as the driver reads it.
type vpcSummaryScan struct {
	vpcScan
	Pool          poolScan `db:"pool"`
	Used          int      `db:"used"`
	Router        string   `db:"router"`
	RouterPool    string   `db:"router_pool"`
	RouterGateway string   `db:"router_gateway"`
}

func (s vpcSummaryScan) row() (VPCSummaryRow, error) {
	v, err := s.vpcScan.row()
	if err != nil {
		return VPCSummaryRow{}, err
	}
	pool, err := s.Pool.row()
	if err != nil {
		return VPCSummaryRow{}, err
	}
	what := "the uplink of vpc " + v.Namespace + "/" + v.Name
	router, err := addrOf(what, s.Router)
	if err != nil {
		return VPCSummaryRow{}, err
	}
	gateway, err := addrOf(what, s.RouterGateway)
	return VPCSummaryRow{VPCRow: v, Pool: pool, Used: s.Used, Router: router, RouterPool: s.RouterPool, RouterGateway: gateway}, err
}

// vpcSummariesSQL reads every VPC with its (IPv4) pool, the pool's count
// of allocations and the lowest uplink its router holds in a public pool
// of its zone (its IPv4 one), in one statement.
const vpcSummariesSQL = `SELECT v.uid, v.namespace, v.name, v.cidr::text AS cidr, v.zone, v.created_at, v.created_by,
		v.ipv6_cidr::text AS ipv6_cidr, v.ipv6_delegated, v.ipv6_addressing, v.ipv6_key,
		p.uid AS "pool.uid", p.namespace AS "pool.namespace", p.name AS "pool.name", p.kind AS "pool.kind",
		p.cidr::text AS "pool.cidr", host(p.gateway) AS "pool.gateway", p.exclude AS "pool.exclude", p.zone AS "pool.zone",
		p.vpc_uid AS "pool.vpc_uid", p.labels AS "pool.labels", p.spec_version AS "pool.spec_version", p.created_at AS "pool.created_at", p.created_by AS "pool.created_by",
		(SELECT count(*) FROM allocations a WHERE a.pool_uid = p.uid) AS used,
		coalesce(u.address, '') AS router, coalesce(u.pool, '') AS router_pool, coalesce(u.gateway, '') AS router_gateway
	FROM vpcs v
	JOIN pools p ON p.vpc_uid = v.uid AND family(p.cidr) = 4
	LEFT JOIN LATERAL (
		SELECT host(a.address) AS address, up.name AS pool, host(up.gateway) AS gateway
		FROM allocations a JOIN pools up ON up.uid = a.pool_uid
		WHERE a.owner_namespace = v.namespace AND a.owner_kind = 'VPC' AND a.owner_uid = v.uid::text AND a.owner_ref = 'router'
			AND up.kind = 'public' AND up.zone = v.zone
		ORDER BY a.address
		LIMIT 1
	) u ON true
	ORDER BY v.namespace, v.name`

// VPCSummaries returns every VPC with its pool, usage and uplink, in
// namespace order, then name order: one statement, however many VPCs.
func VPCSummaries(ctx context.Context, ext Ext) ([]VPCSummaryRow, error) {
	vs, err := selectRows[vpcSummaryScan](ctx, ext, vpcSummariesSQL)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the vpcs with their pools: %w", classify(err))
	}
	return vs, nil
}

// SubnetsOfVPCs returns the subnets of the VPCs uids (UUIDs), by VPC, each
// VPC's in address order: one statement, however many VPCs.
func SubnetsOfVPCs(ctx context.Context, ext Ext, uids []string) ([]SubnetRow, error) {
	ss, err := selectRows[subnetScan](ctx, ext, `SELECT `+subnetColumns+` FROM subnets WHERE vpc_uid = ANY($1::uuid[]) ORDER BY vpc_uid, subnets.cidr`, textArray(uids))
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the subnets of %d vpcs: %w", len(uids), classify(err))
	}
	return ss, nil
}
