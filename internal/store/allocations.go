package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// An AllocationRow is a row of allocations.
type AllocationRow struct {
	Namespace      string
	Name           string
	PoolUID        string
	Address        netip.Addr
	OwnerKind      string
	OwnerUID       string
	OwnerName      string
	OwnerNamespace string
	SubnetUID      string // "" when the address lies in no subnet
	UID            string
	CreatedAt      time.Time
	CreatedBy      string
	// SpecVersion is, for a claim, the version of its public pool's spec
	// (PoolRow.SpecVersion) that its address was chosen under: the claim
	// stores nothing when the pool's spec is another now, or once the
	// change in progress commits (migration 0023). 0 for a claim in a
	// private pool, whose spec never changes, and in the rows read.
	SpecVersion int64
}

// An OwnerKey is what identifies an owner in a pool (the unique index
// allocations_owner_key): its namespace, kind and uid, and Ref, the part of
// its name that names it for good (a VM's NIC index; the whole name for the
// other kinds).
type OwnerKey struct {
	Namespace, Kind, UID, Ref string
}

const allocationColumns = `namespace, name, pool_uid, host(address) AS address, owner_kind, owner_uid, owner_name, owner_namespace, subnet_uid, uid, created_at, created_by`

// insertAllocationSQL claims an address and records it in the audit log,
// unless a quota of addresses is set for one of the patterns $13 (those
// that match the owner's namespace, NamespacePatterns): then it stores
// nothing, as when the address is taken, and the claim is made again under
// the namespace's lock (InsertAllocationUnderQuota). The condition is a
// probe of the primary key of quotas per pattern.
var insertAllocationSQL = insertAllocationQuery(`NOT EXISTS (SELECT FROM quotas WHERE addresses IS NOT NULL AND pattern = ANY ($13::text[]))`)

// insertUnderQuotaSQL is insertAllocationSQL for a claim whose quotas
// were checked under its namespace's lock: it has no $13.
var insertUnderQuotaSQL = insertAllocationQuery("true")

// specUnchanged is the condition of a claim in a pool ($3) whose spec was
// at version $12 when the claim chose its address (0: a private pool,
// unchecked). The pool's row is read FOR KEY SHARE: an update of the spec
// in progress holds it FOR UPDATE, so the claim waits for it, then reads
// the row as the update left it (PostgreSQL rechecks a locked row's
// condition on its newest version), and stores nothing when the version
// moved on (migration 0023).
const specUnchanged = `($12::bigint = 0 OR EXISTS (SELECT FROM pools WHERE uid = $3 AND spec_version = $12 FOR KEY SHARE))`

// insertAllocationQuery is the claim of an address, made when the
// condition holds and the pool's spec is the one the claim chose under.
func insertAllocationQuery(condition string) string {
	return `WITH a AS (
		INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, subnet_uid, created_by)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
		WHERE ` + specUnchanged + ` AND ` + condition + `
		ON CONFLICT DO NOTHING
		RETURNING *
	), audit AS (
		INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, after)
		SELECT a.created_by, 'allocate', a.namespace, 'IPAllocation', a.name, ` + allocationDoc("a", "$11::text", "a.owner_name") + `
		FROM a
	)
	SELECT ` + allocationColumns + ` FROM a`
}

// allocationDoc is the SQL of the audit log's document of the allocation
// of the row alias (audit.Allocation, whose json tags are its keys), its
// pool named pool and its owner owner (SQL expressions).
func allocationDoc(alias, pool, owner string) string {
	return `jsonb_build_object('pool', ` + pool + `, 'address', host(` + alias + `.address),
			'owner', jsonb_build_object('kind', ` + alias + `.owner_kind, 'uid', ` + alias + `.owner_uid, 'name', ` + owner + `),
			'ownerNamespace', ` + alias + `.owner_namespace,
			'subnet', (SELECT s.name FROM subnets s WHERE s.uid = ` + alias + `.subnet_uid))`
}

// claimAddressSQL is insertAllocationSQL run by the function
// claim_address (migrations 0008, 0020, 0021 and 0023), for connections through a
// connection pooler: the function's plan stays with the server
// connection, as a prepared statement's stays with a client's own
// (TestClaimAddress checks that both store the same).
const claimAddressSQL = `SELECT ` + allocationColumns + ` FROM claim_address($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`

