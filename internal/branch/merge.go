package branch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

// MergeBranch applies the branch's changes (schema and objects) to main in
// one transaction and rebases the branch onto the result: it stays, with
// no change of its own, seeing main as the merge left it. It costs in
// proportion to what the branch changed (and, when it changed the schema,
// to the objects of the kinds it changed).
//
// It is refused with a *MergeError, main and the branch untouched, when an
// attribute or a relationship of an object was changed on both sides
// since the branch point (to different values), an object was deleted on
// one side and changed on the other, an element of the schema was changed
// on both sides, the result would break a unique attribute or a
// uniqueness constraint, a relationship would point at an object deleted
// on the other side, or the merged schema refuses an object. main cannot
// be merged.
func (s *Service) MergeBranch(ctx context.Context, actor auth.Actor, name string) (Branch, error) {
	return s.integrate(ctx, actor, name, "merge", false)
}

// CheckMerge says whether MergeBranch would merge the branch now: nil, or
// the *MergeError it would refuse with (or its other errors). It works the
// merge out as MergeBranch does, holding the branch and main alone
// meanwhile, and rolls it back: it costs what the merge would cost, and
// changes nothing.
func (s *Service) CheckMerge(ctx context.Context, actor auth.Actor, name string) error {
	_, err := s.integrate(ctx, actor, name, "merge", true)
	return err
}

// RebaseBranch moves the branch point to main's head: the branch then sees
// main as it is now, plus its own changes, which are applied onto it
// element by element. It is refused, with MergeBranch's *MergeError, when
// they conflict with what main changed since the branch point. main cannot
// be rebased.
func (s *Service) RebaseBranch(ctx context.Context, actor auth.Actor, name string) (Branch, error) {
	return s.integrate(ctx, actor, name, "rebase", false)
}

// errDryRun rolls back a merge that CheckMerge worked out.
var errDryRun = errors.New("branch: a merge checked, not made")

// integrate merges or rebases (action) the branch called name, in one
// change (tried again when a deadlock refuses it, see change); with dryRun
// it rolls the change back once worked out. A refusal's objects and peers
// are then labelled (describe).
func (s *Service) integrate(ctx context.Context, actor auth.Actor, name, action string, dryRun bool) (Branch, error) {
	if !actor.IsOperator() {
		return Branch{}, notFound("branch %s", name)
	}
	if name == Main {
		return Branch{}, invalid("name", "branch main is the default branch; it cannot be %sd", action)
	}
	var out Branch
	var mainChanged bool
	err := s.change(ctx, func(tx *store.Tx) error {
		// The branch, then main: every merge and rebase locks in this
		// order, and writes lock one branch only.
		b, err := store.LockBranch(ctx, tx, name, store.ExclusiveBranch, store.ObjectLocks{})
		if errors.Is(err, store.ErrNotFound) {
			return notFound("branch %s", name)
		}
		if err != nil {
			return err
		}
		m, err := store.LockBranch(ctx, tx, Main, store.ExclusiveBranch, store.ObjectLocks{})
		if err != nil {
			return err
		}
		in := &integration{s: s, ctx: ctx, tx: tx, actor: actor, action: action, branch: b, main: m,
			refusal: &MergeError{Branch: name, Action: action}}
		if err := in.run(); err != nil {
			return err
		}
		out, mainChanged = branchOf(in.branch), in.mainChanged
		out.Changed = action == "rebase" && (out.OwnSchema || len(in.changed) > 0)
		if dryRun {
			return errDryRun
		}
		return nil
	})
	var refusal *MergeError
	switch {
	case errors.Is(err, errDryRun):
		return out, nil
	case errors.As(err, &refusal):
		if derr := s.describe(ctx, name, refusal); derr != nil {
			return Branch{}, derr
		}
		return Branch{}, refusal
	case err != nil:
		return Branch{}, err
	}
	s.forget(out.ID)
	if mainChanged {
		s.forget(store.MainBranchID)
	}
	return out, nil
}

// An integration is a merge or a rebase in progress, in its transaction.
type integration struct {
	s      *Service
	ctx    context.Context
	tx     *store.Tx
	actor  auth.Actor
	action string
	// branch and main are the branches' rows as locked; branch is the row
	// after the change once run returns.
	branch, main store.BranchRow

	base, ours, theirs *compiled // the schema at the branch point, the branch's, main's
	merged             *compiled
	schemaChanges      schema.Changes // merged from theirs
	// final is each object the branch has a version of as it ends up on
	// the branch (and, for a merge, on main); changed lists those whose end
	// differs from main's head (in id order); same those that main's head
	// shows as they end.
	final   map[string]store.ObjectRow
	changed []store.ObjectRow
	same    []string

	// resolutions are the sides chosen for conflicts (ResolveConflict),
	// by object and element (resolutionKey).
	resolutions map[string]store.MergeResolution

	mainChanged bool
	refusal     *MergeError
}

