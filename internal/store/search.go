package store

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// A Scope is what a search may return. Everything: every row (operators).
// Otherwise the rows of the namespaces that match one of Patterns as
// internal/auth's MatchNamespace reads them ("acme/prod" itself, "acme/*"
// every namespace below acme, never the cluster scope ""), and the public
// pools themselves.
type Scope struct {
	Everything bool
	Patterns   []string
}

// arg is the scope as the text[] parameter of inScope: NULL for
// everything.
func (s Scope) arg() any {
	if s.Everything {
		return nil
	}
	return textArray(s.Patterns)
}

// inScope is the condition that the namespace col lies in the scope of
// parameter $n (Scope.arg): MatchNamespace in SQL.
func inScope(col string, n int) string {
	return fmt.Sprintf(`($%[2]d::text[] IS NULL OR %[1]s <> '' AND EXISTS (SELECT 1 FROM unnest($%[2]d::text[]) pattern
		WHERE CASE WHEN right(pattern, 2) = '/*'
			THEN length(%[1]s) > length(pattern) - 1 AND starts_with(%[1]s, left(pattern, -1))
			ELSE %[1]s = pattern END))`, col, n)
}

// A Search is what a search looks for: the objects overlapping Prefix
// when it is valid, otherwise those Text names (see each function), in
// Scope, at most Limit of them.
type Search struct {
	Prefix netip.Prefix
	Text   string
	Scope  Scope
	Limit  int
}

// args are the parameters of a search's statement: $1 the prefix or the
// text, $2 the scope, $3 the limit and, for a text, $4 the text escaped
// for LIKE.
func (s Search) args() []any {
	if s.Prefix.IsValid() {
		return []any{s.Prefix.String(), s.Scope.arg(), s.Limit}
	}
	return []any{s.Text, s.Scope.arg(), s.Limit, likeEscape(s.Text)}
}

// namedBy is the condition that an object of columns name, uid and
// namespace is named by the text $1 of a search: its name starts with it
// (in any case), its uid is it, or its namespace is it or lies below it.
func namedBy(name, uid, namespace string) string {
	return fmt.Sprintf(`(lower(%[1]s) LIKE lower($4) || '%%' OR %[2]s::text = lower($1) OR %[3]s = $1 OR starts_with(%[3]s, $1 || '/'))`, name, uid, namespace)
}

// SearchPools returns the pools overlapping s.Prefix, or named by s.Text
// (see namedBy), in prefix order or with the pools of that very name
// first; public pools are in every scope.
func SearchPools(ctx context.Context, ext sqlx.QueryerContext, s Search) ([]PoolRow, error) {
	where, order := `cidr && $1::cidr`, `cidr, namespace, name`
	if !s.Prefix.IsValid() {
		where, order = namedBy("name", "uid", "namespace"), `lower(name) = lower($1) DESC, namespace, name`
	}
	ps, err := selectRows[poolScan](ctx, ext, `SELECT `+poolColumns+` FROM pools
		WHERE `+where+` AND (kind = 'public' OR `+inScope("namespace", 2)+`)
		ORDER BY `+order+` LIMIT $3`, s.args()...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to search the pools: %w", classify(err))
	}
	return ps, nil
}

// SearchVPCs returns the VPCs overlapping s.Prefix (with their prefix of
// its family), or named by s.Text, in prefix order or with the VPCs of
// that very name first.
func SearchVPCs(ctx context.Context, ext sqlx.QueryerContext, s Search) ([]VPCRow, error) {
	column := prefixColumn(s.Prefix)
	where, order := column+` && $1::cidr`, column+`, namespace, name`
	if !s.Prefix.IsValid() {
		where, order = namedBy("name", "uid", "namespace"), `lower(name) = lower($1) DESC, namespace, name`
	}
	vs, err := selectRows[vpcScan](ctx, ext, `SELECT `+vpcColumns+` FROM vpcs
		WHERE `+where+` AND `+inScope("namespace", 2)+`
		ORDER BY `+order+` LIMIT $3`, s.args()...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to search the VPCs: %w", classify(err))
	}
	return vs, nil
}

