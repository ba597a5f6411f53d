package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/jmoiron/sqlx"
)

// A PoolRow is a row of pools.
type PoolRow struct {
	UID       string
	Namespace string
	Name      string
	Kind      string
	CIDR      netip.Prefix
	Gateway   netip.Addr // the zero Addr when the pool has none
	Exclude   []string
	Zone      string
	VPCUID    string // a private pool's VPC; "" for a public pool
	Labels    Labels
	// SpecVersion counts the changes of a public pool's spec (gateway,
	// excludes, zone), from 1; a private pool's, which never changes, is 0.
	SpecVersion int64
	// DelegatedPrefixLength is the length of the prefixes a public IPv6
	// pool delegates to VPCs (delegated_prefixes); 0 for a pool that hands
	// out addresses.
	DelegatedPrefixLength int
	CreatedAt             time.Time
	CreatedBy             string
}

// Labels are a pool's labels, a jsonb object of strings. Nil is stored as
// the empty object, and the empty object scans into an empty map.
type Labels map[string]string

// Scan reads a jsonb object of strings.
func (l *Labels) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case []byte:
		b = v
	case string:
		b = []byte(v)
	default:
		return fmt.Errorf("store: unable to read %T as labels", src)
	}
	out := Labels{}
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("store: unable to read the labels %s: %w", b, err)
	}
	*l = out
	return nil
}

// Value stores l as a jsonb object, nil as {}, in text: a []byte value
// would go in jsonb's binary format when the URL asks lib/pq for
// binary_parameters (as a connection pooler in transaction mode needs).
func (l Labels) Value() (driver.Value, error) {
	if l == nil {
		return "{}", nil
	}
	b, err := json.Marshal(map[string]string(l))
	return string(b), err
}

const poolColumns = `uid, namespace, name, kind, cidr::text AS cidr, host(gateway) AS gateway, exclude, zone, vpc_uid, labels, spec_version, delegated_prefix_length, created_at, created_by`

// InsertPool stores p and returns it as stored, a public pool's spec at
// version 1. When its name is taken or, for a public pool, its prefix
// overlaps another's, it returns an error wrapping ErrObjectExists.
func InsertPool(ctx context.Context, ext sqlx.ExtContext, p PoolRow) (PoolRow, error) {
	out, err := getRow[poolScan](ctx, ext, `INSERT INTO pools (uid, namespace, name, kind, cidr, gateway, exclude, zone, vpc_uid, labels, created_by, spec_version, delegated_prefix_length)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, CASE WHEN $4 = 'public' THEN 1 ELSE 0 END, $12)
		ON CONFLICT DO NOTHING
		RETURNING `+poolColumns,
		p.UID, p.Namespace, p.Name, p.Kind, p.CIDR.String(), addrArg(p.Gateway), textArray(p.Exclude), p.Zone, nullable(p.VPCUID), p.Labels, p.CreatedBy, p.DelegatedPrefixLength)
	if errors.Is(err, sql.ErrNoRows) {
		return PoolRow{}, fmt.Errorf("store: pool %s: %w", p.Name, ErrObjectExists)
	}
	if err != nil {
		return PoolRow{}, fmt.Errorf("store: unable to insert the pool %s: %w", p.Name, classify(err))
	}
	return out, nil
}

// Pool returns the pool namespace/name, or ErrNotFound.
func Pool(ctx context.Context, ext sqlx.QueryerContext, namespace, name string) (PoolRow, error) {
	p, err := getRow[poolScan](ctx, ext, `SELECT `+poolColumns+` FROM pools WHERE namespace = $1 AND name = $2`, namespace, name)
	return p, found(err, "pool")
}

// PoolByUID returns the pool uid, or ErrNotFound.
func PoolByUID(ctx context.Context, ext sqlx.QueryerContext, uid string) (PoolRow, error) {
	p, err := getRow[poolScan](ctx, ext, `SELECT `+poolColumns+` FROM pools WHERE uid = $1`, uid)
	return p, found(err, "pool")
}

