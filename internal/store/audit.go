package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// An AuditEntry records one change: who, when, what, before and after.
type AuditEntry struct {
	ID         int64           `db:"id"`
	At         time.Time       `db:"at"`
	Actor      string          `db:"actor"`
	Action     string          `db:"action"` // create, delete, allocate, release, revoke…
	Namespace  string          `db:"namespace"`
	ObjectKind string          `db:"object_kind"`
	ObjectName string          `db:"object_name"`
	Before     json.RawMessage `db:"before"` // nil when the object is new
	After      json.RawMessage `db:"after"`  // nil when the object is gone
}

// InsertAudit records e, in the caller's transaction when ext is one.
func InsertAudit(ctx context.Context, ext sqlx.ExtContext, e AuditEntry) error {
	_, err := ext.ExecContext(ctx, `INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, before, after)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		e.Actor, e.Action, e.Namespace, e.ObjectKind, e.ObjectName, nullJSON(e.Before), nullJSON(e.After))
	if err != nil {
		return fmt.Errorf("store: unable to record the change of %s %s: %w", e.ObjectKind, e.ObjectName, err)
	}
	return nil
}

// JSON returns v as JSON for an audit entry's Before or After.
func JSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(fmt.Sprintf(`{"unencodable": %q}`, err.Error()))
	}
	return b
}

func nullJSON(m json.RawMessage) any {
	if m == nil {
		return nil
	}
	return []byte(m)
}

// InTx runs fn in a transaction, committed when fn returns nil and rolled
// back otherwise: a refused request stores nothing.
func InTx(ctx context.Context, db *sqlx.DB, fn func(tx *sqlx.Tx) error) error {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: unable to begin a transaction: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to commit: %w", err)
	}
	return nil
}