// InsertAllocation claims a.Address for a's owner and records it in the
// audit log, in one statement (one round trip, atomic even outside a
// transaction). When the address is taken or the owner already holds an
// address of the pool, nothing is stored and the error wraps
// ErrObjectExists: the unique indexes decide, never a lock. The same when
// a quota of addresses matches the owner's namespace (QuotaApplies tells
// it apart): that claim is made with InsertAllocationUnderQuota; and when
// a.SpecVersion is no longer its public pool's (the pool's row tells it
// apart): the address is to be chosen again under the pool's new spec.
func InsertAllocation(ctx context.Context, ext sqlx.QueryerContext, a AllocationRow, pool string) (AllocationRow, error) {
	var scanned allocationScan
	args := append(insertAllocationArgs(a, pool), textArray(NamespacePatterns(a.OwnerNamespace)))
	var err error
	switch ext := ext.(type) {
	case *DB:
		// The claim's statement is prepared once per connection: parsing
		// and planning it on every claim would cost more than the insert.
		// Through a connection pooler, where nothing is prepared, the
		// function claim_address keeps its plan on the server instead.
		var stmt *sqlx.Stmt
		switch stmt, err = ext.prepared(ctx, &ext.claim, insertAllocationSQL); {
		case err == nil && stmt != nil:
			err = stmt.GetContext(ctx, &scanned, args...)
		case err == nil:
			err = sqlx.GetContext(ctx, ext, &scanned, claimAddressSQL, args...)
		}
	default:
		err = sqlx.GetContext(ctx, ext, &scanned, insertAllocationSQL, args...)
	}
	return insertedAllocation(scanned, err, a)
}

// InsertAllocationUnderQuota is InsertAllocation for a claim in a
// namespace that quotas of addresses match: made in tx once LockQuotas
// locked the namespace and QuotaUsage found room, it stores the row
// whatever the quotas.
func InsertAllocationUnderQuota(ctx context.Context, tx *Tx, a AllocationRow, pool string) (AllocationRow, error) {
	var scanned allocationScan
	err := sqlx.GetContext(ctx, tx, &scanned, insertUnderQuotaSQL, insertAllocationArgs(a, pool)...)
	return insertedAllocation(scanned, err, a)
}

// insertAllocationArgs are the parameters of insertAllocationQuery, $1 to
// $12.
func insertAllocationArgs(a AllocationRow, pool string) []any {
	return []any{a.Namespace, a.Name, a.PoolUID, a.Address.String(), a.OwnerKind, a.OwnerUID, a.OwnerName, a.OwnerNamespace, nullable(a.SubnetUID), a.CreatedBy, pool, a.SpecVersion}
}

// insertedAllocation is the answer of a claim of a whose statement
// returned scanned and err.
func insertedAllocation(scanned allocationScan, err error, a AllocationRow) (AllocationRow, error) {
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return AllocationRow{}, fmt.Errorf("store: allocation %s: %w", a.Name, ErrObjectExists)
	case isForeignKeyViolation(err):
		return AllocationRow{}, fmt.Errorf("store: the pool or subnet of allocation %s is gone: %w", a.Name, ErrNotFound)
	case err != nil:
		return AllocationRow{}, fmt.Errorf("store: unable to insert the allocation %s: %w", a.Name, classify(err))
	}
	return scanned.row()
}

// insertAllocationsSQL is insertAllocationSQL for many rows: the columns
// come as arrays, one element a row, the pool's name last; the rows are
// inserted in the order of (pool_uid, address), so that two such
// statements wait for each other's addresses in one order. A row whose
// owner's namespace a quota of addresses matches is not inserted: row n's
// patterns are the n-th row of $12, a two-dimensional array padded with
// empty strings, which no pattern is. Nor is a row of a public pool whose
// spec is no longer at the row's version, $13 (specUnchanged). Each row
// inserted writes one audit
// entry, which takes its pool's name from the input by pool alone: rows of
// the input that propose one address (one of them inserted, the others
// changing nothing) must not each add an entry
// (TestBatchOfOneAddressAuditsOnce).
var insertAllocationsSQL = `WITH input AS (
		SELECT * FROM unnest($1::text[], $2::text[], $3::uuid[], $4::inet[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $13::bigint[])
			WITH ORDINALITY AS i (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, subnet_uid, created_by, pool, spec_version, n)
	), a AS (
		INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, subnet_uid, created_by)
		SELECT namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, nullif(subnet_uid, '')::uuid, created_by
		FROM input
		WHERE (input.spec_version = 0 OR EXISTS (SELECT FROM pools WHERE uid = input.pool_uid AND spec_version = input.spec_version FOR KEY SHARE))
			AND NOT EXISTS (SELECT FROM quotas WHERE addresses IS NOT NULL AND pattern = ANY (($12::text[])[input.n:input.n]))
		ORDER BY pool_uid, address
		ON CONFLICT DO NOTHING
		RETURNING *
	), audit AS (
		INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, after)
		SELECT a.created_by, 'allocate', a.namespace, 'IPAllocation', a.name, ` + allocationDoc("a", "input.pool", "a.owner_name") + `
		FROM a JOIN (SELECT DISTINCT ON (pool_uid) pool_uid, pool FROM input) input ON input.pool_uid = a.pool_uid
	)
	SELECT ` + allocationColumns + ` FROM a`