// Pools returns the pools of kind ("" for both) in namespace order, then
// name order.
func Pools(ctx context.Context, ext sqlx.QueryerContext, kind string) ([]PoolRow, error) {
	ps, err := selectRows[poolScan](ctx, ext, `SELECT `+poolColumns+` FROM pools WHERE $1 = '' OR kind = $1 ORDER BY namespace, name`, kind)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the pools: %w", classify(err))
	}
	return ps, nil
}

// PublicPoolsInZone returns the public pools of zone in name order.
func PublicPoolsInZone(ctx context.Context, ext sqlx.QueryerContext, zone string) ([]PoolRow, error) {
	ps, err := selectRows[poolScan](ctx, ext, `SELECT `+poolColumns+` FROM pools WHERE kind = 'public' AND zone = $1 ORDER BY name`, zone)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the pools of zone %s: %w", zone, classify(err))
	}
	return ps, nil
}

// OverlappingPublicPool returns a public pool whose prefix overlaps cidr.
func OverlappingPublicPool(ctx context.Context, ext sqlx.QueryerContext, cidr netip.Prefix) (PoolRow, error) {
	p, err := getRow[poolScan](ctx, ext, `SELECT `+poolColumns+` FROM pools WHERE kind = 'public' AND cidr && $1::cidr ORDER BY name LIMIT 1`, cidr.String())
	return p, found(err, "pool")
}

// SetPoolLabels replaces the labels of the pool uid and returns it as
// stored, or ErrNotFound.
func SetPoolLabels(ctx context.Context, ext sqlx.QueryerContext, uid string, labels Labels) (PoolRow, error) {
	p, err := getRow[poolScan](ctx, ext, `UPDATE pools SET labels = $2 WHERE uid = $1 RETURNING `+poolColumns, uid, labels)
	return p, found(err, "pool")
}

// LockPublicPool returns the public pool name locked FOR UPDATE until the
// end of tx, or ErrNotFound: the lock waits for the claims in progress in
// the pool, whose statements hold its row FOR KEY SHARE, and the claims
// that come meanwhile wait for tx (migration 0023).
func LockPublicPool(ctx context.Context, tx *Tx, name string) (PoolRow, error) {
	p, err := getRow[poolScan](ctx, tx, `SELECT `+poolColumns+` FROM pools WHERE kind = 'public' AND namespace = '' AND name = $1 FOR UPDATE`, name)
	return p, found(err, "pool")
}

// UpdatePoolSpec stores the gateway, the excludes and the zone of p, a
// public pool that tx locked (LockPublicPool), with the next version of
// its spec, and returns it as stored.
func UpdatePoolSpec(ctx context.Context, tx *Tx, p PoolRow) (PoolRow, error) {
	out, err := getRow[poolScan](ctx, tx, `UPDATE pools SET gateway = $2, exclude = $3, zone = $4, spec_version = spec_version + 1
		WHERE uid = $1 AND kind = 'public' RETURNING `+poolColumns, p.UID, addrArg(p.Gateway), textArray(p.Exclude), p.Zone)
	return out, found(err, "pool")
}

// DeletePool deletes the pool uid and, by cascade, its allocations.
func DeletePool(ctx context.Context, ext sqlx.ExtContext, uid string) error {
	_, err := ext.ExecContext(ctx, `DELETE FROM pools WHERE uid = $1`, uid)
	if isForeignKeyViolation(err) {
		return fmt.Errorf("store: %s still holds allocations: %w", uid, ErrInUse)
	}
	if err != nil {
		return fmt.Errorf("store: unable to delete the pool %s: %w", uid, classify(err))
	}
	return nil
}

// found turns sql.ErrNoRows into ErrNotFound and wraps other errors,
// classified (see Unavailable).
func found(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("store: %s: %w", what, ErrNotFound)
	}
	return fmt.Errorf("store: unable to read the %s: %w", what, classify(err))
}
