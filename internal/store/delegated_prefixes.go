package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/jmoiron/sqlx"
)

// A DelegatedPrefixRow is a row of delegated_prefixes: a prefix a public
// IPv6 pool delegated to a VPC, of the pool's delegated prefix length.
type DelegatedPrefixRow struct {
	PoolUID   string
	Prefix    netip.Prefix
	VPCUID    string
	CreatedAt time.Time
	CreatedBy string
	// VPCNamespace and VPCName name the VPC, as DelegatedPrefixes reads
	// them.
	VPCNamespace, VPCName string
}

// delegatedPrefixScan is a row of delegated_prefixes as the driver reads
// it.
type delegatedPrefixScan struct {
	PoolUID      string    `db:"pool_uid"`
	Prefix       string    `db:"prefix"`
	VPCUID       string    `db:"vpc_uid"`
	CreatedAt    time.Time `db:"created_at"`
	CreatedBy    string    `db:"created_by"`
	VPCNamespace string    `db:"vpc_namespace"`
	VPCName      string    `db:"vpc_name"`
}

func (s delegatedPrefixScan) row() (DelegatedPrefixRow, error) {
	prefix, err := prefixOf("delegated prefix of vpc "+s.VPCUID, s.Prefix)
	return DelegatedPrefixRow{PoolUID: s.PoolUID, Prefix: prefix, VPCUID: s.VPCUID, CreatedAt: s.CreatedAt, CreatedBy: s.CreatedBy,
		VPCNamespace: s.VPCNamespace, VPCName: s.VPCName}, err
}

const delegatedPrefixColumns = `pool_uid, prefix::text AS prefix, vpc_uid, created_at, created_by`

// DelegatePrefix stores the delegation d and makes its prefix the IPv6
// prefix of its VPC, with the addressing and the key of its host addresses,
// in one statement, and returns the VPC as stored. Of two delegations of one
// prefix of a pool, the primary key delegated_prefixes_pkey stores one, as
// allocations_pkey does for addresses; a VPC holds one delegated prefix at
// most (delegated_prefixes_vpc_key). When it stores nothing, it returns an
// error wrapping ErrObjectExists (DelegatedPrefixConflictOf says why).
func DelegatePrefix(ctx context.Context, ext sqlx.QueryerContext, d DelegatedPrefixRow, addressing string, key []byte) (VPCRow, error) {
	v, err := getRow[vpcScan](ctx, ext, `WITH d AS (
			INSERT INTO delegated_prefixes (pool_uid, prefix, vpc_uid, created_by) VALUES ($1, $2, $3, $4)
			ON CONFLICT DO NOTHING RETURNING *
		), v AS (
			UPDATE vpcs SET ipv6_cidr = d.prefix, ipv6_delegated = true, ipv6_addressing = $5, ipv6_key = $6
			FROM d WHERE vpcs.uid = d.vpc_uid
			RETURNING vpcs.*
		)
		SELECT `+vpcColumns+` FROM v`,
		d.PoolUID, d.Prefix.String(), d.VPCUID, d.CreatedBy, addressing, key)
	if errors.Is(err, sql.ErrNoRows) {
		return VPCRow{}, fmt.Errorf("store: prefix %s: %w", d.Prefix, ErrObjectExists)
	}
	if err != nil {
		return VPCRow{}, fmt.Errorf("store: unable to delegate the prefix %s: %w", d.Prefix, classify(err))
	}
	return v, nil
}

// A DelegationConflict says why a delegation stored nothing: the VPC
// holding the prefix, if any, and the prefix the VPC holds, if any.
type DelegationConflict struct {
	HeldBy string       // the uid of the VPC holding the prefix; "" when none
	Held   netip.Prefix // the prefix the VPC holds; zero when none
}

// DelegatedPrefixConflictOf reads who holds prefix in the pool and what the
// VPC holds, after a delegation stored nothing.
func DelegatedPrefixConflictOf(ctx context.Context, ext sqlx.QueryerContext, poolUID string, prefix netip.Prefix, vpcUID string) (DelegationConflict, error) {
	var c struct {
		HeldBy sql.NullString `db:"held_by"`
		Held   sql.NullString `db:"held"`
	}
	err := sqlx.GetContext(ctx, ext, &c, `SELECT
			(SELECT vpc_uid::text FROM delegated_prefixes WHERE pool_uid = $1 AND prefix = $2::cidr) AS held_by,
			(SELECT prefix::text FROM delegated_prefixes WHERE vpc_uid = $3) AS held`, poolUID, prefix.String(), vpcUID)
	if err != nil {
		return DelegationConflict{}, fmt.Errorf("store: unable to read the holder of the prefix %s: %w", prefix, classify(err))
	}
	out := DelegationConflict{HeldBy: c.HeldBy.String}
	if c.Held.Valid {
		if out.Held, err = prefixOf("delegated prefix of vpc "+vpcUID, c.Held.String); err != nil {
			return DelegationConflict{}, err
		}
	}
	return out, nil
}

// DelegatedPrefixOf returns the prefix delegated to the VPC, or
// ErrNotFound.
func DelegatedPrefixOf(ctx context.Context, ext sqlx.QueryerContext, vpcUID string) (DelegatedPrefixRow, error) {
	d, err := getRow[delegatedPrefixScan](ctx, ext, `SELECT `+delegatedPrefixColumns+` FROM delegated_prefixes WHERE vpc_uid = $1`, vpcUID)
	return d, found(err, "delegated prefix")
}

// DelegatedPrefixes returns the prefixes the pool delegated, in address
// order, each with its VPC's namespace and name.
func DelegatedPrefixes(ctx context.Context, ext sqlx.QueryerContext, poolUID string) ([]DelegatedPrefixRow, error) {
	ds, err := selectRows[delegatedPrefixScan](ctx, ext, `SELECT d.pool_uid, d.prefix::text AS prefix, d.vpc_uid, d.created_at, d.created_by,
			v.namespace AS vpc_namespace, v.name AS vpc_name
		FROM delegated_prefixes d JOIN vpcs v ON v.uid = d.vpc_uid WHERE d.pool_uid = $1 ORDER BY d.prefix`, poolUID)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the prefixes of pool %s: %w", poolUID, classify(err))
	}
	return ds, nil
}

// CountDelegatedPrefixes counts the prefixes the pool delegated.
func CountDelegatedPrefixes(ctx context.Context, ext sqlx.QueryerContext, poolUID string) (int64, error) {
	var n int64
	if err := sqlx.GetContext(ctx, ext, &n, `SELECT count(*) FROM delegated_prefixes WHERE pool_uid = $1`, poolUID); err != nil {
		return 0, fmt.Errorf("store: unable to count the prefixes of pool %s: %w", poolUID, classify(err))
	}
	return n, nil
}
