package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"
)

// ErrStale means that the version a write replaces is no longer the
// branch's: another writer changed the object first. The write stored
// nothing; read the object again and retry.
var ErrStale = errors.New("store: the object changed meanwhile")

// Retryable reports whether err refused a change that a fresh transaction
// may make: ErrStale, or a deadlock that PostgreSQL broke by aborting the
// change's transaction (its locks met another transaction's in the other
// order). The transaction stored nothing.
func Retryable(err error) bool {
	return errors.Is(err, ErrStale) || pq.As(err, pqerror.TRDeadlockDetected) != nil
}

// A View is what one branch sees of the objects: its own live versions,
// over main's versions live at its branch point (docs/branches.md).
type View struct {
	Branch int64 // the branch read or written
	Point  int64 // its branch point; 0 on main
}

// OnMain reports whether v is main's view: its live versions.
func (v View) OnMain() bool { return v.Branch == MainBranchID }

// An ObjectRow is a version of an object.
type ObjectRow struct {
	ID   string // a UUID
	Kind string // the stable id of its node kind
	// Data holds the values by the stable id of their attribute or
	// relationship, each written canonically (see Canonical): equal values
	// are equal bytes.
	Data map[string]json.RawMessage
	// Deleted marks the version that records the object's deletion.
	Deleted bool
	// BranchID is the branch whose version this is: the branch read, or
	// main for main's version at the branch point.
	BranchID int64
	// FromSeq is the change that wrote the version.
	FromSeq int64
}

// objectScan is a row of object_versions as the driver reads it.
type objectScan struct {
	ID       string `db:"object_id"`
	Kind     string `db:"kind"`
	Data     []byte `db:"data"`
	Deleted  bool   `db:"deleted"`
	BranchID int64  `db:"branch_id"`
	FromSeq  int64  `db:"from_seq"`
}

func (s objectScan) row() (ObjectRow, error) {
	data, err := decodeData(s.Data)
	if err != nil {
		return ObjectRow{}, fmt.Errorf("store: object %s holds data that is not a JSON object: %w", s.ID, err)
	}
	return ObjectRow{ID: s.ID, Kind: s.Kind, Data: data, Deleted: s.Deleted, BranchID: s.BranchID, FromSeq: s.FromSeq}, nil
}

// listedScan is an object of a listing with the count of the whole
// listing.
type listedScan struct {
	objectScan
	Total int `db:"total"`
}

// decodeData reads a data column into canonical values.
func decodeData(b []byte) (map[string]json.RawMessage, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	for k, v := range raw {
		c, err := Canonical(v)
		if err != nil {
			return nil, err
		}
		raw[k] = c
	}
	return raw, nil
}

