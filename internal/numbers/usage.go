package numbers

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/internal/usage"
)

// Figures are the usage of a pool, a division or a range: Size numbers in
// the ranges, Used of them held, Utilization = 100 × Used / Size.
type Figures struct {
	Size        int64   `json:"size"`
	Used        int64   `json:"used"`
	Utilization float64 `json:"utilization"`
}

// Usage is f as the figures of every space (usage.Figures), which charts
// and forecasts take.
func (f Figures) Usage() usage.Figures {
	return usage.Figures{Size: int(f.Size), Used: int(f.Used), Free: int(f.Size - f.Used)}
}

// An Entry is the value of one scope element in a division.
type Entry struct {
	// Path is the element's name in the default branch's schema now.
	Path string `json:"path"`
	// Value is the peer's id for a relationship, the attribute's value
	// (as text: "user", "42", "true") for an attribute.
	Value string `json:"value"`
	// DisplayLabel is the peer's display label for a relationship, the
	// value for an attribute.
	DisplayLabel string `json:"display_label"`
}

// A Division is one combination of values of a pool's scope elements
// (an allocation scope), with its figures. A pool without a scope has one,
// without entries.
type Division struct {
	Entries []Entry `json:"entries"`
	// DisplayLabel is the entries' display labels joined by " / ", in the
	// scope's order.
	DisplayLabel string  `json:"display_label"`
	Figures      Figures `json:"figures"`
}

// An EntryInput names a division's value of one scope element: Path its
// name, Value as Entry.Value.
type EntryInput struct {
	Path  string
	Value string
}

// A DivisionList is the divisions of a pool that hold a number.
type DivisionList struct {
	Count     int
	Divisions []Division
}

// A RangeUsage is a range with its figures.
type RangeUsage struct {
	Range
	Figures Figures
}

// Usage is the figures of a division of a pool (of the pool, for one
// without a scope), and of each of its ranges in it.
type Usage struct {
	Figures Figures
	Ranges  []RangeUsage
}

// A Holder is an object that holds a number.
type Holder struct {
	ID           string `json:"id"`
	Kind         string `json:"kind"`
	DisplayLabel string `json:"display_label"`
}

// An Allocation is a number held by an object on a branch.
type Allocation struct {
	Value  int64  `json:"value"`
	Branch string `json:"branch"`
	Holder Holder `json:"holder"`
	// Division is the holder's division there.
	Division []Entry `json:"division"`
	// Identifier is the identifier the number was allocated under; "" for
	// a number given, not taken from the pool.
	Identifier string `json:"identifier"`
}

// An AllocationPage is a page of allocations and how many there are.
type AllocationPage struct {
	Count       int
	Allocations []Allocation
}

// A RangeUtilization is a range of a pool as InfrahubResourcePoolUtilization
// lists it: one edge per range.
type RangeUtilization struct {
	// ID names the range: "<pool id>-<position from 1>".
	ID string
	// DisplayLabel is "<start>-<end>".
	DisplayLabel string
	// Kind is "CoreNumberPoolRange".
	Kind        string
	Weight      int
	Utilization float64
}

// PoolUtilization is the usage of a whole pool, its scope ignored (a number
// held in two divisions counts once), as InfrahubResourcePoolUtilization
// answers it.
type PoolUtilization struct {
	// Count is how many ranges the pool has: one edge each.
	Count int
	// Utilization counts every branch; UtilizationDefaultBranch main's
	// objects only; UtilizationBranches the other branches' only.
	Utilization, UtilizationDefaultBranch, UtilizationBranches float64
	Ranges                                                     []RangeUtilization
}

// An AllocatedNode is a number of a pool as InfrahubResourcePoolAllocated
// lists it: its holder, on a branch.
type AllocatedNode struct {
	ID           string
	DisplayLabel string
	Kind         string
	Branch       string
	// Identifier is as Allocation's.
	Identifier string
	Value      int64
}

// An AllocatedPage is a page of AllocatedNodes and how many there are.
type AllocatedPage struct {
	Count int
	Nodes []AllocatedNode
}

// RangeKind is the kind InfrahubResourcePoolUtilization gives a pool's
// ranges.
const RangeKind = "CoreNumberPoolRange"

