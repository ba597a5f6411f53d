package numbers

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

// A labeler writes divisions of a pool as the queries show them: each
// entry with its path, its value and its display label, the peers'
// labels read in batches.
type labeler struct {
	s     *Service
	ctx   context.Context
	actor auth.Actor
	main  schema.Schema
	row   store.NumberPoolRow
	names names
	// first is the branch whose objects are looked at first; main and the
	// others follow.
	first string
	// wanted are the peers' ids to read, by their relationship's index in
	// the scope; labels what was read, by id.
	wanted map[int]map[string]bool
	labels map[string]string
	// kinds are the node kinds of the peers read, by id.
	kinds map[string]string
}

func (s *Service) newLabeler(ctx context.Context, actor auth.Actor, main schema.Schema, row store.NumberPoolRow) *labeler {
	return &labeler{s: s, ctx: ctx, actor: actor, main: main, row: row, names: namesIn(main, row), first: branch.Main,
		wanted: map[int]map[string]bool{}, labels: map[string]string{}, kinds: map[string]string{}}
}

// want asks for the labels of the peers of the division key.
func (l *labeler) want(key json.RawMessage) {
	for i, v := range divisionValues(key) {
		if i >= len(l.row.Scope) || !l.isRelationship(i) {
			continue
		}
		var id string
		if json.Unmarshal(v, &id) != nil {
			continue
		}
		if l.wanted[i] == nil {
			l.wanted[i] = map[string]bool{}
		}
		l.wanted[i][id] = true
	}
}

func (l *labeler) isRelationship(i int) bool {
	e, ok := l.main.Element(l.row.Scope[i])
	return ok && e.Type == schema.RelationshipElement
}

// resolve reads the labels wanted: on the first branch, then on main and
// the other branches, for the ids not found yet; an id no branch shows is
// its own label.
func (l *labeler) resolve() error {
	if len(l.wanted) == 0 {
		return nil
	}
	bs, err := l.s.branches.Branches(l.ctx, l.actor)
	if err != nil {
		return err
	}
	order := []string{l.first}
	for _, b := range bs {
		if b.Name != l.first {
			order = append(order, b.Name)
		}
	}
	for _, b := range order {
		sch, err := l.s.branches.Schema(l.ctx, b)
		if err != nil {
			return err
		}
		for _, i := range slices.Sorted(maps.Keys(l.wanted)) {
			e, _ := l.main.Element(l.row.Scope[i])
			peer, ok := l.main.Kind(e.Relationship.Peer)
			if !ok {
				continue
			}
			kind, ok := sch.Element(peer.ID)
			if !ok {
				continue
			}
			var ids []string
			for _, id := range slices.Sorted(maps.Keys(l.wanted[i])) {
				if _, done := l.labels[id]; !done {
					ids = append(ids, id)
				}
			}
			for chunk := range slices.Chunk(ids, branch.MaxPage) {
				pg, err := l.s.branches.Objects(l.ctx, l.actor, b, kind.Kind, branch.Filter{IDs: chunk}, branch.MaxPage, 0)
				if err != nil {
					return err
				}
				for _, o := range pg.Objects {
					l.labels[o.ID], l.kinds[o.ID] = o.DisplayLabel, o.Kind
				}
			}
		}
	}
	return nil
}

// division returns the division of key, its figures aside.
func (l *labeler) division(key json.RawMessage) Division {
	values := divisionValues(key)
	d := Division{Entries: make([]Entry, 0, len(values))}
	labels := make([]string, 0, len(values))
	for i, v := range values {
		if i >= len(l.row.Scope) {
			break
		}
		e := Entry{Path: l.names.scope[i], Value: entryText(v)}
		e.DisplayLabel = e.Value
		if label, ok := l.labels[e.Value]; ok && l.isRelationship(i) {
			e.DisplayLabel = label
		}
		d.Entries = append(d.Entries, e)
		labels = append(labels, e.DisplayLabel)
	}
	d.DisplayLabel = strings.Join(labels, " / ")
	return d
}

// entryText writes a value of a division as text: a string as it is,
// anything else as its JSON.
func entryText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// division returns the division of key of the pool of row as the branch
// called first shows its peers (labels read there first), its figures
// aside; a label that cannot be read is the peer's id.
func (s *Service) division(ctx context.Context, actor auth.Actor, first string, main schema.Schema, row store.NumberPoolRow, key json.RawMessage) Division {
	l := s.newLabeler(ctx, actor, main, row)
	l.first = first
	l.want(key)
	if err := l.resolve(); err != nil {
		s.log.Warn("The labels of a division could not be read", "pool", row.Name, "err", err)
	}
	return l.division(key)
}
