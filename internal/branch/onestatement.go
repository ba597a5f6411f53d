package branch

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/store"
)

// A write of an object in one statement (store.WriteObject, docs/numbers.md
// "What it costs"): the branch's state as this process cached it, the
// input checked here, then one statement outside any transaction that
// checks what the state and the input took for granted (the branch point
// and schema, the peers, main's unique values at the branch point, the
// objects pointing at one deleted, the version replaced), claims the
// number a hook asks for, and stores the version with its unique values,
// its audit entries and the records of number pools. Whatever is not the
// common case (a mistake of the input, a value taken, a peer missing, a
// branch changed, a deadlock) stores nothing there, and the write is made
// again in a transaction, which refuses it in its words or gets past it.

// inOneStatement reports whether a write of in may be made in one
// statement: the service makes writes so (Config.InTransactions), its
// recorder, if any, is the one whose records the statement makes
// (Config.Freed), and the hook, if any, can run outside a transaction
// (ObjectInput.InOneStatement).
func (s *Service) inOneStatement(in ObjectInput) bool {
	return !s.inTransactions && (s.recorder == nil || s.freed != nil) && (in.Hook == nil || in.InOneStatement)
}

// createInOneStatement is CreateObject's write in one statement; peers
// are the objects in names. store.ErrTransactionNeeded: make it in a
// transaction.
func (s *Service) createInOneStatement(ctx context.Context, actor auth.Actor, branch, kind, id string, in ObjectInput, peers []string) (Object, error) {
	st, err := s.state(ctx, branch)
	if err != nil {
		return Object{}, store.ErrTransactionNeeded
	}
	n, err := st.schema.nodeToWrite(kind, branch)
	if err != nil {
		return Object{}, store.ErrTransactionNeeded
	}
	return s.storeInOneStatement(ctx, st, actor, n, id, nil, n.defaults(), in, peers)
}

// updateInOneStatement is UpdateObject's: the object read, then written
// in one statement if it is still the version read.
func (s *Service) updateInOneStatement(ctx context.Context, actor auth.Actor, branch, id string, in ObjectInput, peers []string) (Object, error) {
	st, err := s.state(ctx, branch)
	if err != nil {
		return Object{}, store.ErrTransactionNeeded
	}
	before, n, err := s.current(ctx, s.db, st, id)
	if err != nil {
		return Object{}, store.ErrTransactionNeeded
	}
	return s.storeInOneStatement(ctx, st, actor, n, id, &before, maps.Clone(before.Data), in, peers)
}

// deleteInOneStatement is DeleteObject's: the object read, then deleted
// in one statement if it is still the version read and nothing points at
// it (the transaction clears the optional relationships that do, or
// refuses).
func (s *Service) deleteInOneStatement(ctx context.Context, actor auth.Actor, branch, id string) (Object, error) {
	st, err := s.state(ctx, branch)
	if err != nil {
		return Object{}, store.ErrTransactionNeeded
	}
	before, n, err := s.current(ctx, s.db, st, id)
	if err != nil {
		return Object{}, store.ErrTransactionNeeded
	}
	out := n.object(id, before.Data)
	kinds, docs := st.schema.pointing(n, []string{id})
	w := store.ObjectWrite{
		VersionWrite: store.VersionWrite{ID: id, Kind: n.kind.ID, Data: before.Data, Deleted: true,
			Audit: store.AuditEntry{Actor: actor.Name, Action: audit.Delete, ObjectKind: n.kind.FullName(), Before: store.JSON(objectDoc(out)), Branch: st.row.Name}},
		Locks: store.ObjectLocks{Exclusive: []string{id}}, Referrers: kinds, ReferrerDocs: docs}
	if err := s.writeInOneStatement(ctx, st, n, &before, w); err != nil {
		return Object{}, err
	}
	return out, nil
}

