package branch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/store"
)

// A Side is the side of a conflict that a merge keeps.
type Side string

// The sides of a conflict.
const (
	// SideMain keeps main's value (or main's deletion, or main's changed
	// object where the branch deleted it).
	SideMain Side = "main"
	// SideBranch keeps the branch's value (or its deletion, or its changed
	// object where main deleted it).
	SideBranch Side = "branch"
)

// A Resolution is a side chosen for a conflict of a branch's merge.
type Resolution struct {
	Branch string
	Object Ref
	// Field is the attribute or relationship; "" for an object deleted on
	// one side and changed on the other.
	Field string
	Side  Side
	// Kept is what the merge keeps: the side's value, or its deletion.
	Kept Value
	At   time.Time
	By   string
}

// ResolveConflict chooses the side of a conflict of the branch's merge
// that the merge keeps: the field (by name) of the object changed on both
// sides since the branch point, or, with field "", the object deleted on
// one side and changed on the other. The next merge or rebase of the
// branch takes that side, field by field the others' changes as ever, as
// long as main and the branch still hold what they held when it was
// chosen: a side changed again is a conflict again. Choosing again
// replaces the choice. The branch's objects are left as they are (main's
// side may name peers the branch does not see), and the choice is
// recorded with the branch and audited (resolve).
//
// It holds the branch alone, as a merge does, so that no write of the
// branch, no merge and no other choice comes between what it reads and
// what it records. It is refused (*refusal.InvalidError) when the field is not in
// conflict (nothing to resolve), and refusal.ErrNotFound for an unknown branch,
// object or field.
func (s *Service) ResolveConflict(ctx context.Context, actor auth.Actor, name, objectID, field string, side Side) (Resolution, error) {
	if !actor.IsOperator() {
		return Resolution{}, notFound("branch %s", name)
	}
	switch {
	case name == Main:
		return Resolution{}, invalid("name", "branch main is the default branch; it is merged into nothing, and has no conflicts to resolve")
	case side != SideMain && side != SideBranch:
		return Resolution{}, invalid("side", "side must be main or branch, not %s", shown(side))
	}
	oid, ok := parseObjectID(objectID)
	if !ok {
		return Resolution{}, notFound("object %s on branch %s", objectID, name)
	}
	var out Resolution
	err := s.inTx(ctx, func(tx *store.Tx) error {
		row, err := store.LockBranch(ctx, tx, name, store.ExclusiveBranch, store.ObjectLocks{})
		if errors.Is(err, store.ErrNotFound) {
			return notFound("branch %s", name)
		}
		if err != nil {
			return err
		}
		c, err := s.conflictOf(ctx, tx, row, oid, field)
		if err != nil {
			return err
		}
		r := store.MergeResolution{Branch: row.ID, Object: oid, Element: c.element, Side: string(side), By: actor.Name}
		out = Resolution{Branch: name, Object: c.ref, Field: field, Side: side, By: actor.Name, At: time.Now()}
		if c.element == "" {
			r.MainValue, r.BranchValue = versionPrint(c.head), versionPrint(c.mine)
			out.Kept = Value{Deleted: c.mine.Deleted}
			if side == SideMain {
				out.Kept = Value{Deleted: c.head.Deleted}
			}
		} else {
			r.MainValue, r.BranchValue = valuePrint(c.head.Data[c.element]), valuePrint(c.mine.Data[c.element])
			out.Kept = c.ours.valueOf(c.element, c.mine.Data[c.element])
			if side == SideMain {
				out.Kept = c.theirs.valueOf(c.element, c.head.Data[c.element])
			}
			l := newLabeler()
			l.wantValue(out.Kept)
			if ids := l.missing(); len(ids) > 0 {
				rows, err := store.ObjectsByID(ctx, tx, store.View{Branch: store.MainBranchID}, ids)
				if err != nil {
					return err
				}
				l.learn(rows, nil, c.theirs, c.ours)
				if rows, err = store.ObjectsByID(ctx, tx, row.View(), l.missing()); err != nil {
					return err
				}
				l.learn(rows, nil, c.ours, c.theirs)
			}
			l.fill(&out.Kept)
		}
		return store.PutMergeResolution(ctx, tx, r, store.AuditEntry{Actor: actor.Name, Action: audit.Resolve, ObjectKind: c.ref.Kind, ObjectName: oid,
			After: store.JSON(audit.Resolution{DisplayLabel: c.ref.Label, Field: field, Side: string(side), Main: r.MainValue, Branch: r.BranchValue}), Branch: name})
	})
	return out, err
}

// A conflict is a conflict of a merge as ResolveConflict reads it.
type conflict struct {
	ref Ref
	// element is the field's stable id; "" for the whole object.
	element string
	// base, head and mine are main's versions at the branch point and at
	// its head, and the branch's.
	base, head, mine store.ObjectRow
	// ours and theirs are the branch's and main's schemas.
	ours, theirs *compiled
}

