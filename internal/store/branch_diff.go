package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// A BranchStatus is a branch's row and whether it holds changes of its own.
type BranchStatus struct {
	BranchRow
	// Changed says that the branch has versions of objects or a schema of
	// its own: something a merge would bring to main (false on main).
	Changed bool
}

type branchStatusScan struct {
	branchScan
	Changed bool `db:"changed"`
}

func (s branchStatusScan) row() (BranchStatus, error) {
	r, err := s.branchScan.row()
	return BranchStatus{BranchRow: r, Changed: s.Changed}, err
}

// branchStatusSQL reads branches with whether each changed anything: an
// index lookup (object_versions_kind_live, by branch) per branch.
const branchStatusSQL = `SELECT ` + branchColumns + `, b.id <> 1 AND (b.schema_seq IS NOT NULL
		OR EXISTS (SELECT 1 FROM object_versions v WHERE v.branch_id = b.id AND v.to_seq IS NULL)) AS changed
	FROM branches b`

// BranchStatuses returns every branch with whether it holds changes of its
// own, main first, then by name. One statement.
func BranchStatuses(ctx context.Context, q sqlx.QueryerContext) ([]BranchStatus, error) {
	rows, err := selectRows[branchStatusScan](ctx, q, branchStatusSQL+` ORDER BY id <> 1, name`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the branches: %w", classify(err))
	}
	return rows, nil
}

// BranchStatusOf returns the branch called name with whether it holds
// changes of its own, or ErrNotFound. One statement.
func BranchStatusOf(ctx context.Context, q sqlx.QueryerContext, name string) (BranchStatus, error) {
	r, err := getRow[branchStatusScan](ctx, q, branchStatusSQL+` WHERE name = $1`, name)
	if errors.Is(err, sql.ErrNoRows) {
		return BranchStatus{}, fmt.Errorf("store: unable to find the branch %s: %w", name, ErrNotFound)
	}
	if err != nil {
		return BranchStatus{}, fmt.Errorf("store: unable to read the branch %s: %w", name, classify(err))
	}
	return r, nil
}

// InSnapshot runs fn in a read-only transaction whose statements all see
// the database as it was at its first: a read model of several statements
// (a branch's diff) reads one state.
func InSnapshot(ctx context.Context, db *DB, fn func(tx *Tx) error) error {
	tx, err := db.BeginTxx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return fmt.Errorf("store: unable to begin a transaction: %w", classify(err))
	}
	defer tx.Rollback()
	if err := fn(&Tx{Tx: tx, db: db}); err != nil {
		return classify(err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to commit: %w", classify(err))
	}
	return nil
}

// A BranchNumber is a number a branch's version of an object holds in a
// number pool.
type BranchNumber struct {
	Pool        string // the pool's id
	PoolName    string
	AttributeID string   // the attribute the pool allocates
	Scope       []string // the ids of its scope elements
	Object      string
	// Division is the JSON list of the division's values.
	Division json.RawMessage
	Number   int64
}

type branchNumberScan struct {
	Pool        string         `db:"pool_id"`
	PoolName    string         `db:"name"`
	AttributeID string         `db:"attribute_id"`
	Scope       pq.StringArray `db:"scope"`
	Object      string         `db:"object_id"`
	Division    []byte         `db:"division"`
	Number      int64          `db:"number"`
}

func (s branchNumberScan) row() (BranchNumber, error) {
	return BranchNumber{Pool: s.Pool, PoolName: s.PoolName, AttributeID: s.AttributeID, Scope: []string(s.Scope), Object: s.Object,
		Division: json.RawMessage(s.Division), Number: s.Number}, nil
}

