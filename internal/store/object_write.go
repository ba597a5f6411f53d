package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"
)

// ErrTransactionNeeded means that a write made in one statement
// (WriteObject) stored nothing, for a reason that a write in a transaction
// is to find and say in its words: the branch or the object changed, a
// peer is missing, a unique value is taken, an object points at the one
// deleted, a deadlock. Make the write in a transaction.
var ErrTransactionNeeded = errors.New("store: the write is to be made in a transaction")

// An ObjectWrite is a write of one object made in one statement, with all
// that a write in a transaction does around its version (migration 0026).
type ObjectWrite struct {
	// VersionWrite is the version, its unique values and its audit entry,
	// as WriteVersion takes them (View.Point is the branch point the writer
	// read).
	VersionWrite
	// SchemaSeq is the branch's SchemaSeq as the writer read it: the write
	// stores nothing when the branch's schema changed meanwhile.
	SchemaSeq int64
	// Locks are the objects locked with the branch (LockBranch).
	Locks ObjectLocks
	// Peers are the peers the write gives, each with the stable ids of the
	// node kinds its relationships take: each is to be shown by the branch,
	// of one of those kinds.
	Peers map[string][]string
	// Referrers, for a deletion, are the node kinds (stable ids) whose
	// objects may point at the object, and ReferrerDocs what the data of
	// one that does holds (one of them): the deletion stores nothing when
	// the branch shows such an object.
	Referrers    []string
	ReferrerDocs []map[string]json.RawMessage
	// AtPoint, on a branch other than main, are documents of the unique
	// values the write takes anew (HeldAtPoint's): the write stores nothing
	// when an object of main at the branch point holds one.
	AtPoint []map[string]json.RawMessage
	// Kinds are the stable ids of the object's node kind and of the
	// generics it inherits from: the pools of those kinds record the number
	// the object holds (NumberRecords).
	Kinds []string
	// Claim, when not nil, is a number claimed from a pool for the object
	// (ClaimNumber), stored with it.
	Claim *NumberClaim
}

// writeObjectSQL calls write_object (migration 0026).
const writeObjectSQL = `SELECT status, change, freed FROM write_object($1::integer, $2::bigint, $3::bigint, $4::text[], $5::text[],
	$6::jsonb, $7::text[], $8::jsonb[], $9::jsonb[], $10::uuid, $11::text, $12::jsonb, $13::boolean, $14::bigint,
	$15::text[], $16::text[], $17::bytea[], $18::text, $19::text, $20::text, $21::jsonb, $22::jsonb, $23::text,
	$24::text[], $25::uuid, $26::bigint, $27::jsonb, $28::bigint, $29::text, $30::text)`