// run merges or rebases. Every step runs even when an earlier one found
// conflicts, on what did not conflict, so that a refusal lists everything
// that stands in the way together (field conflicts and uniqueness
// constraints alike); the transaction is then rolled back, nothing merged.
// Once a step found a conflict, an error of a later step (an object the
// partial merge leaves inconsistent) gives way to the refusal.
func (in *integration) run() error {
	if err := in.mergeSchemas(); err != nil {
		return err
	}
	if err := in.mergeObjects(); err != nil {
		return err
	}
	if err := in.checkReferences(); err != nil {
		return in.refusalOr(err)
	}
	seq, err := store.NextChange(in.ctx, in.tx)
	if err != nil {
		return err
	}
	if in.action == "merge" {
		err = in.merge(seq)
	} else {
		err = in.rebase(seq)
	}
	if err != nil {
		return in.refusalOr(err)
	}
	if !in.refusal.empty() {
		return in.refusal
	}
	return nil
}

// refusalOr returns the refusal when it lists a conflict, else err.
func (in *integration) refusalOr(err error) error {
	if !in.refusal.empty() {
		return in.refusal
	}
	return err
}

// mergeSchemas works out the schema the branch and main end with: main's
// when the branch did not change its own, else the branch's changes
// applied onto main's, element by element.
func (in *integration) mergeSchemas() error {
	ms, err := in.s.stateOf(in.ctx, in.tx, in.main)
	if err != nil {
		return err
	}
	bs, err := in.s.stateOf(in.ctx, in.tx, in.branch)
	if err != nil {
		return err
	}
	in.theirs, in.ours = ms.schema, bs.schema
	in.base, err = in.s.readSchema(in.ctx, in.tx, store.BranchRow{ID: in.branch.ID, Name: in.branch.Name, BranchedFrom: in.branch.BranchedFrom})
	if err != nil {
		return err
	}
	in.merged = in.theirs
	if in.branch.SchemaSeq == 0 || sameSchema(in.ours.schema, in.base.schema) {
		return nil
	}
	file, conflicts := diffSchemas(in.base.schema, in.ours.schema, in.theirs.schema)
	if len(conflicts) > 0 {
		in.refusal.Elements = append(in.refusal.Elements, conflicts...)
		return nil
	}
	next, changes, err := in.theirs.schema.Apply(newElementID, file)
	if err != nil {
		in.refusal.Invalid = append(in.refusal.Invalid, InvalidObject{Message: "the branch's schema changes do not apply to main's: " + err.Error()})
		return nil
	}
	in.merged, in.schemaChanges = compile(next), changes
	return nil
}

// mergeObjects works out, for each object the branch has a version of, how
// it ends: the branch's version when main did not change it since the
// branch point, main's when the branch did not, else both sides' changes
// field by field; a field changed on both sides, or an object deleted on
// one side and changed on the other, is a conflict.
func (in *integration) mergeObjects() error {
	mine, err := store.BranchObjects(in.ctx, in.tx, in.branch.ID)
	if err != nil {
		return err
	}
	ids := make([]string, len(mine))
	for i, r := range mine {
		ids[i] = r.ID
	}
	base, err := store.MainObjectsAt(in.ctx, in.tx, ids, in.branch.BranchedFrom)
	if err != nil {
		return err
	}
	head, err := store.MainObjectsAt(in.ctx, in.tx, ids, 0)
	if err != nil {
		return err
	}
	bases, heads := byID(base), byID(head)
	resolutions, err := store.MergeResolutions(in.ctx, in.tx, in.branch.ID)
	if err != nil {
		return err
	}
	in.resolutions = map[string]store.MergeResolution{}
	for _, r := range resolutions {
		in.resolutions[resolutionKey(r.Object, r.Element)] = r
	}
	in.final = map[string]store.ObjectRow{}
	for _, o := range mine {
		b, existed := bases[o.ID]
		t := heads[o.ID]
		end, ok := in.threeWay(o, b, t, existed)
		if !ok {
			continue
		}
		in.final[o.ID] = end
		if existed && sameVersion(end, t) || !existed && end.Deleted {
			in.same = append(in.same, o.ID)
			continue
		}
		if !end.Deleted {
			n, ok := in.merged.byID[end.Kind]
			if !ok {
				in.refusal.Invalid = append(in.refusal.Invalid, InvalidObject{Object: end.ID, Kind: in.kindName(end.Kind),
					Message: "its kind is not in the merged schema"})
				continue
			}
			old := n
			if k, ok := in.ours.byID[end.Kind]; ok {
				old = k
			}
			data, _, err := n.migrateData(old, end.ID, end.Data)
			if err != nil {
				in.refusal.Invalid = append(in.refusal.Invalid, InvalidObject{Object: end.ID, Kind: n.kind.FullName(), Message: err.Error()})
				continue
			}
			end.Data = data
			in.final[o.ID] = end
		}
		in.changed = append(in.changed, end)
	}
	return nil
}

