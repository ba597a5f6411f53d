package numbers

import (
	"context"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/store"
)

// StripCells bounds the cells of a range's strip: a longer range is drawn
// by blocks of numbers.
const StripCells = 1024

// A PoolSummary is a pool as a list shows it, with the figures of the
// whole pool, its scope ignored (a number held in two divisions counts
// once).
type PoolSummary struct {
	Pool    Pool
	Figures Figures
}

// PoolSummaries lists the pools, by name (Pools' first page), with their
// figures: a statement per pool, each reading the pool's numbers held.
// Tenants see none.
func (s *Service) PoolSummaries(ctx context.Context, actor auth.Actor) ([]PoolSummary, error) {
	pools, err := s.Pools(ctx, actor, PoolFilter{}, 0, 0)
	if err != nil {
		return nil, err
	}
	out := make([]PoolSummary, len(pools.Pools))
	for i, p := range pools.Pools {
		out[i].Pool = p
		if out[i].Figures, err = s.wholeFigures(ctx, p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// PoolSummary returns the pool id with its figures, with the refusals of
// Pool.
func (s *Service) PoolSummary(ctx context.Context, actor auth.Actor, id string) (PoolSummary, error) {
	p, err := s.Pool(ctx, actor, id)
	if err != nil {
		return PoolSummary{}, err
	}
	f, err := s.wholeFigures(ctx, p)
	if err != nil {
		return PoolSummary{}, err
	}
	return PoolSummary{Pool: p, Figures: f}, nil
}

// wholeFigures are the figures of the whole pool p, its scope ignored.
func (s *Service) wholeFigures(ctx context.Context, p Pool) (Figures, error) {
	space, err := spaceOf(p)
	if err != nil {
		return Figures{}, err
	}
	held, err := store.ShownNumbers(ctx, s.db, p.ID, nil)
	if err != nil {
		return Figures{}, err
	}
	f, _ := figures(space, candidates.NumberSetOf(held...))
	return f, nil
}

// spaceOf is the pool's space of numbers, as the enumerator reads it.
func spaceOf(p Pool) (candidates.NumberPool, error) {
	ranges := make([]candidates.NumberRange, len(p.Ranges))
	for i, r := range p.Ranges {
		ranges[i] = candidates.NumberRange{Start: r.Start, End: r.End, Weight: r.Weight}
	}
	return candidates.ParseNumberPool(ranges)
}

// An OverviewQuery says what of a pool its page shows.
type OverviewQuery struct {
	// Division opens a division of a scoped pool: a value for every scope
	// element. A pool without a scope has its own division open always.
	Division []EntryInput
	// Divisions asks for a page of a scoped pool's divisions: the list of
	// its allocation scopes, or, with a division open, those to switch to.
	Divisions DivisionQuery
	// Limit (branch.MaxPage when 0) and Offset bound the page of the open
	// division's numbers.
	Limit, Offset int
}

// A PoolOverview is a number pool as its page shows it: the pool with its
// figures, a page of a scoped pool's divisions, and the division open.
type PoolOverview struct {
	PoolSummary
	// Divisions are the page of a scoped pool's divisions that
	// OverviewQuery.Divisions asks for; empty for a pool without a scope.
	Divisions DivisionList
	// Division is the division open: OverviewQuery.Division of a scoped
	// pool, a pool without a scope's own; nil when none is.
	Division *DivisionOverview
}

// A DivisionOverview is one division of a pool (the pool's own, for a
// pool without a scope) as its page shows it.
type DivisionOverview struct {
	// Label is the division's display label (its peers' labels as the
	// default branch shows them first, as Divisions writes them); "" for
	// a pool without a scope.
	Label string
	// Usage are its figures and each range's in it, counting every
	// branch, as Utilization's.
	Usage Usage
	// Strips draw each of its ranges, in the pool's order.
	Strips []Strip
	// Allocations is the page of its numbers OverviewQuery asks for, as
	// Allocations lists them.
	Allocations AllocationPage
}

// A Strip is a range of a division drawn as a strip of its numbers: a
// cell per number, or per block of numbers when the range has more than
// StripCells.
type Strip struct {
	Range RangeUsage
	Cells []StripCell
}

// A StripCell is a number of a range, or a block of them from First to
// Last, and how many of them are taken.
type StripCell struct {
	First, Last int64
	Taken       int64
}

// PoolOverview returns the overview of the pool id that q asks for, with
// the refusals of Pool, DivisionPage and Utilization. The figures and the
// strips are counted from the numbers held, read once for the pool and
// once for the division open (store.ShownNumbers), never from the pages
// of its allocations.
func (s *Service) PoolOverview(ctx context.Context, actor auth.Actor, id string, q OverviewQuery) (PoolOverview, error) {
	sum, err := s.PoolSummary(ctx, actor, id)
	if err != nil {
		return PoolOverview{}, err
	}
	o := PoolOverview{PoolSummary: sum}
	if len(sum.Pool.Scope) > 0 {
		if o.Divisions, err = s.DivisionPage(ctx, actor, id, q.Divisions); err != nil {
			return PoolOverview{}, err
		}
		if q.Division == nil {
			return o, nil
		}
	}
	d, err := s.divisionOverview(ctx, actor, id, q)
	if err != nil {
		return PoolOverview{}, err
	}
	o.Division = &d
	return o, nil
}

// divisionOverview is the overview of the division q opens of the pool id.
func (s *Service) divisionOverview(ctx context.Context, actor auth.Actor, id string, q OverviewQuery) (DivisionOverview, error) {
	row, key, err := s.divisionOf(ctx, actor, id, q.Division)
	if err != nil {
		return DivisionOverview{}, err
	}
	st, err := newPoolState(row)
	if err != nil {
		return DivisionOverview{}, err
	}
	held, err := store.ShownNumbers(ctx, s.db, row.ID, key)
	if err != nil {
		return DivisionOverview{}, err
	}
	total, each := figures(st.space, candidates.NumberSetOf(held...))
	d := DivisionOverview{Usage: Usage{Figures: total, Ranges: make([]RangeUsage, len(each))}, Strips: make([]Strip, len(each))}
	for i, f := range each {
		d.Usage.Ranges[i] = RangeUsage{Range: Range(row.Ranges[i]), Figures: f}
		d.Strips[i] = stripOf(d.Usage.Ranges[i], held)
	}
	if d.Allocations, err = s.Allocations(ctx, actor, id, q.Division, q.Limit, q.Offset); err != nil {
		return DivisionOverview{}, err
	}
	if len(row.Scope) > 0 {
		main, err := s.branches.Schema(ctx, branch.Main)
		if err != nil {
			return DivisionOverview{}, err
		}
		d.Label = s.division(ctx, actor, branch.Main, main, row, key).DisplayLabel
	}
	return d, nil
}

// stripOf draws the range r with the numbers held (ascending, each once):
// a cell per number, or per block of them when the range has more than
// StripCells.
func stripOf(r RangeUsage, held []int64) Strip {
	size := r.End - r.Start + 1
	block := max(1, (size+StripCells-1)/StripCells)
	out := Strip{Range: r}
	i := 0
	for first := r.Start; first <= r.End; first += block {
		last := min(first+block-1, r.End)
		for i < len(held) && held[i] < first {
			i++
		}
		c := StripCell{First: first, Last: last}
		for ; i < len(held) && held[i] <= last; i++ {
			c.Taken++
		}
		out.Cells = append(out.Cells, c)
		if last == r.End {
			break
		}
	}
	return out
}
