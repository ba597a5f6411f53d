package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/netip"

	"github.com/lib/pq"

	"pivirt.hu/ipam/internal/candidates"
)

// A SubnetCreate is a subnet planned on a view of its VPC's subnets,
// created in one statement (CreateSubnet).
type SubnetCreate struct {
	// VPC is the VPC as the plan read it: its uid, namespace and prefixes
	// are to be the VPC's still.
	VPC VPCRow
	// Subnet is the row to insert (its CreatedAt is the database's).
	Subnet SubnetRow
	// Pool is the name of the VPC's IPv4 pool, whose addresses in the
	// subnet's prefix that have no subnet are linked to it
	// (LinkAllocations); Never are the addresses of which one so linked
	// refuses the subnet (its gateway, its network and broadcast
	// addresses).
	Pool  string
	Never []netip.Addr
	// Audit is the subnet's audit entry.
	Audit AuditEntry
}

// createSubnetSQL calls create_subnet (migration 0028).
const createSubnetSQL = `SELECT status, created_at FROM create_subnet($1::uuid, $2::text, $3::cidr, $4::cidr, $5::text[],
	$6::uuid, $7::text, $8::cidr, $9::inet, $10::cidr, $11::inet, $12::text,
	$13::text, $14::inet, $15::inet, $16::inet[],
	$17::text, $18::text, $19::text, $20::jsonb)`

// refusedLinkCode is the error create_subnet raises when an address it
// links is one of SubnetCreate.Never.
const refusedLinkCode = "IPS01"

// CreateSubnet makes c in one statement outside any transaction, all or
// nothing: the quota lock of the VPC's namespace and the VPC's row taken
// (LockQuotas, VPC), the namespace's quota of subnets checked, the subnet
// inserted, the addresses of its prefix linked and its audit entry
// recorded, and returns the subnet as stored. The error wraps
// ErrTransactionNeeded when the subnet is to be created in a transaction,
// which says why: the VPC is not as c.VPC, a quota is reached, the name or
// a prefix is taken (the exclusion constraints decide), an address linked
// is refused, a deadlock; nothing was stored then. The statement is
// prepared once per connection, but through a connection pooler
// (getPrepared).
func CreateSubnet(ctx context.Context, db *DB, c SubnetCreate) (SubnetRow, error) {
	s, v := c.Subnet, c.VPC
	first, last := candidates.Bounds(s.CIDR)
	never := make(pq.StringArray, len(c.Never))
	for i, a := range c.Never {
		never[i] = a.String()
	}
	var out struct {
		Status    string       `db:"status"`
		CreatedAt sql.NullTime `db:"created_at"`
	}
	err := getPrepared(ctx, db, &out, createSubnetSQL,
		v.UID, v.Namespace, v.CIDR.String(), prefixArg(v.IPv6CIDR), textArray(NamespacePatterns(v.Namespace)),
		s.UID, s.Name, s.CIDR.String(), s.Gateway.String(), prefixArg(s.IPv6CIDR), addrArg(s.IPv6Gateway), s.CreatedBy,
		c.Pool, first.String(), last.String(), never,
		c.Audit.Action, c.Audit.ObjectKind, c.Audit.ObjectName, c.Audit.After)
	var pqErr *pq.Error
	switch {
	case errors.As(err, &pqErr) && string(pqErr.Code) == refusedLinkCode, refusedInOneStatement(err):
		return SubnetRow{}, fmt.Errorf("store: unable to create the subnet %s in one statement (%v): %w", s.Name, err, ErrTransactionNeeded)
	case err != nil:
		return SubnetRow{}, fmt.Errorf("store: unable to create the subnet %s: %w", s.Name, classify(err))
	case out.Status != "ok":
		return SubnetRow{}, fmt.Errorf("store: unable to create the subnet %s in one statement (%s): %w", s.Name, out.Status, ErrTransactionNeeded)
	}
	s.VPCUID, s.CreatedAt = v.UID, out.CreatedAt.Time
	return s, nil
}
