package numbers

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/search"
	"pivirt.hu/ipam/internal/store"
)

// Find finds what q.Text names among the number pools and the objects of
// kinds, for the global search (it is ipam.Service.Search's search.Finder):
// the pools whose name holds it (case ignored) or whose id it is; when it
// is a whole number, that number in every division of every pool whose
// own it is (in the pool's ranges) and which an object holds, with the
// holder; the objects branch.Service.SearchObjects finds, on main and on
// q.Branch, those holding a pool's number being its number's holders. An
// object that q.Branch shows as main does (main's live version) is found
// on main alone. It returns the pools, then the numbers (by pool,
// division and branch), then the objects, q.Limit at most, and whether
// more matched. Operators only: tenants find nothing.
func (s *Service) Find(ctx context.Context, actor auth.Actor, q search.Query) ([]search.Hit, bool, error) {
	text := strings.TrimSpace(q.Text)
	if !actor.IsOperator() || text == "" || q.Limit < 1 {
		return nil, false, nil
	}
	limit := min(q.Limit, branch.MaxPage)
	on := []string{branch.Main}
	if q.Branch != "" && q.Branch != branch.Main {
		on = append(on, q.Branch)
	}
	var found []foundOn
	more := false
	mainSeqs := map[string]int64{}
	var attributes []string
	for _, b := range on {
		fs, m, err := s.branches.SearchObjects(ctx, actor, b, text, limit)
		if err != nil {
			return nil, false, err
		}
		more = more || m
		for _, f := range fs {
			if b == branch.Main {
				mainSeqs[f.Object.ID] = f.Seq
			} else if seq, ok := mainSeqs[f.Object.ID]; ok && !f.Own && seq == f.Seq {
				continue
			}
			found = append(found, foundOn{branch: b, Found: f})
			if f.Number && !slices.Contains(attributes, f.Attribute) {
				attributes = append(attributes, f.Attribute)
			}
		}
	}
	// main's and the branch's together, main's first among equals.
	slices.SortStableFunc(found, func(a, b foundOn) int { return branch.CompareFound(a.Found, b.Found) })
	pools, err := store.SearchNumberPools(ctx, s.db, text, attributes)
	if err != nil {
		return nil, false, err
	}
	main, err := s.branches.Schema(ctx, branch.Main)
	if err != nil {
		return nil, false, err
	}
	hits := poolHits(main, pools, text)
	numbers, held, err := s.numberHits(ctx, actor, main, pools, found)
	if err != nil {
		return nil, false, err
	}
	hits = append(hits, numbers...)
	for i, f := range found {
		if !held[i] {
			hits = append(hits, search.Hit{Kind: search.HitObject, Match: cmp.Or(objectMatches[f.Match], f.Match), Value: f.Value, Object: objectRef(f.Object, f.branch)})
		}
	}
	if len(hits) > limit {
		hits, more = hits[:limit], true
	}
	return hits, more, nil
}

// objectMatches are the words of ipam for what matched in an object: the
// label, the id, or (absent here) the attribute of that name.
var objectMatches = map[string]string{branch.MatchLabel: search.MatchLabel, branch.MatchID: search.MatchID}

// foundOn is an object found on a branch.
type foundOn struct {
	branch string
	branch.Found
}

// objectRef names o as the branch on shows it.
func objectRef(o branch.Object, on string) search.ObjectRef {
	return search.ObjectRef{ID: o.ID, Kind: o.Kind, Label: o.DisplayLabel, Branch: on}
}

// poolRef names the pool of row, main's schema naming its kind and
// attribute.
func poolRef(main schema.Schema, row store.NumberPoolRow) search.NumberPoolRef {
	n := namesIn(main, row)
	return search.NumberPoolRef{ID: row.ID, Name: row.Name, Description: row.Description, Kind: n.kind, Attribute: n.attribute}
}