// Canonical writes a JSON value canonically: no space, object keys sorted,
// numbers as written. Equal values are then equal bytes, whether the
// domain wrote them or PostgreSQL's jsonb did.
func Canonical(v json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// encodeData writes data for a jsonb column.
func encodeData(data map[string]json.RawMessage) (string, error) {
	if data == nil {
		return "{}", nil
	}
	b, err := json.Marshal(data)
	return string(b), err
}

const objectColumns = `object_id, kind, data, deleted, branch_id, from_seq`

// objectOnMainSQL reads main's live version of an object.
const objectOnMainSQL = `SELECT ` + objectColumns + ` FROM object_versions
	WHERE object_id = $1 AND branch_id = 1 AND to_seq IS NULL`

// objectOnBranchSQL reads a branch's live version of an object, else
// main's at the branch point: two index lookups, the second only when the
// first finds nothing.
const objectOnBranchSQL = `(SELECT ` + objectColumns + ` FROM object_versions
		WHERE object_id = $1 AND branch_id = $2 AND to_seq IS NULL)
	UNION ALL
	(SELECT ` + objectColumns + ` FROM object_versions
		WHERE object_id = $1 AND branch_id = 1 AND from_seq <= $3 AND (to_seq IS NULL OR to_seq > $3))
	LIMIT 1`

// Object returns the version of the object id that v shows, a deletion
// included, or ErrNotFound when v shows none. One statement, prepared
// once: on a branch, its own live version, else main's at the branch
// point.
func Object(ctx context.Context, q sqlx.QueryerContext, v View, id string) (ObjectRow, error) {
	query, args := objectOnMainSQL, []any{id}
	if !v.OnMain() {
		query, args = objectOnBranchSQL, []any{id, v.Branch, v.Point}
	}
	var s objectScan
	err := getPrepared(ctx, q, &s, query, args...)
	if errors.Is(err, sql.ErrNoRows) {
		return ObjectRow{}, fmt.Errorf("store: unable to find the object %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return ObjectRow{}, fmt.Errorf("store: unable to read the object %s: %w", id, classify(err))
	}
	return s.row()
}

// objectsOnMainSQL and objectsOnBranchSQL read objects by id, as Object.
// objectsOnMainSQL looks each id up in object_versions_live (a subquery
// per id that OFFSET 0 keeps whole, main's row kept after it): without
// statistics, = ANY($1) with branch_id = 1 was planned as a scan of
// main's live objects in object_versions_kind_live, the ids filtered;
// with branch_id = 1 inside the subquery, both indexes cost alike and
// that scan was kept.
const (
	objectsOnMainSQL = `SELECT ` + objectColumns + ` FROM (SELECT DISTINCT unnest($1::uuid[]) AS id) k,
			LATERAL (SELECT * FROM object_versions o WHERE o.object_id = k.id AND o.to_seq IS NULL OFFSET 0) o
		WHERE branch_id = 1 ORDER BY object_id`
	objectsOnBranchSQL = `SELECT DISTINCT ON (object_id) ` + objectColumns + ` FROM object_versions
		WHERE object_id = ANY($1::uuid[]) AND (branch_id = $2 AND to_seq IS NULL
			OR branch_id = 1 AND from_seq <= $3 AND (to_seq IS NULL OR to_seq > $3))
		ORDER BY object_id, branch_id = 1`
)

// ObjectsByID returns the versions v shows of the objects ids, deletions
// included, in id order; ids v shows no version of are left out.
func ObjectsByID(ctx context.Context, q sqlx.QueryerContext, v View, ids []string) ([]ObjectRow, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	query, args := objectsOnMainSQL, []any{textArray(ids)}
	if !v.OnMain() {
		query, args = objectsOnBranchSQL, []any{textArray(ids), v.Branch, v.Point}
	}
	var scans []objectScan
	if err := selectPrepared(ctx, q, &scans, query, args...); err != nil {
		return nil, fmt.Errorf("store: unable to read %d objects: %w", len(ids), classify(err))
	}
	return rowsOf(scans)
}

// MainObjectsAt returns main's versions of the objects ids live at the
// change point (its live versions when point is 0), deletions included, in
// id order.
func MainObjectsAt(ctx context.Context, q sqlx.QueryerContext, ids []string, point int64) ([]ObjectRow, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := selectRows[objectScan](ctx, q, `SELECT `+objectColumns+` FROM object_versions
		WHERE object_id = ANY($1::uuid[]) AND branch_id = 1
			AND CASE WHEN $2 = 0 THEN to_seq IS NULL ELSE from_seq <= $2 AND (to_seq IS NULL OR to_seq > $2) END
		ORDER BY object_id`, textArray(ids), point)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read %d objects of main: %w", len(ids), classify(err))
	}
	return rows, nil
}

// BranchObjects returns the live versions of the branch id's own, its
// deletions included, in id order: what the branch changed.
func BranchObjects(ctx context.Context, q sqlx.QueryerContext, branchID int64) ([]ObjectRow, error) {
	rows, err := selectRows[objectScan](ctx, q, `SELECT `+objectColumns+` FROM object_versions
		WHERE branch_id = $1 AND to_seq IS NULL ORDER BY object_id`, branchID)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the objects of branch %d: %w", branchID, classify(err))
	}
	return rows, nil
}