// threeWay returns how the object of the branch's version o ends, given
// main's version at the branch point b (when it existed then) and at its
// head t; false when it conflicts (the conflicts are recorded). A conflict
// for which a side was chosen (ResolveConflict), while both sides still
// hold what they held then, ends as that side has it.
func (in *integration) threeWay(o, b, t store.ObjectRow, existed bool) (store.ObjectRow, bool) {
	if !existed {
		return o, true // made on the branch
	}
	oursChanged, theirsChanged := !sameVersion(o, b), !sameVersion(t, b)
	switch {
	case !oursChanged:
		return t, true
	case !theirsChanged:
		return o, true
	case o.Deleted && t.Deleted:
		return t, true
	case deletedAgainstChanged(b, o, t):
		switch in.resolved(o.ID, "", versionPrint(t), versionPrint(o)) {
		case SideMain:
			return t, true
		case SideBranch:
			return o, true
		}
		in.refusal.Fields = append(in.refusal.Fields, FieldConflict{Object: o.ID, Kind: in.kindName(o.Kind), Label: in.label(o),
			Main: Value{Deleted: t.Deleted}, Branch: Value{Deleted: o.Deleted}})
		return o, false
	}
	end := o
	end.Data = map[string]json.RawMessage{}
	ok := true
	for _, k := range slices.Sorted(maps.Keys(unionKeys(b.Data, o.Data, t.Data))) {
		bv, ov, tv := b.Data[k], o.Data[k], t.Data[k]
		v := ov
		switch {
		case bytes.Equal(ov, bv):
			v = tv
		case changedOnBothSides(b, o, t, k):
			switch in.resolved(o.ID, k, valuePrint(tv), valuePrint(ov)) {
			case SideMain:
				v = tv
			case SideBranch:
			default:
				in.refusal.Fields = append(in.refusal.Fields, FieldConflict{Object: o.ID, Kind: in.kindName(o.Kind), Field: in.elementName(k),
					Label: in.label(o), Main: in.theirs.valueOf(k, tv), Branch: in.ours.valueOf(k, ov)})
				ok = false
			}
		}
		if v != nil {
			end.Data[k] = v
		}
	}
	return end, ok
}

// resolved returns the side chosen for the element (or the whole object,
// "") of the object id, when main's and the branch's prints are still those
// it was chosen against; "" otherwise.
func (in *integration) resolved(id, element string, mainPrint, branchPrint *string) Side {
	r, ok := in.resolutions[resolutionKey(id, element)]
	if !ok || !samePrint(r.MainValue, mainPrint) || !samePrint(r.BranchValue, branchPrint) {
		return ""
	}
	return Side(r.Side)
}

// label is the display label of the branch's version o.
func (in *integration) label(o store.ObjectRow) string {
	for _, c := range []*compiled{in.ours, in.theirs, in.base} {
		if n, ok := c.byID[o.Kind]; ok {
			return n.displayLabel(o.ID, o.Data)
		}
	}
	return o.ID
}

