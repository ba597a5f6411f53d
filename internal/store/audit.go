package store

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"pivirt.hu/ipam/internal/audit"
)

// An AuditEntry records one change: who, when, what, before and after.
type AuditEntry struct {
	ID         int64     `db:"id"`
	At         time.Time `db:"at"`
	Actor      string    `db:"actor"`
	Action     string    `db:"action"` // create, delete, allocate, release, revoke…
	Namespace  string    `db:"namespace"`
	ObjectKind string    `db:"object_kind"`
	ObjectName string    `db:"object_name"`
	Before     RawJSON   `db:"before"` // nil when the object is new
	After      RawJSON   `db:"after"`  // nil when the object is gone
	// Branch is the branch the change was made on: "" for the IP half,
	// which has no branches.
	Branch string `db:"branch"`
}

// RawJSON is a JSON document of a jsonb column, as json.RawMessage, but
// nil stands for SQL NULL both ways: it is stored as NULL and a NULL scans
// into it as nil.
type RawJSON []byte

// Scan reads a jsonb value, or NULL as nil.
func (j *RawJSON) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*j = nil
	case []byte:
		*j = bytes.Clone(v)
	case string:
		*j = RawJSON(v)
	default:
		return fmt.Errorf("store: unable to read %T as JSON", src)
	}
	return nil
}

// Value stores j, nil as NULL, in text: a []byte value would go in jsonb's
// binary format when the URL asks lib/pq for binary_parameters (as a
// connection pooler in transaction mode needs).
func (j RawJSON) Value() (driver.Value, error) {
	if j == nil {
		return nil, nil
	}
	return string(j), nil
}

// MarshalJSON writes j as it is, nil as null.
func (j RawJSON) MarshalJSON() ([]byte, error) {
	if j == nil {
		return []byte("null"), nil
	}
	return j, nil
}

// InsertAudit records e, in the caller's transaction when ext is one.
func InsertAudit(ctx context.Context, ext sqlx.ExtContext, e AuditEntry) error {
	_, err := ext.ExecContext(ctx, `INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, before, after, branch)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		e.Actor, e.Action, e.Namespace, e.ObjectKind, e.ObjectName, e.Before, e.After, nullable(e.Branch))
	if err != nil {
		return fmt.Errorf("store: unable to record the change of %s %s: %w", e.ObjectKind, e.ObjectName, classify(err))
	}
	return nil
}

// JSON returns the document p for an audit entry's Before or After: one
// of internal/audit's types, which the readers decode it as.
func JSON(p audit.Payload) RawJSON {
	b, err := audit.Encode(p)
	if err != nil {
		return RawJSON(fmt.Sprintf(`{"unencodable": %q}`, err.Error()))
	}
	return b
}

// InTx runs fn in a transaction, committed when fn returns nil and rolled
// back otherwise: a refused request stores nothing. An error that means the
// database is unavailable wraps ErrUnavailable, wherever fn met it.
//
// The transaction is READ COMMITTED whatever the database's default (see
// docs/allocation.md): each statement sees what was committed before it
// began, so that a statement run after a lock was granted sees what the
// lock's previous holder wrote.
func InTx(ctx context.Context, db *DB, fn func(tx *Tx) error) error {
	tx, err := db.BeginTxx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
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