// An ObjectFilter says which objects a listing keeps. The conditions hold
// together.
type ObjectFilter struct {
	// Kinds are the stable ids of the node kinds listed; at least one.
	Kinds []string
	// IDs keeps these objects only, when not nil.
	IDs []string
	// Contains keeps the objects whose data holds these values (jsonb's
	// @>): attributes' values, and relationships' peers.
	Contains map[string]json.RawMessage
	// AnyOf keeps, for each element id, the objects whose value of it is
	// one of the ids listed (one peer) or holds one of them (many peers).
	AnyOf map[string][]string
	// AnyContains, when not empty, keeps the objects whose data holds one
	// of these documents at least.
	AnyContains []map[string]json.RawMessage
	// FromMainOnly keeps main's versions at the branch point that the
	// branch does not shadow, and none of the branch's own: whatever main
	// at the branch point holds for the branch.
	FromMainOnly bool
	// Limit is how many objects at most (0 for all), from Offset on, in id
	// order.
	Limit, Offset int
}

// Objects returns the live objects v shows that f keeps, in id order, and
// how many f keeps in all (the limit and offset aside). Deleted objects are
// left out. One statement.
func Objects(ctx context.Context, q sqlx.QueryerContext, v View, f ObjectFilter) ([]ObjectRow, int, error) {
	if v.OnMain() && f.FromMainOnly {
		return nil, 0, nil
	}
	args := []any{v.Branch, textArray(f.Kinds)}
	arg := func(x any) string {
		args = append(args, x)
		return "$" + strconv.Itoa(len(args))
	}
	var conds []string
	if f.IDs != nil {
		conds = append(conds, "o.object_id = ANY("+arg(textArray(f.IDs))+"::uuid[])")
	}
	if len(f.Contains) > 0 {
		doc, err := encodeData(f.Contains)
		if err != nil {
			return nil, 0, fmt.Errorf("store: unable to write a filter: %w", err)
		}
		conds = append(conds, "o.data @> "+arg(doc)+"::jsonb")
	}
	for _, elem := range sortedKeys(f.AnyOf) {
		conds = append(conds, "o.data -> "+arg(elem)+" ?| "+arg(textArray(f.AnyOf[elem])))
	}
	if len(f.AnyContains) > 0 {
		docs, err := encodeDocs(f.AnyContains)
		if err != nil {
			return nil, 0, err
		}
		conds = append(conds, "o.data @> ANY("+arg(docs)+"::jsonb[])")
	}
	where := ""
	for _, c := range conds {
		where += " AND " + c
	}
	var union string
	switch {
	case v.OnMain():
		union = `SELECT ` + objectColumns + ` FROM object_versions o
			WHERE o.branch_id = $1 AND o.to_seq IS NULL AND NOT o.deleted AND o.kind = ANY($2)` + where
	default:
		point := arg(v.Point)
		fromMain := `SELECT ` + objectColumns + ` FROM object_versions o
			WHERE o.branch_id = 1 AND o.kind = ANY($2) AND o.from_seq <= ` + point + ` AND (o.to_seq IS NULL OR o.to_seq > ` + point + `)
				AND NOT o.deleted` + where + `
				AND NOT EXISTS (SELECT 1 FROM object_versions s WHERE s.object_id = o.object_id AND s.branch_id = $1 AND s.to_seq IS NULL)`
		if f.FromMainOnly {
			union = fromMain
		} else {
			union = `SELECT ` + objectColumns + ` FROM object_versions o
				WHERE o.branch_id = $1 AND o.to_seq IS NULL AND NOT o.deleted AND o.kind = ANY($2)` + where + `
				UNION ALL ` + fromMain
		}
	}
	limit := "ALL"
	if f.Limit > 0 {
		limit = arg(f.Limit)
	}
	query := `SELECT ` + objectColumns + `, count(*) OVER () AS total FROM (` + union + `) o
		ORDER BY object_id LIMIT ` + limit + ` OFFSET ` + arg(f.Offset)
	var scans []listedScan
	if err := sqlx.SelectContext(ctx, q, &scans, query, args...); err != nil {
		return nil, 0, fmt.Errorf("store: unable to list objects: %w", classify(err))
	}
	total := 0
	rows := make([]ObjectRow, len(scans))
	for i, s := range scans {
		r, err := s.row()
		if err != nil {
			return nil, 0, err
		}
		rows[i], total = r, s.Total
	}
	if len(scans) == 0 && f.Offset > 0 {
		// The page lies past the end: count what f keeps.
		_, n, err := Objects(ctx, q, v, ObjectFilter{Kinds: f.Kinds, IDs: f.IDs, Contains: f.Contains, AnyOf: f.AnyOf,
			AnyContains: f.AnyContains, FromMainOnly: f.FromMainOnly, Limit: 1})
		return rows, n, err
	}
	return rows, total, nil
}