// conflictOf reads the conflict of the field (its name; "" for the whole
// object) of the object id on the branch of row, which tx holds; an
// *refusal.InvalidError when there is none.
func (s *Service) conflictOf(ctx context.Context, tx *store.Tx, row store.BranchRow, id, field string) (conflict, error) {
	ours, err := s.stateOf(ctx, tx, row)
	if err != nil {
		return conflict{}, err
	}
	mainRow, err := store.Branch(ctx, tx, Main)
	if err != nil {
		return conflict{}, err
	}
	theirs, err := s.stateOf(ctx, tx, mainRow)
	if err != nil {
		return conflict{}, err
	}
	c := conflict{ours: ours.schema, theirs: theirs.schema}
	mine, err := store.Object(ctx, tx, row.View(), id)
	if errors.Is(err, store.ErrNotFound) {
		return c, notFound("object %s on branch %s", id, row.Name)
	}
	if err != nil {
		return c, err
	}
	n, ok := ours.schema.byID[mine.Kind]
	if !ok {
		n, ok = theirs.schema.byID[mine.Kind]
	}
	if !ok {
		return c, notFound("object %s on branch %s", id, row.Name)
	}
	c.mine, c.ref = mine, Ref{ID: id, Kind: n.kind.FullName(), Label: n.displayLabel(id, mine.Data)}
	if field != "" {
		if c.element, ok = elementOf(n, field); !ok {
			if other, found := theirs.schema.byID[mine.Kind]; found {
				c.element, ok = elementOf(other, field)
			}
		}
		if !ok {
			return c, notFound("field %s of %s on branch %s", field, n.kind.FullName(), row.Name)
		}
	}
	none := func() error {
		if field == "" {
			return invalid("field", "%s %s was not deleted on one side and changed on the other since the branch point: there is no conflict to resolve", c.ref.Kind, c.ref.Label)
		}
		return invalid("field", "%s %s: %s was not changed on both sides since the branch point: there is no conflict to resolve", c.ref.Kind, c.ref.Label, field)
	}
	if mine.BranchID != row.ID {
		return c, none() // the branch did not change it
	}
	base, err := store.MainObjectsAt(ctx, tx, []string{id}, row.BranchedFrom)
	if err != nil {
		return c, err
	}
	head, err := store.MainObjectsAt(ctx, tx, []string{id}, 0)
	if err != nil {
		return c, err
	}
	if len(base) == 0 || len(head) == 0 {
		return c, none() // made on the branch
	}
	c.base, c.head = base[0], head[0]
	if field == "" && !deletedAgainstChanged(c.base, c.mine, c.head) || field != "" && !changedOnBothSides(c.base, c.mine, c.head, c.element) {
		return c, none()
	}
	return c, nil
}

// elementOf returns the id of the attribute or relationship of the node n
// called name.
func elementOf(n *nodeKind, name string) (string, bool) {
	if a, ok := n.attrByName[name]; ok {
		return a.ID, true
	}
	if r, ok := n.relByName[name]; ok {
		return r.ID, true
	}
	return "", false
}

// changedOnBothSides says whether the element k of an object was changed
// on the branch (o) and on main (t) since the branch point (b), to
// different values, neither side having deleted the object: a conflict of
// a merge.
func changedOnBothSides(b, o, t store.ObjectRow, k string) bool {
	if b.Deleted || o.Deleted || t.Deleted {
		return false
	}
	bv, ov, tv := b.Data[k], o.Data[k], t.Data[k]
	return !bytes.Equal(ov, bv) && !bytes.Equal(tv, bv) && !bytes.Equal(tv, ov)
}

// deletedAgainstChanged says whether an object was deleted on one side and
// changed on the other since the branch point (b): a conflict of a merge.
func deletedAgainstChanged(b, o, t store.ObjectRow) bool {
	return o.Deleted != t.Deleted && !sameVersion(o, b) && !sameVersion(t, b)
}

// resolutionKey is the key of a resolution of the element of the object.
func resolutionKey(object, element string) string {
	return object + "\x00" + element
}

// valuePrint is how a resolution records a field's value: its canonical
// JSON; nil for none.
func valuePrint(raw json.RawMessage) *string {
	if raw == nil {
		return nil
	}
	s := string(raw)
	return &s
}

// versionPrint is how a resolution records a version of a whole object:
// "deleted", or its data as JSON (keys sorted, values canonical).
func versionPrint(r store.ObjectRow) *string {
	s := "deleted"
	if !r.Deleted {
		b, _ := json.Marshal(r.Data)
		s = string(b)
	}
	return &s
}

func samePrint(a, b *string) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}
