package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// The kinds of things a quota bounds: the columns of quotas (migration
// 0020). What each counts in a namespace is namespaceUsageSQL's.
const (
	QuotaVPCs        = "vpcs"
	QuotaSubnets     = "subnets"
	QuotaFloatingIPs = "floating_ips"
	QuotaAddresses   = "addresses"
)

// QuotaKinds are the kinds of things a quota bounds, in the order the
// console and the command line list them.
var QuotaKinds = []string{QuotaVPCs, QuotaSubnets, QuotaFloatingIPs, QuotaAddresses}

// A QuotaRow is a row of quotas: the limits set for the namespaces
// matching Pattern, by kind (QuotaKinds); a kind absent has no limit.
type QuotaRow struct {
	Pattern   string
	Limits    map[string]int64
	UpdatedAt time.Time
	UpdatedBy string
}

const quotaColumns = `pattern, vpcs, subnets, floating_ips, addresses, updated_at, updated_by`

// quotaScan is a row of quotas as the driver reads it.
type quotaScan struct {
	Pattern     string        `db:"pattern"`
	VPCs        sql.NullInt64 `db:"vpcs"`
	Subnets     sql.NullInt64 `db:"subnets"`
	FloatingIPs sql.NullInt64 `db:"floating_ips"`
	Addresses   sql.NullInt64 `db:"addresses"`
	UpdatedAt   time.Time     `db:"updated_at"`
	UpdatedBy   string        `db:"updated_by"`
}

func (s quotaScan) row() (QuotaRow, error) {
	q := QuotaRow{Pattern: s.Pattern, Limits: map[string]int64{}, UpdatedAt: s.UpdatedAt, UpdatedBy: s.UpdatedBy}
	for kind, v := range map[string]sql.NullInt64{QuotaVPCs: s.VPCs, QuotaSubnets: s.Subnets, QuotaFloatingIPs: s.FloatingIPs, QuotaAddresses: s.Addresses} {
		if v.Valid {
			q.Limits[kind] = v.Int64
		}
	}
	return q, nil
}

// limitArgs are q's limits as the parameters of the columns vpcs, subnets,
// floating_ips and addresses: NULL for no limit.
func (q QuotaRow) limitArgs() []any {
	args := make([]any, len(QuotaKinds))
	for i, kind := range QuotaKinds {
		if n, ok := q.Limits[kind]; ok {
			args[i] = n
		}
	}
	return args
}

// quotaColumn returns the column of kind, refusing anything but
// QuotaKinds: the name goes into statements.
func quotaColumn(kind string) string {
	for _, k := range QuotaKinds {
		if k == kind {
			return k
		}
	}
	panic(fmt.Sprintf("store: %q is no kind of quota", kind))
}

// NamespacePatterns returns the patterns that match namespace as
// internal/auth's MatchNamespace reads them: the namespace itself, and
// "p/*" for each "p/" it starts with ("acme/prod/eu": acme/prod/eu,
// acme/*, acme/prod/*). A statement finds the quotas of a namespace by
// looking these up in the primary key of quotas.
func NamespacePatterns(namespace string) []string {
	patterns := []string{namespace}
	for i := 0; i < len(namespace)-1; i++ {
		if namespace[i] == '/' {
			patterns = append(patterns, namespace[:i]+"/*")
		}
	}
	return patterns
}

// Quotas returns every quota in pattern order.
func Quotas(ctx context.Context, ext sqlx.QueryerContext) ([]QuotaRow, error) {
	rows, err := selectRows[quotaScan](ctx, ext, `SELECT `+quotaColumns+` FROM quotas ORDER BY pattern`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the quotas: %w", classify(err))
	}
	return rows, nil
}

// Quota returns the quota of pattern, or ErrNotFound. With lock, its row
// is locked until the transaction ends.
func Quota(ctx context.Context, ext sqlx.QueryerContext, pattern string, lock bool) (QuotaRow, error) {
	q := `SELECT ` + quotaColumns + ` FROM quotas WHERE pattern = $1`
	if lock {
		q += ` FOR UPDATE`
	}
	row, err := getRow[quotaScan](ctx, ext, q, pattern)
	return row, found(err, "quota")
}