// encodeDocs writes documents for a jsonb[] parameter.
func encodeDocs(docs []map[string]json.RawMessage) (any, error) {
	out := make([]string, len(docs))
	for i, d := range docs {
		var err error
		if out[i], err = encodeData(d); err != nil {
			return nil, fmt.Errorf("store: unable to write a filter: %w", err)
		}
	}
	return textArray(out), nil
}

// heldAtPointSQL reads main's objects of a kind at a branch point that
// hold one of some values at least (data @> any of the documents), and
// that the branch does not shadow.
const heldAtPointSQL = `SELECT ` + objectColumns + ` FROM object_versions o
	WHERE o.branch_id = 1 AND o.kind = $2 AND o.from_seq <= $3 AND (o.to_seq IS NULL OR o.to_seq > $3) AND NOT o.deleted
		AND o.data @> ANY($4::jsonb[])
		AND NOT EXISTS (SELECT 1 FROM object_versions s WHERE s.object_id = o.object_id AND s.branch_id = $1 AND s.to_seq IS NULL)
	ORDER BY o.object_id`

// HeldAtPoint returns the objects of the kind (its id) of main at v's
// branch point that v's branch does not shadow and whose data holds one of
// docs at least (jsonb's @>): the holders, at the point, of unique values
// a write on the branch takes. One statement, prepared once.
func HeldAtPoint(ctx context.Context, q sqlx.QueryerContext, v View, kind string, docs []map[string]json.RawMessage) ([]ObjectRow, error) {
	arg, err := encodeDocs(docs)
	if err != nil {
		return nil, err
	}
	var scans []objectScan
	if err := selectPrepared(ctx, q, &scans, heldAtPointSQL, v.Branch, kind, v.Point, arg); err != nil {
		return nil, fmt.Errorf("store: unable to read the holders of %d values at the branch point: %w", len(docs), classify(err))
	}
	return rowsOf(scans)
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// A UniqueValue is a value an object holds under a unique attribute or a
// uniqueness constraint: the constraint's id and the SHA-256 of its values
// written canonically.
type UniqueValue struct {
	Constraint string
	Hash       []byte
}

// A UniqueHolder is an object that holds a unique value on a branch.
type UniqueHolder struct {
	UniqueValue
	Object string
}

// A VersionWrite is a new version of one object on one branch.
type VersionWrite struct {
	View View
	ID   string
	Kind string
	Data map[string]json.RawMessage
	// Deleted records the object's deletion.
	Deleted bool
	// Prev is the FromSeq of the branch's own live version that this one
	// replaces, as read: 0 when the branch has none (on main, a new object;
	// on another branch, its first change to an object of main's).
	Prev int64
	// Drop lists the constraints whose value the branch's unique values
	// hold for the object and which it no longer holds so; Add the values
	// it holds anew, ordered by constraint and hash (so that two writers
	// take them in the same order).
	Drop []string
	Add  []UniqueValue
	// Audit is the change's entry (its branch set), which the write
	// records; none when its Action is "" (the version is part of a change
	// audited as a whole: a schema load, a deletion that clears the
	// relationships pointing at the object deleted).
	Audit AuditEntry
}

// writeVersionSQL is the statement of WriteVersion, on main or another
// branch, for an object's first version there or a later one.
func writeVersionSQL(onMain, first bool) string {
	var written string
	switch {
	case onMain && first:
		written = `written AS (
			INSERT INTO object_versions (branch_id, object_id, kind, data, deleted, from_seq)
			SELECT $1, $2::uuid, $3, $4::jsonb, $5, nextval('changes_seq') WHERE $15::bigint = 0
			RETURNING from_seq
		)`
	case onMain:
		// The new version is inserted once the old one is ended: it reads
		// the change's number from the ended row.
		written = `ended AS (
			UPDATE object_versions SET to_seq = nextval('changes_seq')
			WHERE object_id = $2::uuid AND branch_id = $1 AND to_seq IS NULL AND from_seq = $15
			RETURNING to_seq
		), written AS (
			INSERT INTO object_versions (branch_id, object_id, kind, data, deleted, from_seq)
			SELECT $1, $2::uuid, $3, $4::jsonb, $5, to_seq FROM ended
			RETURNING from_seq
		)`
	case first:
		written = `written AS (
			INSERT INTO object_versions (branch_id, object_id, kind, data, deleted, from_seq)
			SELECT $1, $2::uuid, $3, $4::jsonb, $5, nextval('changes_seq') WHERE $15::bigint = 0
			ON CONFLICT (object_id, branch_id) WHERE to_seq IS NULL DO NOTHING
			RETURNING from_seq
		)`
	default:
		written = `written AS (
			UPDATE object_versions SET data = $4::jsonb, deleted = $5, from_seq = nextval('changes_seq')
			WHERE object_id = $2::uuid AND branch_id = $1 AND to_seq IS NULL AND from_seq = $15 AND kind = $3
			RETURNING from_seq
		)`
	}
	return `WITH ` + written + `, dropped AS (
			DELETE FROM unique_values u USING written
			WHERE u.branch_id = $1 AND u.object_id = $2::uuid AND u.constraint_id = ANY($6)
		), added AS (
			INSERT INTO unique_values (branch_id, constraint_id, value_hash, object_id)
			SELECT $1, k.c, k.h, $2::uuid FROM written, unnest($7::text[], $8::bytea[]) WITH ORDINALITY k(c, h, n)
			ORDER BY k.n
			ON CONFLICT DO NOTHING
			RETURNING constraint_id, value_hash
		), audit AS (
			INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, before, after, branch)
			SELECT $9, $10, '', $11, $2::text, $12, $13, $14 FROM written WHERE $10 <> ''
		)
		SELECT from_seq,
			ARRAY(SELECT constraint_id FROM added) AS added_constraints,
			ARRAY(SELECT value_hash FROM added) AS added_hashes
		FROM written`
}

// WriteVersion stores w in one statement: the version (ending the one it
// replaces), the unique values, the audit entry. It returns the change's
// number and the values the unique index refused (another object of the
// branch holds them), in which case the caller rolls back. ErrStale: w.Prev
// is no longer the branch's version; nothing was stored.
func WriteVersion(ctx context.Context, tx *Tx, w VersionWrite) (seq int64, refused []UniqueValue, err error) {
	data, err := encodeData(w.Data)
	if err != nil {
		return 0, nil, fmt.Errorf("store: unable to write the object %s: %w", w.ID, err)
	}
	constraints := make([]string, len(w.Add))
	hashes := make(pq.ByteaArray, len(w.Add))
	for i, u := range w.Add {
		constraints[i], hashes[i] = u.Constraint, u.Hash
	}
	args := []any{w.View.Branch, w.ID, w.Kind, data, w.Deleted, textArray(w.Drop), textArray(constraints), hashes,
		w.Audit.Actor, w.Audit.Action, w.Audit.ObjectKind, w.Audit.Before, w.Audit.After, nullable(w.Audit.Branch), w.Prev}
	query := writeVersionSQL(w.View.OnMain(), w.Prev == 0)
	var out struct {
		Seq         int64          `db:"from_seq"`
		Constraints pq.StringArray `db:"added_constraints"`
		Hashes      pq.ByteaArray  `db:"added_hashes"`
	}
	err = getPrepared(ctx, tx, &out, query, args...)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil, fmt.Errorf("store: unable to write the object %s: %w", w.ID, ErrStale)
	}
	if _, ok := isUniqueViolation(err); ok {
		// A new object's id is random: only a concurrent writer of the same
		// object's first version on a branch meets this.
		return 0, nil, fmt.Errorf("store: unable to write the object %s: %w", w.ID, ErrStale)
	}
	if err != nil {
		return 0, nil, fmt.Errorf("store: unable to write the object %s: %w", w.ID, classify(err))
	}
	return out.Seq, missing(w.Add, out.Constraints, out.Hashes), nil
}

