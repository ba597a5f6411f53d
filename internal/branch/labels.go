package branch

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

// valueOf is the value raw (nil: none) of the element id as people read it
// (see Value); a relationship's peers are named by their ids until a
// labeler fills their labels in.
func (c *compiled) valueOf(id string, raw json.RawMessage) Value {
	if raw == nil {
		return Value{}
	}
	if e, ok := c.schema.Element(id); ok && e.Type == schema.RelationshipElement {
		v := Value{Set: true}
		for _, p := range decodePeers(raw) {
			v.Peers = append(v.Peers, Ref{ID: p, Label: p})
		}
		v.Text = peersText(v.Peers)
		return v
	}
	return Value{Set: true, Text: labelValue(raw)}
}

func peersText(peers []Ref) string {
	labels := make([]string, len(peers))
	for i, p := range peers {
		labels[i] = p.Label
	}
	return strings.Join(labels, ", ")
}

// A labeler names objects by their display labels: it collects the ids
// wanted, reads them in one statement per source, and fills values in.
type labeler struct {
	wanted map[string]bool
	refs   map[string]Ref
}

func newLabeler() *labeler {
	return &labeler{wanted: map[string]bool{}, refs: map[string]Ref{}}
}

// want asks for the labels of ids.
func (l *labeler) want(ids ...string) {
	for _, id := range ids {
		if id != "" {
			l.wanted[id] = true
		}
	}
}

// wantValue asks for the labels of the peers of v.
func (l *labeler) wantValue(v Value) {
	for _, p := range v.Peers {
		l.want(p.ID)
	}
}

// missing returns the ids wanted and not labelled yet, sorted.
func (l *labeler) missing() []string {
	var out []string
	for _, id := range slices.Sorted(maps.Keys(l.wanted)) {
		if _, ok := l.refs[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

// learn labels the objects of rows that keep accepts and that are not
// labelled yet, each by the first of the schemas that has its kind.
func (l *labeler) learn(rows []store.ObjectRow, keep func(store.ObjectRow) bool, schemas ...*compiled) {
	for _, r := range rows {
		if _, done := l.refs[r.ID]; done || keep != nil && !keep(r) {
			continue
		}
		for _, c := range schemas {
			if n, ok := c.byID[r.Kind]; ok {
				l.refs[r.ID] = Ref{ID: r.ID, Kind: n.kind.FullName(), Label: n.displayLabel(r.ID, r.Data)}
				break
			}
		}
	}
}

// ref names the object id: its label when learnt, else its id.
func (l *labeler) ref(id string) Ref {
	if r, ok := l.refs[id]; ok {
		return r
	}
	return Ref{ID: id, Label: id}
}

// fill names the peers of v by their labels.
func (l *labeler) fill(v *Value) {
	if len(v.Peers) == 0 {
		return
	}
	for i, p := range v.Peers {
		v.Peers[i] = l.ref(p.ID)
	}
	v.Text = peersText(v.Peers)
}

// describe labels the objects and peers a refusal of the branch called
// name names: by the branch's own versions first, then main's head, then
// what the branch sees of main at its branch point. It reads the database
// as it is once the refused change rolled back: two statements.
func (s *Service) describe(ctx context.Context, name string, e *MergeError) error {
	l := newLabeler()
	for _, c := range e.Fields {
		l.want(c.Object)
		l.wantValue(c.Main)
		l.wantValue(c.Branch)
	}
	for _, c := range e.Unique {
		l.want(c.Objects...)
	}
	for _, c := range e.References {
		l.want(c.Object, c.Peer)
	}
	for _, c := range e.Invalid {
		l.want(c.Object)
	}
	ids := l.missing()
	if len(ids) > 0 {
		b, err := s.state(ctx, name)
		if err != nil {
			return err
		}
		m, err := s.state(ctx, Main)
		if err != nil {
			return err
		}
		seen, err := store.ObjectsByID(ctx, s.db, b.row.View(), ids)
		if err != nil {
			return err
		}
		l.learn(seen, func(r store.ObjectRow) bool { return r.BranchID == b.row.ID }, b.schema, m.schema)
		head, err := store.MainObjectsAt(ctx, s.db, l.missing(), 0)
		if err != nil {
			return err
		}
		l.learn(head, nil, m.schema, b.schema)
		l.learn(seen, nil, b.schema, m.schema)
	}
	for i := range e.Fields {
		l.fill(&e.Fields[i].Main)
		l.fill(&e.Fields[i].Branch)
	}
	for i, c := range e.Unique {
		e.Unique[i].Labels = make([]string, len(c.Objects))
		for j, id := range c.Objects {
			e.Unique[i].Labels[j] = l.ref(id).Label
		}
	}
	for i, c := range e.References {
		e.References[i].Label, e.References[i].PeerLabel = l.ref(c.Object).Label, l.ref(c.Peer).Label
	}
	for i, c := range e.Invalid {
		if c.Object != "" {
			e.Invalid[i].Label = l.ref(c.Object).Label
		}
	}
	return nil
}
