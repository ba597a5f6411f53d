package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"
)

// The rows of number pools (migration 0006, docs/numbers.md): pools, the
// numbers allocated from them (the arbiter of claims), and the numbers the
// branches' objects hold.

// A NumberRange is a range of a number pool, both ends included.
type NumberRange struct {
	Start  int64 `json:"start"`
	End    int64 `json:"end"`
	Weight int   `json:"weight"`
}

// A NumberPoolRow is a row of number_pools.
type NumberPoolRow struct {
	ID          string
	Name        string
	Description string
	// KindID and AttributeID are the stable ids of the pool's kind and of
	// the Number attribute it allocates; Scope those of its scope
	// elements, in order.
	KindID      string
	AttributeID string
	Scope       []string
	Ranges      []NumberRange
	// Revision counts the row's changes.
	Revision  int64
	CreatedAt time.Time
	CreatedBy string
}

type numberPoolScan struct {
	ID          string         `db:"id"`
	Name        string         `db:"name"`
	Description string         `db:"description"`
	KindID      string         `db:"kind_id"`
	AttributeID string         `db:"attribute_id"`
	Scope       pq.StringArray `db:"scope"`
	Ranges      []byte         `db:"ranges"`
	Revision    int64          `db:"revision"`
	CreatedAt   time.Time      `db:"created_at"`
	CreatedBy   string         `db:"created_by"`
}

func (s numberPoolScan) row() (NumberPoolRow, error) {
	var ranges []NumberRange
	if err := json.Unmarshal(s.Ranges, &ranges); err != nil {
		return NumberPoolRow{}, fmt.Errorf("store: number pool %s holds ranges that cannot be read: %w", s.ID, err)
	}
	scope := []string(s.Scope)
	if scope == nil {
		scope = []string{}
	}
	return NumberPoolRow{ID: s.ID, Name: s.Name, Description: s.Description, KindID: s.KindID, AttributeID: s.AttributeID,
		Scope: scope, Ranges: ranges, Revision: s.Revision, CreatedAt: s.CreatedAt, CreatedBy: s.CreatedBy}, nil
}

const numberPoolColumns = `id, name, description, kind_id, attribute_id, scope, ranges, revision, created_at, created_by`

// InsertNumberPool stores a new pool with its audit entry; ErrObjectExists
// when a pool has its name.
func InsertNumberPool(ctx context.Context, tx *Tx, p NumberPoolRow, audit AuditEntry) (NumberPoolRow, error) {
	ranges, err := json.Marshal(p.Ranges)
	if err != nil {
		return NumberPoolRow{}, fmt.Errorf("store: unable to write the ranges of number pool %s: %w", p.Name, err)
	}
	out, err := getRow[numberPoolScan](ctx, tx, `INSERT INTO number_pools (id, name, description, kind_id, attribute_id, scope, ranges, created_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING `+numberPoolColumns,
		p.ID, p.Name, p.Description, p.KindID, p.AttributeID, textArray(p.Scope), string(ranges), p.CreatedBy)
	if _, ok := isUniqueViolation(err); ok {
		return NumberPoolRow{}, fmt.Errorf("store: number pool %s: %w", p.Name, ErrObjectExists)
	}
	if err != nil {
		return NumberPoolRow{}, fmt.Errorf("store: unable to create the number pool %s: %w", p.Name, classify(err))
	}
	return out, InsertAudit(ctx, tx, audit)
}

// UpdateNumberPool sets the name, the description and the ranges of the
// pool id, counts the change in its revision and records the audit entry;
// ErrObjectExists when another pool has the name, ErrNotFound when there is
// no such pool. New ranges mark every division that holds a number (not
// only those counted: a number outside the old ranges may be in the new).
func UpdateNumberPool(ctx context.Context, tx *Tx, id, name, description string, ranges []NumberRange, audit AuditEntry) (NumberPoolRow, error) {
	doc, err := json.Marshal(ranges)
	if err != nil {
		return NumberPoolRow{}, fmt.Errorf("store: unable to write the ranges of number pool %s: %w", name, err)
	}
	out, err := getRow[numberPoolScan](ctx, tx, `WITH marks AS (
			INSERT INTO number_division_dirty (pool_id, division)
			SELECT DISTINCT h.pool_id, h.division FROM number_holdings h
			WHERE h.pool_id = $1 AND h.division IS NOT NULL
				AND (SELECT p.ranges FROM number_pools p WHERE p.id = $1) IS DISTINCT FROM $4::jsonb
		)
		UPDATE number_pools SET name = $2, description = $3, ranges = $4, revision = revision + 1
		WHERE id = $1 RETURNING `+numberPoolColumns, id, name, description, string(doc))
	if _, ok := isUniqueViolation(err); ok {
		return NumberPoolRow{}, fmt.Errorf("store: number pool %s: %w", name, ErrObjectExists)
	}
	if err != nil {
		return NumberPoolRow{}, found(err, "number pool")
	}
	return out, InsertAudit(ctx, tx, audit)
}

