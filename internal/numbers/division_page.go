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
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/schema"
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
// many match in all. By usage without a search, the database orders and
// pages them and only the page's peers are labelled: a pool's first page
// costs about the same with 10 divisions as with 10 000. A search, or an
// order by an element, reads every division (and, for a relationship,
// every peer's label).
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
	if q.Search == "" && sortBy < 0 {
		return s.divisionsByUsage(ctx, actor, main, row, st.space.Size(), q.Reverse, limit, q.Offset)
	}
	held, err := store.NumberDivisions(ctx, s.db, row.ID)
	if err != nil {
		return DivisionList{}, err
	}
	type item struct {
		key  json.RawMessage
		used int64
		div  Division
		// sortKey is the entry sorted by, read once.
		sortKey entryKey
	}
	items := make([]item, len(held))
	for i, d := range held {
		items[i] = item{key: d.Division}
		for _, n := range st.space.Used(candidates.NumberSetOf(d.Numbers...)) {
			items[i].used += n
		}
	}
	l := s.newLabeler(ctx, actor, main, row)
	labelAll := q.Search != "" || (sortBy >= 0 && l.isRelationship(sortBy))
	if labelAll {
		for _, it := range items {
			l.want(it.key)
		}
		if err := l.resolve(); err != nil {
			return DivisionList{}, err
		}
		for i := range items {
			items[i].div = l.division(items[i].key)
		}
	}
	if q.Search != "" {
		needle := strings.ToLower(q.Search)
		items = slices.DeleteFunc(items, func(it item) bool {
			for _, e := range it.div.Entries {
				if strings.Contains(strings.ToLower(e.DisplayLabel), needle) || strings.Contains(strings.ToLower(e.Value), needle) {
					return false
				}
			}
			return true
		})
	}
	byValues := func(a, b item) int { return cmp.Compare(string(a.key), string(b.key)) }
	order := func(a, b item) int { return cmp.Or(cmp.Compare(b.used, a.used), byValues(a, b)) }
	if sortBy >= 0 {
		for i, it := range items {
			if labelAll {
				items[i].sortKey = keyOf(it.div.Entries[sortBy].DisplayLabel)
			} else if values := divisionValues(it.key); sortBy < len(values) {
				items[i].sortKey = keyOf(entryText(values[sortBy]))
			}
		}
		order = func(a, b item) int { return cmp.Or(a.sortKey.compare(b.sortKey), byValues(a, b)) }
	}
	if q.Reverse {
		forward := order
		order = func(a, b item) int { return forward(b, a) }
	}
	slices.SortFunc(items, order)
	out := DivisionList{Count: len(items)}
	pageItems := items[min(q.Offset, len(items)):min(q.Offset+limit, len(items))]
	if !labelAll {
		for _, it := range pageItems {
			l.want(it.key)
		}
		if err := l.resolve(); err != nil {
			return DivisionList{}, err
		}
	}
	out.Divisions = make([]Division, len(pageItems))
	for i, it := range pageItems {
		out.Divisions[i] = l.division(it.key)
		out.Divisions[i].Figures = figuresOf(st.space.Size(), it.used)
	}
	return out, nil
}

// divisionsByUsage is DivisionPage by usage without a search: the
// database counts, orders and pages the divisions, and the page's alone
// are labelled.
func (s *Service) divisionsByUsage(ctx context.Context, actor auth.Actor, main schema.Schema, row store.NumberPoolRow, size int64, leastFirst bool, limit, offset int) (DivisionList, error) {
	rows, total, err := store.DivisionsByUsage(ctx, s.db, row.ID, leastFirst, limit, offset)
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
		out.Divisions[i].Figures = figuresOf(size, d.Used)
	}
	return out, nil
}

// An entryKey is an entry's text as divisions are sorted by it: as
// numbers when both are whole numbers, otherwise as text, case ignored
// first.
type entryKey struct {
	text, lower string
	n           int64
	isNumber    bool
}

func keyOf(text string) entryKey {
	n, err := strconv.ParseInt(text, 10, 64)
	return entryKey{text: text, lower: strings.ToLower(text), n: n, isNumber: err == nil}
}

func (a entryKey) compare(b entryKey) int {
	if a.isNumber && b.isNumber {
		return cmp.Compare(a.n, b.n)
	}
	return cmp.Or(cmp.Compare(a.lower, b.lower), cmp.Compare(a.text, b.text))
}
