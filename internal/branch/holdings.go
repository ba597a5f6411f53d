package branch

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"pivirt.hu/ipam/internal/store"
)

// The functions of this file answer the domains beside this one (number
// pools, issue 12), which keep their own records of values across
// branches: they take no actor, and apply no policy.

// ElementValue returns the value that the branch shows of the element
// (an attribute or a relationship, by its stable id) of the object id: an
// attribute's value as Object.Attributes holds it, a relationship's peers'
// ids as a []string. ok is false when the object holds none, or the branch
// shows no such object or its kind no such element.
func (s *Service) ElementValue(ctx context.Context, branch, id, element string) (value any, ok bool, err error) {
	st, err := s.state(ctx, branch)
	if err != nil {
		return nil, false, err
	}
	oid, valid := parseObjectID(id)
	if !valid {
		return nil, false, nil
	}
	row, err := store.Object(ctx, s.db, st.row.View(), oid)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	n, known := st.schema.byID[row.Kind]
	raw, held := row.Data[element]
	if row.Deleted || !known || !held {
		return nil, false, nil
	}
	if a, isAttr := n.attrByID[element]; isAttr {
		return decodeAttribute(a, raw), true, nil
	}
	if _, isRel := n.relByID[element]; isRel {
		return decodePeers(raw), true, nil
	}
	return nil, false, nil
}

// HoldsNumber reports whether the object id holds the number n as the
// value of the attribute (by its stable id) on the branch.
func (s *Service) HoldsNumber(ctx context.Context, branch, id, attribute string, n int64) (bool, error) {
	v, ok, err := s.ElementValue(ctx, branch, id, attribute)
	return ok && v == n, err
}

// A Holding is what one branch shows of one object.
type Holding struct {
	Branch string
	Object string
	// Kind is the full name of the object's node kind in the branch's
	// schema.
	Kind string
	// Values are the object's values by their element's stable id, each
	// JSON written canonically: a Number's decimal digits, a Text's string,
	// a relationship's peer id (a string) for cardinality one, a list of
	// ids for many. Elements the kind lacks are left out.
	Values map[string]json.RawMessage
}

// Holdings returns what every branch shows of the objects ids, branch by
// branch (main first, then by name), each object in id order; an object a
// branch does not show, or shows deleted, is left out there. One
// statement per branch.
func (s *Service) Holdings(ctx context.Context, ids []string) ([]Holding, error) {
	var oids []string
	for _, id := range ids {
		if oid, ok := parseObjectID(id); ok {
			oids = append(oids, oid)
		}
	}
	slices.Sort(oids)
	oids = slices.Compact(oids)
	branches, err := store.Branches(ctx, s.db)
	if err != nil {
		return nil, err
	}
	var out []Holding
	for _, b := range branches {
		st, err := s.stateOf(ctx, s.db, b)
		if err != nil {
			return nil, err
		}
		rows, err := store.ObjectsByID(ctx, s.db, b.View(), oids)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			n, ok := st.schema.byID[r.Kind]
			if r.Deleted || !ok {
				continue
			}
			out = append(out, Holding{Branch: b.Name, Object: r.ID, Kind: n.kind.FullName(), Values: n.liveData(r.Data)})
		}
	}
	return out, nil
}

// liveData returns the values of data whose elements the node has.
func (n *nodeKind) liveData(data map[string]json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for k, v := range data {
		_, attr := n.attrByID[k]
		_, rel := n.relByID[k]
		if attr || rel {
			out[k] = v
		}
	}
	return out
}
