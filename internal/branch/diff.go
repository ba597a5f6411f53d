package branch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

// A BranchDiff is what a branch changed against its branch point: what a
// merge would bring to main, as the branch's page shows it.
type BranchDiff struct {
	// Branch is the branch, its state (Branch.State) included.
	Branch Branch
	// Added are the objects made on the branch, with their values (After);
	// Changed those of main it changed, with the fields that differ
	// (Before → After); Removed those of main it deleted, with the values
	// they had (Before). Each in id order: the order they were made.
	Added, Changed, Removed []ObjectDiff
	// Schema lists the kinds, attributes and relationships the branch
	// added, changed and removed, as a schema load lists them.
	Schema schema.Changes
	// Numbers are the numbers of number pools that the branch's versions
	// of objects hold, by pool name, division and number.
	Numbers []HeldNumber
	// Resolutions are the sides chosen for conflicts of the branch's merge
	// (ResolveConflict) that its next merge or rebase will apply.
	Resolutions []Resolution
}

// An ObjectDiff is an object the branch added, changed or removed.
type ObjectDiff struct {
	Ref
	Fields []FieldDiff
}

// A FieldDiff is an attribute or a relationship of an object, before
// (main at the branch point) and after (on the branch).
type FieldDiff struct {
	Field         string
	Before, After Value
}

// A HeldNumber is a number of a pool that an object of the branch holds.
type HeldNumber struct {
	PoolID, Pool string
	// Division is the division's display label: its scope elements'
	// values (a peer by its display label) joined by " / "; "" for a pool
	// without a scope.
	Division string
	Number   int64
	Object   Ref
	// New says that the object did not hold this number at the branch
	// point (it was made on the branch, or its number changed there).
	New bool
}

// BranchDiff returns what the branch called name changed against its
// branch point (see BranchDiff), read in one snapshot of a few
// statements: the branch's row, its own versions, main's versions of the
// same objects at the branch point, the schema at the branch point (when
// the branch has its own), the numbers they hold, the resolutions, and the
// labels of the peers and divisions named. Operators only; main has no
// branch point (an *refusal.InvalidError).
func (s *Service) BranchDiff(ctx context.Context, actor auth.Actor, name string) (BranchDiff, error) {
	if !actor.IsOperator() {
		return BranchDiff{}, notFound("branch %s", name)
	}
	if name == Main {
		return BranchDiff{}, invalid("name", "branch main is the default branch: it has no branch point to compare with")
	}
	var d BranchDiff
	err := s.inSnapshot(ctx, func(tx *store.Tx) error {
		st, err := store.BranchStatusOf(ctx, tx, name)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("branch %s", name)
		}
		if err != nil {
			return err
		}
		w := &differ{s: s, ctx: ctx, tx: tx, row: st.BranchRow, labels: newLabeler()}
		d, err = w.diff()
		d.Branch = branchStatusOf(st)
		return err
	})
	return d, err
}

// inSnapshot runs fn in a read-only snapshot (store.InSnapshot), having
// prepared the statements (see inTx).
func (s *Service) inSnapshot(ctx context.Context, fn func(tx *store.Tx) error) error {
	if !s.prepared.Load() {
		if err := store.PrepareStatements(ctx, s.db); err != nil {
			return err
		}
		s.prepared.Store(true)
	}
	return store.InSnapshot(ctx, s.db, fn)
}

// A differ works out a branch's diff in its snapshot.
type differ struct {
	s   *Service
	ctx context.Context
	tx  *store.Tx
	row store.BranchRow
	// ours and base are the branch's schema and main's at the branch
	// point.
	ours, base *compiled
	labels     *labeler
}

func (w *differ) diff() (BranchDiff, error) {
	var d BranchDiff
	st, err := w.s.stateOf(w.ctx, w.tx, w.row)
	if err != nil {
		return d, err
	}
	w.ours, w.base = st.schema, st.schema
	if w.row.SchemaSeq != 0 {
		if w.base, err = w.s.readSchema(w.ctx, w.tx, store.BranchRow{ID: w.row.ID, Name: w.row.Name, BranchedFrom: w.row.BranchedFrom}); err != nil {
			return d, err
		}
		d.Schema = schema.Diff(w.base.schema, w.ours.schema)
	}
	mine, err := store.BranchObjects(w.ctx, w.tx, w.row.ID)
	if err != nil {
		return d, err
	}
	ids, live := make([]string, len(mine)), []string{}
	for i, o := range mine {
		ids[i] = o.ID
		if !o.Deleted {
			live = append(live, o.ID)
		}
	}
	at, err := store.MainObjectsAt(w.ctx, w.tx, ids, w.row.BranchedFrom)
	if err != nil {
		return d, err
	}
	bases := byID(at)
	for _, o := range mine {
		b, existed := bases[o.ID]
		existed = existed && !b.Deleted
		switch {
		case !existed && o.Deleted:
		case !existed:
			d.Added = append(d.Added, w.object(o, store.ObjectRow{}, o))
		case o.Deleted:
			d.Removed = append(d.Removed, w.object(o, b, store.ObjectRow{}))
		default:
			if c := w.object(o, b, o); len(c.Fields) > 0 {
				d.Changed = append(d.Changed, c)
			}
		}
	}
	numbers, err := store.BranchNumbers(w.ctx, w.tx, w.row.ID, live)
	if err != nil {
		return d, err
	}
	resolutions, err := store.MergeResolutions(w.ctx, w.tx, w.row.ID)
	if err != nil {
		return d, err
	}
	for _, r := range resolutions {
		res := w.resolution(r)
		w.labels.want(r.Object)
		w.labels.wantValue(res.Kept)
		d.Resolutions = append(d.Resolutions, res)
	}
	for _, n := range numbers {
		w.labels.want(n.Object)
		w.wantDivision(n)
	}
	if ids := w.labels.missing(); len(ids) > 0 {
		rows, err := store.ObjectsByID(w.ctx, w.tx, w.row.View(), ids)
		if err != nil {
			return d, err
		}
		w.labels.learn(rows, nil, w.ours, w.base)
	}
	for _, list := range [][]ObjectDiff{d.Added, d.Changed, d.Removed} {
		for i := range list {
			for j := range list[i].Fields {
				w.labels.fill(&list[i].Fields[j].Before)
				w.labels.fill(&list[i].Fields[j].After)
			}
		}
	}
	for _, n := range numbers {
		h := HeldNumber{PoolID: n.Pool, Pool: n.PoolName, Division: w.division(n), Number: n.Number, Object: w.labels.ref(n.Object)}
		b, existed := bases[n.Object]
		h.New = !existed || b.Deleted || string(b.Data[n.AttributeID]) != strconv.FormatInt(n.Number, 10)
		d.Numbers = append(d.Numbers, h)
	}
	for i := range d.Resolutions {
		d.Resolutions[i].Object = w.labels.ref(d.Resolutions[i].Object.ID)
		w.labels.fill(&d.Resolutions[i].Kept)
	}
	return d, nil
}