// InsertAllocations makes the claims of InsertAllocation for many rows in
// one statement (pools[i] is the name of rows[i]'s pool): each row is
// stored unless its address is taken, its owner holds an address of the
// pool already, the pool's spec changed (AllocationRow.SpecVersion) or a
// quota of addresses matches its owner's namespace,
// exactly as if it were inserted alone, and all the rows
// stored are committed together. It returns, for each row, what was
// stored, or an error wrapping ErrObjectExists. The error of the whole
// statement (a pool or subnet gone, a deadlock with another such
// statement) stores nothing: each row is then to be claimed alone. A DB
// of a connection pooler runs the statement unprepared.
func InsertAllocations(ctx context.Context, db *DB, rows []AllocationRow, pools []string) ([]AllocationRow, []error, error) {
	cols := make([]pq.StringArray, 11)
	for i := range cols {
		cols[i] = make(pq.StringArray, len(rows))
	}
	for i, a := range rows {
		for c, v := range []string{a.Namespace, a.Name, a.PoolUID, a.Address.String(), a.OwnerKind, a.OwnerUID, a.OwnerName, a.OwnerNamespace, a.SubnetUID, a.CreatedBy, pools[i]} {
			cols[c][i] = v
		}
	}
	versions := make(pq.Int64Array, len(rows))
	for i, a := range rows {
		versions[i] = a.SpecVersion
	}
	args := make([]any, len(cols), len(cols)+2)
	for i, c := range cols {
		args[i] = c
	}
	args = append(args, patternsOfRows(rows), versions)
	var scanned []allocationScan
	stmt, err := db.prepared(ctx, &db.claimMany, insertAllocationsSQL)
	switch {
	case err == nil && stmt != nil:
		err = stmt.SelectContext(ctx, &scanned, args...)
	case err == nil:
		err = sqlx.SelectContext(ctx, db, &scanned, insertAllocationsSQL, args...)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("store: unable to insert %d allocations: %w", len(rows), classify(err))
	}
	type key struct {
		pool string
		addr netip.Addr
	}
	stored := make(map[key]AllocationRow, len(scanned))
	for _, sc := range scanned {
		row, err := sc.row()
		if err != nil {
			return nil, nil, err
		}
		stored[key{row.PoolUID, row.Address}] = row
	}
	got, errs := make([]AllocationRow, len(rows)), make([]error, len(rows))
	for i, a := range rows {
		row, ok := stored[key{a.PoolUID, a.Address}]
		if ok && row.OwnerNamespace == a.OwnerNamespace && row.OwnerKind == a.OwnerKind && row.OwnerUID == a.OwnerUID && row.OwnerName == a.OwnerName {
			got[i] = row
		} else {
			errs[i] = fmt.Errorf("store: allocation %s: %w", a.Name, ErrObjectExists)
		}
	}
	return got, errs, nil
}

// patternsOfRows are the patterns of the rows' owners' namespaces
// (NamespacePatterns) as insertAllocationsSQL's $12: one row each, padded
// with empty strings.
func patternsOfRows(rows []AllocationRow) pq.GenericArray {
	patterns := make([][]string, len(rows))
	width := 0
	for i, a := range rows {
		patterns[i] = NamespacePatterns(a.OwnerNamespace)
		width = max(width, len(patterns[i]))
	}
	for i := range patterns {
		for len(patterns[i]) < width {
			patterns[i] = append(patterns[i], "")
		}
	}
	return pq.GenericArray{A: patterns}
}

// A ClaimConflict is what stands in the way of a claim whose insert
// changed nothing: the allocation the owner holds in the pool, the one
// holding the address, either or both, or neither when they were released
// in the meantime.
type ClaimConflict struct {
	Owner   *AllocationRow // what the owner holds in the pool
	Address *AllocationRow // what holds the address
}