// DeleteNumberPool deletes the pool id with its allocations and holdings,
// and records the audit entry; ErrNotFound when there is no such pool.
func DeleteNumberPool(ctx context.Context, tx *Tx, id string, audit AuditEntry) error {
	res, err := tx.ExecContext(ctx, `DELETE FROM number_pools WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("store: unable to delete the number pool %s: %w", id, classify(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: number pool %s: %w", id, ErrNotFound)
	}
	// The holdings deleted with the pool marked their divisions.
	if _, err := tx.ExecContext(ctx, `DELETE FROM number_division_dirty WHERE pool_id = $1`, id); err != nil {
		return fmt.Errorf("store: unable to delete the number pool %s: %w", id, classify(err))
	}
	return InsertAudit(ctx, tx, audit)
}

// NumberPool returns the pool id, or ErrNotFound.
func NumberPool(ctx context.Context, q sqlx.QueryerContext, id string) (NumberPoolRow, error) {
	p, err := getRow[numberPoolScan](ctx, q, `SELECT `+numberPoolColumns+` FROM number_pools WHERE id = $1`, id)
	return p, found(err, "number pool")
}

// LockNumberPool returns the pool id locked by tx until it ends (an
// update), or ErrNotFound.
func LockNumberPool(ctx context.Context, tx *Tx, id string) (NumberPoolRow, error) {
	p, err := getRow[numberPoolScan](ctx, tx, `SELECT `+numberPoolColumns+` FROM number_pools WHERE id = $1 FOR UPDATE`, id)
	return p, found(err, "number pool")
}

// A NumberPoolFilter narrows NumberPools.
type NumberPoolFilter struct {
	IDs           []string // these pools only, when not nil
	Name          string   // the pool of that name, when not ""
	Limit, Offset int      // Limit 0: all
}

// NumberPools returns the pools f keeps, by name, and how many it keeps.
func NumberPools(ctx context.Context, q sqlx.QueryerContext, f NumberPoolFilter) ([]NumberPoolRow, int, error) {
	var scans []struct {
		numberPoolScan
		Total int `db:"total"`
	}
	limit := any(nil)
	if f.Limit > 0 {
		limit = f.Limit
	}
	err := sqlx.SelectContext(ctx, q, &scans, `SELECT `+numberPoolColumns+`, count(*) OVER () AS total FROM number_pools
		WHERE ($1::text[] IS NULL OR id::text = ANY($1)) AND ($2 = '' OR name = $2)
		ORDER BY name LIMIT $3 OFFSET $4`, nullableArray(f.IDs), f.Name, limit, f.Offset)
	if err != nil {
		return nil, 0, fmt.Errorf("store: unable to list the number pools: %w", classify(err))
	}
	out := make([]NumberPoolRow, len(scans))
	total := 0
	for i, s := range scans {
		p, err := s.row()
		if err != nil {
			return nil, 0, err
		}
		out[i], total = p, s.Total
	}
	if len(scans) == 0 && f.Offset > 0 {
		_, n, err := NumberPools(ctx, q, NumberPoolFilter{IDs: f.IDs, Name: f.Name, Limit: 1})
		return out, n, err
	}
	return out, total, nil
}

// SearchNumberPools returns, by name, the pools whose name holds text
// (case ignored) or whose id it is, and those that hand out one of the
// attributes (their stable ids): a search reads every pool at most, and
// pools are few.
func SearchNumberPools(ctx context.Context, q sqlx.QueryerContext, text string, attributes []string) ([]NumberPoolRow, error) {
	rows, err := selectRows[numberPoolScan](ctx, q, `SELECT `+numberPoolColumns+` FROM number_pools
		WHERE lower(name) LIKE '%' || lower($1) || '%' OR id::text = lower($2) OR attribute_id = ANY($3)
		ORDER BY name`, likeEscape(text), text, textArray(attributes))
	if err != nil {
		return nil, fmt.Errorf("store: unable to search the number pools: %w", classify(err))
	}
	return rows, nil
}

// nullableArray is ss as a text[] parameter, nil as NULL.
func nullableArray(ss []string) any {
	if ss == nil {
		return nil
	}
	return pq.StringArray(ss)
}

// LockAllBranches locks every branch alone until tx ends, the others by
// id, then main (the order merges lock in), and returns them; it locks the
// branches created meanwhile too. While tx holds them, no object is
// written on any branch.
func LockAllBranches(ctx context.Context, tx *Tx) ([]BranchRow, error) {
	return allBranches(ctx, tx, ExclusiveBranch)
}

// ShareAllBranches locks every branch shared until tx ends, in the order
// of LockAllBranches, the branches created meanwhile too. While tx holds
// them, objects are written, but no branch is created, deleted, merged or
// rebased, and no schema is loaded.
func ShareAllBranches(ctx context.Context, tx *Tx) error {
	_, err := allBranches(ctx, tx, ShareBranch)
	return err
}

func allBranches(ctx context.Context, tx *Tx, lock BranchLock) ([]BranchRow, error) {
	seen := -1
	for {
		rows, err := selectRows[branchScan](ctx, tx, `SELECT `+branchColumns+` FROM branches ORDER BY id = 1, id `+string(lock))
		if err != nil {
			return nil, fmt.Errorf("store: unable to lock the branches: %w", classify(err))
		}
		if len(rows) == seen {
			return rows, nil
		}
		seen = len(rows)
	}
}

// A NumberKey is a number of a division of a pool. Division is the JSON
// list of the division's values, written canonically.
type NumberKey struct {
	Pool     string
	Division json.RawMessage
	Number   int64
}

// A HoldingRow is a row of number_holdings: what a branch shows an object
// to hold in a pool. Division is nil (and Number 0) when the branch's
// version of the object holds no number.
type HoldingRow struct {
	Pool     string
	Branch   int64
	Object   string
	Division json.RawMessage
	Number   int64
	FromSeq  int64
	// ToSeq ends one of main's holdings that a branch still sees; 0 while
	// it is live.
	ToSeq int64
}

// Holds reports whether the row holds a number.
func (h HoldingRow) Holds() bool { return h.Division != nil }

// NumberRecords returns the pools of the kinds (stable ids: a node and
// the generics it inherits from) and the live holdings the branch has of
// the objects in them: what a change of those objects replaces. One
// statement, prepared once.
func NumberRecords(ctx context.Context, tx *Tx, kinds []string, branchID int64, objects []string) ([]NumberPoolRow, []HoldingRow, error) {
	var scans []struct {
		numberPoolScan
		Live []byte `db:"live"`
	}
	kindList, err := json.Marshal(kinds)
	if err != nil {
		return nil, nil, fmt.Errorf("store: unable to read the number pools of %d kinds: %w", len(kinds), err)
	}
	if err := selectPrepared(ctx, tx, &scans, numberRecordsSQL, string(kindList), branchID, textArray(objects)); err != nil {
		return nil, nil, fmt.Errorf("store: unable to read the number pools of %d kinds: %w", len(kinds), classify(err))
	}
	var pools []NumberPoolRow
	var live []HoldingRow
	for _, s := range scans {
		p, err := s.row()
		if err != nil {
			return nil, nil, err
		}
		pools = append(pools, p)
		var rows []struct {
			Object   string          `json:"object_id"`
			Division json.RawMessage `json:"division"`
			Number   *int64          `json:"number"`
			FromSeq  int64           `json:"from_seq"`
		}
		if err := json.Unmarshal(s.Live, &rows); err != nil {
			return nil, nil, fmt.Errorf("store: the holdings of number pool %s cannot be read: %w", p.ID, err)
		}
		for _, r := range rows {
			h := HoldingRow{Pool: p.ID, Branch: branchID, Object: r.Object, FromSeq: r.FromSeq}
			if r.Number != nil {
				if h.Division, err = Canonical(r.Division); err != nil {
					return nil, nil, fmt.Errorf("store: a holding of number pool %s cannot be read: %w", p.ID, err)
				}
				h.Number = *r.Number
			}
			live = append(live, h)
		}
	}
	return pools, live, nil
}

// numberRecordsSQL takes the kinds as a JSON list ($1), not an array: the
// planner estimates an array parameter's length at 10 and a constant's at
// its own, so with number_pools not yet analysed (autovacuum analyses it
// after 50 changes) the generic plan looked costlier than every custom one
// and the statement was planned again on every write; a JSON list's
// elements are estimated alike in both, and the generic plan is kept.
// The holdings are looked up one object at a time, by the whole key of
// number_holdings_live: a subquery per element of $3 that OFFSET 0 keeps
// the planner from flattening. Without statistics, = ANY($3) was planned
// as a scan of the pool's live holdings on the branch, the objects
// filtered: a create read every holding of its pool.
const numberRecordsSQL = `SELECT ` + numberPoolColumns + `,
		(SELECT coalesce(jsonb_agg(jsonb_build_object('object_id', h.object_id, 'division', h.division, 'number', h.number, 'from_seq', h.from_seq)), '[]')
			FROM unnest($3::uuid[]) k(o), LATERAL (SELECT * FROM number_holdings h
				WHERE h.pool_id = p.id AND h.object_id = k.o AND h.branch_id = $2 AND h.to_seq IS NULL OFFSET 0) h) AS live
	FROM number_pools p WHERE p.kind_id IN (SELECT jsonb_array_elements_text($1::jsonb)) ORDER BY p.id`

// A HoldingsWrite replaces holdings of one branch at a change.
type HoldingsWrite struct {
	Branch int64
	// Seq is the change's number: the new rows' from_seq, and the to_seq of
	// the rows of main it ends.
	Seq int64
	// Replace are live rows replaced (named by their pool, object and
	// from_seq): on main, a row that a branch sees at its branch point is
	// ended at Seq, the others are deleted; on another branch, deleted.
	Replace []HoldingRow
	// Insert are the new live rows, at Seq.
	Insert []HoldingRow
}

// WriteHoldings applies w in one statement and returns the numbers of the
// rows it deleted: those it may have freed. ErrStale: a pool was deleted
// meanwhile, the write of the objects is to be tried again.
func WriteHoldings(ctx context.Context, tx *Tx, w HoldingsWrite) ([]NumberKey, error) {
	if len(w.Replace)+len(w.Insert) == 0 {
		return nil, nil
	}
	oldPools, oldObjects, oldFrom := holdingKeys(w.Replace)
	insPools, insObjects, insDivisions, insNumbers := make([]string, len(w.Insert)), make([]string, len(w.Insert)), make([]sql.NullString, len(w.Insert)), make([]sql.NullInt64, len(w.Insert))
	for i, h := range w.Insert {
		insPools[i], insObjects[i] = h.Pool, h.Object
		if h.Holds() {
			insDivisions[i] = sql.NullString{String: string(h.Division), Valid: true}
			insNumbers[i] = sql.NullInt64{Int64: h.Number, Valid: true}
		}
	}
	var scans []numberKeyScan
	err := selectPrepared(ctx, tx, &scans, writeHoldingsSQL,
		w.Branch, w.Seq, oldPools, oldObjects, oldFrom, textArray(insPools), textArray(insObjects), nullStrings(insDivisions), nullInts(insNumbers))
	if isForeignKeyViolation(err) {
		// A pool was deleted while the write waited for its row: the write
		// is to be tried again, without it.
		return nil, fmt.Errorf("store: a number pool of %d objects is gone: %w", len(w.Insert), ErrStale)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to record the numbers of %d objects: %w", len(w.Insert), classify(err))
	}
	return numberKeys(scans)
}

// writeHoldingsSQL ends or deletes the live rows $3-$5 name and inserts
// the rows $6-$9 (see WriteHoldings). The rows replaced are looked up one
// at a time by their whole key, as in numberRecordsSQL: joined to the
// arrays, without statistics, they were found by scanning every live
// holding of the branch.
const writeHoldingsSQL = `WITH old AS (
			SELECT h.pool_id, h.object_id, h.from_seq,
				h.branch_id = 1 AND EXISTS (SELECT 1 FROM branches b WHERE b.id <> 1 AND b.branched_from >= h.from_seq) AS seen
			FROM unnest($3::uuid[], $4::uuid[], $5::bigint[]) k(p, o, f), LATERAL (SELECT * FROM number_holdings h
				WHERE h.pool_id = k.p AND h.branch_id = $1 AND h.object_id = k.o AND h.from_seq = k.f AND h.to_seq IS NULL OFFSET 0) h
		), ended AS (
			UPDATE number_holdings h SET to_seq = $2 FROM old
			WHERE old.seen AND h.pool_id = old.pool_id AND h.branch_id = $1 AND h.object_id = old.object_id AND h.from_seq = old.from_seq
			RETURNING 1
		), deleted AS (
			DELETE FROM number_holdings h USING old
			WHERE NOT old.seen AND h.pool_id = old.pool_id AND h.branch_id = $1 AND h.object_id = old.object_id AND h.from_seq = old.from_seq
			RETURNING h.pool_id, h.division, h.number
		), inserted AS (
			INSERT INTO number_holdings (pool_id, branch_id, object_id, division, number, from_seq)
			SELECT k.p, $1, k.o, k.d, k.n, $2 FROM unnest($6::uuid[], $7::uuid[], $8::jsonb[], $9::bigint[]) k(p, o, d, n)
			-- after the rows it replaces are ended and deleted
			WHERE (SELECT count(*) FROM ended) + (SELECT count(*) FROM deleted) >= 0
		)
		SELECT DISTINCT pool_id, division, number FROM deleted WHERE number IS NOT NULL`

// holdingKeys splits rows into the arrays that name them.
func holdingKeys(rows []HoldingRow) (pools, objects any, from pq.Int64Array) {
	ps, os := make([]string, len(rows)), make([]string, len(rows))
	from = make(pq.Int64Array, len(rows))
	for i, h := range rows {
		ps[i], os[i], from[i] = h.Pool, h.Object, h.FromSeq
	}
	return textArray(ps), textArray(os), from
}

// nullStrings is a text[] (or jsonb[]) parameter whose invalid items are
// NULL.
func nullStrings(ss []sql.NullString) any {
	parts := make([]string, len(ss))
	for i, s := range ss {
		if !s.Valid {
			parts[i] = "NULL"
			continue
		}
		parts[i] = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s.String) + `"`
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// nullInts is a bigint[] parameter whose invalid items are NULL.
func nullInts(ns []sql.NullInt64) any {
	parts := make([]string, len(ns))
	for i, n := range ns {
		if !n.Valid {
			parts[i] = "NULL"
			continue
		}
		parts[i] = strconv.FormatInt(n.Int64, 10)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

type numberKeyScan struct {
	Pool     string `db:"pool_id"`
	Division []byte `db:"division"`
	Number   int64  `db:"number"`
}

func numberKeys(scans []numberKeyScan) ([]NumberKey, error) {
	out := make([]NumberKey, len(scans))
	for i, s := range scans {
		d, err := Canonical(s.Division)
		if err != nil {
			return nil, fmt.Errorf("store: a division of number pool %s cannot be read: %w", s.Pool, err)
		}
		out[i] = NumberKey{Pool: s.Pool, Division: d, Number: s.Number}
	}
	return out, nil
}

// DropHoldings deletes the live holdings the branch has of the objects
// (all of them when objects is nil), then main's ended holdings that no
// branch sees any more (as if branch gone were gone already, when not 0),
// and returns the numbers of the rows deleted: those it may have freed.
func DropHoldings(ctx context.Context, tx *Tx, branchID int64, objects []string, gone int64) ([]NumberKey, error) {
	var scans []numberKeyScan
	err := tx.SelectContext(ctx, &scans, `WITH mine AS (
			DELETE FROM number_holdings h
			WHERE $1::integer <> 1 AND h.branch_id = $1 AND ($2::uuid[] IS NULL OR h.object_id = ANY($2::uuid[]))
			RETURNING h.pool_id, h.division, h.number
		), unseen AS (
			DELETE FROM number_holdings h
			WHERE h.to_seq IS NOT NULL AND NOT EXISTS (SELECT 1 FROM branches b
				WHERE b.id <> 1 AND b.id <> $3 AND b.branched_from >= h.from_seq AND b.branched_from < h.to_seq)
			RETURNING h.pool_id, h.division, h.number
		)
		SELECT DISTINCT pool_id, division, number FROM (SELECT * FROM mine UNION ALL SELECT * FROM unseen) g WHERE number IS NOT NULL`,
		branchID, nullableArray(objects), gone)
	if err != nil {
		return nil, fmt.Errorf("store: unable to drop the holdings of branch %d: %w", branchID, classify(err))
	}
	return numberKeys(scans)
}

// InsertHoldings stores rows as they are (their from_seq and to_seq): the
// holdings a new pool finds.
func InsertHoldings(ctx context.Context, tx *Tx, rows []HoldingRow) error {
	if len(rows) == 0 {
		return nil
	}
	pools, branches, objects := make([]string, len(rows)), make(pq.Int64Array, len(rows)), make([]string, len(rows))
	divisions, numbers := make([]sql.NullString, len(rows)), make([]sql.NullInt64, len(rows))
	from, to := make(pq.Int64Array, len(rows)), make([]sql.NullInt64, len(rows))
	for i, h := range rows {
		pools[i], branches[i], objects[i], from[i] = h.Pool, h.Branch, h.Object, h.FromSeq
		if h.Holds() {
			divisions[i] = sql.NullString{String: string(h.Division), Valid: true}
			numbers[i] = sql.NullInt64{Int64: h.Number, Valid: true}
		}
		if h.ToSeq != 0 {
			to[i] = sql.NullInt64{Int64: h.ToSeq, Valid: true}
		}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO number_holdings (pool_id, branch_id, object_id, division, number, from_seq, to_seq)
		SELECT * FROM unnest($1::uuid[], $2::integer[], $3::uuid[], $4::jsonb[], $5::bigint[], $6::bigint[], $7::bigint[])`,
		textArray(pools), branches, textArray(objects), nullStrings(divisions), nullInts(numbers), from, nullInts(to))
	if err != nil {
		return fmt.Errorf("store: unable to record %d holdings: %w", len(rows), classify(err))
	}
	return nil
}

// A KindVersion is a version of an object with the change that ended it
// (0 while it is live).
type KindVersion struct {
	ObjectRow
	ToSeq int64
}

// KindVersions returns the versions of objects of the kinds (stable ids)
// that a branch shows: every branch's live versions (deletions included),
// and main's ended versions that a branch sees at its branch point.
func KindVersions(ctx context.Context, q sqlx.QueryerContext, kinds []string) ([]KindVersion, error) {
	var scans []struct {
		objectScan
		ToSeq sql.NullInt64 `db:"to_seq"`
	}
	err := sqlx.SelectContext(ctx, q, &scans, `SELECT `+objectColumns+`, to_seq FROM object_versions o
		WHERE o.kind = ANY($1) AND (o.to_seq IS NULL OR o.branch_id = 1 AND EXISTS (SELECT 1 FROM branches b
			WHERE b.id <> 1 AND b.branched_from >= o.from_seq AND b.branched_from < o.to_seq))
		ORDER BY o.branch_id, o.object_id, o.from_seq`, textArray(kinds))
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the objects of %d kinds: %w", len(kinds), classify(err))
	}
	out := make([]KindVersion, len(scans))
	for i, s := range scans {
		r, err := s.row()
		if err != nil {
			return nil, err
		}
		out[i] = KindVersion{ObjectRow: r, ToSeq: s.ToSeq.Int64}
	}
	return out, nil
}

// A NumberClaim is a number claimed from a pool in a division.
type NumberClaim struct {
	NumberKey
	// Revision is the pool's revision the candidate was computed from.
	Revision   int64
	Identifier string
	Object     string
	Branch     string
	Actor      string
	// PoolName names the pool in the audit entry.
	PoolName string
}

// claimNumberSQL inserts an allocation, unless the pool changed or an
// object holds the number in the division, and records it in the audit
// log.
const claimNumberSQL = `WITH a AS (
		INSERT INTO number_allocations (pool_id, division, number, identifier, object_id, branch, created_by)
		SELECT $1, $2::jsonb, $3, $4, $5, $6, $7 FROM number_pools p
		WHERE p.id = $1 AND p.revision = $8
			AND NOT EXISTS (SELECT 1 FROM number_holdings h WHERE h.pool_id = $1 AND h.division = $2::jsonb AND h.number = $3)
		ON CONFLICT DO NOTHING
		RETURNING *
	), audit AS (
		INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, after, branch)
		SELECT created_by, 'allocate', '', 'CoreNumberPool', $9, jsonb_build_object('pool', $9::text, 'pool_id', pool_id,
			'division', division, 'number', number, 'identifier', identifier, 'object', object_id), branch
		FROM a
	)
	SELECT number FROM a`

// ClaimNumber allocates c's number to c's identifier, with its audit
// entry, in one statement: no lock, the primary key decides. When the
// number or the identifier is taken in the division, an object holds the
// number there, or the pool is no longer at c's revision, nothing is
// stored and the error wraps ErrObjectExists (NumberClaimConflict says
// which); ErrNotFound when the pool was deleted meanwhile (the
// transaction is then aborted).
func ClaimNumber(ctx context.Context, q sqlx.QueryerContext, c NumberClaim) error {
	var n int64
	err := getPrepared(ctx, q, &n, claimNumberSQL, c.Pool, string(c.Division), c.Number, c.Identifier, c.Object, c.Branch, c.Actor, c.Revision, c.PoolName)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("store: number %d of pool %s: %w", c.Number, c.Pool, ErrObjectExists)
	case isForeignKeyViolation(err):
		// The pool was deleted while the claim waited for its row.
		return fmt.Errorf("store: number pool %s: %w", c.Pool, ErrNotFound)
	case err != nil:
		return fmt.Errorf("store: unable to claim the number %d of pool %s: %w", c.Number, c.Pool, classify(err))
	}
	return nil
}

// A NumberConflict is what stood in the way of a claim.
type NumberConflict struct {
	// Revision is the pool's revision; 0 when the pool is gone.
	Revision int64
	// Identified is the number allocated to the claim's identifier in the
	// division, when there is one.
	Identified *int64
	// Taken says whether the number is allocated, or held, in the
	// division.
	Taken bool
}

// NumberClaimConflict reads, in one statement, what stands in the way of
// claiming the number of key under the identifier.
func NumberClaimConflict(ctx context.Context, q sqlx.QueryerContext, key NumberKey, identifier string) (NumberConflict, error) {
	var s struct {
		Revision   sql.NullInt64 `db:"revision"`
		Identified sql.NullInt64 `db:"identified"`
		Taken      bool          `db:"taken"`
	}
	err := getPrepared(ctx, q, &s, numberConflictSQL, key.Pool, string(key.Division), key.Number, identifier)
	if err != nil {
		return NumberConflict{}, fmt.Errorf("store: unable to read what holds number %d of pool %s: %w", key.Number, key.Pool, classify(err))
	}
	c := NumberConflict{Revision: s.Revision.Int64, Taken: s.Taken}
	if s.Identified.Valid {
		c.Identified = &s.Identified.Int64
	}
	return c, nil
}

// numberConflictSQL locks the allocation of the identifier it returns
// (FOR KEY SHARE, until the claim's transaction ends): a claim that
// returns it writes a holding of its number that no other transaction
// sees before the commit, and a release, which locks allocations FOR
// UPDATE before it decides (ReleaseNumbers), waits for that commit and
// then sees the holding. An allocation deleted meanwhile is not returned.
const numberConflictSQL = `SELECT (SELECT revision FROM number_pools WHERE id = $1) AS revision,
		(SELECT number FROM number_allocations WHERE pool_id = $1 AND division = $2::jsonb AND identifier = $4 AND NOT given_up
			FOR KEY SHARE) AS identified,
		EXISTS (SELECT 1 FROM number_allocations WHERE pool_id = $1 AND division = $2::jsonb AND number = $3)
			OR EXISTS (SELECT 1 FROM number_holdings WHERE pool_id = $1 AND division = $2::jsonb AND number = $3) AS taken`

// ReleaseNumbers deletes the allocations of keys whose number no
// holding holds any more in the division, records each in the audit log
// (a "release" by actor on branch) and returns them. tx deleted holdings
// of those keys before. Two statements: the allocations are locked first
// (FOR UPDATE, in the order of their keys), then a statement of its own,
// whose snapshot follows the locks, deletes those that no holding holds.
// So of two transactions that delete the last two holdings of a number
// at once, the second to lock sees the first's deletion committed and
// releases the number (docs/numbers.md, "Records"). The second
// statement is skipped when none of keys is allocated. ErrStale:
// a deadlock with another change's locks, the change is to be tried
// again (store.Retryable).
func ReleaseNumbers(ctx context.Context, tx *Tx, keys []NumberKey, actor, branch string) ([]NumberKey, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	pools, divisions, numbers := make([]string, len(keys)), make([]string, len(keys)), make(pq.Int64Array, len(keys))
	for i, k := range keys {
		pools[i], divisions[i], numbers[i] = k.Pool, string(k.Division), k.Number
	}
	var locked int
	err := tx.GetContext(ctx, &locked, `SELECT count(*) FROM (SELECT 1 FROM number_allocations a
			JOIN unnest($1::uuid[], $2::jsonb[], $3::bigint[]) k(p, d, n) ON a.pool_id = k.p AND a.division = k.d AND a.number = k.n
			ORDER BY a.pool_id, a.division, a.number FOR UPDATE OF a) l`, textArray(pools), textArray(divisions), numbers)
	if pq.As(err, pqerror.TRDeadlockDetected) != nil {
		return nil, fmt.Errorf("store: unable to release %d numbers: %w", len(keys), ErrStale)
	}
	if err != nil || locked == 0 {
		return nil, fmtRelease(len(keys), err)
	}
	var scans []numberKeyScan
	err = tx.SelectContext(ctx, &scans, `WITH gone AS (
			DELETE FROM number_allocations a USING unnest($1::uuid[], $2::jsonb[], $3::bigint[]) k(p, d, n)
			WHERE a.pool_id = k.p AND a.division = k.d AND a.number = k.n
				AND NOT EXISTS (SELECT 1 FROM number_holdings h WHERE h.pool_id = a.pool_id AND h.division = a.division AND h.number = a.number)
			RETURNING a.*
		), audit AS (
			INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, before, branch)
			SELECT $4, 'release', '', 'CoreNumberPool', p.name, jsonb_build_object('pool', p.name, 'pool_id', p.id,
				'division', g.division, 'number', g.number, 'identifier', g.identifier, 'object', g.object_id, 'allocated_on', g.branch), $5
			FROM gone g JOIN number_pools p ON p.id = g.pool_id
		)
		SELECT pool_id, division, number FROM gone`, textArray(pools), textArray(divisions), numbers, actor, nullable(branch))
	if err != nil {
		return nil, fmtRelease(len(keys), err)
	}
	return numberKeys(scans)
}

// fmtRelease wraps err, if any, as ReleaseNumbers' failure to release n
// numbers.
func fmtRelease(n int, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("store: unable to release %d numbers: %w", n, classify(err))
}

// GiveUpNumber marks the allocation of key given up if the identifier
// holds it: the identifier gives the number up for another (value: null
// with from_pool), and may claim another in the division. The allocation
// stays, and decides every claim of the number, until a release finds no
// holding of it (ReleaseNumbers): objects of other branches may still
// hold it.
func GiveUpNumber(ctx context.Context, tx *Tx, key NumberKey, identifier string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE number_allocations SET given_up = true
		WHERE pool_id = $1 AND division = $2::jsonb AND number = $3 AND identifier = $4 AND NOT given_up`,
		key.Pool, string(key.Division), key.Number, identifier); err != nil {
		return fmt.Errorf("store: unable to give up number %d of pool %s: %w", key.Number, key.Pool, classify(err))
	}
	return nil
}

// TakenNumbers returns the numbers of the division of the pool that are
// allocated or held, ascending.
func TakenNumbers(ctx context.Context, q sqlx.QueryerContext, pool string, division json.RawMessage) ([]int64, error) {
	var out []int64
	if err := selectPrepared(ctx, q, &out, takenNumbersSQL, pool, string(division)); err != nil {
		return nil, fmt.Errorf("store: unable to read the taken numbers of pool %s: %w", pool, classify(err))
	}
	return out, nil
}

const takenNumbersSQL = `SELECT number FROM number_allocations WHERE pool_id = $1 AND division = $2::jsonb
	UNION SELECT number FROM number_holdings WHERE pool_id = $1 AND division = $2::jsonb AND number IS NOT NULL
	ORDER BY number`

// numberStatements are the statements of number pools that run in the
// transactions of objects' writes: the records of their numbers and the
// claims (see PrepareStatements).
var numberStatements = []string{numberRecordsSQL, writeHoldingsSQL, claimNumberSQL, numberConflictSQL, takenNumbersSQL}

// shownSQL is what the branches show of the numbers of a pool ($1):
// every branch's live rows, on that branch, and main's ended rows on each
// branch that sees them at its branch point and has no row of its own for
// the object; of those, the pool's numbers alone (poolsNumberSQL).
const shownSQL = `spans AS (` + spansSQL + `), shown AS (
		SELECT h.* FROM (
			SELECT h.object_id, h.division, h.number, h.branch_id AS shown_on
			FROM number_holdings h WHERE h.pool_id = $1 AND h.number IS NOT NULL AND h.to_seq IS NULL
			UNION ALL
			SELECT h.object_id, h.division, h.number, b.id
			FROM number_holdings h JOIN branches b ON b.id <> 1 AND h.from_seq <= b.branched_from AND b.branched_from < h.to_seq
			WHERE h.pool_id = $1 AND h.branch_id = 1 AND h.number IS NOT NULL AND h.to_seq IS NOT NULL
				AND NOT EXISTS (SELECT 1 FROM number_holdings s WHERE s.pool_id = h.pool_id AND s.branch_id = b.id AND s.object_id = h.object_id AND s.to_seq IS NULL)
		) h
		WHERE ` + poolsNumberSQL + `
	)`

// spansSQL is the numbers of the ranges of the pool $1, as one multirange
// (numbers): what its figures count.
const spansSQL = `SELECT coalesce(range_agg(int8range((r->>'start')::bigint, (r->>'end')::bigint, '[]')), '{}') AS numbers
		FROM number_pools p, jsonb_array_elements(p.ranges) r WHERE p.id = $1`

// poolsNumberSQL says whether the row h (a holding: its division and
// number) holds a number of the pool $1: one of its ranges (spans), or one
// allocated from it (its ranges may have changed since). Every pool of a
// kind and attribute records every number its objects hold, so that it
// skips them; it lists and counts its own alone, not another pool's of
// the same attribute, nor a number given outside its ranges.
const poolsNumberSQL = `((SELECT numbers FROM spans) @> h.number
			OR EXISTS (SELECT 1 FROM number_allocations a WHERE a.pool_id = $1 AND a.division = h.division AND a.number = h.number))`

// DivisionNumbers are the numbers shown in one division.
type DivisionNumbers struct {
	Division json.RawMessage
	Numbers  []int64 // ascending, each once
}

// NumberDivisions returns the divisions of the pool where a branch shows
// an object holding a number of the pool (shownSQL), with those numbers.
func NumberDivisions(ctx context.Context, q sqlx.QueryerContext, pool string) ([]DivisionNumbers, error) {
	var scans []struct {
		Division []byte        `db:"division"`
		Numbers  pq.Int64Array `db:"numbers"`
	}
	err := sqlx.SelectContext(ctx, q, &scans, `WITH `+shownSQL+`
		SELECT division, array_agg(DISTINCT number ORDER BY number) AS numbers FROM shown GROUP BY division`, pool)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the divisions of pool %s: %w", pool, classify(err))
	}
	out := make([]DivisionNumbers, len(scans))
	for i, s := range scans {
		d, err := Canonical(s.Division)
		if err != nil {
			return nil, fmt.Errorf("store: a division of pool %s cannot be read: %w", pool, err)
		}
		out[i] = DivisionNumbers{Division: d, Numbers: s.Numbers}
	}
	return out, nil
}

// ShownNumbers returns the numbers a branch shows an object holding in
// the division of the pool (every division when division is nil),
// ascending, each once.
func ShownNumbers(ctx context.Context, q sqlx.QueryerContext, pool string, division json.RawMessage) ([]int64, error) {
	var out []int64
	var d any
	if division != nil {
		d = string(division)
	}
	err := sqlx.SelectContext(ctx, q, &out, `WITH `+shownSQL+`
		SELECT DISTINCT number FROM shown WHERE $2::jsonb IS NULL OR division = $2::jsonb ORDER BY number`, pool, d)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the numbers of pool %s: %w", pool, classify(err))
	}
	return out, nil
}

