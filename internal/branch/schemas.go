package branch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

// A Guard is asked about a change of a branch's schema in the change's
// transaction, before anything is stored; an error refuses the change and
// is returned as it is (an *refusal.InvalidError reads best). Number pools guard
// the elements their pools use.
type Guard func(ctx context.Context, tx *store.Tx, c SchemaChange) error

// A SchemaChange is a change of a branch's schema that a Guard is asked
// about: a load (on any branch), or a merge that brings a branch's schema
// changes to main.
type SchemaChange struct {
	Branch        Branch
	Before, After schema.Schema
	Changes       schema.Changes
}

// Schema returns the schema of kinds of the branch: its own if it changed
// it since its branch point, else main's at its branch point. It is cached
// in the process, read again after a change here or in another process
// (within a moment: the database notifies every process), and swapped
// whole: a caller never sees half a schema. It answers to anyone: build
// the API with it, show it to operators only.
func (s *Service) Schema(ctx context.Context, branch string) (schema.Schema, error) {
	st, err := s.state(ctx, branch)
	if err != nil {
		return schema.Schema{}, err
	}
	return st.schema.schema, nil
}

// LoadSchema applies schema files to the branch's schema, all or nothing,
// and returns what changed (nothing is stored when nothing did). A file
// that does not make a valid schema is an *refusal.InvalidError of the field
// "schema" listing every mistake (errors.As finds the schema.Errors). So
// is a change that the branch's objects would violate, naming the object
// and the field: an attribute made required, or added required without a
// default value, while objects lack a value; a value that no longer fits
// its attribute (kind, choices); a uniqueness constraint or a unique
// attribute that objects violate; a relationship made of cardinality one
// while objects have several peers, or required while objects have none,
// or given another peer kind that objects' peers are not; a kind removed
// while it has objects. Attributes added with a default value get it on
// every object of the branch, in the same change. Only operators load
// schemas; tenants get refusal.ErrNotFound.
func (s *Service) LoadSchema(ctx context.Context, actor auth.Actor, branch string, files ...schema.File) (schema.Changes, error) {
	if !actor.IsOperator() {
		return nil, notFound("branch %s", branch)
	}
	var changes schema.Changes
	var branchID int64
	err := s.change(ctx, func(tx *store.Tx) error {
		changes = nil
		row, err := store.LockBranch(ctx, tx, branch, store.ExclusiveBranch, store.ObjectLocks{})
		if errors.Is(err, store.ErrNotFound) {
			return notFound("branch %s", branch)
		}
		if err != nil {
			return err
		}
		branchID = row.ID
		st, err := s.stateOf(ctx, tx, row)
		if err != nil {
			return err
		}
		next, ch, err := st.schema.schema.Apply(newElementID, files...)
		if err != nil {
			return schemaRefusal(err)
		}
		if len(ch) == 0 {
			return nil
		}
		if s.guard != nil {
			if err := s.guard(ctx, tx, SchemaChange{Branch: branchOf(row), Before: st.schema.schema, After: next, Changes: ch}); err != nil {
				return err
			}
		}
		if err := s.migrate(ctx, tx, st, compile(next)); err != nil {
			return err
		}
		seq, err := store.NextChange(ctx, tx)
		if err != nil {
			return err
		}
		if err := store.InsertKindSchema(ctx, tx, row.ID, seq, next.JSON(), actor.Name); err != nil {
			return err
		}
		changes = ch
		return store.InsertAudit(ctx, tx, store.AuditEntry{Actor: actor.Name, Action: audit.Load, ObjectKind: audit.KindSchema, ObjectName: branch,
			After: store.JSON(audit.SchemaChanges(changeRecords(ch))), Branch: branch})
	})
	if err != nil {
		return nil, err
	}
	if len(changes) > 0 {
		s.forget(branchID)
	}
	return changes, nil
}

// schemaRefusal is a refused schema file as an *refusal.InvalidError.
func schemaRefusal(err error) error {
	return &refusal.InvalidError{Field: "schema", Message: err.Error(), Cause: err}
}

// changeRecords writes changes for the audit log, one line each.
func changeRecords(ch schema.Changes) []string {
	out := make([]string, len(ch))
	for i, c := range ch {
		out[i] = c.String()
	}
	return out
}

// newElementID returns the id of a new kind, attribute or relationship.
func newElementID() string { return newObjectID(time.Now()) }

// emptySchema is the schema of a branch nothing was loaded on.
func emptySchema() schema.Schema { return schema.Schema{} }

