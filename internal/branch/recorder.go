package branch

import (
	"context"
	"encoding/json"

	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

// A Recorder is told, in the transaction of every change of objects'
// versions, what the change stored, so that records derived from objects
// (number pools' holdings, docs/numbers.md) change with them, all or nothing: an
// error refuses the change. It is called after the versions are written:
// by a write or a deletion of an object (and the objects whose optional
// relationships lost it), a schema load that rewrote objects, a merge
// (main's new versions, then the branch emptied), a rebase (the branch's
// versions rewritten at its new point) and before a branch's deletion.
type Recorder func(ctx context.Context, tx *store.Tx, c ObjectsChange) error

// An ObjectsChange is a change of the versions one branch has of its
// own, as a Recorder is told of it.
type ObjectsChange struct {
	// Branch is the branch whose versions changed, as the change leaves
	// it (its new branch point after a merge or a rebase).
	Branch Branch
	// Schema is the branch's schema as the change leaves it.
	Schema schema.Schema
	// Actor is who made the change.
	Actor string
	// Seq is the number of the change that wrote Versions: their FromSeq.
	Seq int64
	// Versions are the branch's new versions of objects, deletions
	// included.
	Versions []Version
	// Dropped are objects the branch no longer has a version of: it sees
	// main's again (a rebase's objects that ended as main has them).
	Dropped []string
	// Emptied says that the branch has no version of its own any more: a
	// merge made them main's (Versions is then empty, and the branch
	// point moved to the merge).
	Emptied bool
	// Rebased says that the branch point moved to Seq (a rebase).
	Rebased bool
	// Deleted says that the branch is about to be deleted, with every
	// version it has, in this transaction.
	Deleted bool
}

// A Version is a version of an object written by a change.
type Version struct {
	// ID is the object's id.
	ID string
	// Kind is the stable id of its node kind.
	Kind string
	// Data holds its values by their element's stable id, written
	// canonically (store.Canonical).
	Data map[string]json.RawMessage
	// Deleted marks the version that records the object's deletion.
	Deleted bool
}

// record tells the service's recorder, if any, of c.
func (s *Service) record(ctx context.Context, tx *store.Tx, c ObjectsChange) error {
	if s.recorder == nil {
		return nil
	}
	return s.recorder(ctx, tx, c)
}

// versionsOf returns rows as Versions.
func versionsOf(rows []store.ObjectRow) []Version {
	out := make([]Version, len(rows))
	for i, r := range rows {
		out[i] = Version{ID: r.ID, Kind: r.Kind, Data: r.Data, Deleted: r.Deleted}
	}
	return out
}
