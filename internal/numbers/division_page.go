package numbers

import (
	"context"
	"encoding/json"
	"slices"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/store"
)

// SortByUsage sorts divisions by their numbers used, most used first.
const SortByUsage = "usage"

// A DivisionQuery asks for one page of a pool's divisions.
type DivisionQuery struct {
	// Search keeps the divisions one of whose entries' display labels or
	// values holds it, case ignored; "" keeps all.
	Search string
	// Sort is SortByUsage (also for ""), most used first, or the name of a
	// scope element, by its display label (numbers by value), ascending;
	// ties by the divisions' values.
	Sort string
	// Reverse reverses the order.
	Reverse bool
	// Limit (branch.MaxPage when 0) and Offset bound the page.
	Limit, Offset int
}

// DivisionPage returns a page of the divisions of the pool id that hold a
// number, as Divisions lists them, searched and sorted as q asks, and how
// many match in all. The divisions, their usage and their entries' labels
// are kept in the database (store.DivisionPage), folded first from the
// marks of the writes since the last read (fold): by usage without a
// search only the page's rows are read; a search or an order by an element
// reads each division's row once, and labels are made for the page's
// divisions alone.
func (s *Service) DivisionPage(ctx context.Context, actor auth.Actor, poolID string, q DivisionQuery) (DivisionList, error) {
	row, _, err := s.poolRow(ctx, actor, poolID)
	if err != nil {
		return DivisionList{}, err
	}
	limit, err := page(q.Limit, q.Offset)
	if err != nil {
		return DivisionList{}, err
	}
	main, err := s.branches.Schema(ctx, branch.Main)
	if err != nil {
		return DivisionList{}, err
	}
	sortBy := -1
	if q.Sort != "" && q.Sort != SortByUsage {
		if sortBy = slices.Index(namesIn(main, row).scope, q.Sort); sortBy < 0 {
			return DivisionList{}, invalid("sort", "%q is not a scope element of pool %s; sort by usage or by one of them", q.Sort, row.Name)
		}
	}
	st, err := newPoolState(row)
	if err != nil {
		return DivisionList{}, err
	}
	if err := s.fold(ctx, row); err != nil {
		return DivisionList{}, err
	}
	rows, total, err := store.DivisionPage(ctx, s.db, row.ID, store.DivisionPageQuery{Search: q.Search, Entry: sortBy, Reverse: q.Reverse, Limit: limit, Offset: q.Offset})
	if err != nil {
		return DivisionList{}, err
	}
	l := s.newLabeler(ctx, actor, main, row)
	for _, d := range rows {
		l.want(d.Division)
	}
	if err := l.resolve(); err != nil {
		return DivisionList{}, err
	}
	out := DivisionList{Count: total, Divisions: make([]Division, len(rows))}
	for i, d := range rows {
		out.Divisions[i] = l.division(d.Division)
		out.Divisions[i].Figures = figuresOf(st.space.Size(), d.Used)
	}
	return out, nil
}

// fold folds the marks of the pool's divisions (store.FoldDivisionUsage),
// labelling the divisions it recounts as main then the other branches show
// their peers, with the schemas the database holds once the fold's locks
// are granted (branch.Service.Refresh: this process may not have been told
// of a schema loaded elsewhere yet); at most maxFolds at once.
func (s *Service) fold(ctx context.Context, row store.NumberPoolRow) error {
	select {
	case s.folds <- struct{}{}:
		defer func() { <-s.folds }()
	case <-ctx.Done():
		return ctx.Err()
	}
	return store.FoldDivisionUsage(ctx, s.db, row.ID, func(ctx context.Context, divisions []json.RawMessage) ([][]string, error) {
		if err := s.branches.Refresh(ctx); err != nil {
			return nil, err
		}
		main, err := s.branches.Schema(ctx, branch.Main)
		if err != nil {
			return nil, err
		}
		l := s.newLabeler(ctx, auth.System, main, row)
		for _, d := range divisions {
			l.want(d)
		}
		if err := l.resolve(); err != nil {
			return nil, err
		}
		out := make([][]string, len(divisions))
		for i, d := range divisions {
			for _, e := range l.division(d).Entries {
				out[i] = append(out[i], e.DisplayLabel)
			}
		}
		return out, nil
	})
}