// A SearchSubnetRow is a subnet with its VPC's namespace and name.
type SearchSubnetRow struct {
	SubnetRow
	Namespace, VPC string
}

type searchSubnetScan struct {
	subnetScan
	Namespace string `db:"namespace"`
	VPC       string `db:"vpc"`
}

func (s searchSubnetScan) row() (SearchSubnetRow, error) {
	r, err := s.subnetScan.row()
	return SearchSubnetRow{SubnetRow: r, Namespace: s.Namespace, VPC: s.VPC}, err
}

// SearchSubnets returns the subnets overlapping s.Prefix (with their
// prefix of its family), or named by s.Text (the namespace being their
// VPC's), in prefix order or with the subnets of that very name first.
func SearchSubnets(ctx context.Context, ext sqlx.QueryerContext, s Search) ([]SearchSubnetRow, error) {
	column := "s." + prefixColumn(s.Prefix)
	where, order := column+` && $1::cidr`, column+`, v.namespace, v.name, s.name`
	if !s.Prefix.IsValid() {
		where, order = namedBy("s.name", "s.uid", "v.namespace"), `lower(s.name) = lower($1) DESC, v.namespace, v.name, s.name`
	}
	ss, err := selectRows[searchSubnetScan](ctx, ext, `SELECT s.uid, s.vpc_uid, s.name, s.cidr::text AS cidr, host(s.gateway) AS gateway,
			s.ipv6_cidr::text AS ipv6_cidr, host(s.ipv6_gateway) AS ipv6_gateway, s.created_at, s.created_by, v.namespace, v.name AS vpc
		FROM subnets s JOIN vpcs v ON v.uid = s.vpc_uid
		WHERE `+where+` AND `+inScope("v.namespace", 2)+`
		ORDER BY `+order+` LIMIT $3`, s.args()...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to search the subnets: %w", classify(err))
	}
	return ss, nil
}

// An AllocationMatch says how an allocation matched a search, the best
// first.
type AllocationMatch int

// How allocations match.
const (
	InPrefix         AllocationMatch = iota // its address lies in the prefix
	ByOwnerName                             // its owner's name is the text (any case), or a VM's hostname is
	ByOwnerUID                              // its owner's uid is the text
	ByOwnerNameStart                        // its owner's name starts with the text (any case)
	ByOwnerNamespace                        // its owner's namespace is the text or lies below it
)

// A SearchAllocationRow is an allocation with its pool's name and kind,
// the name of its subnet and the name of the VPC that shows it: a private
// pool's, a router uplink's, or for a floating IP the first VPC of its
// namespace (a VPC's page lists the namespace's floating IPs); "" when
// there is none.
type SearchAllocationRow struct {
	AllocationRow
	Match                       AllocationMatch
	Pool, PoolKind, Subnet, VPC string
}

type searchAllocationScan struct {
	allocationScan
	Match    AllocationMatch `db:"match"`
	Pool     string          `db:"pool"`
	PoolKind string          `db:"pool_kind"`
	Subnet   string          `db:"subnet"`
	VPC      string          `db:"vpc"`
}

func (s searchAllocationScan) row() (SearchAllocationRow, error) {
	r, err := s.allocationScan.row()
	return SearchAllocationRow{AllocationRow: r, Match: s.Match, Pool: s.Pool, PoolKind: s.PoolKind, Subnet: s.Subnet, VPC: s.VPC}, err
}

// uuidPattern is what a uuid's text looks like: an owner's uid is cast to
// one only when it does.
const uuidPattern = `'^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'`