// BranchShares are the numbers of a pool shown on main, and those shown on
// other branches only.
type BranchShares struct {
	Main, Branches []int64
}

// NumberShares returns the numbers of the pool that main shows, and those
// that only other branches show, each ascending.
func NumberShares(ctx context.Context, q sqlx.QueryerContext, pool string) (BranchShares, error) {
	var scans []struct {
		Number int64 `db:"number"`
		OnMain bool  `db:"on_main"`
	}
	err := sqlx.SelectContext(ctx, q, &scans, `WITH `+shownSQL+`
		SELECT number, bool_or(shown_on = 1) AS on_main FROM shown GROUP BY number ORDER BY number`, pool)
	if err != nil {
		return BranchShares{}, fmt.Errorf("store: unable to read the numbers of pool %s: %w", pool, classify(err))
	}
	var out BranchShares
	for _, s := range scans {
		if s.OnMain {
			out.Main = append(out.Main, s.Number)
		} else {
			out.Branches = append(out.Branches, s.Number)
		}
	}
	return out, nil
}

// A HeldNumber is a number a branch shows an object holding.
type HeldNumber struct {
	Number   int64
	Division json.RawMessage
	Object   string
	// Branch is the name of the first branch (main first, then by name)
	// that shows it.
	Branch string
	// Identifier is the allocation's, when the object holds the number
	// from the pool; "" otherwise.
	Identifier string
}

