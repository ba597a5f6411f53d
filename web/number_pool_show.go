package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
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
)

// numberPoolShow answers GET /resource-managers/<id>: the pool's figures;
// for a scoped pool its allocation scopes (?q= to search, ?sort=<element>
// or usage, ?dir=desc, ?page=) or one of them (?division=<its values as a
// JSON array, in the scope's order>); for a pool without a scope its
// ranges and numbers (?numbers= for a page of them): numbers.PoolOverview.
// Operators only.
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
	ctx := r.Context()
	actor, _ := actorFrom(ctx)
	main, err := s.branches.Schema(ctx, branch.Main)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	pg := poolPage{s: s, r: r, pool: pool, main: main, branch: branchName, href: views.NumberPoolHref(pool.ID)}
	q := r.URL.Query()
	var key string
	oq := numbers.OverviewQuery{Divisions: pg.divisionQuery()}
	if len(pool.Scope) == 0 || q.Has("division") {
		if len(pool.Scope) > 0 {
			key = q.Get("division")
		}
		oq.Division, ok = pg.divisionInput(key)
		if !ok {
			s.notFound(w, r)
			return
		}
		n := pageNumber(q.Get("numbers"))
		oq.Divisions = numbers.DivisionQuery{Limit: switchChoices}
		oq.Limit, oq.Offset = numbersPerPage, (n-1)*numbersPerPage
	}
	o, err := s.numbers.PoolOverview(ctx, actor, pool.ID, oq)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	p := views.NumberPoolPageProps{Shell: sh, Pool: o.Pool, Figures: o.Figures, Branch: branchName, EditHref: views.NumberPoolEditHref(pool.ID), DeleteHref: views.NumberPoolDeleteHref(pool.ID)}
	if p.History, err = s.history(ctx, audit.Ref{Kind: audit.KindNumberPool, Name: pool.ID}, "number pool "+pool.Name); err != nil {
		s.serverError(w, r, err)
		return
	}
	var f views.Flash
	if s.popFlash(ctx, pg.href, &f) {
		p.Flash = &f
	}
	if o.Division == nil {
		p.Scopes = pg.scopes(oq.Divisions, o.Divisions)
	} else if p.Division, err = pg.division(oq, *o.Division, o.Divisions, key); err != nil {
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

// divisionKey is the value of the division parameter that opens d; ""
// for the division of a pool without a scope, which its page opens.
func divisionKey(d numbers.Division) string {
	if len(d.Entries) == 0 {
		return ""
	}
	values := make([]string, len(d.Entries))
	for i, e := range d.Entries {
		values[i] = e.Value
	}
	b, _ := json.Marshal(values)
	return string(b)
}

// pageNumber reads a page number (from 1) of the query.
func pageNumber(v string) int {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// divisionQuery is the page of allocation scopes the request asks for; a
// sort by anything but usage or a scope element sorts by usage.
func (pg poolPage) divisionQuery() numbers.DivisionQuery {
	q := pg.r.URL.Query()
	dq := numbers.DivisionQuery{Search: q.Get("q"), Sort: q.Get("sort"), Reverse: q.Get("dir") == "desc", Limit: scopesPerPage}
	if dq.Sort != "" && dq.Sort != numbers.SortByUsage && !slices.Contains(pg.pool.ScopeNames(), dq.Sort) {
		dq.Sort = ""
	}
	dq.Offset = (pageNumber(q.Get("page")) - 1) * scopesPerPage
	return dq
}

// divisionInput reads the division parameter key of a scoped pool (its
// values as a JSON array, in the scope's order); false when it names no
// division of the pool. A pool without a scope has none.
func (pg poolPage) divisionInput(key string) ([]numbers.EntryInput, bool) {
	if len(pg.pool.Scope) == 0 {
		return nil, true
	}
	var values []string
	if json.Unmarshal([]byte(key), &values) != nil || len(values) != len(pg.pool.Scope) {
		return nil, false
	}
	in := make([]numbers.EntryInput, len(values))
	for i, v := range values {
		in[i] = numbers.EntryInput{Path: pg.pool.Scope[i].Name, Value: v}
	}
	return in, true
}

// scopes is the page list of the allocation scopes that dq asked for.
func (pg poolPage) scopes(dq numbers.DivisionQuery, list numbers.DivisionList) *views.AllocationScopesProps {
	n := dq.Offset/scopesPerPage + 1
	p := &views.AllocationScopesProps{Href: pg.href, Branch: pg.branch, Search: dq.Search, Sort: dq.Sort, Reverse: dq.Reverse, Count: list.Count,
		From: dq.Offset + 1}
	at := func(page int, sortBy string, reverse bool) string {
		v := url.Values{}
		if dq.Search != "" {
			v.Set("q", dq.Search)
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
		if name == dq.Sort || (dq.Sort == "" && name == numbers.SortByUsage) {
			// A scope element sorts ascending, usage most used first:
			// reversed, the other way.
			descending := dq.Reverse != (name == numbers.SortByUsage)
			c.Sorted, c.SortHref = "ascending", at(1, name, !dq.Reverse)
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
		p.PrevHref = at(n-1, dq.Sort, dq.Reverse)
	}
	if n*scopesPerPage < list.Count {
		p.NextHref = at(n+1, dq.Sort, dq.Reverse)
	}
	p.Rows = pg.rows(list.Divisions)
	return p
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
					c.Href = views.ObjectHref(rel.Peer, e.Value, pg.branch)
				}
			}
			row.Cells = append(row.Cells, c)
		}
		out[i] = row
	}
	return out
}

// division is the view of the division d that oq opened, whose key is the
// division parameter ("" for a pool without a scope), with the divisions
// to switch to.
func (pg poolPage) division(oq numbers.OverviewQuery, d numbers.DivisionOverview, choices numbers.DivisionList, key string) (*views.DivisionViewProps, error) {
	ctx := pg.r.Context()
	actor, _ := actorFrom(ctx)
	p := &views.DivisionViewProps{DivisionOverview: d, Branch: pg.branch, Href: pg.href, Current: key,
		HolderHref: func(h numbers.Holder) string { return views.ObjectHref(h.Kind, h.ID, pg.branch) }}
	if pg.branch == branch.Main {
		f := d.Usage.Figures
		chart, err := usage.ChartOf(views.ChartSpan(pg.r.URL.Query().Get("span")), time.Now(), usage.Figures{Used: int(f.Used), Size: int(f.Size), Free: int(f.Size - f.Used)},
			func(step string, since time.Time) ([]usage.Point, error) {
				return pg.s.numbers.DivisionHistory(ctx, actor, pg.pool.ID, oq.Division, step, since)
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
	n := oq.Offset/numbersPerPage + 1
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
	if n*numbersPerPage < d.Allocations.Count {
		p.NextHref = at(n + 1)
	}
	if len(pg.pool.Scope) == 0 {
		return p, nil
	}
	p.Switch = pg.rows(choices.Divisions)
	if !slices.ContainsFunc(p.Switch, func(r views.ScopeRow) bool { return r.Key == key }) {
		p.Switch = append([]views.ScopeRow{{Division: numbers.Division{DisplayLabel: d.Label}, Key: key}}, p.Switch...)
	}
	return p, nil
}