// searchAllocationSelect reads the allocations that found, a list of
// parts in parentheses joined by UNION ALL, gives: each with its match
// and ord, its order in its part, the part's columns those of
// allocations. The rows come in the order of the parts' matches, then of
// ord.
func searchAllocationSelect(with, found string) string {
	return with + ` found AS (` + found + `)
		SELECT f.namespace, f.name, f.pool_uid, host(f.address) AS address, f.owner_kind, f.owner_uid, f.owner_name, f.owner_namespace,
			f.subnet_uid, f.uid, f.created_at, f.created_by, f.match, p.name AS pool, p.kind AS pool_kind, coalesce(s.name, '') AS subnet,
			coalesce(
				(SELECT v.name FROM vpcs v WHERE v.uid = p.vpc_uid),
				(SELECT v.name FROM vpcs v WHERE v.uid = CASE WHEN f.owner_kind = 'VPC' AND f.owner_uid ~ ` + uuidPattern + ` THEN f.owner_uid::uuid END),
				(SELECT v.name FROM vpcs v WHERE f.owner_kind = 'FloatingIP' AND v.namespace = f.owner_namespace ORDER BY v.name LIMIT 1),
				'') AS vpc
		FROM found f JOIN pools p ON p.uid = f.pool_uid LEFT JOIN subnets s ON s.uid = f.subnet_uid
		ORDER BY f.match, f.ord`
}

// The allocations in a prefix ($1, a cidr): for every scope but
// everything, read per namespace of the scope from the index of
// (owner_namespace, address), the namespaces being those of its VPCs and
// floating IPs and the patterns naming one namespace; for everything, per
// pool overlapping the prefix from the index of (pool_uid, address), $2
// being the limit. Both read at most the limit of each namespace or pool,
// and the limit in all.
var (
	allocationsInPrefixSQL = searchAllocationSelect(`WITH namespaces AS (
			SELECT DISTINCT n FROM (
				SELECT namespace FROM vpcs UNION ALL SELECT namespace FROM floating_ips
				UNION ALL SELECT pattern FROM unnest($2::text[]) pattern WHERE right(pattern, 2) <> '/*'
			) x (n)
			WHERE `+inScope("n", 2)+`
		),`, `SELECT `+matchSQL(InPrefix)+` AS match, row_number() OVER (ORDER BY a.address, a.namespace, a.name) AS ord, a.*
		FROM (
			SELECT a.* FROM namespaces CROSS JOIN LATERAL (
				SELECT * FROM allocations WHERE owner_namespace = namespaces.n
					AND address <<= $1::cidr
				ORDER BY address LIMIT $3
			) a
			ORDER BY a.address, a.namespace, a.name LIMIT $3
		) a`)
	allAllocationsInPrefixSQL = searchAllocationSelect(`WITH`, `SELECT `+matchSQL(InPrefix)+` AS match, row_number() OVER (ORDER BY a.address, a.namespace, a.name) AS ord, a.*
		FROM (
			SELECT a.* FROM pools p CROSS JOIN LATERAL (
				SELECT * FROM allocations WHERE pool_uid = p.uid
					AND address <<= $1::cidr
				ORDER BY address LIMIT $2
			) a
			WHERE p.cidr && $1::cidr
			ORDER BY a.address, a.namespace, a.name LIMIT $2
		) a`)
)

