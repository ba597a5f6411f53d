package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// A KindSchemaRow is a row of schema_versions: a branch's whole schema of
// kinds (not the database's, which SchemaVersion says), as written by one
// change.
type KindSchemaRow struct {
	BranchID, Seq int64
	// Document is the schema as the domain wrote it (JSON).
	Document  []byte
	CreatedAt time.Time
	CreatedBy string
}

// kindSchemaScan is a row of schema_versions as the driver reads it.
type kindSchemaScan struct {
	BranchID  int64     `db:"branch_id"`
	Seq       int64     `db:"seq"`
	Document  RawJSON   `db:"document"`
	CreatedAt time.Time `db:"created_at"`
	CreatedBy string    `db:"created_by"`
}

func (s kindSchemaScan) row() (KindSchemaRow, error) {
	return KindSchemaRow{BranchID: s.BranchID, Seq: s.Seq, Document: s.Document, CreatedAt: s.CreatedAt, CreatedBy: s.CreatedBy}, nil
}

// KindSchema returns the latest schema version of the branch id written
// at or before the change atMost (any when atMost is 0), or ErrNotFound
// when there is none.
func KindSchema(ctx context.Context, q sqlx.QueryerContext, branchID, atMost int64) (KindSchemaRow, error) {
	v, err := getRow[kindSchemaScan](ctx, q, `SELECT branch_id, seq, document, created_at, created_by FROM schema_versions
		WHERE branch_id = $1 AND ($2 = 0 OR seq <= $2) ORDER BY seq DESC LIMIT 1`, branchID, atMost)
	if errors.Is(err, sql.ErrNoRows) {
		return KindSchemaRow{}, fmt.Errorf("store: unable to find a schema of branch %d: %w", branchID, ErrNotFound)
	}
	if err != nil {
		return KindSchemaRow{}, fmt.Errorf("store: unable to read the schema of branch %d: %w", branchID, classify(err))
	}
	return v, nil
}

// InsertKindSchema records document as the schema of the branch id
// written by the change seq, and makes it the branch's own latest (the
// other processes are told, on ipam_schema). Call it with the branch
// locked (ExclusiveBranch).
func InsertKindSchema(ctx context.Context, tx *Tx, branchID, seq int64, document []byte, actor string) error {
	_, err := tx.ExecContext(ctx, `WITH v AS (
			INSERT INTO schema_versions (branch_id, seq, document, created_by) VALUES ($1, $2, $3, $4)
		)
		UPDATE branches SET schema_seq = $2 WHERE id = $1`, branchID, seq, RawJSON(document), actor)
	if err != nil {
		return fmt.Errorf("store: unable to record the schema of branch %d: %w", branchID, classify(err))
	}
	return nil
}

// DeleteKindSchemas deletes the schema versions of the branch id but
// the one written by keep (none when keep is 0): a branch keeps only its
// latest since its branch point.
func DeleteKindSchemas(ctx context.Context, tx *Tx, branchID, keep int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM schema_versions WHERE branch_id = $1 AND seq <> $2`, branchID, keep); err != nil {
		return fmt.Errorf("store: unable to delete the schema versions of branch %d: %w", branchID, classify(err))
	}
	return nil
}