// missing returns the values of want that constraints and hashes (what was
// stored) lack.
func missing(want []UniqueValue, constraints []string, hashes [][]byte) []UniqueValue {
	var out []UniqueValue
	for _, u := range want {
		found := false
		for i := range constraints {
			if constraints[i] == u.Constraint && bytes.Equal(hashes[i], u.Hash) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, u)
		}
	}
	return out
}

// UniqueHolders returns the objects that hold values on the branch id
// (its unique values table), in the order of values.
func UniqueHolders(ctx context.Context, q sqlx.QueryerContext, branchID int64, values []UniqueValue) ([]UniqueHolder, error) {
	if len(values) == 0 {
		return nil, nil
	}
	constraints := make([]string, len(values))
	hashes := make(pq.ByteaArray, len(values))
	for i, u := range values {
		constraints[i], hashes[i] = u.Constraint, u.Hash
	}
	var scans []struct {
		Constraint string `db:"constraint_id"`
		Hash       []byte `db:"value_hash"`
		Object     string `db:"object_id"`
	}
	err := sqlx.SelectContext(ctx, q, &scans, `SELECT u.constraint_id, u.value_hash, u.object_id
		FROM unnest($2::text[], $3::bytea[]) WITH ORDINALITY k(c, h, n)
		JOIN unique_values u ON u.branch_id = $1 AND u.constraint_id = k.c AND u.value_hash = k.h
		ORDER BY k.n`, branchID, textArray(constraints), hashes)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read who holds %d unique values: %w", len(values), classify(err))
	}
	out := make([]UniqueHolder, len(scans))
	for i, s := range scans {
		out[i] = UniqueHolder{UniqueValue: UniqueValue{Constraint: s.Constraint, Hash: s.Hash}, Object: s.Object}
	}
	return out, nil
}

