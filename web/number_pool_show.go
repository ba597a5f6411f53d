package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/usage"
	"pivirt.hu/ipam/views"
)

// The lengths of the number pool page's lists.
const (
	scopesPerPage  = 50
	numbersPerPage = 50
	// switchChoices is how many divisions, the most used, the Allocation
	// scope card offers.
	switchChoices = 100
	// stripCells bounds the cells of a range's strip: a longer range is
	// drawn by blocks of numbers.
	stripCells = 1024
)

// numberPoolShow answers GET /resource-managers/<id>: the pool's figures;
// for a scoped pool its allocation scopes (?q= to search, ?sort=<element>
// or usage, ?dir=desc, ?page=) or one of them (?division=<its values as a
// JSON array, in the scope's order>); for a pool without a scope its
// ranges and numbers (?numbers= for a page of them). Operators only.
func (s *Server) numberPoolShow(w http.ResponseWriter, r *http.Request) {
	pool, ok := s.numberPoolOf(w, r)
	if !ok {
		return
	}
	sh, branchName, err := s.branchShell(r, pool.Name)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	actor, _ := actorFrom(r.Context())
	ctx := r.Context()
	whole, err := s.numbers.ResourcePoolUtilization(ctx, actor, pool.ID)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	main, err := s.branches.Schema(ctx, branch.Main)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	pg := poolPage{s: s, r: r, pool: pool, main: main, branch: branchName, href: numberPoolHref(pool.ID)}
	p := views.NumberPoolPageProps{Shell: sh, Pool: pool, Figures: wholeFigures(pool, whole), Branch: branchName, EditHref: pg.href + "/edit", DeleteHref: pg.href + "/delete"}
	if p.History, err = s.history(ctx, audit.Ref{Kind: audit.KindNumberPool, Name: pool.ID}, "number pool "+pool.Name); err != nil {
		s.serverError(w, r, err)
		return
	}
	var f views.Flash
	if s.popFlash(ctx, pg.href, &f) {
		p.Flash = &f
	}
	q := r.URL.Query()
	switch {
	case len(pool.Scope) == 0:
		p.Division, err = pg.division(nil, "")
	case q.Has("division"):
		var values []string
		if json.Unmarshal([]byte(q.Get("division")), &values) != nil || len(values) != len(pool.Scope) {
			s.notFound(w, r)
			return
		}
		p.Division, err = pg.division(values, q.Get("division"))
	default:
		p.Scopes, err = pg.scopes()
	}
	if err != nil {
		s.failed(w, r, err)
		return
	}
	s.renderPage(w, r, views.NumberPoolPage(p), "allocation-scopes")
}

// poolPage builds the parts of a number pool's page.
type poolPage struct {
	s      *Server
	r      *http.Request
	pool   numbers.Pool
	main   schema.Schema
	branch string
	href   string
}

// link is the pool page's path with the query v, on the branch in use.
func (pg poolPage) link(v url.Values) string {
	href := pg.href
	if len(v) > 0 {
		href += "?" + v.Encode()
	}
	return views.BranchHref(href, pg.branch)
}

// divisionKey is the value of the division parameter that opens d.
func divisionKey(d numbers.Division) string {
	values := make([]string, len(d.Entries))
	for i, e := range d.Entries {
		values[i] = e.Value
	}
	b, _ := json.Marshal(values)
	return string(b)
}

// objectHref is the console page of an object of the kind.
func (pg poolPage) objectHref(kind, id string) string {
	return views.BranchHref("/objects/"+url.PathEscape(kind)+"/"+url.PathEscape(id)+"/edit", pg.branch)
}