// allocationsNamedSQL finds the allocations of a text ($1): by the
// owner's whole name or a VM's hostname, by its uid, by the start of its
// name, and by its namespace (the namespaces of VPCs and floating IPs,
// and $1 itself, that are $1 or below it), at most $3 of each, each
// from an index.
var allocationsNamedSQL = searchAllocationSelect(`WITH namespaces AS (
		SELECT DISTINCT n FROM (
			SELECT namespace FROM vpcs UNION ALL SELECT namespace FROM floating_ips UNION ALL SELECT $1::text
		) x (n)
		WHERE (n = $1 OR starts_with(n, $1 || '/')) AND `+inScope("n", 2)+`
	),`, `(SELECT `+matchSQL(ByOwnerName)+` AS match, row_number() OVER (ORDER BY lower(a.owner_name) COLLATE "C", a.address) AS ord, a.*
		FROM (
			SELECT * FROM allocations
			WHERE (lower(owner_name) COLLATE "C" = lower($1) OR lower(owner_name) COLLATE "C" LIKE lower($4) || '/%')
				AND `+inScope("owner_namespace", 2)+`
			ORDER BY lower(owner_name) COLLATE "C", address LIMIT $3
		) a)
	UNION ALL
	(SELECT `+matchSQL(ByOwnerUID)+`, row_number() OVER (ORDER BY a.owner_name, a.address), a.*
		FROM (
			SELECT * FROM allocations WHERE owner_uid IN ($1, lower($1)) AND `+inScope("owner_namespace", 2)+`
			ORDER BY owner_name, address LIMIT $3
		) a)
	UNION ALL
	(SELECT `+matchSQL(ByOwnerNameStart)+`, row_number() OVER (ORDER BY lower(a.owner_name) COLLATE "C", a.address), a.*
		FROM (
			SELECT * FROM allocations
			WHERE lower(owner_name) COLLATE "C" LIKE lower($4) || '%' AND `+inScope("owner_namespace", 2)+`
			ORDER BY lower(owner_name) COLLATE "C", address LIMIT $3
		) a)
	UNION ALL
	(SELECT `+matchSQL(ByOwnerNamespace)+`, row_number() OVER (ORDER BY a.address, a.namespace, a.name), a.*
		FROM (
			SELECT a.* FROM namespaces CROSS JOIN LATERAL (
				SELECT * FROM allocations WHERE owner_namespace = namespaces.n ORDER BY address LIMIT $3
			) a
			ORDER BY a.address, a.namespace, a.name LIMIT $3
		) a)`)

// SearchAllocations returns the allocations in s.Prefix, in address
// order, or those s.Text names: by the owner's whole name or a VM's
// hostname ("web" names "web/0"), by the owner's uid, by the start of the
// owner's name, and by the owner's namespace (the namespaces of VPCs and
// floating IPs, and s.Text itself, that are s.Text or lie below it), in
// that order, each allocation once, with how it matched first. At most
// s.Limit of each match.
func SearchAllocations(ctx context.Context, ext sqlx.QueryerContext, s Search) ([]SearchAllocationRow, error) {
	query, args := allocationsNamedSQL, s.args()
	switch {
	case s.Prefix.IsValid() && s.Scope.Everything:
		query, args = allAllocationsInPrefixSQL, []any{s.Prefix.String(), s.Limit}
	case s.Prefix.IsValid():
		query = allocationsInPrefixSQL
	}
	rows, err := selectRows[searchAllocationScan](ctx, ext, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to search the allocations: %w", classify(err))
	}
	type key struct{ namespace, name string }
	seen := make(map[key]bool, len(rows))
	out := rows[:0]
	for _, r := range rows {
		if k := (key{r.Namespace, r.Name}); !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out, nil
}

// allocationsAtSQL finds the allocations of the pools $2 at the address
// $1.
var allocationsAtSQL = searchAllocationSelect(`WITH`, `SELECT `+matchSQL(InPrefix)+` AS match, row_number() OVER (ORDER BY pool_uid) AS ord, *
	FROM allocations WHERE pool_uid = ANY($2::uuid[]) AND address = $1::inet`)

// AllocationsAt returns the allocations of the pools poolUIDs at the
// address a, whoever holds them.
func AllocationsAt(ctx context.Context, ext sqlx.QueryerContext, a netip.Addr, poolUIDs []string) ([]SearchAllocationRow, error) {
	rows, err := selectRows[searchAllocationScan](ctx, ext, allocationsAtSQL, a.String(), pq.StringArray(poolUIDs))
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the allocations at %s: %w", a, classify(err))
	}
	return rows, nil
}

// matchSQL writes a match as the SQL literal of its number.
func matchSQL(m AllocationMatch) string { return fmt.Sprint(int(m)) }
