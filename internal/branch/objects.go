package branch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

// MaxPage bounds how many objects one call of Objects returns.
const MaxPage = 1000

// An Object is an object of a node kind, as one branch shows it.
type Object struct {
	// ID is a UUID (version 7: objects listed in id order are about in the
	// order they were created).
	ID string `json:"id"`
	// Kind is the full name of its node kind: IpamVLAN.
	Kind string `json:"kind"`
	// DisplayLabel is the kind's display_label template filled with the
	// object's values, else its name attribute's value, else its id.
	DisplayLabel string `json:"display_label"`
	// Attributes holds the values by attribute name; an attribute without
	// a value is absent. A Text or Dropdown value is a string, a Number an
	// int64, a Boolean a bool, a List, JSON or Any value the JSON value
	// decoded ([]any, map[string]any, string, bool, nil), its numbers as
	// json.Number.
	Attributes map[string]any `json:"attributes"`
	// Relationships holds the peers' ids by relationship name, in the order
	// they were given: one for a relationship of cardinality one. A
	// relationship without peers is absent.
	Relationships map[string][]string `json:"relationships"`
}

// ObjectInput is what a create or an update sets. An update changes what
// the input names and keeps the rest.
type ObjectInput struct {
	// Attributes are values by attribute name (see Object.Attributes for
	// the Go types a value may have; a Number may be any Go integer, or a
	// float64 or json.Number holding a whole number). nil removes an
	// optional attribute's value.
	Attributes map[string]any
	// Relationships are peers' ids by relationship name: at most one for
	// cardinality one; none removes an optional relationship's peers.
	Relationships map[string][]string
	// Hook, when set, runs in the write's transaction once the input is
	// checked and the peers found on the branch, before the required
	// values and the uniqueness are checked and anything is stored: number
	// pools fill a value there (Write.SetAttribute). It may run more than
	// once when another writer changed the object meanwhile (the earlier
	// transaction rolled back).
	Hook func(ctx context.Context, w *Write) error
	// Fills are the attributes Hook may fill: when a mistake of the input
	// keeps the hook from running, they are not said to be missing.
	Fills []string
	// InOneStatement says that Hook may run before a write made in one
	// statement, outside any transaction (Write.Tx nil): it then stores
	// the object through Write.Commit, or leaves it to the write. Without
	// it, a write with a Hook is made in a transaction.
	InOneStatement bool
}

// A Write is an object about to be stored, as ObjectInput.Hook sees it.
type Write struct {
	// Tx is the write's transaction; nil when the write is made in one
	// statement (see Commit).
	Tx     *store.Tx
	Branch Branch
	Schema schema.Schema
	// Before is the object as the branch showed it; nil when it is new.
	Before *Object
	// After is the object as it will be stored (its display label aside).
	After Object
	kind  *nodeKind
	data  map[string]json.RawMessage
	// db and commit are set when the write is made in one statement;
	// stored once Commit stored it.
	db     *store.DB
	commit func(ctx context.Context, claim *store.NumberClaim) error
	stored bool
}

// Ext is where the hook reads: the write's transaction, or the database
// when the write is made in one statement.
func (w *Write) Ext() store.Ext {
	if w.Tx != nil {
		return w.Tx
	}
	return w.db
}

// Commit stores the object as the hook has set it, in the one statement
// of a write made so (Tx nil), with claim's number allocated to it when
// claim is not nil (store.WriteObject). It fails with an error wrapping
// store.ErrObjectExists when that number is taken or its pool changed
// (store.NumberClaimConflict says which; nothing is stored: the hook may
// claim another), store.ErrTransactionNeeded when the write is to be made
// in a transaction: the hook returns that error, and runs again in the
// transaction. Once Commit returned nil, the object is stored, and the
// hook is to return nil. A hook that does not call it leaves the storing
// to the write.
func (w *Write) Commit(ctx context.Context, claim *store.NumberClaim) error {
	if w.commit == nil || w.stored {
		return errors.New("branch: Commit stores a write made in one statement, once")
	}
	if err := w.commit(ctx, claim); err != nil {
		return err
	}
	w.stored = true
	return nil
}

// Stored reports whether Commit stored the object.
func (w *Write) Stored() bool { return w.stored }

