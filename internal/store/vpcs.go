package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// A VPCRow is a row of vpcs.
type VPCRow struct {
	UID       string
	Namespace string
	Name      string
	CIDR      netip.Prefix
	Zone      string
	// IPv6CIDR is the VPC's IPv6 prefix, the zero Prefix when it has none;
	// IPv6Delegated says it was delegated from a public pool
	// (DelegatePrefix) and goes back with the VPC.
	IPv6CIDR      netip.Prefix
	IPv6Delegated bool
	// IPv6Addressing is LOWEST_FREE or STABLE_OPAQUE, IPv6Key the secret
	// of the stable opaque addresses (32 bytes), nil without IPv6CIDR.
	IPv6Addressing string
	IPv6Key        []byte
	CreatedAt      time.Time
	CreatedBy      string
}

const vpcColumns = `uid, namespace, name, cidr::text AS cidr, zone, ipv6_cidr::text AS ipv6_cidr, ipv6_delegated, ipv6_addressing, ipv6_key, created_at, created_by`

// InsertVPC stores v; ErrObjectExists when its name is taken.
func InsertVPC(ctx context.Context, ext sqlx.QueryerContext, v VPCRow) (VPCRow, error) {
	out, err := getRow[vpcScan](ctx, ext, `INSERT INTO vpcs (uid, namespace, name, cidr, zone, created_by, ipv6_cidr, ipv6_delegated, ipv6_addressing, ipv6_key)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, coalesce($9, 'LOWEST_FREE'), $10) ON CONFLICT DO NOTHING RETURNING `+vpcColumns,
		v.UID, v.Namespace, v.Name, v.CIDR.String(), v.Zone, v.CreatedBy, prefixArg(v.IPv6CIDR), v.IPv6Delegated, nullable(v.IPv6Addressing), v.IPv6Key)
	if errors.Is(err, sql.ErrNoRows) {
		return VPCRow{}, fmt.Errorf("store: vpc %s/%s: %w", v.Namespace, v.Name, ErrObjectExists)
	}
	if err != nil {
		return VPCRow{}, fmt.Errorf("store: unable to insert the vpc %s/%s: %w", v.Namespace, v.Name, classify(err))
	}
	return out, nil
}

// VPC returns the VPC namespace/name, or ErrNotFound. With lock, the row is
// locked until the transaction ends: creating a subnet locks its VPC so
// that two sibling subnets cannot overlap.
func VPC(ctx context.Context, ext sqlx.QueryerContext, namespace, name string, lock bool) (VPCRow, error) {
	q := `SELECT ` + vpcColumns + ` FROM vpcs WHERE namespace = $1 AND name = $2`
	if lock {
		q += ` FOR UPDATE`
	}
	v, err := getRow[vpcScan](ctx, ext, q, namespace, name)
	return v, found(err, "vpc")
}

// VPCByUID returns the VPC uid, or ErrNotFound; uid must be a UUID.
func VPCByUID(ctx context.Context, ext sqlx.QueryerContext, uid string) (VPCRow, error) {
	v, err := getRow[vpcScan](ctx, ext, `SELECT `+vpcColumns+` FROM vpcs WHERE uid = $1`, uid)
	return v, found(err, "vpc")
}

// VPCs returns every VPC in namespace order, then name order.
func VPCs(ctx context.Context, ext sqlx.QueryerContext) ([]VPCRow, error) {
	vs, err := selectRows[vpcScan](ctx, ext, `SELECT `+vpcColumns+` FROM vpcs ORDER BY namespace, name`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the vpcs: %w", classify(err))
	}
	return vs, nil
}

// DeleteVPC deletes the VPC and, by cascade, its pool, subnets and their
// allocations.
func DeleteVPC(ctx context.Context, ext sqlx.ExtContext, uid string) error {
	_, err := ext.ExecContext(ctx, `DELETE FROM vpcs WHERE uid = $1`, uid)
	if isForeignKeyViolation(err) {
		return fmt.Errorf("store: %s still holds allocations: %w", uid, ErrInUse)
	}
	if err != nil {
		return fmt.Errorf("store: unable to delete the vpc %s: %w", uid, classify(err))
	}
	return nil
}