// WriteObject makes w in one statement outside any transaction: the
// branch held shared and w.Locks locked, the peers checked, w.Claim's
// number claimed, the version written with its unique values and audit
// entries, the numbers the object holds in the pools of w.Kinds recorded
// and those it no longer holds released (ReleaseNumbers), all or nothing.
// It returns the change's number and the numbers (of pools, in divisions)
// whose holdings it deleted. The error wraps ErrObjectExists when w.Claim's
// number is taken or its pool not at w.Claim.Revision (NumberClaimConflict
// says which), ErrTransactionNeeded when the write is to be made in a
// transaction; nothing was stored then. The statement is prepared once
// per connection; through a connection pooler, the function keeps its
// plans on the server connection.
func WriteObject(ctx context.Context, db *DB, w ObjectWrite) (int64, []NumberKey, error) {
	args, err := writeObjectArgs(w)
	if err != nil {
		return 0, nil, err
	}
	var out struct {
		Status string         `db:"status"`
		Change sql.NullInt64  `db:"change"`
		Freed  sql.NullString `db:"freed"`
	}
	err = getPrepared(ctx, db, &out, writeObjectSQL, args...)
	switch {
	case err == nil:
	case refusedInOneStatement(err):
		return 0, nil, fmt.Errorf("store: unable to write the object %s in one statement (%v): %w", w.ID, err, ErrTransactionNeeded)
	default:
		return 0, nil, fmt.Errorf("store: unable to write the object %s: %w", w.ID, classify(err))
	}
	switch out.Status {
	case "ok":
	case "taken":
		return 0, nil, fmt.Errorf("store: number %d of pool %s: %w", w.Claim.Number, w.Claim.Pool, ErrObjectExists)
	default:
		return 0, nil, fmt.Errorf("store: unable to write the object %s in one statement (%s): %w", w.ID, out.Status, ErrTransactionNeeded)
	}
	var freed []struct {
		Pool     string          `json:"pool"`
		Division json.RawMessage `json:"division"`
		Number   int64           `json:"number"`
	}
	if err := json.Unmarshal([]byte(out.Freed.String), &freed); err != nil {
		return 0, nil, fmt.Errorf("store: the numbers the write of object %s freed cannot be read: %w", w.ID, err)
	}
	keys := make([]NumberKey, len(freed))
	for i, f := range freed {
		d, err := Canonical(f.Division)
		if err != nil {
			return 0, nil, fmt.Errorf("store: a division of number pool %s cannot be read: %w", f.Pool, err)
		}
		keys[i] = NumberKey{Pool: f.Pool, Division: d, Number: f.Number}
	}
	return out.Change.Int64, keys, nil
}

// refusedInOneStatement reports whether err is the server's refusal of a
// write in one statement that a write in a transaction explains or gets
// past: an integrity constraint (a unique value taken, a pool or branch
// deleted meanwhile), a deadlock or serialization failure, or the version
// replaced no longer the branch's (IPW01, write_object's).
func refusedInOneStatement(err error) bool {
	var pqErr *pq.Error
	if !errors.As(err, &pqErr) {
		return false
	}
	code := string(pqErr.Code)
	return code == "IPW01" || strings.HasPrefix(code, "23") || pq.As(err, pqerror.TRDeadlockDetected) != nil ||
		pq.As(err, pqerror.TRSerializationFailure) != nil
}

// writeObjectArgs are the parameters of writeObjectSQL.
func writeObjectArgs(w ObjectWrite) ([]any, error) {
	data, err := encodeData(w.Data)
	if err != nil {
		return nil, fmt.Errorf("store: unable to write the object %s: %w", w.ID, err)
	}
	peers, err := json.Marshal(w.Peers)
	if err != nil {
		return nil, fmt.Errorf("store: unable to write the peers of object %s: %w", w.ID, err)
	}
	if w.Peers == nil {
		peers = []byte("{}")
	}
	referrerDocs, err := encodeDocs(w.ReferrerDocs)
	if err != nil {
		return nil, err
	}
	atPoint, err := encodeDocs(w.AtPoint)
	if err != nil {
		return nil, err
	}
	constraints := make([]string, len(w.Add))
	hashes := make(pq.ByteaArray, len(w.Add))
	for i, u := range w.Add {
		constraints[i], hashes[i] = u.Constraint, u.Hash
	}
	claim := []any{nil, nil, nil, nil, nil, nil}
	if c := w.Claim; c != nil {
		claim = []any{c.Pool, c.Revision, string(c.Division), c.Number, c.Identifier, c.PoolName}
	}
	args := []any{w.View.Branch, w.View.Point, w.SchemaSeq, textArray(w.Locks.Shared), textArray(w.Locks.Exclusive),
		string(peers), textArray(w.Referrers), referrerDocs, atPoint,
		w.ID, w.Kind, data, w.Deleted, w.Prev, textArray(w.Drop), textArray(constraints), hashes,
		w.Audit.Actor, w.Audit.Action, w.Audit.ObjectKind, w.Audit.Before, w.Audit.After, nullable(w.Audit.Branch),
		textArray(w.Kinds)}
	return append(args, claim...), nil
}