// SetAttribute sets the value of the attribute name of the object being
// written, checked as the input's are (an *refusal.InvalidError when it does not
// fit); nil removes it.
func (w *Write) SetAttribute(name string, v any) error {
	a, ok := w.kind.attrByName[name]
	if !ok {
		return invalid(name, "%s: %s has no attribute %s", name, w.kind.kind.FullName(), name)
	}
	if v == nil {
		delete(w.data, a.ID)
		delete(w.After.Attributes, name)
		return nil
	}
	raw, err := encodeAttribute(a, v)
	if err != nil {
		return err
	}
	w.data[a.ID] = raw
	w.After.Attributes[name] = decodeAttribute(a, raw)
	return nil
}

// Filter narrows Objects: the conditions hold together.
type Filter struct {
	// IDs keeps these objects only, when not nil (GraphQL ids).
	IDs []string
	// Values keeps the objects whose attribute of each name holds the value
	// (GraphQL name__value).
	Values map[string]any
	// Peers keeps, for each relationship name, the objects that point at
	// one of the ids at least (GraphQL site__ids).
	Peers map[string][]string
}

// A Page is a page of objects and how many there are in all.
type Page struct {
	Objects []Object
	Count   int
}

// Object returns the object id as the branch shows it; refusal.ErrNotFound when
// the branch shows none (or it is deleted there), and to tenants.
func (s *Service) Object(ctx context.Context, actor auth.Actor, branch, id string) (Object, error) {
	if !actor.IsOperator() {
		return Object{}, notFound("branch %s", branch)
	}
	st, err := s.state(ctx, branch)
	if err != nil {
		return Object{}, err
	}
	oid, ok := parseObjectID(id)
	if !ok {
		return Object{}, notFound("object %s on branch %s", id, branch)
	}
	row, err := store.Object(ctx, s.db, st.row.View(), oid)
	if errors.Is(err, store.ErrNotFound) {
		return Object{}, notFound("object %s on branch %s", id, branch)
	}
	if err != nil {
		return Object{}, err
	}
	n, ok := st.schema.byID[row.Kind]
	if row.Deleted || !ok {
		return Object{}, notFound("object %s on branch %s", id, branch)
	}
	return n.object(row.ID, row.Data), nil
}

// Objects returns a page of the objects of the kind (a node, or a generic:
// the objects of the nodes that inherit from it) that the branch shows
// and f keeps, in id order, from offset on, limit of them at most (MaxPage
// when 0), and how many f keeps in all. One statement.
func (s *Service) Objects(ctx context.Context, actor auth.Actor, branch, kind string, f Filter, limit, offset int) (Page, error) {
	if !actor.IsOperator() {
		return Page{}, notFound("branch %s", branch)
	}
	st, err := s.state(ctx, branch)
	if err != nil {
		return Page{}, err
	}
	switch {
	case limit < 0 || limit > MaxPage:
		return Page{}, invalid("limit", "limit must be from 1 to %d, got %d", MaxPage, limit)
	case offset < 0:
		return Page{}, invalid("offset", "offset must be 0 or more, got %d", offset)
	case limit == 0:
		limit = MaxPage
	}
	kinds, ok := st.schema.kindIDs(kind)
	if !ok {
		return Page{}, notFound("kind %s on branch %s", kind, branch)
	}
	sf, err := storeFilter(st.schema, kind, f)
	if err != nil {
		return Page{}, err
	}
	if len(kinds) == 0 || sf.IDs != nil && len(sf.IDs) == 0 {
		return Page{}, nil
	}
	sf.Kinds, sf.Limit, sf.Offset = kinds, limit, offset
	rows, count, err := store.Objects(ctx, s.db, st.row.View(), sf)
	if err != nil {
		return Page{}, err
	}
	return Page{Objects: st.schema.objects(rows), Count: count}, nil
}

// Peers returns a page of the peers of the relationship of o (an object
// the branch shows) in id order, and how many it has: the reading of
// site { node } and endpoints { count edges { node } }.
func (s *Service) Peers(ctx context.Context, actor auth.Actor, branch string, o Object, relationship string, limit, offset int) (Page, error) {
	if !actor.IsOperator() {
		return Page{}, notFound("branch %s", branch)
	}
	st, err := s.state(ctx, branch)
	if err != nil {
		return Page{}, err
	}
	r, ok := st.schema.schema.Relationship(o.Kind, relationship)
	if !ok {
		return Page{}, notFound("relationship %s of %s on branch %s", relationship, o.Kind, branch)
	}
	ids := o.Relationships[relationship]
	if ids == nil {
		ids = []string{}
	}
	return s.Objects(ctx, actor, branch, r.Peer, Filter{IDs: ids}, limit, offset)
}