// ClaimConflictOf reads, in one round trip, what the owner holds in the
// pool and what holds address.
func ClaimConflictOf(ctx context.Context, ext sqlx.QueryerContext, poolUID string, owner OwnerKey, address netip.Addr) (ClaimConflict, error) {
	var rows []struct {
		allocationScan
		Holds string `db:"holds"`
	}
	err := sqlx.SelectContext(ctx, ext, &rows, `SELECT `+allocationColumns+`, 'owner' AS holds FROM allocations
			WHERE pool_uid = $1 AND owner_namespace = $2 AND owner_kind = $3 AND owner_uid = $4 AND owner_ref = $5
		UNION ALL
		SELECT `+allocationColumns+`, 'address' FROM allocations WHERE pool_uid = $1 AND address = $6::inet`,
		poolUID, owner.Namespace, owner.Kind, owner.UID, owner.Ref, address.String())
	if err != nil {
		return ClaimConflict{}, fmt.Errorf("store: unable to read what holds %s: %w", address, classify(err))
	}
	var c ClaimConflict
	for _, r := range rows {
		a, err := r.row()
		if err != nil {
			return ClaimConflict{}, err
		}
		if r.Holds == "owner" {
			c.Owner = &a
		} else {
			c.Address = &a
		}
	}
	return c, nil
}

// OwnerAllocation returns the allocation the owner holds in the pool, or
// ErrNotFound.
func OwnerAllocation(ctx context.Context, ext sqlx.QueryerContext, poolUID string, owner OwnerKey) (AllocationRow, error) {
	a, err := getRow[allocationScan](ctx, ext, `SELECT `+allocationColumns+` FROM allocations
		WHERE pool_uid = $1 AND owner_namespace = $2 AND owner_kind = $3 AND owner_uid = $4 AND owner_ref = $5`,
		poolUID, owner.Namespace, owner.Kind, owner.UID, owner.Ref)
	return a, found(err, "allocation")
}

// HeldAmong returns those of addresses that the pool uid holds, in
// address order.
func HeldAmong(ctx context.Context, ext sqlx.QueryerContext, poolUID string, addresses []netip.Addr) ([]netip.Addr, error) {
	texts := make(pq.StringArray, len(addresses))
	for i, a := range addresses {
		texts[i] = a.String()
	}
	var held []string
	err := sqlx.SelectContext(ctx, ext, &held, `SELECT host(address) FROM allocations
		WHERE pool_uid = $1 AND address = ANY($2::inet[]) ORDER BY address`, poolUID, texts)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read which of %d addresses pool %s holds: %w", len(addresses), poolUID, classify(err))
	}
	return addrsOf("held address", held)
}

// RenameVM gives the VM uid of namespace the hostname in the names of every
// address it holds ("<hostname>/<nic>"), records each renamed allocation in
// the audit log and returns how many it renamed.
func RenameVM(ctx context.Context, ext sqlx.ExtContext, namespace, uid, hostname, actor string) (int64, error) {
	res, err := ext.ExecContext(ctx, `WITH r AS (
			UPDATE allocations a SET owner_name = $3 || '/' || a.owner_ref
			FROM allocations old
			WHERE old.namespace = a.namespace AND old.name = a.name
				AND a.owner_namespace = $1 AND a.owner_kind = 'VirtualMachine' AND a.owner_uid = $2
				AND a.owner_name <> $3 || '/' || a.owner_ref
			RETURNING a.*, old.owner_name AS old_name
		)
		INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, before, after)
		SELECT $4, 'rename', r.namespace, 'IPAllocation', r.name,
			`+allocationDoc("r", "p.name", "r.old_name")+`,
			`+allocationDoc("r", "p.name", "r.owner_name")+`
		FROM r JOIN pools p ON p.uid = r.pool_uid`, namespace, uid, hostname, actor)
	if err != nil {
		return 0, fmt.Errorf("store: unable to rename VM %s to %s: %w", uid, hostname, classify(err))
	}
	return res.RowsAffected()
}

// VPCUplinks returns the router uplinks of the VPC uid of namespace: the
// addresses its router holds in the public pools of zone.
func VPCUplinks(ctx context.Context, ext sqlx.QueryerContext, namespace, uid, zone string) ([]AllocationRow, error) {
	as, err := selectRows[allocationScan](ctx, ext, `SELECT `+allocationColumns+` FROM allocations
		WHERE owner_namespace = $1 AND owner_kind = 'VPC' AND owner_uid = $2 AND owner_ref = 'router'
			AND pool_uid IN (SELECT uid FROM pools WHERE kind = 'public' AND zone = $3)
		ORDER BY allocations.address`, namespace, uid, zone)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the uplinks of VPC %s: %w", uid, classify(err))
	}
	return as, nil
}

