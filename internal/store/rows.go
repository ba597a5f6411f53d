package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/netip"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// The rows this package returns hold plain Go and net/netip values. The
// driver reads a row into a scan (text, sql.NullString, pq.StringArray),
// which row turns into the row, reporting a value it cannot read rather
// than dropping it.
type scan[T any] interface{ row() (T, error) }

// getRow reads one row of query into T.
func getRow[S scan[T], T any](ctx context.Context, ext sqlx.QueryerContext, query string, args ...any) (T, error) {
	var s S
	if err := sqlx.GetContext(ctx, ext, &s, query, args...); err != nil {
		var zero T
		return zero, err
	}
	return s.row()
}

// selectRows reads every row of query into Ts.
func selectRows[S scan[T], T any](ctx context.Context, ext sqlx.QueryerContext, query string, args ...any) ([]T, error) {
	var ss []S
	if err := sqlx.SelectContext(ctx, ext, &ss, query, args...); err != nil {
		return nil, err
	}
	return rowsOf(ss)
}

// rowsOf turns scans into rows.
func rowsOf[S scan[T], T any](ss []S) ([]T, error) {
	out := make([]T, len(ss))
	for i, s := range ss {
		var err error
		if out[i], err = s.row(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// prefixOf reads a cidr column's text.
func prefixOf(what, s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("store: %s holds the prefix %q: %w", what, s, err)
	}
	return p, nil
}

// addrOf reads an inet column's host() text; "" (NULL) is the zero Addr.
func addrOf(what, s string) (netip.Addr, error) {
	if s == "" {
		return netip.Addr{}, nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("store: %s holds the address %q: %w", what, s, err)
	}
	return a, nil
}

// nullable is s as the value of a nullable column: NULL when s is empty.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// addrArg is a as the value of an inet column: NULL when a is the zero
// Addr.
func addrArg(a netip.Addr) any {
	if !a.IsValid() {
		return nil
	}
	return a.String()
}

// prefixArg is p as the value of a cidr column: NULL when p is the zero
// Prefix.
func prefixArg(p netip.Prefix) any {
	if !p.IsValid() {
		return nil
	}
	return p.String()
}

// textArray is ss as the value of a text[] column, nil as {}.
func textArray(ss []string) any {
	if ss == nil {
		ss = []string{}
	}
	return pq.StringArray(ss)
}

// poolScan is a row of pools as the driver reads it.
type poolScan struct {
	UID         string         `db:"uid"`
	Namespace   string         `db:"namespace"`
	Name        string         `db:"name"`
	Kind        string         `db:"kind"`
	CIDR        string         `db:"cidr"`
	Gateway     sql.NullString `db:"gateway"`
	Exclude     pq.StringArray `db:"exclude"`
	Zone        string         `db:"zone"`
	VPCUID      sql.NullString `db:"vpc_uid"`
	Labels      Labels         `db:"labels"`
	SpecVersion int64          `db:"spec_version"`
	Delegated   int            `db:"delegated_prefix_length"`
	CreatedAt   time.Time      `db:"created_at"`
	CreatedBy   string         `db:"created_by"`
}

func (s poolScan) row() (PoolRow, error) {
	what := "pool " + s.Name
	cidr, err := prefixOf(what, s.CIDR)
	if err != nil {
		return PoolRow{}, err
	}
	gateway, err := addrOf(what, s.Gateway.String)
	if err != nil {
		return PoolRow{}, err
	}
	return PoolRow{
		UID: s.UID, Namespace: s.Namespace, Name: s.Name, Kind: s.Kind, CIDR: cidr, Gateway: gateway,
		Exclude: append([]string{}, s.Exclude...), Zone: s.Zone, VPCUID: s.VPCUID.String, Labels: s.Labels,
		SpecVersion: s.SpecVersion, DelegatedPrefixLength: s.Delegated, CreatedAt: s.CreatedAt, CreatedBy: s.CreatedBy,
	}, nil
}

// vpcScan is a row of vpcs as the driver reads it.
type vpcScan struct {
	UID            string         `db:"uid"`
	Namespace      string         `db:"namespace"`
	Name           string         `db:"name"`
	CIDR           string         `db:"cidr"`
	Zone           string         `db:"zone"`
	IPv6CIDR       sql.NullString `db:"ipv6_cidr"`
	IPv6Delegated  bool           `db:"ipv6_delegated"`
	IPv6Addressing string         `db:"ipv6_addressing"`
	IPv6Key        []byte         `db:"ipv6_key"`
	CreatedAt      time.Time      `db:"created_at"`
	CreatedBy      string         `db:"created_by"`
}

func (s vpcScan) row() (VPCRow, error) {
	what := "vpc " + s.Namespace + "/" + s.Name
	cidr, err := prefixOf(what, s.CIDR)
	if err != nil {
		return VPCRow{}, err
	}
	var v6 netip.Prefix
	if s.IPv6CIDR.Valid {
		if v6, err = prefixOf(what, s.IPv6CIDR.String); err != nil {
			return VPCRow{}, err
		}
	}
	return VPCRow{
		UID: s.UID, Namespace: s.Namespace, Name: s.Name, CIDR: cidr, Zone: s.Zone,
		IPv6CIDR: v6, IPv6Delegated: s.IPv6Delegated, IPv6Addressing: s.IPv6Addressing, IPv6Key: s.IPv6Key,
		CreatedAt: s.CreatedAt, CreatedBy: s.CreatedBy,
	}, nil
}

// subnetScan is a row of subnets as the driver reads it.
type subnetScan struct {
	UID         string         `db:"uid"`
	VPCUID      string         `db:"vpc_uid"`
	Name        string         `db:"name"`
	CIDR        string         `db:"cidr"`
	Gateway     string         `db:"gateway"`
	IPv6CIDR    sql.NullString `db:"ipv6_cidr"`
	IPv6Gateway sql.NullString `db:"ipv6_gateway"`
	CreatedAt   time.Time      `db:"created_at"`
	CreatedBy   string         `db:"created_by"`
}

func (s subnetScan) row() (SubnetRow, error) {
	what := "subnet " + s.Name
	cidr, err := prefixOf(what, s.CIDR)
	if err != nil {
		return SubnetRow{}, err
	}
	gateway, err := addrOf(what, s.Gateway)
	if err != nil {
		return SubnetRow{}, err
	}
	var v6 netip.Prefix
	if s.IPv6CIDR.Valid {
		if v6, err = prefixOf(what, s.IPv6CIDR.String); err != nil {
			return SubnetRow{}, err
		}
	}
	v6gw, err := addrOf(what, s.IPv6Gateway.String)
	return SubnetRow{
		UID: s.UID, VPCUID: s.VPCUID, Name: s.Name, CIDR: cidr, Gateway: gateway, IPv6CIDR: v6, IPv6Gateway: v6gw,
		CreatedAt: s.CreatedAt, CreatedBy: s.CreatedBy,
	}, err
}

// allocationScan is a row of allocations as the driver reads it.
type allocationScan struct {
	Namespace      string         `db:"namespace"`
	Name           string         `db:"name"`
	PoolUID        string         `db:"pool_uid"`
	Address        string         `db:"address"`
	OwnerKind      string         `db:"owner_kind"`
	OwnerUID       string         `db:"owner_uid"`
	OwnerName      string         `db:"owner_name"`
	OwnerNamespace string         `db:"owner_namespace"`
	SubnetUID      sql.NullString `db:"subnet_uid"`
	UID            string         `db:"uid"`
	CreatedAt      time.Time      `db:"created_at"`
	CreatedBy      string         `db:"created_by"`
}

func (s allocationScan) row() (AllocationRow, error) {
	address, err := addrOf("allocation "+s.Namespace+"/"+s.Name, s.Address)
	return AllocationRow{
		Namespace: s.Namespace, Name: s.Name, PoolUID: s.PoolUID, Address: address,
		OwnerKind: s.OwnerKind, OwnerUID: s.OwnerUID, OwnerName: s.OwnerName, OwnerNamespace: s.OwnerNamespace,
		SubnetUID: s.SubnetUID.String, UID: s.UID, CreatedAt: s.CreatedAt, CreatedBy: s.CreatedBy,
	}, err
}

// floatingIPScan is a row of floating_ips, with its pool's name and zone,
// as the driver reads it.
type floatingIPScan struct {
	UID       string    `db:"uid"`
	Namespace string    `db:"namespace"`
	Name      string    `db:"name"`
	PoolUID   string    `db:"pool_uid"`
	Pool      string    `db:"pool"`
	Zone      string    `db:"zone"`
	Address   string    `db:"address"`
	CreatedAt time.Time `db:"created_at"`
	CreatedBy string    `db:"created_by"`
}

func (s floatingIPScan) row() (FloatingIPRow, error) {
	address, err := addrOf("floating ip "+s.Namespace+"/"+s.Name, s.Address)
	return FloatingIPRow{
		UID: s.UID, Namespace: s.Namespace, Name: s.Name, PoolUID: s.PoolUID, Pool: s.Pool, Zone: s.Zone,
		Address: address, CreatedAt: s.CreatedAt, CreatedBy: s.CreatedBy,
	}, err
}