// HeldNumbers returns a page of the numbers of the pool held in the
// divisions whose values at the positions of match are those given
// (canonical JSON; every division when match is empty), ascending by
// number, then object, each holding once, and how many there are.
func HeldNumbers(ctx context.Context, q sqlx.QueryerContext, pool string, match map[int]json.RawMessage, limit, offset int) ([]HeldNumber, int, error) {
	args := []any{pool}
	where := ""
	for _, i := range slices.Sorted(maps.Keys(match)) {
		args = append(args, string(match[i]))
		where += fmt.Sprintf(" AND s.division -> %d = $%d::jsonb", i, len(args))
	}
	lim := "ALL"
	if limit > 0 {
		args = append(args, limit)
		lim = "$" + strconv.Itoa(len(args))
	}
	args = append(args, offset)
	var scans []struct {
		Number     int64          `db:"number"`
		Division   []byte         `db:"division"`
		Object     string         `db:"object_id"`
		Branch     string         `db:"branch"`
		Identifier sql.NullString `db:"identifier"`
		Total      int            `db:"total"`
	}
	err := sqlx.SelectContext(ctx, q, &scans, `WITH `+shownSQL+`, one AS (
			SELECT DISTINCT ON (s.number, s.object_id, s.division) s.number, s.division, s.object_id, b.name AS branch
			FROM shown s JOIN branches b ON b.id = s.shown_on
			WHERE true`+where+`
			ORDER BY s.number, s.object_id, s.division, b.id <> 1, b.name
		)
		SELECT one.number, one.division, one.object_id, one.branch, a.identifier, count(*) OVER () AS total
		FROM one LEFT JOIN number_allocations a ON a.pool_id = $1 AND a.division = one.division AND a.number = one.number AND a.object_id = one.object_id
		ORDER BY one.number, one.object_id, one.division LIMIT `+lim+` OFFSET $`+strconv.Itoa(len(args)), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: unable to list the numbers of pool %s: %w", pool, classify(err))
	}
	out := make([]HeldNumber, len(scans))
	total := 0
	for i, s := range scans {
		d, err := Canonical(s.Division)
		if err != nil {
			return nil, 0, fmt.Errorf("store: a division of pool %s cannot be read: %w", pool, err)
		}
		out[i], total = HeldNumber{Number: s.Number, Division: d, Object: s.Object, Branch: s.Branch, Identifier: s.Identifier.String}, s.Total
	}
	if len(scans) == 0 && offset > 0 {
		_, n, err := HeldNumbers(ctx, q, pool, match, 1, 0)
		return out, n, err
	}
	return out, total, nil
}