// TakenAddresses returns the addresses the pool uid holds, in address
// order: the view a process keeps of the pool. The server packs them into
// bytea values: a million addresses are a few values the driver decodes at
// once, where a row each cost the driver about as much as the server's
// whole read (measured: 0.49 to 0.96 s as rows, 1.08 s as host() texts;
// reading them in parallel parts, or as runs computed by the server, was
// slower on 2 cores). Each address costs 4 bytes: its offset from a base,
// less 2^31 to fit int4 (int4send). In an IPv4 pool the base is 0.0.0.0,
// in one value. In an IPv6 pool there is one row for each /64 holding
// allocations (found by one probe of allocations_pool_address each, a
// loose index scan), whose base is its lowest address; only a /64 whose
// addresses span 2^32 or more costs 8 bytes an address, their offsets
// from its middle (int8send). The bytes cost the server more than the
// arithmetic: a /64 of 1 000 000 allocations read as 8-byte offsets took
// the server 20 to 30 % more CPU time than as 4-byte ones. With the
// client decoding them straight into the answer (82 ms of its CPU time
// before, 44 after, the view built), its view went from 1.65 times the
// CPU time (server and client) of an IPv4 view of as many to 1.24 times;
// the 20 bytes of inet_send each cost several times more
// (BenchmarkTakenAddresses). A delegation pool's taken addresses are the
// first addresses of the prefixes it delegated (delegated_prefixes), in
// one more row of inet_send forms. The server reads a pool's allocations in index order,
// so they are only checked to be sorted, and sorted when they are not (a
// plan without the index, the delegated prefixes): an ordered aggregate
// would sort them on the server every time.
func TakenAddresses(ctx context.Context, ext sqlx.QueryerContext, poolUID string) ([]netip.Addr, error) {
	var parts []takenPart
	err := sqlx.SelectContext(ctx, ext, &parts, takenAddressesSQL, poolUID)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the taken addresses of pool %s: %w", poolUID, classify(err))
	}
	n := 0
	for _, p := range parts {
		if len(p.Packed)%p.size() != 0 {
			return nil, fmt.Errorf("store: the taken addresses of pool %s came as %d bytes, not %d an address", poolUID, len(p.Packed), p.size())
		}
		n += len(p.Packed) / p.size()
	}
	t := takenAddrs{out: make([]netip.Addr, 0, n)}
	for _, p := range parts {
		if err := p.unpack(&t); err != nil {
			return nil, fmt.Errorf("store: the taken addresses of pool %s came with the base %q: %w", poolUID, p.Base.String, err)
		}
	}
	if t.unsorted {
		slices.SortFunc(t.out, netip.Addr.Compare)
	}
	return t.out, nil
}

// takenAddressesSQL reads the taken addresses of pool $1 for
// TakenAddresses: rows of (family, base, wide, packed). An IPv4 pool (or
// none) gives one row, base NULL. An IPv6 pool gives a row for each /64
// holding allocations, base its lowest address (host text), packed the
// offsets of its addresses from base (or, wide, from the /64's middle,
// its address with the 64th bit from the end set); and a row with base
// NULL, packed the inet_send forms of the first addresses of the prefixes
// it delegated. n walks the /64s: each is the one of the lowest address
// above the previous /64's last.
const takenAddressesSQL = `WITH RECURSIVE p AS (
		SELECT coalesce((SELECT family(cidr) FROM pools WHERE uid = $1), 4) AS family
	), n AS (
		SELECT (SELECT min(address) FROM allocations WHERE pool_uid = $1) AS first
		FROM p WHERE p.family = 6
		UNION ALL
		SELECT (SELECT min(a.address) FROM allocations a
			WHERE a.pool_uid = $1 AND a.address > set_masklen(broadcast(set_masklen(n.first, 64)), 128))
		FROM n WHERE n.first IS NOT NULL
	), m AS (
		SELECT first, set_masklen(broadcast(set_masklen(first, 64)), 128) AS last,
			set_masklen(network(set_masklen(first, 64))::inet, 128) | '::8000:0:0:0'::inet AS middle
		FROM n WHERE first IS NOT NULL
	), w AS (
		SELECT m.*, ((SELECT max(a.address) FROM allocations a WHERE a.pool_uid = $1 AND a.address <= m.last) - m.middle)::numeric
			- (m.first - m.middle) >= 4294967296 AS wide
		FROM m
	)
	SELECT 4 AS family, NULL::text AS base, false AS wide,
		(SELECT coalesce(string_agg(int4send(((address - '0.0.0.0'::inet) - 2147483648)::int), ''::bytea), ''::bytea)
			FROM allocations WHERE pool_uid = $1) AS packed
	FROM p WHERE p.family = 4
	UNION ALL
	SELECT 6, host(w.first), w.wide, CASE WHEN w.wide
		THEN (SELECT string_agg(int8send(a.address - w.middle), ''::bytea) FROM allocations a
			WHERE a.pool_uid = $1 AND a.address >= w.first AND a.address <= w.last)
		ELSE (SELECT string_agg(int4send(((a.address - w.first) - 2147483648)::int), ''::bytea) FROM allocations a
			WHERE a.pool_uid = $1 AND a.address >= w.first AND a.address <= w.last) END
	FROM w
	UNION ALL
	SELECT 6, NULL, false, (SELECT coalesce(string_agg(inet_send(set_masklen(prefix::inet, 128)), ''::bytea), ''::bytea)
		FROM delegated_prefixes WHERE pool_uid = $1)
	FROM p WHERE p.family = 6`