// decodeSchema reads a schema stored by LoadSchema (Schema.JSON, with
// every id).
func decodeSchema(doc []byte) (schema.Schema, error) {
	f, err := schema.Parse("stored schema", doc)
	if err != nil {
		return schema.Schema{}, err
	}
	s, _, err := schema.Schema{}.Apply(newElementID, f)
	return s, err
}

// migrate checks the objects the branch shows against the schema next
// (compiled) where it changed them, fills the default values of the
// attributes added, and rebuilds the unique values of the kinds whose
// constraints changed. st is the branch with its schema before.
func (s *Service) migrate(ctx context.Context, tx *store.Tx, st *branchState, next *compiled) error {
	view := st.row.View()
	for id, old := range st.schema.byID {
		if _, kept := next.byID[id]; kept {
			continue
		}
		rows, _, err := store.Objects(ctx, tx, view, store.ObjectFilter{Kinds: []string{id}, Limit: 1})
		if err != nil {
			return err
		}
		if len(rows) > 0 {
			return invalid("schema", "schema: the kind %s cannot be removed: it has objects on branch %s, such as %s (%s); delete them first",
				old.kind.FullName(), st.row.Name, old.displayLabel(rows[0].ID, rows[0].Data), rows[0].ID)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(next.byID)) {
		n := next.byID[id]
		old, existed := st.schema.byID[id]
		if !existed {
			continue // a new kind has no object
		}
		elements, constraints := old.fingerprint(st.schema) != n.fingerprint(next), !slices.Equal(old.constraintIDs(), n.constraintIDs())
		if !elements && !constraints {
			continue
		}
		if err := s.migrateKind(ctx, tx, st, next, old, n); err != nil {
			return err
		}
	}
	return nil
}

// migrateKind checks and changes the objects of one node kind, from old
// to n, as migrate says.
func (s *Service) migrateKind(ctx context.Context, tx *store.Tx, st *branchState, next *compiled, old, n *nodeKind) error {
	view := st.row.View()
	rows, _, err := store.Objects(ctx, tx, view, store.ObjectFilter{Kinds: []string{n.kind.ID}})
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	var peers []string
	changed := make([]bool, len(rows))
	for i := range rows {
		rows[i].Data, changed[i], err = n.migrateData(old, rows[i].ID, rows[i].Data)
		if err != nil {
			return err
		}
		for _, r := range n.relationships {
			if raw, ok := rows[i].Data[r.ID]; ok {
				peers = append(peers, decodePeers(raw)...)
			}
		}
	}
	if err := s.checkPeerKinds(ctx, tx, st, next, n, rows, peers); err != nil {
		return err
	}
	if err := duplicates(n, rows); err != nil {
		return err
	}
	var own []string
	var holders []store.UniqueHolder
	for i, r := range rows {
		if changed[i] {
			prev := int64(0)
			if r.BranchID == st.row.ID {
				prev = r.FromSeq
			}
			seq, _, err := store.WriteVersion(ctx, tx, store.VersionWrite{View: view, ID: r.ID, Kind: r.Kind, Data: r.Data, Prev: prev})
			if err != nil {
				return err
			}
			if err := s.record(ctx, tx, ObjectsChange{Branch: branchOf(st.row), Schema: next.schema, Seq: seq, Versions: versionsOf(rows[i : i+1])}); err != nil {
				return err
			}
		}
		if changed[i] || r.BranchID == st.row.ID {
			own = append(own, r.ID)
			for _, u := range n.uniqueValues(r.Data) {
				holders = append(holders, store.UniqueHolder{UniqueValue: u, Object: r.ID})
			}
		}
	}
	refused, err := store.ReplaceUniqueValues(ctx, tx, st.row.ID, own, holders)
	if err != nil {
		return err
	}
	if len(refused) > 0 {
		return uniqueConflict(n, refused[0].Constraint, []string{refused[0].Object})
	}
	return nil
}

// migrateData returns the object's data as the node n (old before)
// stores it, and whether it changed: the values of the attributes n added
// with a default value filled in (or made required, with one), the peers
// written for the relationships' cardinality. It refuses, naming the
// object and the field, data that does not fit n.
func (n *nodeKind) migrateData(old *nodeKind, id string, data map[string]json.RawMessage) (map[string]json.RawMessage, bool, error) {
	object := fmt.Sprintf("object %s (%s)", n.displayLabel(id, data), id)
	out := maps.Clone(data)
	changed := false
	for _, a := range n.attributes {
		raw, ok := out[a.ID]
		before, had := old.attrByID[a.ID]
		switch {
		case !ok && a.DefaultValue != "" && (!had || !a.Optional):
			out[a.ID], changed = json.RawMessage(a.DefaultValue), true
		case !ok && !a.Optional && had && before.Optional:
			return nil, false, invalid("schema", "schema: %s.%s cannot be made required: %s has no value, and the attribute has no default_value",
				n.kind.FullName(), a.Name, object)
		case !ok && !a.Optional:
			return nil, false, invalid("schema", "schema: %s.%s cannot be added required without a default_value: %s has no value",
				n.kind.FullName(), a.Name, object)
		case ok:
			if _, err := encodeAttribute(a, decodeJSON(raw)); err != nil {
				var bad *refusal.InvalidError
				errors.As(err, &bad)
				return nil, false, invalid("schema", "schema: %s.%s: %s holds %s, which does not fit: %s",
					n.kind.FullName(), a.Name, object, raw, strings.TrimPrefix(bad.Message, a.Name+": "))
			}
		}
	}
	for _, r := range n.relationships {
		raw, ok := out[r.ID]
		if !ok {
			if !r.Optional {
				return nil, false, invalid("schema", "schema: %s.%s cannot be required: %s has no peer", n.kind.FullName(), r.Name, object)
			}
			continue
		}
		peers := decodePeers(raw)
		if r.Cardinality == schema.One && len(peers) > 1 {
			return nil, false, invalid("schema", "schema: %s.%s cannot have cardinality one: %s has %d peers", n.kind.FullName(), r.Name, object, len(peers))
		}
		if written := encodePeers(r, peers); string(written) != string(raw) {
			out[r.ID], changed = written, true
		}
	}
	return out, changed, nil
}

// checkPeerKinds refuses objects whose peers are not of the kinds their
// relationships take under the schema next.
func (s *Service) checkPeerKinds(ctx context.Context, q store.Ext, st *branchState, next *compiled, n *nodeKind, rows []store.ObjectRow, peers []string) error {
	if len(peers) == 0 {
		return nil
	}
	slices.Sort(peers)
	found, err := store.ObjectsByID(ctx, q, st.row.View(), slices.Compact(peers))
	if err != nil {
		return err
	}
	peerRows := byID(found)
	for _, row := range rows {
		for _, r := range n.relationships {
			for _, p := range decodePeers(row.Data[r.ID]) {
				peer, ok := peerRows[p]
				k := next.byID[peer.Kind]
				if ok && !peer.Deleted && k != nil && !next.peerAccepts(r, k) {
					return invalid("schema", "schema: %s.%s: the peer %s (%s) of object %s (%s) is a %s, not a %s",
						n.kind.FullName(), r.Name, k.displayLabel(p, peer.Data), p, n.displayLabel(row.ID, row.Data), row.ID, k.kind.FullName(), r.Peer)
				}
			}
		}
	}
	return nil
}

// duplicates refuses objects of the node n that hold the same values of
// one of its constraints.
func duplicates(n *nodeKind, rows []store.ObjectRow) error {
	seen := map[string]store.ObjectRow{}
	for _, r := range rows {
		for _, u := range n.uniqueValues(r.Data) {
			key := u.Constraint + "\x00" + string(u.Hash)
			if other, ok := seen[key]; ok {
				c, _ := n.constraint(u.Constraint)
				return invalid("schema", "schema: %s: Violates uniqueness constraint '%s': objects %s (%s) and %s (%s) hold the same values",
					n.kind.FullName(), c.name, n.displayLabel(other.ID, other.Data), other.ID, n.displayLabel(r.ID, r.Data), r.ID)
			}
			seen[key] = r
		}
	}
	return nil
}

// fingerprint writes what of the node's elements its objects' data must
// fit (names aside: a rename changes no value).
func (n *nodeKind) fingerprint(c *compiled) string {
	var b strings.Builder
	for _, a := range n.attributes {
		fmt.Fprintf(&b, "a %s %s %t %q %q;", a.ID, a.Kind, a.Optional, a.Choices, a.DefaultValue)
	}
	for _, r := range n.relationships {
		peer, _ := c.schema.Kind(r.Peer)
		fmt.Fprintf(&b, "r %s %s %s %t %q;", r.ID, peer.ID, r.Cardinality, r.Optional, c.schema.Inheritors(r.Peer))
	}
	return b.String()
}

// constraintIDs are the ids of the node's constraints.
func (n *nodeKind) constraintIDs() []string {
	ids := make([]string, len(n.constraints))
	for i, c := range n.constraints {
		ids[i] = c.id
	}
	slices.Sort(ids)
	return ids
}