// poolHits returns the hits of the pools named by text, of those read
// (the others hand out a number an object found holds): the name that is
// text first, then those it starts, then those holding it (when text is
// looked for inside, as objects' values are: branch.LooksInside), by name;
// a pool whose id is text.
func poolHits(main schema.Schema, pools []store.NumberPoolRow, text string) []search.Hit {
	lower, inside := strings.ToLower(text), branch.LooksInside(text)
	rank := func(p store.NumberPoolRow) int {
		name := strings.ToLower(p.Name)
		switch {
		case name == lower:
			return 0
		case strings.HasPrefix(name, lower):
			return 1
		case inside && strings.Contains(name, lower):
			return 2
		case p.ID == lower:
			return 3
		}
		return 4
	}
	var named []store.NumberPoolRow
	for _, p := range pools {
		if rank(p) < 4 {
			named = append(named, p)
		}
	}
	slices.SortStableFunc(named, func(a, b store.NumberPoolRow) int { return rank(a) - rank(b) })
	hits := make([]search.Hit, len(named))
	for i, p := range named {
		match := search.MatchName
		if rank(p) == 3 {
			match = search.MatchID
		}
		hits[i] = search.Hit{Kind: search.HitNumberPool, Match: match, NumberPool: poolRef(main, p), Since: p.CreatedAt, By: p.CreatedBy}
	}
	return hits
}

// numberHits returns the hits of the numbers the objects found hold as
// their value of a pool's attribute, in its divisions, when the number is
// the pool's own (in its ranges), by pool, division and branch; held says
// which of found hold one.
func (s *Service) numberHits(ctx context.Context, actor auth.Actor, main schema.Schema, pools []store.NumberPoolRow, found []foundOn) ([]search.Hit, []bool, error) {
	held := make([]bool, len(found))
	type numberAt struct {
		pool  int // index in pools
		found int // index in found
		key   json.RawMessage
		n     int64
	}
	var at []numberAt
	for i, f := range found {
		if !f.Number {
			continue
		}
		sch, err := s.branches.Schema(ctx, f.branch)
		if err != nil {
			return nil, nil, err
		}
		kinds := sch.Ancestry(f.KindID)
		for j, p := range pools {
			if p.AttributeID != f.Attribute || !slices.Contains(kinds, p.KindID) {
				continue
			}
			key, n, ok := holding(p, f.Data)
			if ok && inRanges(p, n) {
				at = append(at, numberAt{pool: j, found: i, key: key, n: n})
				held[i] = true
			}
		}
	}
	// One labeler a pool and branch: the peers' labels read in batches.
	type labelKey struct {
		pool   int
		branch string
	}
	labelers := map[labelKey]*labeler{}
	for _, a := range at {
		k := labelKey{a.pool, found[a.found].branch}
		if labelers[k] == nil {
			labelers[k] = s.newLabeler(ctx, actor, main, pools[a.pool])
			labelers[k].first = k.branch
		}
		labelers[k].want(a.key)
	}
	for _, l := range labelers {
		if err := l.resolve(); err != nil {
			return nil, nil, err
		}
	}
	hits := make([]search.Hit, len(at))
	for i, a := range at {
		f := found[a.found]
		l := labelers[labelKey{a.pool, f.branch}]
		d := l.division(a.key)
		division := search.NumberDivision{Label: d.DisplayLabel, Key: string(a.key)}
		for k, e := range d.Entries {
			if kind, ok := l.kinds[e.Value]; ok && l.isRelationship(k) {
				division.Objects = append(division.Objects, search.ObjectRef{ID: e.Value, Kind: kind, Label: e.DisplayLabel, Branch: f.branch})
			}
		}
		hits[i] = search.Hit{Kind: search.HitNumber, Match: search.MatchNumber, NumberPool: poolRef(main, pools[a.pool]), Number: a.n,
			Division: division, Object: objectRef(f.Object, f.branch), Value: strconv.FormatInt(a.n, 10)}
	}
	slices.SortStableFunc(hits, func(a, b search.Hit) int {
		return cmp.Or(strings.Compare(a.NumberPool.Name, b.NumberPool.Name), strings.Compare(a.Division.Label, b.Division.Label),
			cmp.Compare(onBranch(a), onBranch(b)), strings.Compare(a.Object.Label, b.Object.Label))
	})
	return hits, held, nil
}

// onBranch is 1 for a hit of the branch searched besides main, 0 for
// main's: main's come first.
func onBranch(h search.Hit) int {
	if h.Object.Branch == branch.Main {
		return 0
	}
	return 1
}

// inRanges reports whether n lies in one of the pool's ranges.
func inRanges(p store.NumberPoolRow, n int64) bool {
	return slices.ContainsFunc(p.Ranges, func(r store.NumberRange) bool { return r.Start <= n && n <= r.End })
}