// storeInOneStatement is storeObject's write in one statement: in applied
// to data, the hook run, the object stored by Write.Commit (the hook's, or
// its own after the hook). locks are the objects in names, locked shared.
func (s *Service) storeInOneStatement(ctx context.Context, st *branchState, actor auth.Actor, n *nodeKind, id string,
	before *store.ObjectRow, data map[string]json.RawMessage, in ObjectInput, locks []string) (Object, error) {
	mistaken := false
	peers := n.apply(data, in, func(string, error) { mistaken = true })
	if mistaken {
		return Object{}, store.ErrTransactionNeeded
	}
	var prev *Object
	if before != nil {
		o := n.object(before.ID, before.Data)
		prev = &o
	}
	w := &Write{Branch: branchOf(st.row), Schema: st.schema.schema, Before: prev, After: n.object(id, data), kind: n, data: data, db: s.db}
	var after Object
	w.commit = func(ctx context.Context, claim *store.NumberClaim) error {
		if len(n.missing(data)) > 0 {
			return store.ErrTransactionNeeded
		}
		o := n.object(id, data)
		vw := store.VersionWrite{ID: id, Kind: n.kind.ID, Data: data, Audit: objectAudit(actor, n, prev, o, st.row.Name)}
		err := s.writeInOneStatement(ctx, st, n, before, store.ObjectWrite{VersionWrite: vw, Locks: store.ObjectLocks{Shared: locks},
			Peers: st.schema.peerKinds(n, data, peers), Claim: claim})
		if err == nil {
			after = o
		}
		return err
	}
	if in.Hook != nil {
		if err := in.Hook(ctx, w); err != nil {
			if w.stored {
				return Object{}, err
			}
			// A refusal of the hook (a pool exhausted, a scope element
			// missing) may have another before it in a transaction, which
			// checks the peers first: it says which.
			return Object{}, store.ErrTransactionNeeded
		}
	}
	if !w.stored {
		if err := w.Commit(ctx, nil); err != nil {
			return Object{}, err
		}
	}
	return after, nil
}

// writeInOneStatement completes w, the branch's new version of an object
// of the node n, as writeVersion does (the unique values it drops and
// takes, main's at the branch point to check, the version it replaces:
// before, nil for a new object), and makes it in one statement; the
// process's views of number pools are told of the numbers it freed.
func (s *Service) writeInOneStatement(ctx context.Context, st *branchState, n *nodeKind, before *store.ObjectRow, w store.ObjectWrite) error {
	n.replaces(st, before, &w.VersionWrite)
	w.View, w.SchemaSeq, w.Kinds = st.row.View(), st.row.SchemaSeq, n.ancestry
	if !w.View.OnMain() {
		w.AtPoint = n.valueDocs(w.Data, w.Add)
	}
	_, freed, err := store.WriteObject(ctx, s.db, w)
	if err != nil {
		return err
	}
	if s.freed != nil && len(freed) > 0 {
		s.freed(freed)
	}
	return nil
}

// peerKinds returns, for each of peers (the peers a write of data, the
// values of an object of n, gives), the ids of the node kinds that every
// relationship of n holding it takes.
func (c *compiled) peerKinds(n *nodeKind, data map[string]json.RawMessage, peers []string) map[string][]string {
	out := map[string][]string{}
	for _, r := range n.relationships {
		raw, ok := data[r.ID]
		if !ok {
			continue
		}
		taken := []string{}
		for _, k := range c.nodes {
			if c.peerAccepts(r, k) {
				taken = append(taken, k.kind.ID)
			}
		}
		for _, id := range decodePeers(raw) {
			if !slices.Contains(peers, id) {
				continue // not given by this write: checked when it was
			}
			kinds := taken
			if prior, ok := out[id]; ok {
				kinds = slices.DeleteFunc(slices.Clone(taken), func(k string) bool { return !slices.Contains(prior, k) })
			}
			out[id] = kinds
		}
	}
	return out
}