// merge applies the changed objects and the merged schema to main at the
// change seq, and rebases the branch onto it.
func (in *integration) merge(seq int64) error {
	ctx, tx := in.ctx, in.tx
	if err := store.ApplyToMain(ctx, tx, seq, in.changed); err != nil {
		return err
	}
	if err := in.s.record(ctx, tx, ObjectsChange{Branch: branchOf(in.main), Schema: in.merged.schema, Actor: in.actor.Name, Seq: seq,
		Versions: versionsOf(in.changed)}); err != nil {
		return err
	}
	if err := in.replaceUniqueValues(store.MainBranchID, in.changed); err != nil || !in.refusal.empty() {
		return err
	}
	if !sameSchema(in.merged.schema, in.theirs.schema) {
		if err := in.changeSchema(in.main, in.theirs, seq); err != nil || !in.refusal.empty() {
			return err
		}
		if err := store.InsertKindSchema(ctx, tx, store.MainBranchID, seq, in.merged.schema.JSON(), in.actor.Name); err != nil {
			return err
		}
		in.mainChanged = true
	}
	if err := store.DropBranchObjects(ctx, tx, in.branch.ID); err != nil {
		return err
	}
	if err := store.DeleteKindSchemas(ctx, tx, in.branch.ID, 0); err != nil {
		return err
	}
	if err := in.dropResolutions(); err != nil {
		return err
	}
	row, err := store.SetBranchPoint(ctx, tx, in.branch.ID, seq, 0, in.actor.Name)
	if err != nil {
		return err
	}
	in.branch = row
	if err := in.s.record(ctx, tx, ObjectsChange{Branch: branchOf(row), Schema: in.merged.schema, Actor: in.actor.Name, Seq: seq, Emptied: true}); err != nil {
		return err
	}
	return store.InsertAudit(ctx, tx, store.AuditEntry{Actor: in.actor.Name, Action: audit.Merge, ObjectKind: audit.KindBranch, ObjectName: row.Name,
		After: store.JSON(in.record()), Branch: Main})
}

// rebase moves the branch point to seq (main's head, locked), keeping the
// branch's changes as merged onto it.
func (in *integration) rebase(seq int64) error {
	ctx, tx := in.ctx, in.tx
	if err := store.RebaseVersions(ctx, tx, in.branch.ID, seq, in.changed, in.same); err != nil {
		return err
	}
	own := !sameSchema(in.merged.schema, in.theirs.schema)
	ownSeq := int64(0)
	if own {
		ownSeq = seq
	}
	row, err := store.SetBranchPoint(ctx, tx, in.branch.ID, seq, ownSeq, "")
	if err != nil {
		return err
	}
	if err := in.dropResolutions(); err != nil {
		return err
	}
	in.branch = row
	if own {
		if err := store.InsertKindSchema(ctx, tx, row.ID, seq, in.merged.schema.JSON(), in.actor.Name); err != nil {
			return err
		}
	}
	if err := store.DeleteKindSchemas(ctx, tx, row.ID, ownSeq); err != nil {
		return err
	}
	if err := in.replaceUniqueValues(row.ID, in.changed); err != nil {
		return err
	}
	if err := in.checkMainAtHead(); err != nil || !in.refusal.empty() {
		return err
	}
	if err := in.s.record(ctx, tx, ObjectsChange{Branch: branchOf(row), Schema: in.merged.schema, Actor: in.actor.Name, Seq: seq,
		Versions: versionsOf(in.changed), Dropped: in.same, Rebased: true}); err != nil {
		return err
	}
	if own {
		if err := in.changeSchema(row, in.theirs, seq); err != nil {
			return err
		}
	}
	return store.InsertAudit(ctx, tx, store.AuditEntry{Actor: in.actor.Name, Action: audit.Rebase, ObjectKind: audit.KindBranch, ObjectName: row.Name,
		After: store.JSON(in.record()), Branch: row.Name})
}

// dropResolutions deletes the branch's resolutions, which the change
// applied: the branch's changes are relative to main's head now.
func (in *integration) dropResolutions() error {
	if len(in.resolutions) == 0 {
		return nil
	}
	return store.DropMergeResolutions(in.ctx, in.tx, in.branch.ID)
}

// changeSchema asks the guard about the merged schema on the branch of row
// (main for a merge), and migrates the objects it shows from the schema
// before to the merged one (see LoadSchema); an object the merged schema
// refuses is recorded.
func (in *integration) changeSchema(row store.BranchRow, before *compiled, seq int64) error {
	if in.s.guard != nil {
		if err := in.s.guard(in.ctx, in.tx, SchemaChange{Branch: branchOf(row), Before: before.schema, After: in.merged.schema, Changes: in.schemaChanges}); err != nil {
			return err
		}
	}
	err := in.s.migrate(in.ctx, in.tx, &branchState{row: row, schema: before}, in.merged)
	var bad *refusal.InvalidError
	if errors.As(err, &bad) {
		in.refusal.Invalid = append(in.refusal.Invalid, InvalidObject{Message: bad.Message})
		return nil
	}
	return err
}