// PutQuota stores q, in place of the quota of its pattern if there is one,
// and returns it as stored.
func PutQuota(ctx context.Context, ext sqlx.QueryerContext, q QuotaRow) (QuotaRow, error) {
	args := append([]any{q.Pattern}, q.limitArgs()...)
	row, err := getRow[quotaScan](ctx, ext, `INSERT INTO quotas (pattern, vpcs, subnets, floating_ips, addresses, updated_by)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (pattern) DO UPDATE SET vpcs = $2, subnets = $3, floating_ips = $4, addresses = $5, updated_at = now(), updated_by = $6
		RETURNING `+quotaColumns, append(args, q.UpdatedBy)...)
	if err != nil {
		return QuotaRow{}, fmt.Errorf("store: unable to store the quota %s: %w", q.Pattern, classify(err))
	}
	return row, nil
}

// DeleteQuota deletes the quota of pattern and returns it, or ErrNotFound.
func DeleteQuota(ctx context.Context, ext sqlx.QueryerContext, pattern string) (QuotaRow, error) {
	row, err := getRow[quotaScan](ctx, ext, `DELETE FROM quotas WHERE pattern = $1 RETURNING `+quotaColumns, pattern)
	if errors.Is(err, sql.ErrNoRows) {
		return QuotaRow{}, fmt.Errorf("store: quota %s: %w", pattern, ErrNotFound)
	}
	if err != nil {
		return QuotaRow{}, fmt.Errorf("store: unable to delete the quota %s: %w", pattern, classify(err))
	}
	return row, nil
}

// QuotasOf returns the quotas whose pattern matches namespace, in pattern
// order: each of them bounds it.
func QuotasOf(ctx context.Context, ext sqlx.QueryerContext, namespace string) ([]QuotaRow, error) {
	rows, err := selectRows[quotaScan](ctx, ext, `SELECT `+quotaColumns+` FROM quotas
		WHERE pattern = ANY ($1::text[]) ORDER BY pattern`, textArray(NamespacePatterns(namespace)))
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the quotas of %s: %w", namespace, classify(err))
	}
	return rows, nil
}

// QuotaApplies reports whether a quota sets a limit of kind for
// namespace: one probe of the primary key of quotas per pattern matching
// the namespace.
func QuotaApplies(ctx context.Context, ext sqlx.QueryerContext, namespace, kind string) (bool, error) {
	var applies bool
	err := sqlx.GetContext(ctx, ext, &applies, `SELECT EXISTS (SELECT FROM quotas
		WHERE `+quotaColumn(kind)+` IS NOT NULL AND pattern = ANY ($1::text[]))`, textArray(NamespacePatterns(namespace)))
	if err != nil {
		return false, fmt.Errorf("store: unable to read the quotas of %s: %w", namespace, classify(err))
	}
	return applies, nil
}

