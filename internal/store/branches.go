package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// MainBranchID is the id of main, the default branch, which always exists
// (migration 0005).
const MainBranchID int64 = 1

// A BranchRow is a row of branches: a name and a branch point.
type BranchRow struct {
	ID   int64
	Name string
	// BranchedFrom is the branch point: the number of changes_seq of main
	// that the branch sees; 0 on main.
	BranchedFrom int64
	// BranchedAt is when the branch point was set (created, rebased or
	// merged); main's creation on main.
	BranchedAt time.Time
	// SchemaSeq is the change that wrote the branch's latest schema of its
	// own; 0 when it has none (a branch then has main's schema at its
	// branch point; main, none loaded yet).
	SchemaSeq int64
	CreatedAt time.Time
	CreatedBy string
	// MergedAt and MergedBy are when and by whom the branch was last merged
	// into main; zero when it never was.
	MergedAt time.Time
	MergedBy string
}

// View is how the branch reads objects: its own versions over main's at
// its branch point.
func (b BranchRow) View() View {
	return View{Branch: b.ID, Point: b.BranchedFrom}
}

// branchScan is a row of branches as the driver reads it.
type branchScan struct {
	ID           int64          `db:"id"`
	Name         string         `db:"name"`
	BranchedFrom sql.NullInt64  `db:"branched_from"`
	BranchedAt   time.Time      `db:"branched_at"`
	SchemaSeq    sql.NullInt64  `db:"schema_seq"`
	CreatedAt    time.Time      `db:"created_at"`
	CreatedBy    string         `db:"created_by"`
	MergedAt     sql.NullTime   `db:"merged_at"`
	MergedBy     sql.NullString `db:"merged_by"`
}

func (s branchScan) row() (BranchRow, error) {
	return BranchRow{ID: s.ID, Name: s.Name, BranchedFrom: s.BranchedFrom.Int64, BranchedAt: s.BranchedAt,
		SchemaSeq: s.SchemaSeq.Int64, CreatedAt: s.CreatedAt, CreatedBy: s.CreatedBy, MergedAt: s.MergedAt.Time, MergedBy: s.MergedBy.String}, nil
}

const branchColumns = `id, name, branched_from, branched_at, schema_seq, created_at, created_by, merged_at, merged_by`

// Branches returns every branch, main first, then by name.
func Branches(ctx context.Context, q sqlx.QueryerContext) ([]BranchRow, error) {
	rows, err := selectRows[branchScan](ctx, q, `SELECT `+branchColumns+` FROM branches ORDER BY id <> 1, name`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the branches: %w", classify(err))
	}
	return rows, nil
}

// Branch returns the branch called name, or ErrNotFound.
func Branch(ctx context.Context, q sqlx.QueryerContext, name string) (BranchRow, error) {
	return branch(ctx, q, name, branchSQL)
}

// branchSQL reads a branch by name.
const branchSQL = `SELECT ` + branchColumns + ` FROM branches b WHERE name = $1`

// lockBranchSQL reads a branch by name and locks it; with objects, it
// locks objects of the branch too.
func lockBranchSQL(lock BranchLock, objects bool) string {
	if !objects {
		return branchSQL + ` ` + string(lock)
	}
	// The locks are advisory, keyed by the branch's id and the object id's
	// hash (two int4 keys: a space of their own, apart from the bigint
	// keys of migrations and sign-in attempts). A hash shared by two
	// objects costs a wait, never a wrong answer.
	return branchSQL + `
		AND (SELECT count(pg_advisory_xact_lock_shared(b.id, hashtext(o))) FROM unnest($2::text[]) o) >= 0
		AND (SELECT count(pg_advisory_xact_lock(b.id, hashtext(o))) FROM unnest($3::text[]) o) >= 0
		` + string(lock)
}

// A BranchLock is how a transaction holds a branch row until it ends.
type BranchLock string

// The locks of a branch. Writes on a branch share it; what moves its
// branch point, deletes it, or reads main's head to set another branch's
// point holds it alone (docs/branches.md, "The order of changes").
const (
	// ShareBranch: the branch's objects or schema are written; its branch
	// point and, for main, its head stay as they are until the end of the
	// transaction.
	ShareBranch BranchLock = "FOR SHARE"
	// ExclusiveBranch: no write on the branch runs at the same time.
	ExclusiveBranch BranchLock = "FOR UPDATE"
)