// A takenPart is a row of takenAddressesSQL.
type takenPart struct {
	Family int            `db:"family"`
	Base   sql.NullString `db:"base"`
	Wide   bool           `db:"wide"`
	Packed []byte         `db:"packed"`
}

// inetSend6 is the length of an IPv6 host address in inet_send's form:
// family, bits, is_cidr, length, then the 16 bytes of the address.
const inetSend6 = 20

// size returns the bytes of each address of p.
func (p takenPart) size() int {
	switch {
	case p.Wide:
		return 8
	case p.Family == 6 && !p.Base.Valid:
		return inetSend6
	}
	return 4
}

// unpack adds the addresses of p to t.
func (p takenPart) unpack(t *takenAddrs) error {
	packed := p.Packed
	if p.Family == 4 {
		for i := 0; i < len(packed); i += 4 {
			t.add4(binary.BigEndian.Uint32(packed[i:]) + 1<<31)
		}
		return nil
	}
	if !p.Base.Valid {
		for i := 0; i < len(packed); i += inetSend6 {
			b := packed[i+4 : i+inetSend6]
			t.add6(binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:]))
		}
		return nil
	}
	base, err := netip.ParseAddr(p.Base.String)
	if err != nil || !base.Is6() {
		return errors.New("not an IPv6 address")
	}
	b := base.As16()
	hi, lo := binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
	if p.Wide {
		for i := 0; i < len(packed); i += 8 {
			t.add6(hi, 1<<63+binary.BigEndian.Uint64(packed[i:]))
		}
		return nil
	}
	for i := 0; i < len(packed); i += 4 {
		t.add6(hi, lo+uint64(binary.BigEndian.Uint32(packed[i:])+1<<31))
	}
	return nil
}

// takenAddrs collects the addresses of TakenAddresses and whether they
// came out of order.
type takenAddrs struct {
	out      []netip.Addr
	hi, lo   uint64 // the last address added
	unsorted bool
}

func (t *takenAddrs) add4(v uint32) {
	t.note(0, uint64(v))
	t.out = append(t.out, netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}))
}

func (t *takenAddrs) add6(hi, lo uint64) {
	t.note(hi, lo)
	var b [16]byte
	binary.BigEndian.PutUint64(b[:], hi)
	binary.BigEndian.PutUint64(b[8:], lo)
	t.out = append(t.out, netip.AddrFrom16(b))
}

// note records the address (hi, lo) as the last added.
func (t *takenAddrs) note(hi, lo uint64) {
	if len(t.out) > 0 && (hi < t.hi || hi == t.hi && lo < t.lo) {
		t.unsorted = true
	}
	t.hi, t.lo = hi, lo
}