// A SubnetRow is a row of subnets.
type SubnetRow struct {
	UID     string
	VPCUID  string
	Name    string
	CIDR    netip.Prefix
	Gateway netip.Addr
	// IPv6CIDR and IPv6Gateway are the subnet's IPv6 prefix and gateway,
	// zero when it has none.
	IPv6CIDR    netip.Prefix
	IPv6Gateway netip.Addr
	CreatedAt   time.Time
	CreatedBy   string
}

const subnetColumns = `uid, vpc_uid, name, cidr::text AS cidr, host(gateway) AS gateway, ipv6_cidr::text AS ipv6_cidr, host(ipv6_gateway) AS ipv6_gateway, created_at, created_by`

// InsertSubnet stores s; ErrObjectExists when its name is taken in the VPC
// or it overlaps a subnet of the VPC (the exclusion constraint
// subnets_no_overlap decides, whatever the transactions).
func InsertSubnet(ctx context.Context, ext sqlx.QueryerContext, s SubnetRow) (SubnetRow, error) {
	out, err := getRow[subnetScan](ctx, ext, `INSERT INTO subnets (uid, vpc_uid, name, cidr, gateway, created_by, ipv6_cidr, ipv6_gateway)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING `+subnetColumns,
		s.UID, s.VPCUID, s.Name, s.CIDR.String(), addrArg(s.Gateway), s.CreatedBy, prefixArg(s.IPv6CIDR), addrArg(s.IPv6Gateway))
	if errors.Is(err, sql.ErrNoRows) {
		return SubnetRow{}, fmt.Errorf("store: subnet %s: %w", s.Name, ErrObjectExists)
	}
	if err != nil {
		return SubnetRow{}, fmt.Errorf("store: unable to insert the subnet %s: %w", s.Name, classify(err))
	}
	return out, nil
}

// Subnet returns the subnet of the VPC by name, or ErrNotFound.
func Subnet(ctx context.Context, ext sqlx.QueryerContext, vpcUID, name string) (SubnetRow, error) {
	s, err := getRow[subnetScan](ctx, ext, `SELECT `+subnetColumns+` FROM subnets WHERE vpc_uid = $1 AND name = $2`, vpcUID, name)
	return s, found(err, "subnet")
}

// Subnets returns the subnets of the VPC in address order.
func Subnets(ctx context.Context, ext sqlx.QueryerContext, vpcUID string) ([]SubnetRow, error) {
	ss, err := selectRows[subnetScan](ctx, ext, `SELECT `+subnetColumns+` FROM subnets WHERE vpc_uid = $1 ORDER BY subnets.cidr`, vpcUID)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the subnets: %w", classify(err))
	}
	return ss, nil
}

// SubnetContaining returns the subnet of the VPC that holds the prefix
// cidr (in its IPv6 prefix, for an IPv6 cidr), or ErrNotFound.
func SubnetContaining(ctx context.Context, ext sqlx.QueryerContext, vpcUID string, cidr netip.Prefix) (SubnetRow, error) {
	column := prefixColumn(cidr)
	s, err := getRow[subnetScan](ctx, ext, `SELECT `+subnetColumns+` FROM subnets WHERE vpc_uid = $1 AND `+column+` >>= $2::cidr`, vpcUID, cidr.String())
	return s, found(err, "subnet")
}

// OverlappingSubnet returns a subnet of the VPC whose prefix of cidr's
// family overlaps cidr.
func OverlappingSubnet(ctx context.Context, ext sqlx.QueryerContext, vpcUID string, cidr netip.Prefix) (SubnetRow, error) {
	column := prefixColumn(cidr)
	s, err := getRow[subnetScan](ctx, ext, `SELECT `+subnetColumns+` FROM subnets WHERE vpc_uid = $1 AND `+column+` && $2::cidr ORDER BY subnets.`+column+` LIMIT 1`, vpcUID, cidr.String())
	return s, found(err, "subnet")
}