// pageNumber reads a page number (from 1) of the query.
func pageNumber(v string) int {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// scopes is the page of allocation scopes the request asks for.
func (pg poolPage) scopes() (*views.AllocationScopesProps, error) {
	q := pg.r.URL.Query()
	search, sortBy, reverse := q.Get("q"), q.Get("sort"), q.Get("dir") == "desc"
	if sortBy != "" && sortBy != numbers.SortByUsage && !slices.Contains(pg.pool.ScopeNames(), sortBy) {
		sortBy = ""
	}
	n := pageNumber(q.Get("page"))
	actor, _ := actorFrom(pg.r.Context())
	list, err := pg.s.numbers.DivisionPage(pg.r.Context(), actor, pg.pool.ID, numbers.DivisionQuery{Search: search, Sort: sortBy, Reverse: reverse,
		Limit: scopesPerPage, Offset: (n - 1) * scopesPerPage})
	if err != nil {
		return nil, err
	}
	p := &views.AllocationScopesProps{Href: pg.href, Branch: pg.branch, Search: search, Sort: sortBy, Reverse: reverse, Count: list.Count,
		From: (n-1)*scopesPerPage + 1}
	at := func(page int, sortBy string, reverse bool) string {
		v := url.Values{}
		if search != "" {
			v.Set("q", search)
		}
		if sortBy != "" {
			v.Set("sort", sortBy)
		}
		if reverse {
			v.Set("dir", "desc")
		}
		if page > 1 {
			v.Set("page", strconv.Itoa(page))
		}
		return pg.link(v)
	}
	for _, name := range append(pg.pool.ScopeNames(), numbers.SortByUsage) {
		c := views.ScopeColumn{Name: name, Label: name, SortHref: at(1, name, false)}
		if name == sortBy || (sortBy == "" && name == numbers.SortByUsage) {
			// A scope element sorts ascending, usage most used first:
			// reversed, the other way.
			descending := reverse != (name == numbers.SortByUsage)
			c.Sorted, c.SortHref = "ascending", at(1, name, !reverse)
			if descending {
				c.Sorted = "descending"
			}
		}
		if name == numbers.SortByUsage {
			c.Label = "Usage"
		}
		p.Columns = append(p.Columns, c)
	}
	if n > 1 {
		p.PrevHref = at(n-1, sortBy, reverse)
	}
	if n*scopesPerPage < list.Count {
		p.NextHref = at(n+1, sortBy, reverse)
	}
	p.Rows = pg.rows(list.Divisions)
	return p, nil
}

// rows are the divisions as the allocation scopes list them.
func (pg poolPage) rows(ds []numbers.Division) []views.ScopeRow {
	out := make([]views.ScopeRow, len(ds))
	for i, d := range ds {
		key := divisionKey(d)
		row := views.ScopeRow{Division: d, Key: key, Href: pg.link(url.Values{"division": {key}})}
		for j, e := range d.Entries {
			c := views.ScopeCell{Text: e.DisplayLabel}
			if j < len(pg.pool.Scope) && pg.pool.Scope[j].Relationship {
				if rel, ok := pg.main.Relationship(pg.pool.Kind, e.Path); ok {
					c.Href = pg.objectHref(rel.Peer, e.Value)
				}
			}
			row.Cells = append(row.Cells, c)
		}
		out[i] = row
	}
	return out
}

// division is the view of the division of values (the scope's, in order;
// nil for a pool without a scope), whose key is the division parameter.
func (pg poolPage) division(values []string, key string) (*views.DivisionViewProps, error) {
	ctx := pg.r.Context()
	actor, _ := actorFrom(ctx)
	var in []numbers.EntryInput
	for i, v := range values {
		in = append(in, numbers.EntryInput{Path: pg.pool.Scope[i].Name, Value: v})
	}
	division, err := pg.s.numbers.Utilization(ctx, actor, pg.pool.ID, in)
	if err != nil {
		return nil, err
	}
	n := pageNumber(pg.r.URL.Query().Get("numbers"))
	allocs, err := pg.s.numbers.Allocations(ctx, actor, pg.pool.ID, in, numbersPerPage, (n-1)*numbersPerPage)
	if err != nil {
		return nil, err
	}
	taken, err := pg.taken(in, allocs.Count)
	if err != nil {
		return nil, err
	}
	p := &views.DivisionViewProps{Usage: division, Allocations: allocs, Branch: pg.branch, Href: pg.href, Current: key,
		HolderHref: func(h numbers.Holder) string { return pg.objectHref(h.Kind, h.ID) }}
	if pg.branch == branch.Main {
		f := division.Figures
		chart, err := usage.ChartOf(views.ChartSpan(pg.r.URL.Query().Get("span")), time.Now(), usage.Figures{Used: int(f.Used), Size: int(f.Size), Free: int(f.Size - f.Used)},
			func(step string, since time.Time) ([]usage.Point, error) {
				return pg.s.numbers.DivisionHistory(ctx, actor, pg.pool.ID, in, step, since)
			})
		if err != nil {
			return nil, err
		}
		v := url.Values{}
		if key != "" {
			v.Set("division", key)
		}
		p.Chart = &views.UsageChartProps{Chart: chart, Href: pg.link(v)}
	}
	for _, r := range division.Ranges {
		p.Strips = append(p.Strips, strip(r, taken))
	}
	at := func(page int) string {
		v := url.Values{}
		if key != "" {
			v.Set("division", key)
		}
		if page > 1 {
			v.Set("numbers", strconv.Itoa(page))
		}
		return pg.link(v)
	}
	if n > 1 {
		p.PrevHref = at(n - 1)
	}
	if n*numbersPerPage < allocs.Count {
		p.NextHref = at(n + 1)
	}
	if values == nil {
		return p, nil
	}
	choices, err := pg.s.numbers.DivisionPage(ctx, actor, pg.pool.ID, numbers.DivisionQuery{Limit: switchChoices})
	if err != nil {
		return nil, err
	}
	p.Switch = pg.rows(choices.Divisions)
	p.Label = divisionLabel(values, allocs, p.Switch, key)
	if !slices.ContainsFunc(p.Switch, func(r views.ScopeRow) bool { return r.Key == key }) {
		p.Switch = append([]views.ScopeRow{{Division: numbers.Division{DisplayLabel: p.Label}, Key: key}}, p.Switch...)
	}
	return p, nil
}

// divisionLabel is the display label of the division of key: as the
// choices or the allocations show it, or its values when neither does
// (a division that holds no number).
func divisionLabel(values []string, allocs numbers.AllocationPage, choices []views.ScopeRow, key string) string {
	for _, c := range choices {
		if c.Key == key {
			return c.Division.DisplayLabel
		}
	}
	labels := slices.Clone(values)
	if len(allocs.Allocations) > 0 {
		for i, e := range allocs.Allocations[0].Division {
			labels[i] = e.DisplayLabel
		}
	}
	return strings.Join(labels, " / ")
}

// taken are the numbers held in the division, ascending: count of them,
// read a page at a time.
func (pg poolPage) taken(in []numbers.EntryInput, count int) ([]int64, error) {
	actor, _ := actorFrom(pg.r.Context())
	out := make([]int64, 0, count)
	for offset := 0; offset < count; offset += branch.MaxPage {
		page, err := pg.s.numbers.Allocations(pg.r.Context(), actor, pg.pool.ID, in, branch.MaxPage, offset)
		if err != nil {
			return nil, err
		}
		for _, a := range page.Allocations {
			out = append(out, a.Value)
		}
	}
	return out, nil
}

// strip draws the range r with the numbers taken (ascending): a cell per
// number, or per block of them when the range has more than stripCells.
func strip(r numbers.RangeUsage, taken []int64) views.RangeStrip {
	size := r.End - r.Start + 1
	block := max(1, (size+stripCells-1)/stripCells)
	s := views.RangeStrip{Range: r}
	for first := r.Start; first <= r.End; first += block {
		last := min(first+block-1, r.End)
		lo, _ := slices.BinarySearch(taken, first)
		hi, _ := slices.BinarySearch(taken, last+1)
		s.Cells = append(s.Cells, views.StripCell{First: first, Last: last, Taken: int64(distinct(taken[lo:hi]))})
		if last == r.End {
			break
		}
	}
	return s
}

// distinct counts the different numbers of ns, ascending.
func distinct(ns []int64) int {
	n := 0
	for i := range ns {
		if i == 0 || ns[i] != ns[i-1] {
			n++
		}
	}
	return n
}