// BranchNumbers returns the numbers of number pools that the branch id's
// own versions of the objects hold, by pool name, division and number: a
// lookup of number_holdings_live per pool and object. A pool's numbers are
// those of its ranges and those allocated from it, as its pages count
// them (poolsNumberSQL): not another pool's of the same attribute, nor a
// number given outside its ranges.
func BranchNumbers(ctx context.Context, q sqlx.QueryerContext, branchID int64, objects []string) ([]BranchNumber, error) {
	if len(objects) == 0 {
		return nil, nil
	}
	rows, err := selectRows[branchNumberScan](ctx, q, `SELECT p.id AS pool_id, p.name, p.attribute_id, p.scope, h.object_id, h.division, h.number
		FROM number_pools p
		JOIN LATERAL (SELECT * FROM number_holdings h
			WHERE h.pool_id = p.id AND h.object_id = ANY($2::uuid[]) AND h.branch_id = $1 AND h.to_seq IS NULL) h ON true
		WHERE h.number IS NOT NULL
			AND (EXISTS (SELECT 1 FROM jsonb_array_elements(p.ranges) r WHERE h.number BETWEEN (r->>'start')::bigint AND (r->>'end')::bigint)
				OR EXISTS (SELECT 1 FROM number_allocations a WHERE a.pool_id = p.id AND a.division = h.division AND a.number = h.number))
		ORDER BY p.name, h.division, h.number, h.object_id`, branchID, textArray(objects))
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the numbers of branch %d: %w", branchID, classify(err))
	}
	return rows, nil
}

// A MergeResolution is a side chosen for a conflict of a branch's merge
// (migration 0022_branch_merges.sql says what each column holds).
type MergeResolution struct {
	Branch  int64
	Object  string
	Element string // "" for the whole object
	Side    string // "main" or "branch"
	// MainValue and BranchValue are what each side held when the side was
	// chosen; nil for none.
	MainValue, BranchValue *string
	At                     time.Time
	By                     string
}

type mergeResolutionScan struct {
	Branch      int64          `db:"branch_id"`
	Object      string         `db:"object_id"`
	Element     string         `db:"element_id"`
	Side        string         `db:"side"`
	MainValue   sql.NullString `db:"main_value"`
	BranchValue sql.NullString `db:"branch_value"`
	At          time.Time      `db:"resolved_at"`
	By          string         `db:"resolved_by"`
}

func (s mergeResolutionScan) row() (MergeResolution, error) {
	r := MergeResolution{Branch: s.Branch, Object: s.Object, Element: s.Element, Side: s.Side, At: s.At, By: s.By}
	if s.MainValue.Valid {
		r.MainValue = &s.MainValue.String
	}
	if s.BranchValue.Valid {
		r.BranchValue = &s.BranchValue.String
	}
	return r, nil
}

// MergeResolutions returns the sides chosen for conflicts of the branch
// id's merge, by object and element.
func MergeResolutions(ctx context.Context, q sqlx.QueryerContext, branchID int64) ([]MergeResolution, error) {
	rows, err := selectRows[mergeResolutionScan](ctx, q, `SELECT branch_id, object_id, element_id, side, main_value, branch_value, resolved_at, resolved_by
		FROM merge_resolutions WHERE branch_id = $1 ORDER BY object_id, element_id`, branchID)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the resolutions of branch %d: %w", branchID, classify(err))
	}
	return rows, nil
}

// PutMergeResolution records r, replacing the side chosen before for the
// same field, with its audit entry.
func PutMergeResolution(ctx context.Context, tx *Tx, r MergeResolution, audit AuditEntry) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO merge_resolutions (branch_id, object_id, element_id, side, main_value, branch_value, resolved_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (branch_id, object_id, element_id) DO UPDATE SET side = excluded.side, main_value = excluded.main_value,
			branch_value = excluded.branch_value, resolved_at = now(), resolved_by = excluded.resolved_by`,
		r.Branch, r.Object, r.Element, r.Side, r.MainValue, r.BranchValue, r.By); err != nil {
		return fmt.Errorf("store: unable to record the resolution of %s on branch %d: %w", r.Object, r.Branch, classify(err))
	}
	return InsertAudit(ctx, tx, audit)
}

// DropMergeResolutions deletes the branch id's resolutions: a merge or a
// rebase applied them.
func DropMergeResolutions(ctx context.Context, tx *Tx, branchID int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM merge_resolutions WHERE branch_id = $1`, branchID); err != nil {
		return fmt.Errorf("store: unable to drop the resolutions of branch %d: %w", branchID, classify(err))
	}
	return nil
}