// Divisions returns the divisions of the pool id where a branch shows an
// object holding one of the pool's numbers (of its ranges, or allocated
// from it: not another pool's of the same attribute), most used first, ties by display label (as
// InfrahubNumberPoolDivisions lists them); the figures count every branch. A
// pool without a scope has one division, without entries, once a number
// is held.
func (s *Service) Divisions(ctx context.Context, actor auth.Actor, poolID string) (DivisionList, error) {
	row, _, err := s.poolRow(ctx, actor, poolID)
	if err != nil {
		return DivisionList{}, err
	}
	st, err := newPoolState(row)
	if err != nil {
		return DivisionList{}, err
	}
	held, err := store.NumberDivisions(ctx, s.db, row.ID)
	if err != nil {
		return DivisionList{}, err
	}
	main, err := s.branches.Schema(ctx, branch.Main)
	if err != nil {
		return DivisionList{}, err
	}
	l := s.newLabeler(ctx, actor, main, row)
	for _, d := range held {
		l.want(d.Division)
	}
	if err := l.resolve(); err != nil {
		return DivisionList{}, err
	}
	out := DivisionList{Count: len(held), Divisions: make([]Division, len(held))}
	for i, d := range held {
		out.Divisions[i] = l.division(d.Division)
		out.Divisions[i].Figures, _ = figures(st.space, candidates.NumberSetOf(d.Numbers...))
	}
	slices.SortStableFunc(out.Divisions, func(a, b Division) int {
		return cmp.Or(cmp.Compare(b.Figures.Used, a.Figures.Used), cmp.Compare(a.DisplayLabel, b.DisplayLabel))
	})
	return out, nil
}

// figures returns the figures of taken in space, and each range's, in
// the order given.
func figures(space candidates.NumberPool, taken candidates.NumberSet) (Figures, []Figures) {
	perRange := space.Used(taken)
	ranges := space.Ranges()
	each := make([]Figures, len(ranges))
	var used int64
	for i, r := range ranges {
		each[i] = figuresOf(r.End-r.Start+1, perRange[i])
		used += perRange[i]
	}
	return figuresOf(space.Size(), used), each
}

func figuresOf(size, used int64) Figures {
	f := Figures{Size: size, Used: used}
	if size > 0 {
		f.Utilization = 100 * float64(used) / float64(size)
	}
	return f
}

// Utilization returns the figures of one division of the pool id, and of
// each range in it, counting every branch. On a scoped pool the division
// gives a value for every scope element; on a pool without a scope, none.
// The refusals are *refusal.InvalidErrors (docs/numbers.md, "Usage").
func (s *Service) Utilization(ctx context.Context, actor auth.Actor, poolID string, division []EntryInput) (Usage, error) {
	row, key, err := s.divisionOf(ctx, actor, poolID, division)
	if err != nil {
		return Usage{}, err
	}
	st, err := newPoolState(row)
	if err != nil {
		return Usage{}, err
	}
	nums, err := store.ShownNumbers(ctx, s.db, row.ID, key)
	if err != nil {
		return Usage{}, err
	}
	total, each := figures(st.space, candidates.NumberSetOf(nums...))
	out := Usage{Figures: total, Ranges: make([]RangeUsage, len(each))}
	for i, f := range each {
		out.Ranges[i] = RangeUsage{Range: Range(row.Ranges[i]), Figures: f}
	}
	return out, nil
}

// divisionOf returns the row of the pool id and the key of its division
// given by path and value (a value for every scope element), with the
// refusals of Utilization.
func (s *Service) divisionOf(ctx context.Context, actor auth.Actor, poolID string, division []EntryInput) (store.NumberPoolRow, json.RawMessage, error) {
	row, _, err := s.poolRow(ctx, actor, poolID)
	if err != nil {
		return store.NumberPoolRow{}, nil, err
	}
	main, err := s.branches.Schema(ctx, branch.Main)
	if err != nil {
		return store.NumberPoolRow{}, nil, err
	}
	values, err := divisionInput(main, row, division, true)
	if err != nil {
		return store.NumberPoolRow{}, nil, err
	}
	key := make([]json.RawMessage, len(row.Scope))
	for i := range key {
		key[i] = values[i]
	}
	return row, divisionKey(key), nil
}