// object is the diff of the object of the branch's version o: before is
// main's version at the branch point (zero when it was made on the
// branch), after the branch's (zero when the branch deleted it). The peers
// its values name are wanted from the labeler.
func (w *differ) object(o, before, after store.ObjectRow) ObjectDiff {
	n, nb := w.ours.byID[o.Kind], w.base.byID[o.Kind]
	label := n
	if label == nil {
		label = nb
	}
	out := ObjectDiff{Ref: Ref{ID: o.ID, Label: o.ID}}
	if label != nil {
		out.Kind, out.Label = label.kind.FullName(), label.displayLabel(o.ID, o.Data)
	}
	for _, e := range elementsOf(n, nb) {
		bv, av := before.Data[e.id], after.Data[e.id]
		if bytes.Equal(bv, av) {
			continue
		}
		f := FieldDiff{Field: e.name, Before: w.base.valueOf(e.id, bv), After: w.ours.valueOf(e.id, av)}
		w.labels.wantValue(f.Before)
		w.labels.wantValue(f.After)
		out.Fields = append(out.Fields, f)
	}
	return out
}

// An element is an attribute or a relationship, by id and name.
type element struct{ id, name string }

// elementsOf lists the attributes then the relationships of the node n
// (the branch's schema), then those of nb (the branch point's) that n
// lacks; either may be nil.
func elementsOf(n, nb *nodeKind) []element {
	var out []element
	seen := map[string]bool{}
	for _, k := range []*nodeKind{n, nb} {
		if k == nil {
			continue
		}
		for _, a := range k.attributes {
			if !seen[a.ID] {
				seen[a.ID] = true
				out = append(out, element{a.ID, a.Name})
			}
		}
		for _, r := range k.relationships {
			if !seen[r.ID] {
				seen[r.ID] = true
				out = append(out, element{r.ID, r.Name})
			}
		}
	}
	return out
}

// wantDivision asks for the labels of the peers n's division names.
func (w *differ) wantDivision(n store.BranchNumber) {
	for i, v := range divisionValues(n.Division) {
		if i < len(n.Scope) && w.isRelationship(n.Scope[i]) {
			var id string
			if json.Unmarshal(v, &id) == nil {
				w.labels.want(id)
			}
		}
	}
}

// division is the display label of n's division.
func (w *differ) division(n store.BranchNumber) string {
	var parts []string
	for i, v := range divisionValues(n.Division) {
		var id string
		if i < len(n.Scope) && w.isRelationship(n.Scope[i]) && json.Unmarshal(v, &id) == nil {
			parts = append(parts, w.labels.ref(id).Label)
		} else {
			parts = append(parts, labelValue(v))
		}
	}
	return strings.Join(parts, " / ")
}

func (w *differ) isRelationship(id string) bool {
	e, ok := w.ours.schema.Element(id)
	return ok && e.Type == schema.RelationshipElement
}

// divisionValues reads a division, a JSON list of values.
func divisionValues(division json.RawMessage) []json.RawMessage {
	var values []json.RawMessage
	if json.Unmarshal(division, &values) != nil {
		return nil
	}
	return values
}

// resolution is r as the diff shows it, its object and peers named by
// their ids until the labeler names them.
func (w *differ) resolution(r store.MergeResolution) Resolution {
	out := Resolution{Branch: w.row.Name, Object: Ref{ID: r.Object, Label: r.Object}, Side: Side(r.Side), At: r.At, By: r.By}
	kept := r.BranchValue
	if out.Side == SideMain {
		kept = r.MainValue
	}
	if r.Element == "" {
		out.Kept = Value{Deleted: kept != nil && *kept == "deleted"}
		return out
	}
	out.Field = r.Element
	for _, c := range []*compiled{w.ours, w.base} {
		if e, ok := c.schema.Element(r.Element); ok {
			out.Field = e.Attribute.Name
			if e.Type == schema.RelationshipElement {
				out.Field = e.Relationship.Name
			}
			break
		}
	}
	var raw json.RawMessage
	if kept != nil {
		raw = json.RawMessage(*kept)
	}
	out.Kept = w.ours.valueOf(r.Element, raw)
	return out
}