// ReplaceUniqueValues replaces the unique values the branch id holds for
// the objects ids by holders (each holder one of them), and returns those
// of holders the unique index refused because another object holds them
// (the caller rolls back). Holders are stored in the order given.
func ReplaceUniqueValues(ctx context.Context, tx *Tx, branchID int64, ids []string, holders []UniqueHolder) ([]UniqueHolder, error) {
	if _, err := tx.ExecContext(ctx, `DELETE FROM unique_values WHERE branch_id = $1 AND object_id = ANY($2::uuid[])`,
		branchID, textArray(ids)); err != nil {
		return nil, fmt.Errorf("store: unable to drop the unique values of %d objects: %w", len(ids), classify(err))
	}
	return insertUniqueValues(ctx, tx, branchID, holders)
}

// DropUniqueConstraints deletes the values the branch id holds under the
// constraints.
func DropUniqueConstraints(ctx context.Context, tx *Tx, branchID int64, constraints []string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM unique_values WHERE branch_id = $1 AND constraint_id = ANY($2)`,
		branchID, textArray(constraints)); err != nil {
		return fmt.Errorf("store: unable to drop the values of %d constraints: %w", len(constraints), classify(err))
	}
	return nil
}

func insertUniqueValues(ctx context.Context, tx *Tx, branchID int64, holders []UniqueHolder) ([]UniqueHolder, error) {
	if len(holders) == 0 {
		return nil, nil
	}
	constraints := make([]string, len(holders))
	hashes := make(pq.ByteaArray, len(holders))
	objects := make([]string, len(holders))
	for i, h := range holders {
		constraints[i], hashes[i], objects[i] = h.Constraint, h.Hash, h.Object
	}
	var stored []int64
	err := tx.SelectContext(ctx, &stored, `WITH added AS (
			INSERT INTO unique_values (branch_id, constraint_id, value_hash, object_id)
			SELECT $1, k.c, k.h, k.o FROM unnest($2::text[], $3::bytea[], $4::uuid[]) WITH ORDINALITY k(c, h, o, n)
			ORDER BY k.n
			ON CONFLICT DO NOTHING
			RETURNING constraint_id, value_hash, object_id
		)
		SELECT k.n FROM unnest($2::text[], $3::bytea[], $4::uuid[]) WITH ORDINALITY k(c, h, o, n)
		JOIN added a ON a.constraint_id = k.c AND a.value_hash = k.h AND a.object_id = k.o`,
		branchID, textArray(constraints), hashes, textArray(objects))
	if err != nil {
		return nil, fmt.Errorf("store: unable to record %d unique values: %w", len(holders), classify(err))
	}
	ok := make([]bool, len(holders))
	for _, n := range stored {
		ok[n-1] = true
	}
	var refused []UniqueHolder
	for i, h := range holders {
		if !ok[i] {
			refused = append(refused, h)
		}
	}
	return refused, nil
}

// ApplyToMain makes rows main's live versions at the change seq, ending
// the versions they replace: the objects a merge brings.
func ApplyToMain(ctx context.Context, tx *Tx, seq int64, rows []ObjectRow) error {
	if len(rows) == 0 {
		return nil
	}
	ids, kinds, datas, deleted, err := columnsOf(rows)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE object_versions SET to_seq = $2
		WHERE object_id = ANY($1::uuid[]) AND branch_id = 1 AND to_seq IS NULL`, textArray(ids), seq); err != nil {
		return fmt.Errorf("store: unable to end %d versions of main: %w", len(rows), classify(err))
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO object_versions (branch_id, object_id, kind, data, deleted, from_seq)
		SELECT 1, k.id, k.kind, k.data, k.deleted, $5 FROM unnest($1::uuid[], $2::text[], $3::jsonb[], $4::boolean[]) k(id, kind, data, deleted)`,
		textArray(ids), textArray(kinds), textArray(datas), pq.BoolArray(deleted), seq); err != nil {
		return fmt.Errorf("store: unable to write %d versions on main: %w", len(rows), classify(err))
	}
	return nil
}

// RebaseVersions replaces the branch id's own versions of rows by rows, at
// the change seq, and deletes its versions (and unique values) of the
// objects drop: those it no longer changes.
func RebaseVersions(ctx context.Context, tx *Tx, branchID, seq int64, rows []ObjectRow, drop []string) error {
	if len(drop) > 0 {
		if _, err := tx.ExecContext(ctx, `WITH v AS (
				DELETE FROM object_versions WHERE branch_id = $1 AND object_id = ANY($2::uuid[])
			)
			DELETE FROM unique_values WHERE branch_id = $1 AND object_id = ANY($2::uuid[])`, branchID, textArray(drop)); err != nil {
			return fmt.Errorf("store: unable to drop %d versions of branch %d: %w", len(drop), branchID, classify(err))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	ids, _, datas, deleted, err := columnsOf(rows)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE object_versions o SET data = k.data, deleted = k.deleted, from_seq = $5
		FROM unnest($2::uuid[], $3::jsonb[], $4::boolean[]) k(id, data, deleted)
		WHERE o.branch_id = $1 AND o.object_id = k.id AND o.to_seq IS NULL`,
		branchID, textArray(ids), textArray(datas), pq.BoolArray(deleted), seq); err != nil {
		return fmt.Errorf("store: unable to rebase %d versions of branch %d: %w", len(rows), branchID, classify(err))
	}
	return nil
}

// DropBranchObjects deletes the branch id's versions and unique values:
// main holds them now.
func DropBranchObjects(ctx context.Context, tx *Tx, branchID int64) error {
	if _, err := tx.ExecContext(ctx, `WITH v AS (
			DELETE FROM object_versions WHERE branch_id = $1
		)
		DELETE FROM unique_values WHERE branch_id = $1`, branchID); err != nil {
		return fmt.Errorf("store: unable to drop the versions of branch %d: %w", branchID, classify(err))
	}
	return nil
}

// columnsOf splits rows into the arrays a statement takes.
func columnsOf(rows []ObjectRow) (ids, kinds, datas []string, deleted []bool, err error) {
	for _, r := range rows {
		data, err := encodeData(r.Data)
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("store: unable to write the object %s: %w", r.ID, err)
		}
		ids, kinds, datas, deleted = append(ids, r.ID), append(kinds, r.Kind), append(datas, data), append(deleted, r.Deleted)
	}
	return ids, kinds, datas, deleted, nil
}