// divisionInput reads a division given by path and value against the
// pool's scope, into the values by the index of their element: all of
// them when whole is set.
func divisionInput(main schema.Schema, row store.NumberPoolRow, in []EntryInput, whole bool) (map[int]json.RawMessage, error) {
	if len(row.Scope) == 0 {
		if len(in) > 0 {
			return nil, invalid("division", "pool %s has no allocation scope; give no division", row.Name)
		}
		return nil, nil
	}
	n := namesIn(main, row)
	out := map[int]json.RawMessage{}
	for _, e := range in {
		i := slices.Index(n.scope, e.Path)
		if i < 0 {
			return nil, invalid("division", "%q is not a scope element of pool %s", e.Path, row.Name)
		}
		if _, twice := out[i]; twice {
			return nil, invalid("division", "the division entry %q is given twice", e.Path)
		}
		v, err := entryValue(main, row.Scope[i], e)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	if whole {
		for i, name := range n.scope {
			if _, ok := out[i]; !ok {
				return nil, invalid("division", "pool %s divides its numbers by %s; the division has no value for %s", row.Name, strings.Join(n.scope, ", "), name)
			}
		}
	}
	return out, nil
}

// entryValue is the value of e, an entry of the scope element id, as
// objects hold it (canonical JSON).
func entryValue(main schema.Schema, id string, e EntryInput) (json.RawMessage, error) {
	el, _ := main.Element(id)
	switch {
	case el.Type == schema.RelationshipElement:
		if oid, ok := parseID(e.Value); ok {
			return canonical(oid)
		}
		return canonical(e.Value)
	case el.Attribute.Kind == schema.Number:
		n, err := strconv.ParseInt(e.Value, 10, 64)
		if err != nil {
			return nil, invalid("division", "the division entry %q takes a whole number, not %q", e.Path, e.Value)
		}
		return canonical(n)
	case el.Attribute.Kind == schema.Boolean:
		b, err := strconv.ParseBool(e.Value)
		if err != nil {
			return nil, invalid("division", "the division entry %q takes true or false, not %q", e.Path, e.Value)
		}
		return canonical(b)
	}
	return canonical(e.Value)
}

// Allocations returns a page of the pool's numbers (as Divisions counts
// them) held in the divisions of the pool id that match division (some of the scope elements, or none for
// every division), ascending, on every branch (each holder once, on the
// first branch that shows it: main, then by name), limit at most
// (branch.MaxPage when 0) from offset on, and how many there are.
func (s *Service) Allocations(ctx context.Context, actor auth.Actor, poolID string, division []EntryInput, limit, offset int) (AllocationPage, error) {
	row, _, err := s.poolRow(ctx, actor, poolID)
	if err != nil {
		return AllocationPage{}, err
	}
	if limit, err = page(limit, offset); err != nil {
		return AllocationPage{}, err
	}
	main, err := s.branches.Schema(ctx, branch.Main)
	if err != nil {
		return AllocationPage{}, err
	}
	match, err := divisionInput(main, row, division, false)
	if err != nil {
		return AllocationPage{}, err
	}
	held, count, err := store.HeldNumbers(ctx, s.db, row.ID, match, limit, offset)
	if err != nil {
		return AllocationPage{}, err
	}
	holders, err := s.holders(ctx, actor, row, held)
	if err != nil {
		return AllocationPage{}, err
	}
	l := s.newLabeler(ctx, actor, main, row)
	for _, h := range held {
		l.want(h.Division)
	}
	if err := l.resolve(); err != nil {
		return AllocationPage{}, err
	}
	out := AllocationPage{Count: count, Allocations: make([]Allocation, len(held))}
	for i, h := range held {
		out.Allocations[i] = Allocation{Value: h.Number, Branch: h.Branch, Holder: holders[i], Division: l.division(h.Division).Entries,
			Identifier: h.Identifier}
	}
	return out, nil
}

// page checks a page's bounds and returns its limit (branch.MaxPage for 0).
func page(limit, offset int) (int, error) {
	switch {
	case limit < 0 || limit > branch.MaxPage:
		return 0, invalid("limit", "limit must be from 1 to %d, got %d", branch.MaxPage, limit)
	case offset < 0:
		return 0, invalid("offset", "offset must be 0 or more, got %d", offset)
	case limit == 0:
		return branch.MaxPage, nil
	}
	return limit, nil
}

// holders returns the holder of each of held, read on its branch (its
// id alone when the branch no longer shows it).
func (s *Service) holders(ctx context.Context, actor auth.Actor, row store.NumberPoolRow, held []store.HeldNumber) ([]Holder, error) {
	byBranch := map[string][]string{}
	for _, h := range held {
		byBranch[h.Branch] = append(byBranch[h.Branch], h.Object)
	}
	found := map[[2]string]Holder{}
	for _, b := range slices.Sorted(maps.Keys(byBranch)) {
		sch, err := s.branches.Schema(ctx, b)
		if err != nil {
			return nil, err
		}
		kind, ok := sch.Element(row.KindID)
		if !ok {
			continue
		}
		for chunk := range slices.Chunk(byBranch[b], branch.MaxPage) {
			pg, err := s.branches.Objects(ctx, actor, b, kind.Kind, branch.Filter{IDs: chunk}, branch.MaxPage, 0)
			if err != nil {
				return nil, err
			}
			for _, o := range pg.Objects {
				found[[2]string{b, o.ID}] = Holder{ID: o.ID, Kind: o.Kind, DisplayLabel: o.DisplayLabel}
			}
		}
	}
	out := make([]Holder, len(held))
	for i, h := range held {
		o, ok := found[[2]string{h.Branch, h.Object}]
		if !ok {
			o = Holder{ID: h.Object, DisplayLabel: h.Object}
		}
		out[i] = o
	}
	return out, nil
}

// ResourcePoolUtilization returns the figures of the whole pool id, its
// scope ignored (a number held in two divisions counts once), as
// Infrahub's InfrahubResourcePoolUtilization: every branch, main alone,
// and the other branches (what main does not show).
func (s *Service) ResourcePoolUtilization(ctx context.Context, actor auth.Actor, poolID string) (PoolUtilization, error) {
	row, _, err := s.poolRow(ctx, actor, poolID)
	if err != nil {
		return PoolUtilization{}, err
	}
	st, err := newPoolState(row)
	if err != nil {
		return PoolUtilization{}, err
	}
	shares, err := store.NumberShares(ctx, s.db, row.ID)
	if err != nil {
		return PoolUtilization{}, err
	}
	all, each := figures(st.space, candidates.NumberSetOf(slices.Concat(shares.Main, shares.Branches)...))
	onMain, _ := figures(st.space, candidates.NumberSetOf(shares.Main...))
	onBranches, _ := figures(st.space, candidates.NumberSetOf(shares.Branches...))
	out := PoolUtilization{Count: len(row.Ranges), Utilization: all.Utilization, UtilizationDefaultBranch: onMain.Utilization,
		UtilizationBranches: onBranches.Utilization, Ranges: make([]RangeUtilization, len(row.Ranges))}
	for i, r := range row.Ranges {
		out.Ranges[i] = RangeUtilization{ID: fmt.Sprintf("%s-%d", row.ID, i+1), DisplayLabel: fmt.Sprintf("%d-%d", r.Start, r.End),
			Kind: RangeKind, Weight: r.Weight, Utilization: each[i].Utilization}
	}
	return out, nil
}

// ResourcePoolAllocated returns a page of every number of the pool id
// held (as Allocations), its scope ignored, as Infrahub's InfrahubResourcePoolAllocated (the
// holders of Allocations, without a division); resourceID is ignored for
// number pools.
func (s *Service) ResourcePoolAllocated(ctx context.Context, actor auth.Actor, poolID, resourceID string, limit, offset int) (AllocatedPage, error) {
	a, err := s.Allocations(ctx, actor, poolID, nil, limit, offset)
	if err != nil {
		return AllocatedPage{}, err
	}
	out := AllocatedPage{Count: a.Count, Nodes: make([]AllocatedNode, len(a.Allocations))}
	for i, x := range a.Allocations {
		out.Nodes[i] = AllocatedNode{ID: x.Holder.ID, DisplayLabel: x.Holder.DisplayLabel, Kind: x.Holder.Kind, Branch: x.Branch,
			Identifier: x.Identifier, Value: x.Value}
	}
	return out, nil
}