// LockQuotas takes the quota lock of each namespace that a quota matches,
// in the order given, until tx ends: a transaction adding to what such a
// namespace holds takes it before counting, so that two of them count one
// after the other (docs/allocation.md, "Quotas"). It is an advisory lock,
// so a namespace no quota matches costs its statement and no lock.
func LockQuotas(ctx context.Context, tx *Tx, namespaces ...string) error {
	for _, ns := range namespaces {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('quota ' || $1, 0))
			WHERE EXISTS (SELECT FROM quotas WHERE pattern = ANY ($2::text[]))`, ns, textArray(NamespacePatterns(ns))); err != nil {
			return fmt.Errorf("store: unable to lock the quotas of %s: %w", ns, classify(err))
		}
	}
	return nil
}

// A QuotaLimit is the limit of one kind that one quota sets.
type QuotaLimit struct {
	Pattern string
	Limit   int64
}

// namespaceUsageSQL counts, for the namespace $1, what each kind of quota
// counts: its VPCs, the subnets of its VPCs, its floating IPs, and every
// address its owners hold (VM interfaces, node addresses, router uplinks,
// floating IPs), each from an index.
var namespaceUsageSQL = map[string]string{
	QuotaVPCs:        `SELECT count(*) FROM vpcs WHERE namespace = $1`,
	QuotaSubnets:     `SELECT count(*) FROM subnets WHERE vpc_uid IN (SELECT uid FROM vpcs WHERE namespace = $1)`,
	QuotaFloatingIPs: `SELECT count(*) FROM floating_ips WHERE namespace = $1`,
	QuotaAddresses:   `SELECT count(*) FROM allocations WHERE owner_namespace = $1`,
}

// QuotaUsage returns the limits of kind that quotas set for namespace, in
// pattern order, and what namespace holds of kind, in one statement: run
// after LockQuotas, it counts in a snapshot taken once the lock is held.
func QuotaUsage(ctx context.Context, ext sqlx.QueryerContext, namespace, kind string) ([]QuotaLimit, int64, error) {
	var row struct {
		Used     int64          `db:"used"`
		Patterns pq.StringArray `db:"patterns"`
		Limits   pq.Int64Array  `db:"limits"`
	}
	col := quotaColumn(kind)
	matching := `FROM quotas WHERE ` + col + ` IS NOT NULL AND pattern = ANY ($2::text[]) ORDER BY pattern`
	err := sqlx.GetContext(ctx, ext, &row, `SELECT (`+namespaceUsageSQL[kind]+`) AS used,
		ARRAY(SELECT pattern `+matching+`) AS patterns, ARRAY(SELECT `+col+` `+matching+`) AS limits`, namespace, textArray(NamespacePatterns(namespace)))
	if err != nil {
		return nil, 0, fmt.Errorf("store: unable to count the %s of %s: %w", kind, namespace, classify(err))
	}
	limits := make([]QuotaLimit, len(row.Patterns))
	for i, p := range row.Patterns {
		limits[i] = QuotaLimit{Pattern: p, Limit: row.Limits[i]}
	}
	return limits, row.Used, nil
}

// NamespaceUsage returns what each namespace holds, by kind of quota
// (namespaceUsageSQL), in one statement.
func NamespaceUsage(ctx context.Context, ext sqlx.QueryerContext, namespaces []string) (map[string]map[string]int64, error) {
	var rows []struct {
		Namespace   string `db:"namespace"`
		VPCs        int64  `db:"vpcs"`
		Subnets     int64  `db:"subnets"`
		FloatingIPs int64  `db:"floating_ips"`
		Addresses   int64  `db:"addresses"`
	}
	err := sqlx.SelectContext(ctx, ext, &rows, `SELECT ns AS namespace,
			(SELECT count(*) FROM vpcs WHERE namespace = ns) AS vpcs,
			(SELECT count(*) FROM subnets WHERE vpc_uid IN (SELECT uid FROM vpcs WHERE namespace = ns)) AS subnets,
			(SELECT count(*) FROM floating_ips WHERE namespace = ns) AS floating_ips,
			(SELECT count(*) FROM allocations WHERE owner_namespace = ns) AS addresses
		FROM unnest($1::text[]) AS ns`, textArray(namespaces))
	if err != nil {
		return nil, fmt.Errorf("store: unable to count what %d namespaces hold: %w", len(namespaces), classify(err))
	}
	out := make(map[string]map[string]int64, len(rows))
	for _, r := range rows {
		out[r.Namespace] = map[string]int64{QuotaVPCs: r.VPCs, QuotaSubnets: r.Subnets, QuotaFloatingIPs: r.FloatingIPs, QuotaAddresses: r.Addresses}
	}
	return out, nil
}

// QuotaNamespaces returns, in order, the namespaces that hold something
// (a VPC, a floating IP, an address) and that one of patterns matches. The
// namespaces of allocations are read down the index of (owner_namespace,
// address), one probe per namespace, not one row per allocation.
func QuotaNamespaces(ctx context.Context, ext sqlx.QueryerContext, patterns []string) ([]string, error) {
	out := []string{}
	err := sqlx.SelectContext(ctx, ext, &out, `WITH RECURSIVE owners AS (
			(SELECT owner_namespace AS ns FROM allocations ORDER BY owner_namespace LIMIT 1)
			UNION ALL
			SELECT (SELECT owner_namespace FROM allocations WHERE owner_namespace > owners.ns ORDER BY owner_namespace LIMIT 1)
			FROM owners WHERE owners.ns IS NOT NULL
		), held AS (
			SELECT ns FROM owners WHERE ns IS NOT NULL
			UNION SELECT namespace FROM vpcs
			UNION SELECT namespace FROM floating_ips
		)
		SELECT ns FROM held WHERE `+inScope("ns", 1)+` ORDER BY ns`, textArray(patterns))
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the namespaces under quotas: %w", classify(err))
	}
	return out, nil
}