// prefixColumn is the column of subnets that holds prefixes of cidr's
// family.
func prefixColumn(cidr netip.Prefix) string {
	if cidr.Addr().Is6() {
		return "ipv6_cidr"
	}
	return "cidr"
}

// DeleteSubnet deletes the subnet and, by cascade, its allocations.
func DeleteSubnet(ctx context.Context, ext sqlx.ExtContext, uid string) error {
	_, err := ext.ExecContext(ctx, `DELETE FROM subnets WHERE uid = $1`, uid)
	if isForeignKeyViolation(err) {
		return fmt.Errorf("store: %s still holds allocations: %w", uid, ErrInUse)
	}
	if err != nil {
		return fmt.Errorf("store: unable to delete the subnet %s: %w", uid, classify(err))
	}
	return nil
}

// A FloatingIPRow is a row of floating_ips, with its pool's name and zone.
type FloatingIPRow struct {
	UID       string
	Namespace string
	Name      string
	PoolUID   string
	Pool      string
	Zone      string
	Address   netip.Addr
	CreatedAt time.Time
	CreatedBy string
}

const floatingIPSelect = `SELECT f.uid, f.namespace, f.name, f.pool_uid, p.name AS pool, p.zone, host(f.address) AS address, f.created_at, f.created_by
	FROM floating_ips f JOIN pools p ON p.uid = f.pool_uid`

// InsertFloatingIP stores f; ErrObjectExists when its name is taken.
func InsertFloatingIP(ctx context.Context, ext sqlx.ExtContext, f FloatingIPRow) error {
	res, err := ext.ExecContext(ctx, `INSERT INTO floating_ips (uid, namespace, name, pool_uid, address, created_by)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
		f.UID, f.Namespace, f.Name, f.PoolUID, f.Address.String(), f.CreatedBy)
	if err != nil {
		return fmt.Errorf("store: unable to insert the floating ip %s/%s: %w", f.Namespace, f.Name, classify(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: floating ip %s/%s: %w", f.Namespace, f.Name, ErrObjectExists)
	}
	return nil
}

// FloatingIP returns the floating IP namespace/name, or ErrNotFound.
func FloatingIP(ctx context.Context, ext sqlx.QueryerContext, namespace, name string) (FloatingIPRow, error) {
	f, err := getRow[floatingIPScan](ctx, ext, floatingIPSelect+` WHERE f.namespace = $1 AND f.name = $2`, namespace, name)
	return f, found(err, "floating ip")
}

// FloatingIPs returns every floating IP in namespace order, then name order.
func FloatingIPs(ctx context.Context, ext sqlx.QueryerContext) ([]FloatingIPRow, error) {
	fs, err := selectRows[floatingIPScan](ctx, ext, floatingIPSelect+` ORDER BY f.namespace, f.name`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the floating ips: %w", classify(err))
	}
	return fs, nil
}

// DeleteFloatingIP deletes the floating IP namespace/name and returns it,
// or ErrNotFound. Of two concurrent deletes, the second waits for the first
// and finds nothing.
func DeleteFloatingIP(ctx context.Context, ext sqlx.QueryerContext, namespace, name string) (FloatingIPRow, error) {
	f, err := getRow[floatingIPScan](ctx, ext, `WITH f AS (
			DELETE FROM floating_ips WHERE namespace = $1 AND name = $2 RETURNING *
		)
		SELECT f.uid, f.namespace, f.name, f.pool_uid, p.name AS pool, p.zone, host(f.address) AS address, f.created_at, f.created_by
		FROM f JOIN pools p ON p.uid = f.pool_uid`, namespace, name)
	return f, found(err, "floating ip")
}

// likeEscape escapes the wildcards of LIKE in s.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