// storeFilter turns f into the store's terms for a listing of the kind.
func storeFilter(c *compiled, kind string, f Filter) (store.ObjectFilter, error) {
	var sf store.ObjectFilter
	if f.IDs != nil {
		sf.IDs = []string{}
		for _, id := range f.IDs {
			// An id that is no UUID matches nothing.
			if oid, ok := parseObjectID(id); ok {
				sf.IDs = append(sf.IDs, oid)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(f.Values)) {
		a, ok := c.schema.Attribute(kind, name)
		if !ok {
			return sf, invalid(name+"__value", "%s__value: %s has no attribute %s", name, kind, name)
		}
		raw, err := encodeAttribute(a, f.Values[name])
		if err != nil {
			return sf, err
		}
		if sf.Contains == nil {
			sf.Contains = map[string]json.RawMessage{}
		}
		if a.Kind == schema.List {
			// Containment of lists is not equality: the caller filters
			// lists, not the database.
			return sf, invalid(name+"__value", "%s__value: attributes of kind List cannot be filtered on", name)
		}
		sf.Contains[a.ID] = raw
	}
	for _, name := range slices.Sorted(maps.Keys(f.Peers)) {
		r, ok := c.schema.Relationship(kind, name)
		if !ok {
			return sf, invalid(name+"__ids", "%s__ids: %s has no relationship %s", name, kind, name)
		}
		if sf.AnyOf == nil {
			sf.AnyOf = map[string][]string{}
		}
		ids := []string{}
		for _, id := range f.Peers[name] {
			if oid, ok := parseObjectID(id); ok {
				ids = append(ids, oid)
			}
		}
		sf.AnyOf[r.ID] = ids
	}
	return sf, nil
}

// objects turns rows into objects; rows of a kind the schema lacks are
// left out.
func (c *compiled) objects(rows []store.ObjectRow) []Object {
	out := make([]Object, 0, len(rows))
	for _, r := range rows {
		if n, ok := c.byID[r.Kind]; ok {
			out = append(out, n.object(r.ID, r.Data))
		}
	}
	return out
}

// object is the object id holding data, as n reads it.
func (n *nodeKind) object(id string, data map[string]json.RawMessage) Object {
	o := Object{ID: id, Kind: n.kind.FullName(), DisplayLabel: n.displayLabel(id, data),
		Attributes: map[string]any{}, Relationships: map[string][]string{}}
	for _, a := range n.attributes {
		if raw, ok := data[a.ID]; ok {
			o.Attributes[a.Name] = decodeAttribute(a, raw)
		}
	}
	for _, r := range n.relationships {
		if raw, ok := data[r.ID]; ok {
			if peers := decodePeers(raw); len(peers) > 0 {
				o.Relationships[r.Name] = peers
			}
		}
	}
	return o
}

// CreateObject creates an object of the node kind on the branch from in,
// with the attributes' default values where in gives none, and returns it.
// A value that does not fit its attribute, a missing required value, an
// element the kind lacks are *refusal.InvalidErrors naming the field; a peer the
// branch does not show (or an unknown kind) refusal.ErrNotFound; a unique value
// another object of the kind holds on the branch a *refusal.ConflictError saying
// "Violates uniqueness constraint '<constraint>'". Audited. One statement
// in the common case (see inOneStatement); a refusal, or a write that met
// another, is made again in a transaction of a few statements, which says
// why.
func (s *Service) CreateObject(ctx context.Context, actor auth.Actor, branch, kind string, in ObjectInput) (Object, error) {
	if !actor.IsOperator() {
		return Object{}, notFound("branch %s", branch)
	}
	in, peers, err := normalized(in)
	if err != nil {
		return Object{}, err
	}
	id := newObjectID(time.Now())
	if s.inOneStatement(in) {
		out, err := s.createInOneStatement(ctx, actor, branch, kind, id, in, peers)
		if !errors.Is(err, store.ErrTransactionNeeded) {
			return out, err
		}
	}
	var out Object
	err = s.write(ctx, branch, store.ObjectLocks{Shared: peers}, func(tx *store.Tx, st *branchState) error {
		n, err := st.schema.nodeToWrite(kind, branch)
		if err != nil {
			return err
		}
		out, err = s.storeObject(ctx, tx, st, actor, n, id, nil, n.defaults(), in)
		return err
	})
	return out, err
}

// defaults returns the data of a new object of n: the attributes' default
// values.
func (n *nodeKind) defaults() map[string]json.RawMessage {
	data := map[string]json.RawMessage{}
	for _, a := range n.attributes {
		if a.DefaultValue != "" {
			data[a.ID] = json.RawMessage(a.DefaultValue)
		}
	}
	return data
}

// UpdateObject changes what in names of the object id on the branch and
// returns it; the refusals are CreateObject's. On a branch other than
// main, the first change of an object of main's gives the branch its own
// version of it.
func (s *Service) UpdateObject(ctx context.Context, actor auth.Actor, branch, id string, in ObjectInput) (Object, error) {
	if !actor.IsOperator() {
		return Object{}, notFound("branch %s", branch)
	}
	oid, ok := parseObjectID(id)
	if !ok {
		return Object{}, notFound("object %s on branch %s", id, branch)
	}
	in, peers, err := normalized(in)
	if err != nil {
		return Object{}, err
	}
	if s.inOneStatement(in) {
		out, err := s.updateInOneStatement(ctx, actor, branch, oid, in, peers)
		if !errors.Is(err, store.ErrTransactionNeeded) {
			return out, err
		}
	}
	var out Object
	err = s.write(ctx, branch, store.ObjectLocks{Shared: peers}, func(tx *store.Tx, st *branchState) error {
		before, n, err := s.current(ctx, tx, st, oid)
		if err != nil {
			return err
		}
		out, err = s.storeObject(ctx, tx, st, actor, n, oid, &before, maps.Clone(before.Data), in)
		return err
	})
	return out, err
}

// current returns the version of the object id the branch shows, and its
// kind; refusal.ErrNotFound when it shows none.
func (s *Service) current(ctx context.Context, q store.Ext, st *branchState, id string) (store.ObjectRow, *nodeKind, error) {
	row, err := store.Object(ctx, q, st.row.View(), id)
	if errors.Is(err, store.ErrNotFound) {
		return row, nil, notFound("object %s on branch %s", id, st.row.Name)
	}
	if err != nil {
		return row, nil, err
	}
	n, ok := st.schema.byID[row.Kind]
	if row.Deleted || !ok {
		return row, nil, notFound("object %s on branch %s", id, st.row.Name)
	}
	return row, n, nil
}

// nodeToWrite returns the node kind of the full name, refusing a generic.
func (c *compiled) nodeToWrite(kind, branch string) (*nodeKind, error) {
	if n, ok := c.node(kind); ok {
		return n, nil
	}
	if k, ok := c.schema.Kind(kind); ok && k.Generic {
		return nil, invalid("kind", "kind: %s is a generic; create objects of the nodes that inherit from it", kind)
	}
	return nil, notFound("kind %s on branch %s", kind, branch)
}

// normalized returns in with its peers' ids written canonically, each
// once per relationship, in a map of its own, and every id it names; an
// id that is no UUID is an *refusal.InvalidError.
func normalized(in ObjectInput) (ObjectInput, []string, error) {
	var all []string
	rels := make(map[string][]string, len(in.Relationships))
	for _, name := range slices.Sorted(maps.Keys(in.Relationships)) {
		ids := []string{}
		for _, id := range in.Relationships[name] {
			oid, ok := parseObjectID(id)
			if !ok {
				return in, nil, invalid(name, "%s: %s is not an object's id (a UUID)", name, shown(id))
			}
			if !slices.Contains(ids, oid) {
				ids = append(ids, oid)
			}
		}
		rels[name] = ids
		all = append(all, ids...)
	}
	in.Relationships = rels
	slices.Sort(all)
	return in, slices.Compact(all), nil
}

// storeObject applies in to data (the object's values before, or the
// defaults of a new one), checks the result and stores it as the branch's
// version of the object id. before is the version the branch showed; nil
// for a new object.
func (s *Service) storeObject(ctx context.Context, tx *store.Tx, st *branchState, actor auth.Actor, n *nodeKind, id string,
	before *store.ObjectRow, data map[string]json.RawMessage, in ObjectInput) (Object, error) {
	var mistakes []error
	refused := map[string]bool{}
	refuse := func(name string, err error) {
		mistakes, refused[name] = append(mistakes, err), true
	}
	peers := n.apply(data, in, refuse)
	if err := s.checkPeers(ctx, tx, st, n, data, peers); err != nil {
		var inv *refusal.InvalidError
		if !errors.As(err, &inv) {
			return Object{}, err
		}
		refuse(inv.Field, err)
	}
	var prev *Object
	if before != nil {
		o := n.object(before.ID, before.Data)
		prev = &o
	}
	if in.Hook != nil && len(mistakes) == 0 {
		w := &Write{Tx: tx, Branch: branchOf(st.row), Schema: st.schema.schema, Before: prev, After: n.object(id, data), kind: n, data: data}
		if err := in.Hook(ctx, w); err != nil {
			return Object{}, err
		}
	}
	hookRan := in.Hook != nil && len(mistakes) == 0
	for _, err := range n.missing(data) {
		var inv *refusal.InvalidError
		// A field refused is not missing; one a hook fills (number pools'
		// from_pool) is missing only when the hook ran.
		if errors.As(err, &inv) && !refused[inv.Field] && (hookRan || !slices.Contains(in.Fills, inv.Field)) {
			mistakes = append(mistakes, err)
		}
	}
	if err := errors.Join(mistakes...); err != nil {
		return Object{}, err
	}
	after := n.object(id, data)
	w := store.VersionWrite{View: st.row.View(), ID: id, Kind: n.kind.ID, Data: data, Audit: objectAudit(actor, n, prev, after, st.row.Name)}
	if err := s.writeVersion(ctx, tx, st, n, before, w); err != nil {
		return Object{}, err
	}
	return after, nil
}

// objectAudit is the audit entry of the write of after on the branch
// called branch, prev the object as it was (nil for a creation).
func objectAudit(actor auth.Actor, n *nodeKind, prev *Object, after Object, branch string) store.AuditEntry {
	action, before := audit.Create, store.RawJSON(nil)
	if prev != nil {
		action, before = audit.Update, store.JSON(objectDoc(*prev))
	}
	return store.AuditEntry{Actor: actor.Name, Action: action, ObjectKind: n.kind.FullName(), Before: before, After: store.JSON(objectDoc(after)), Branch: branch}
}

// apply applies in to data, the values of an object of n, and returns the
// peers in gives. It tells refuse of every mistake of the input at once,
// by the field's name: a form shows each beside its field.
func (n *nodeKind) apply(data map[string]json.RawMessage, in ObjectInput, refuse func(name string, err error)) []string {
	for _, name := range slices.Sorted(maps.Keys(in.Attributes)) {
		a, ok := n.attrByName[name]
		if !ok {
			refuse(name, invalid(name, "%s: %s has no attribute %s", name, n.kind.FullName(), name))
			continue
		}
		v := in.Attributes[name]
		if v == nil {
			delete(data, a.ID)
			continue
		}
		raw, err := encodeAttribute(a, v)
		if err != nil {
			refuse(name, err)
			continue
		}
		data[a.ID] = raw
	}
	var peers []string
	for _, name := range slices.Sorted(maps.Keys(in.Relationships)) {
		r, ok := n.relByName[name]
		if !ok {
			refuse(name, invalid(name, "%s: %s has no relationship %s", name, n.kind.FullName(), name))
			continue
		}
		ids := in.Relationships[name]
		switch {
		case len(ids) == 0:
			delete(data, r.ID)
			continue
		case r.Cardinality == schema.One && len(ids) > 1:
			refuse(name, invalid(name, "%s: the relationship has cardinality one; give one peer, not %d", name, len(ids)))
			continue
		}
		data[r.ID] = encodePeers(r, ids)
		peers = append(peers, ids...)
	}
	return peers
}

// checkPeers checks that the branch shows every peer, of the kind its
// relationship takes.
func (s *Service) checkPeers(ctx context.Context, q store.Ext, st *branchState, n *nodeKind, data map[string]json.RawMessage, peers []string) error {
	if len(peers) == 0 {
		return nil
	}
	slices.Sort(peers)
	rows, err := store.ObjectsByID(ctx, q, st.row.View(), slices.Compact(peers))
	if err != nil {
		return err
	}
	found := map[string]*nodeKind{}
	for _, r := range rows {
		if pk, ok := st.schema.byID[r.Kind]; ok && !r.Deleted {
			found[r.ID] = pk
		}
	}
	for _, r := range n.relationships {
		raw, ok := data[r.ID]
		if !ok {
			continue
		}
		for _, id := range decodePeers(raw) {
			if !slices.Contains(peers, id) {
				continue // not given by this write: checked when it was
			}
			pk, ok := found[id]
			if !ok {
				return &refusal.NotFoundError{What: fmt.Sprintf("%s: object %s on branch %s", r.Name, id, st.row.Name)}
			}
			if !st.schema.peerAccepts(r, pk) {
				return invalid(r.Name, "%s: %s is a %s; the relationship takes a %s", r.Name, id, pk.kind.FullName(), r.Peer)
			}
		}
	}
	return nil
}

// missing refuses data that lacks a required attribute's value or a
// required relationship's peer: an error of each.
func (n *nodeKind) missing(data map[string]json.RawMessage) []error {
	var errs []error
	for _, a := range n.attributes {
		if _, ok := data[a.ID]; !ok && !a.Optional {
			errs = append(errs, invalid(a.Name, "%s: a value is required", a.Name))
		}
	}
	for _, r := range n.relationships {
		if _, ok := data[r.ID]; !ok && !r.Optional {
			errs = append(errs, invalid(r.Name, "%s: a peer is required", r.Name))
		}
	}
	return errs
}

// writeVersion stores w, the branch's new version of an object of the node
// n, with the unique values it holds, after checking that main at the
// branch point holds none of those it takes anew (on a branch other than
// main). before is the version the branch showed (nil for a new object).
func (s *Service) writeVersion(ctx context.Context, tx *store.Tx, st *branchState, n *nodeKind, before *store.ObjectRow, w store.VersionWrite) error {
	n.replaces(st, before, &w)
	if !st.row.View().OnMain() && len(w.Add) > 0 {
		if err := s.checkMainAtPoint(ctx, tx, st, n, w.ID, w.Data, w.Add); err != nil {
			return err
		}
	}
	seq, refused, err := store.WriteVersion(ctx, tx, w)
	if err != nil {
		return err
	}
	if len(refused) == 0 {
		return s.record(ctx, tx, ObjectsChange{Branch: branchOf(st.row), Schema: st.schema.schema, Actor: w.Audit.Actor, Seq: seq,
			Versions: []Version{{ID: w.ID, Kind: w.Kind, Data: w.Data, Deleted: w.Deleted}}})
	}
	holders, err := store.UniqueHolders(ctx, tx, st.row.ID, refused[:1])
	if err != nil {
		return err
	}
	var others []string
	for _, h := range holders {
		others = append(others, h.Object)
	}
	return uniqueConflict(n, refused[0].Constraint, others)
}

// replaces sets in w what it replaces of before, the version of the
// object the branch showed (nil for a new object): the branch's own
// version it follows (Prev), and the unique values it gives up and takes
// anew (Drop, Add).
func (n *nodeKind) replaces(st *branchState, before *store.ObjectRow, w *store.VersionWrite) {
	var old []store.UniqueValue
	if before != nil && before.BranchID == st.row.ID {
		w.Prev = before.FromSeq
		if !before.Deleted {
			old = n.uniqueValues(before.Data)
		}
	}
	var now []store.UniqueValue
	if !w.Deleted {
		now = n.uniqueValues(w.Data)
	}
	w.Drop, w.Add = uniqueChanges(old, now)
}

// uniqueChanges returns the constraints whose value old holds and now does
// not hold so, and the values now holds that old does not.
func uniqueChanges(old, now []store.UniqueValue) (drop []string, add []store.UniqueValue) {
	held := func(in []store.UniqueValue, u store.UniqueValue) bool {
		return slices.ContainsFunc(in, func(v store.UniqueValue) bool {
			return v.Constraint == u.Constraint && string(v.Hash) == string(u.Hash)
		})
	}
	for _, u := range old {
		if !held(now, u) {
			drop = append(drop, u.Constraint)
		}
	}
	for _, u := range now {
		if !held(old, u) {
			add = append(add, u)
		}
	}
	return drop, add
}

// checkMainAtPoint refuses, on a branch, values that an object of main at
// the branch point holds, unless the branch has its own version of that
// object (its unique values are then the branch's, which the unique index
// compares). main at the branch point never changes: no writer can
// overtake this check.
func (s *Service) checkMainAtPoint(ctx context.Context, q store.Ext, st *branchState, n *nodeKind, id string, data map[string]json.RawMessage, add []store.UniqueValue) error {
	rows, err := store.HeldAtPoint(ctx, q, st.row.View(), n.kind.ID, n.valueDocs(data, add))
	if err != nil {
		return err
	}
	for _, u := range add {
		var holders []string
		for _, r := range rows {
			if r.ID == id {
				continue
			}
			for _, v := range n.uniqueValues(r.Data) {
				if v.Constraint == u.Constraint && string(v.Hash) == string(u.Hash) {
					holders = append(holders, r.ID)
				}
			}
		}
		if len(holders) > 0 {
			return uniqueConflict(n, u.Constraint, holders)
		}
	}
	return nil
}

// valueDocs returns, for each of the unique values add that data holds, a
// document of the values of its constraint's elements: what the data of
// an object holding it holds (jsonb's @>).
func (n *nodeKind) valueDocs(data map[string]json.RawMessage, add []store.UniqueValue) []map[string]json.RawMessage {
	var docs []map[string]json.RawMessage
	for _, u := range add {
		c, ok := n.constraint(u.Constraint)
		if !ok {
			continue
		}
		doc := map[string]json.RawMessage{}
		for _, e := range c.elements {
			doc[e] = data[e]
		}
		docs = append(docs, doc)
	}
	return docs
}

// uniqueConflict is the refusal of a value of the constraint id that the
// objects hold: its message is Infrahub's, the objects are in Objects.
func uniqueConflict(n *nodeKind, id string, holders []string) error {
	c, _ := n.constraint(id)
	field := ""
	if len(c.fields) > 0 {
		field = c.fields[0]
	}
	return &refusal.ConflictError{Field: field, Constraint: c.name, Objects: holders, Message: fmt.Sprintf("Violates uniqueness constraint '%s'", c.name)}
}

// DeleteObject deletes the object id on the branch and returns it as it
// was. It is refused with a *refusal.ConflictError naming the object when a
// required relationship of another object on the branch points at it;
// optional relationships that point at it lose it, in the same change.
func (s *Service) DeleteObject(ctx context.Context, actor auth.Actor, branch, id string) (Object, error) {
	if !actor.IsOperator() {
		return Object{}, notFound("branch %s", branch)
	}
	oid, ok := parseObjectID(id)
	if !ok {
		return Object{}, notFound("object %s on branch %s", id, branch)
	}
	if s.inOneStatement(ObjectInput{}) {
		out, err := s.deleteInOneStatement(ctx, actor, branch, oid)
		if !errors.Is(err, store.ErrTransactionNeeded) {
			return out, err
		}
	}
	var out Object
	err := s.write(ctx, branch, store.ObjectLocks{Exclusive: []string{oid}}, func(tx *store.Tx, st *branchState) error {
		before, n, err := s.current(ctx, tx, st, oid)
		if err != nil {
			return err
		}
		out = n.object(oid, before.Data)
		cleared, err := s.releaseReferences(ctx, tx, st, n, out)
		if err != nil {
			return err
		}
		w := store.VersionWrite{View: st.row.View(), ID: oid, Kind: n.kind.ID, Data: before.Data, Deleted: true,
			Audit: store.AuditEntry{Actor: actor.Name, Action: audit.Delete, ObjectKind: n.kind.FullName(), Before: store.JSON(objectDoc(out)),
				After: deletionRecord(cleared), Branch: st.row.Name}}
		return s.writeVersion(ctx, tx, st, n, &before, w)
	})
	return out, err
}

// deletionRecord is the After of a deletion's audit entry: nil, or the
// objects whose relationships lost the object.
func deletionRecord(cleared []string) store.RawJSON {
	if len(cleared) == 0 {
		return nil
	}
	return store.JSON(audit.ObjectDeletion{Deleted: true, RelationshipsCleared: cleared})
}

// objectDoc is the audit log's document of o: audit.Object has Object's
// fields, so that a field added to one and not to the other does not
// compile.
func objectDoc(o Object) audit.Object { return audit.Object(o) }

// releaseReferences refuses the deletion of o when a required
// relationship of another object points at it, and removes o from the
// optional ones; it returns the ids of the objects it changed.
func (s *Service) releaseReferences(ctx context.Context, tx *store.Tx, st *branchState, n *nodeKind, o Object) ([]string, error) {
	referrers, err := s.referrers(ctx, tx, st, n, []string{o.ID})
	if err != nil {
		return nil, err
	}
	var cleared []string
	for _, ref := range referrers {
		if ref.row.ID == o.ID {
			continue
		}
		for _, r := range ref.required {
			label := ref.kind.displayLabel(ref.row.ID, ref.row.Data)
			return nil, &refusal.ConflictError{Field: "id", Objects: []string{ref.row.ID},
				Message: fmt.Sprintf("cannot delete %s %s: %s %s (%s) points at it with its required relationship %s",
					o.Kind, o.ID, ref.kind.kind.FullName(), label, ref.row.ID, r.Name)}
		}
	}
	for _, ref := range referrers {
		if ref.row.ID == o.ID {
			continue
		}
		data := maps.Clone(ref.row.Data)
		for _, r := range ref.optional {
			peers := slices.DeleteFunc(decodePeers(data[r.ID]), func(p string) bool { return p == o.ID })
			if len(peers) == 0 {
				delete(data, r.ID)
			} else {
				data[r.ID] = encodePeers(r, peers)
			}
		}
		row := ref.row
		w := store.VersionWrite{View: st.row.View(), ID: row.ID, Kind: row.Kind, Data: data}
		if err := s.writeVersion(ctx, tx, st, ref.kind, &row, w); err != nil {
			return nil, err
		}
		cleared = append(cleared, row.ID)
	}
	return cleared, nil
}

// pointing returns the node kinds (their ids) whose relationships may
// point at objects of the node n, and, for each of ids (objects of n),
// what the data of an object pointing at it holds (jsonb's @>).
func (c *compiled) pointing(n *nodeKind, ids []string) (kinds []string, docs []map[string]json.RawMessage) {
	for _, k := range c.nodes {
		pointing := false
		for _, r := range k.relationships {
			if !c.peerAccepts(r, n) {
				continue
			}
			pointing = true
			for _, id := range ids {
				docs = append(docs, map[string]json.RawMessage{r.ID: encodePeers(r, []string{id})})
			}
		}
		if pointing {
			kinds = append(kinds, k.kind.ID)
		}
	}
	return kinds, docs
}

// A referrer is an object whose relationships point at objects looked for.
type referrer struct {
	row                store.ObjectRow
	kind               *nodeKind
	required, optional []schema.Relationship
}

// referrers returns the objects the branch shows whose relationships
// point at one of ids (objects of the node n) at least: one statement.
func (s *Service) referrers(ctx context.Context, q store.Ext, st *branchState, n *nodeKind, ids []string) ([]referrer, error) {
	kinds, docs := st.schema.pointing(n, ids)
	if len(kinds) == 0 {
		return nil, nil
	}
	rows, _, err := store.Objects(ctx, q, st.row.View(), store.ObjectFilter{Kinds: kinds, AnyContains: docs})
	if err != nil {
		return nil, err
	}
	var out []referrer
	for _, row := range rows {
		k := st.schema.byID[row.Kind]
		ref := referrer{row: row, kind: k}
		for _, r := range k.relationships {
			if raw, ok := row.Data[r.ID]; ok && st.schema.peerAccepts(r, n) && slices.ContainsFunc(decodePeers(raw), func(p string) bool { return slices.Contains(ids, p) }) {
				if r.Optional {
					ref.optional = append(ref.optional, r)
				} else {
					ref.required = append(ref.required, r)
				}
			}
		}
		if len(ref.required)+len(ref.optional) > 0 {
			out = append(out, ref)
		}
	}
	return out, nil
}