// ObjectLocks are the objects of a branch a transaction locks with the
// branch, until it ends: an object pointed at is not deleted meanwhile,
// and nothing points anew at an object being deleted.
type ObjectLocks struct {
	// Shared are the objects the transaction points at (peers).
	Shared []string
	// Exclusive are the objects it deletes.
	Exclusive []string
}

// LockBranch returns the branch called name, locked by tx until it ends,
// or ErrNotFound; it locks objects of the branch as well. A transaction
// that waited for the lock reads the branch as its previous holder left
// it. One statement.
func LockBranch(ctx context.Context, tx *Tx, name string, lock BranchLock, objects ObjectLocks) (BranchRow, error) {
	if len(objects.Shared) == 0 && len(objects.Exclusive) == 0 {
		return branch(ctx, tx, name, lockBranchSQL(lock, false))
	}
	var s branchScan
	err := getPrepared(ctx, tx, &s, lockBranchSQL(lock, true), name, textArray(objects.Shared), textArray(objects.Exclusive))
	if errors.Is(err, sql.ErrNoRows) {
		return BranchRow{}, fmt.Errorf("store: unable to find the branch %s: %w", name, ErrNotFound)
	}
	if err != nil {
		return BranchRow{}, fmt.Errorf("store: unable to lock the branch %s: %w", name, classify(err))
	}
	return s.row()
}

func branch(ctx context.Context, q sqlx.QueryerContext, name, query string) (BranchRow, error) {
	var s branchScan
	err := getPrepared(ctx, q, &s, query, name)
	if errors.Is(err, sql.ErrNoRows) {
		return BranchRow{}, fmt.Errorf("store: unable to find the branch %s: %w", name, ErrNotFound)
	}
	if err != nil {
		return BranchRow{}, fmt.Errorf("store: unable to read the branch %s: %w", name, classify(err))
	}
	return s.row()
}

// InsertBranch creates the branch name at main's head, recorded as one
// change with its audit entry; ErrObjectExists when a branch has that
// name. Call it with main locked (ExclusiveBranch), so that every change
// of main numbered below the branch point is committed.
func InsertBranch(ctx context.Context, tx *Tx, name, actor string) (BranchRow, error) {
	b, err := getRow[branchScan](ctx, tx, `INSERT INTO branches (name, branched_from, created_by)
		VALUES ($1, nextval('changes_seq'), $2) RETURNING `+branchColumns, name, actor)
	if _, ok := isUniqueViolation(err); ok {
		return BranchRow{}, fmt.Errorf("store: unable to create the branch %s: %w", name, ErrObjectExists)
	}
	if err != nil {
		return BranchRow{}, fmt.Errorf("store: unable to create the branch %s: %w", name, classify(err))
	}
	return b, nil
}

// SetBranchPoint moves the branch id's point to point and forgets its own
// schema when ownSchema is 0 (or records which is its latest); the other
// processes are told (ipam_schema). mergedBy, when not empty, records the
// change as the branch's last merge into main, made by mergedBy now.
func SetBranchPoint(ctx context.Context, tx *Tx, id, point, ownSchema int64, mergedBy string) (BranchRow, error) {
	b, err := getRow[branchScan](ctx, tx, `UPDATE branches SET branched_from = $2, branched_at = now(), schema_seq = $3,
			merged_at = CASE WHEN $4::text IS NULL THEN merged_at ELSE now() END, merged_by = COALESCE($4, merged_by)
		WHERE id = $1 RETURNING `+branchColumns, id, point, nullableInt(ownSchema), nullable(mergedBy))
	if err != nil {
		return BranchRow{}, fmt.Errorf("store: unable to move the branch point of branch %d: %w", id, classify(err))
	}
	return b, nil
}

// DeleteBranch deletes the branch id with its versions, unique values and
// schema versions.
func DeleteBranch(ctx context.Context, tx *Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM branches WHERE id = $1`, id); err != nil {
		return fmt.Errorf("store: unable to delete the branch %d: %w", id, classify(err))
	}
	return nil
}

// NextChange draws the number of a change.
func NextChange(ctx context.Context, tx *Tx) (int64, error) {
	var seq int64
	if err := tx.GetContext(ctx, &seq, `SELECT nextval('changes_seq')`); err != nil {
		return 0, fmt.Errorf("store: unable to number a change: %w", classify(err))
	}
	return seq, nil
}

// nullableInt is n as the value of a nullable column: NULL when n is 0.
func nullableInt(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}