// addrsOf reads host() texts.
func addrsOf(what string, ss []string) ([]netip.Addr, error) {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		var err error
		if out[i], err = addrOf(what, s); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// releaseSQL deletes the allocation of pool $1 that where picks, records it
// in the audit log and returns it, without the trigger's notification
// (migration 0009).
func releaseSQL(where string) string {
	return `WITH quiet AS (
			SELECT set_config('ipam.notify_released', 'after commit', true) AS v
		), d AS (
			DELETE FROM allocations
			WHERE pool_uid = $1 AND ` + where + ` AND (SELECT v FROM quiet) IS NOT NULL
			RETURNING *
		), audit AS (
			INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, before)
			SELECT $2, 'release', d.namespace, 'IPAllocation', d.name, ` + allocationDoc("d", "$3::text", "d.owner_name") + `
			FROM d
		)
		SELECT ` + allocationColumns + ` FROM d`
}

// The two releases: of an address, and of what an owner holds.
var (
	releaseAddressSQL = releaseSQL(`address = $4::inet`)
	releaseOwnerSQL   = releaseSQL(`owner_namespace = $4 AND owner_kind = $5 AND owner_uid = $6 AND owner_ref = $7`)
)

// ReleaseAllocation deletes the allocation of the pool at address (when
// address is valid) or held by the owner, records it in the audit log
// and returns it; ErrNotFound when nothing was held. It sends no
// notification (migration 0009): once its transaction commits, the caller
// sends it, with NotifyReleased. Its statements are prepared once (see
// preparedIn).
func ReleaseAllocation(ctx context.Context, ext sqlx.QueryerContext, poolUID, pool string, address netip.Addr, owner OwnerKey, actor string) (AllocationRow, error) {
	var scanned allocationScan
	var err error
	if address.IsValid() {
		err = getPrepared(ctx, ext, &scanned, releaseAddressSQL, poolUID, actor, pool, address.String())
	} else {
		err = getPrepared(ctx, ext, &scanned, releaseOwnerSQL, poolUID, actor, pool, owner.Namespace, owner.Kind, owner.UID, owner.Ref)
	}
	if err = found(err, "allocation"); err != nil {
		return AllocationRow{}, err
	}
	return scanned.row()
}

// ReleasedChannel is the channel of release notifications: "<pool uid>
// <address>" for an address freed, "<pool uid>" alone when a statement
// freed more than 64 of the pool (migrations 0002 and 0009), and
// "<pool uid> <address> <sender>" from NotifyReleased.
const ReleasedChannel = "ipam_released"

// NotifyReleased sends payloads on ReleasedChannel, in one transaction.
func NotifyReleased(ctx context.Context, ext sqlx.ExecerContext, payloads []string) error {
	if _, err := ext.ExecContext(ctx, `SELECT pg_notify('`+ReleasedChannel+`', p) FROM unnest($1::text[]) p`, pq.Array(payloads)); err != nil {
		return fmt.Errorf("store: unable to notify %d releases: %w", len(payloads), classify(err))
	}
	return nil
}

// An AddressRange is the addresses from From to To, both included.
type AddressRange struct{ From, To netip.Addr }

// SampleAllocations returns, in address order, at most limit allocations
// of the pool uid whose owner is of kind (any when "") and whose address
// lies in one of ranges (anywhere when there are none), and how many match:
// what a refusal names.
func SampleAllocations(ctx context.Context, ext sqlx.QueryerContext, poolUID, kind string, ranges []AddressRange, limit int) ([]AllocationRow, int, error) {
	var firsts, lasts pq.StringArray
	for _, r := range ranges {
		firsts, lasts = append(firsts, r.From.String()), append(lasts, r.To.String())
	}
	var rows []struct {
		allocationScan
		Total int `db:"total"`
	}
	err := sqlx.SelectContext(ctx, ext, &rows, `SELECT `+allocationColumns+`, count(*) OVER () AS total
		FROM allocations
		WHERE pool_uid = $1 AND ($2 = '' OR owner_kind = $2)
			AND ($3::inet[] IS NULL OR EXISTS (SELECT FROM unnest($3::inet[], $4::inet[]) r (first, last) WHERE address BETWEEN r.first AND r.last))
		ORDER BY allocations.address LIMIT $5`, poolUID, kind, firsts, lasts, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("store: unable to read the allocations of pool %s: %w", poolUID, classify(err))
	}
	out := make([]AllocationRow, 0, len(rows))
	total := 0
	for _, r := range rows {
		a, err := r.row()
		if err != nil {
			return nil, 0, err
		}
		out, total = append(out, a), r.Total
	}
	return out, total, nil
}

// AllocationFilter narrows a listing of allocations.
type AllocationFilter struct {
	PoolUID   string
	SubnetUID string
	// OwnerNamespaces, when not nil, keeps only allocations whose owner
	// lives in one of these namespaces (a tenant's view of public pools).
	OwnerNamespaces []string
	Search          string     // in the address or the owner's name
	After           netip.Addr // list those above it, when valid
	Limit           int
}

func (f AllocationFilter) where() (string, []any) {
	var ownerNS any
	if f.OwnerNamespaces != nil {
		ownerNS = textArray(f.OwnerNamespaces)
	}
	return `pool_uid = $1 AND ($2 = '' OR subnet_uid = $2::uuid)
		AND ($3::text[] IS NULL OR owner_namespace = ANY($3))
		AND ($4 = '' OR host(address) LIKE '%' || $4 || '%' OR owner_name ILIKE '%' || $4 || '%' OR owner_kind ILIKE $4 || '%')`,
		[]any{f.PoolUID, f.SubnetUID, ownerNS, likeEscape(f.Search)}
}

// Allocations returns a page of allocations in address order.
func Allocations(ctx context.Context, ext sqlx.QueryerContext, f AllocationFilter) ([]AllocationRow, error) {
	where, args := f.where()
	args = append(args, addrArg(f.After), f.Limit)
	as, err := selectRows[allocationScan](ctx, ext, `SELECT `+allocationColumns+` FROM allocations
		WHERE `+where+` AND ($5::inet IS NULL OR address > $5::inet)
		ORDER BY allocations.address LIMIT $6`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the allocations: %w", classify(err))
	}
	return as, nil
}

// CountAllocations counts the allocations f matches (After and Limit aside).
func CountAllocations(ctx context.Context, ext sqlx.QueryerContext, f AllocationFilter) (int, error) {
	where, args := f.where()
	var n int
	if err := sqlx.GetContext(ctx, ext, &n, `SELECT count(*) FROM allocations WHERE `+where, args...); err != nil {
		return 0, fmt.Errorf("store: unable to count the allocations: %w", classify(err))
	}
	return n, nil
}

// CountAllocationsOfKind counts the allocations of a subnet (or, with
// subnetUID empty, of a pool) held by owners of kind.
func CountAllocationsOfKind(ctx context.Context, ext sqlx.QueryerContext, poolUID, subnetUID, kind string) (int, error) {
	var n int
	err := sqlx.GetContext(ctx, ext, &n, `SELECT count(*) FROM allocations
		WHERE pool_uid = $1 AND ($2 = '' OR subnet_uid = $2::uuid) AND ($3 = '' OR owner_kind = $3)`, poolUID, subnetUID, kind)
	if err != nil {
		return 0, fmt.Errorf("store: unable to count the allocations: %w", classify(err))
	}
	return n, nil
}

// ReleaseAllocations deletes the allocations of the pool (of one subnet
// when subnetUID is set) but those of owners of kind keep, records each in
// the audit log and returns them.
func ReleaseAllocations(ctx context.Context, ext sqlx.QueryerContext, poolUID, subnetUID, keep, pool, actor string) ([]AllocationRow, error) {
	out, err := selectRows[allocationScan](ctx, ext, `WITH d AS (
			DELETE FROM allocations
			WHERE pool_uid = $1 AND ($2 = '' OR subnet_uid = $2::uuid) AND owner_kind <> $3
			RETURNING *
		), audit AS (
			INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, before)
			SELECT $4, 'release', d.namespace, 'IPAllocation', d.name, `+allocationDoc("d", "$5::text", "d.owner_name")+`
			FROM d
		)
		SELECT `+allocationColumns+` FROM d ORDER BY d.address`,
		poolUID, subnetUID, keep, actor, pool)
	if err != nil {
		return nil, fmt.Errorf("store: unable to release the allocations of pool %s: %w", pool, classify(err))
	}
	return out, nil
}

// AllocationsIn returns the allocations of the pool from address lo to hi,
// in address order.
func AllocationsIn(ctx context.Context, ext sqlx.QueryerContext, poolUID string, lo, hi netip.Addr) ([]AllocationRow, error) {
	as, err := selectRows[allocationScan](ctx, ext, `SELECT `+allocationColumns+` FROM allocations
		WHERE pool_uid = $1 AND address BETWEEN $2::inet AND $3::inet ORDER BY allocations.address`, poolUID, lo.String(), hi.String())
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the allocations from %s to %s: %w", lo, hi, classify(err))
	}
	return as, nil
}

// LinkAllocations makes the subnet uid of the pool the subnet of the pool's
// allocations in cidr that have none, and returns their addresses.
func LinkAllocations(ctx context.Context, ext sqlx.QueryerContext, poolUID, uid string, cidr netip.Prefix) ([]netip.Addr, error) {
	var as []string
	err := sqlx.SelectContext(ctx, ext, &as, `UPDATE allocations SET subnet_uid = $2
		WHERE pool_uid = $1 AND subnet_uid IS NULL AND address <<= $3::cidr RETURNING host(address)`, poolUID, uid, cidr.String())
	if err != nil {
		return nil, fmt.Errorf("store: unable to link the allocations of %s to its subnet: %w", cidr, classify(err))
	}
	return addrsOf("subnet "+uid, as)
}
