package store

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/jmoiron/sqlx"
)

// A TableAllocationRow is an allocation as the console's tables show it:
// with the name of its subnet, and the VPC whose page shows its owner (a
// private pool's VPC; a router's VPC; for a floating IP, the first VPC of
// its namespace by name, whose page lists the namespace's floating IPs).
type TableAllocationRow struct {
	AllocationRow
	Subnet            string // "" when the address lies in no subnet
	VPCNamespace, VPC string // "" when no VPC shows the owner
}

type tableAllocationScan struct {
	allocationScan
	Subnet       string `db:"subnet"`
	VPCNamespace string `db:"vpc_namespace"`
	VPC          string `db:"vpc"`
}

func (s tableAllocationScan) row() (TableAllocationRow, error) {
	r, err := s.allocationScan.row()
	return TableAllocationRow{AllocationRow: r, Subnet: s.Subnet, VPCNamespace: s.VPCNamespace, VPC: s.VPC}, err
}

// A TableFilter says which allocations of a pool a table lists: those
// from From to To (both included; a subnet's table lists its prefix),
// matching Search in the address or the owner when it is set; Offset and
// Limit page them in address order.
type TableFilter struct {
	PoolUID       string
	From, To      netip.Addr
	Search        string
	Offset, Limit int
}

// where is the condition of f on allocations, with its arguments $1 to $4.
func (f TableFilter) where() (string, []any) {
	return `pool_uid = $1 AND address BETWEEN $2::inet AND $3::inet
		AND ($4 = '' OR host(address) LIKE '%' || $4 || '%' OR owner_name ILIKE '%' || $4 || '%' OR owner_kind ILIKE $4 || '%')`,
		[]any{f.PoolUID, f.From.String(), f.To.String(), likeEscape(f.Search)}
}

// TableAllocations returns the allocations f pages, in address order, read
// from the index of (pool_uid, address) between f's bounds.
func TableAllocations(ctx context.Context, ext sqlx.QueryerContext, f TableFilter) ([]TableAllocationRow, error) {
	where, args := f.where()
	as, err := selectRows[tableAllocationScan](ctx, ext, `SELECT a.namespace, a.name, a.pool_uid, host(a.address) AS address,
			a.owner_kind, a.owner_uid, a.owner_name, a.owner_namespace, a.subnet_uid, a.uid, a.created_at, a.created_by,
			coalesce(s.name, '') AS subnet, coalesce(v.namespace, '') AS vpc_namespace, coalesce(v.name, '') AS vpc
		FROM (
			SELECT * FROM allocations WHERE `+where+`
			ORDER BY address OFFSET $5 LIMIT $6
		) a
		JOIN pools p ON p.uid = a.pool_uid
		LEFT JOIN subnets s ON s.uid = a.subnet_uid
		LEFT JOIN LATERAL (
			(SELECT 1 AS o, v.namespace, v.name FROM vpcs v WHERE v.uid = p.vpc_uid)
			UNION ALL
			(SELECT 2, v.namespace, v.name FROM vpcs v
				WHERE v.uid = CASE WHEN a.owner_kind = 'VPC' AND a.owner_uid ~ `+uuidPattern+` THEN a.owner_uid::uuid END)
			UNION ALL
			(SELECT 3, v.namespace, v.name FROM vpcs v
				WHERE a.owner_kind = 'FloatingIP' AND v.namespace = a.owner_namespace ORDER BY v.name LIMIT 1)
			ORDER BY o LIMIT 1
		) v ON true
		ORDER BY a.address`, append(args, f.Offset, f.Limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the allocations from %s to %s: %w", f.From, f.To, classify(err))
	}
	return as, nil
}

// CountTableAllocations counts the allocations f matches (Offset and Limit
// aside).
func CountTableAllocations(ctx context.Context, ext sqlx.QueryerContext, f TableFilter) (int, error) {
	where, args := f.where()
	var n int
	if err := sqlx.GetContext(ctx, ext, &n, `SELECT count(*) FROM allocations WHERE `+where, args...); err != nil {
		return 0, fmt.Errorf("store: unable to count the allocations from %s to %s: %w", f.From, f.To, classify(err))
	}
	return n, nil
}