// replaceUniqueValues records the unique values of the changed objects on
// the branch id, recording those another object holds there as conflicts.
func (in *integration) replaceUniqueValues(branchID int64, rows []store.ObjectRow) error {
	var ids []string
	var holders []store.UniqueHolder
	for _, r := range rows {
		ids = append(ids, r.ID)
		if r.Deleted {
			continue
		}
		if n, ok := in.merged.byID[r.Kind]; ok {
			for _, u := range n.uniqueValues(r.Data) {
				holders = append(holders, store.UniqueHolder{UniqueValue: u, Object: r.ID})
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	refused, err := store.ReplaceUniqueValues(in.ctx, in.tx, branchID, ids, holders)
	if err != nil || len(refused) == 0 {
		return err
	}
	values := make([]store.UniqueValue, len(refused))
	for i, r := range refused {
		values[i] = r.UniqueValue
	}
	held, err := store.UniqueHolders(in.ctx, in.tx, branchID, values)
	if err != nil {
		return err
	}
	for _, r := range refused {
		objects := []string{r.Object}
		for _, h := range held {
			if h.Constraint == r.Constraint && bytes.Equal(h.Hash, r.Hash) && h.Object != r.Object {
				objects = append(objects, h.Object)
			}
		}
		in.uniqueConflict(in.final[r.Object].Kind, r.Constraint, objects)
	}
	return nil
}

// uniqueConflict records a value of the constraint id of the kind id that
// the objects would hold.
func (in *integration) uniqueConflict(kind, id string, objects []string) {
	n := in.merged.byID[kind]
	c, _ := n.constraint(id)
	in.refusal.Unique = append(in.refusal.Unique, UniqueConflict{Kind: n.kind.FullName(), Constraint: c.name, Objects: objects})
}

// checkMainAtHead records, after a rebase, the unique values of the
// branch's changed objects that an object of main at the new branch point
// holds, which the branch does not shadow.
func (in *integration) checkMainAtHead() error {
	var docs []map[string]json.RawMessage
	kinds := map[string]bool{}
	for _, r := range in.changed {
		n, ok := in.merged.byID[r.Kind]
		if r.Deleted || !ok {
			continue
		}
		for _, c := range n.constraints {
			doc := map[string]json.RawMessage{}
			for _, e := range c.elements {
				doc[e] = r.Data[e]
			}
			if _, ok := c.hash(r.Data); ok {
				docs, kinds[r.Kind] = append(docs, doc), true
			}
		}
	}
	if len(docs) == 0 {
		return nil
	}
	rows, _, err := store.Objects(in.ctx, in.tx, in.branch.View(), store.ObjectFilter{Kinds: slices.Sorted(maps.Keys(kinds)), AnyContains: docs, FromMainOnly: true})
	if err != nil {
		return err
	}
	held := map[string][]string{}
	for _, r := range rows {
		if n, ok := in.merged.byID[r.Kind]; ok {
			for _, u := range n.uniqueValues(r.Data) {
				key := u.Constraint + "\x00" + string(u.Hash)
				held[key] = append(held[key], r.ID)
			}
		}
	}
	for _, r := range in.changed {
		n, ok := in.merged.byID[r.Kind]
		if r.Deleted || !ok {
			continue
		}
		for _, u := range n.uniqueValues(r.Data) {
			if others := held[u.Constraint+"\x00"+string(u.Hash)]; len(others) > 0 {
				in.uniqueConflict(r.Kind, u.Constraint, append([]string{r.ID}, others...))
			}
		}
	}
	return nil
}

// checkReferences records the relationships that would point at an object
// gone once the change is made: the branch's objects pointing at objects
// main deleted, main's pointing at objects the branch deleted.
func (in *integration) checkReferences() error {
	var wanted []string
	for _, r := range in.final {
		if r.Deleted {
			continue
		}
		for _, p := range in.peers(r) {
			if _, ok := in.final[p]; !ok {
				wanted = append(wanted, p)
			}
		}
	}
	slices.Sort(wanted)
	found, err := store.MainObjectsAt(in.ctx, in.tx, slices.Compact(wanted), 0)
	if err != nil {
		return err
	}
	alive := map[string]string{} // id → kind id, of the objects there will be
	for _, f := range found {
		if !f.Deleted {
			alive[f.ID] = f.Kind
		}
	}
	for id, r := range in.final {
		if !r.Deleted {
			alive[id] = r.Kind
		}
	}
	for _, id := range slices.Sorted(maps.Keys(in.final)) {
		r := in.final[id]
		n, ok := in.merged.byID[r.Kind]
		if r.Deleted || !ok {
			continue
		}
		for _, rel := range n.relationships {
			for _, p := range decodePeers(r.Data[rel.ID]) {
				kind, ok := alive[p]
				switch {
				case !ok:
					in.refusal.References = append(in.refusal.References, ReferenceConflict{Object: id, Kind: n.kind.FullName(), Field: rel.Name, Peer: p})
				case in.merged.byID[kind] == nil || !in.merged.peerAccepts(rel, in.merged.byID[kind]):
					in.refusal.Invalid = append(in.refusal.Invalid, InvalidObject{Object: id, Kind: n.kind.FullName(), Field: rel.Name,
						Message: rel.Name + ": the peer " + p + " is not a " + rel.Peer})
				}
			}
		}
	}
	return in.checkDeletedPointedAt()
}

// checkDeletedPointedAt records main's objects (those the branch has no
// version of) that point at objects the branch deleted.
func (in *integration) checkDeletedPointedAt() error {
	byKind := map[string][]string{}
	for _, id := range slices.Sorted(maps.Keys(in.final)) {
		if r := in.final[id]; r.Deleted {
			byKind[r.Kind] = append(byKind[r.Kind], id)
		}
	}
	main := &branchState{row: in.main, schema: in.merged}
	for _, kind := range slices.Sorted(maps.Keys(byKind)) {
		n, ok := in.merged.byID[kind]
		if !ok {
			continue
		}
		refs, err := in.s.referrers(in.ctx, in.tx, main, n, byKind[kind])
		if err != nil {
			return err
		}
		for _, ref := range refs {
			if _, mine := in.final[ref.row.ID]; mine {
				continue
			}
			for _, rel := range slices.Concat(ref.required, ref.optional) {
				for _, p := range decodePeers(ref.row.Data[rel.ID]) {
					if slices.Contains(byKind[kind], p) {
						in.refusal.References = append(in.refusal.References, ReferenceConflict{Object: ref.row.ID, Kind: ref.kind.kind.FullName(), Field: rel.Name, Peer: p})
					}
				}
			}
		}
	}
	return nil
}

// peers returns the ids the object's relationships point at.
func (in *integration) peers(r store.ObjectRow) []string {
	var out []string
	if n, ok := in.merged.byID[r.Kind]; ok {
		for _, rel := range n.relationships {
			out = append(out, decodePeers(r.Data[rel.ID])...)
		}
	}
	return out
}

// record is what the audit entry of the change says.
func (in *integration) record() audit.Integration {
	changed := make([]string, len(in.changed))
	for i, r := range in.changed {
		changed[i] = r.ID
	}
	return audit.Integration{Branch: in.branch.Name, BranchedFrom: in.branch.BranchedFrom, Objects: changed, Schema: changeRecords(in.schemaChanges)}
}

// kindName is the full name of the kind id, in any of the schemas.
func (in *integration) kindName(id string) string {
	for _, c := range []*compiled{in.merged, in.ours, in.theirs, in.base} {
		if n, ok := c.byID[id]; ok {
			return n.kind.FullName()
		}
	}
	return id
}

// elementName is the name of the element id, in any of the schemas.
func (in *integration) elementName(id string) string {
	for _, c := range []*compiled{in.merged, in.ours, in.theirs, in.base} {
		if e, ok := c.schema.Element(id); ok {
			switch e.Type {
			case schema.AttributeElement:
				return e.Attribute.Name
			case schema.RelationshipElement:
				return e.Relationship.Name
			}
		}
	}
	return id
}

// sameVersion reports whether two versions say the same of an object.
func sameVersion(a, b store.ObjectRow) bool {
	if a.Deleted != b.Deleted || len(a.Data) != len(b.Data) {
		return false
	}
	for k, v := range a.Data {
		if w, ok := b.Data[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

func byID(rows []store.ObjectRow) map[string]store.ObjectRow {
	out := make(map[string]store.ObjectRow, len(rows))
	for _, r := range rows {
		out[r.ID] = r
	}
	return out
}

func unionKeys(ms ...map[string]json.RawMessage) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			out[k] = true
		}
	}
	return out
}
