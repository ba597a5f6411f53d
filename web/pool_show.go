package web

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/a-h/templ"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// allocationsPerPage is the length of a page of the allocation table.
const allocationsPerPage = 50

// poolShow answers GET /pools/<name> and /pools/<namespace>/<name>: the
// pool's figures, its address map (?block=<a /24> for one block of a large
// pool), its usage over time (?span=7d|30d|1y) with the forecast, and its allocations (?q= to search, ?after= for the next page).
// Tenants see the private pools of their namespaces only; anything else
// answers as a pool that does not exist.
func (s *Server) poolShow(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	namespace, name := splitPath(r.PathValue("path"))
	q := r.URL.Query()
	search := q.Get("q")
	o, err := s.ipam.PoolOverview(r.Context(), actor, namespace, name, ipam.PoolOverviewQuery{
		Block: q.Get("block"), Page: ipam.Page{First: allocationsPerPage, After: q.Get("after"), Search: search},
	})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	chart, err := s.ipam.UsageChart(r.Context(), actor, o.Pool.Namespace, o.Pool.UID, o.Usage, views.ChartSpan(q.Get("span")), time.Now())
	if err != nil {
		s.failed(w, r, err)
		return
	}
	p := views.PoolPageProps{Shell: s.shell(r, o.Pool.Name), Overview: o, Search: search, Href: poolHref(o.Pool),
		CanManage: actor.IsOperator() && o.Pool.Kind == ipam.Public}
	p.Chart = views.UsageChartProps{Chart: chart, Href: p.Href}
	p.BlockHref = func(b candidates.Block) string { return p.Href + "?block=" + url.QueryEscape(b.Prefix.String()) }
	p.NextHref, p.FirstHref = pageLinks(p.Href, search, o.Page.After, o.Allocations)
	if p.History, err = s.history(r.Context(), audit.Ref{Kind: audit.KindPool, Namespace: o.Pool.Namespace, Name: o.Pool.Name}, "pool "+o.Pool.Name); err != nil {
		s.serverError(w, r, err)
		return
	}
	var f views.Flash
	if s.popFlash(r.Context(), p.Href, &f) {
		p.Flash = &f
	}
	s.renderPage(w, r, views.PoolPage(p), "allocations")
}

// pageLinks returns the links to the next page of a table (when there is
// one) and to its first page (when not on it).
func pageLinks(href, search, after string, p ipam.AllocationPage) (next, first string) {
	q := url.Values{}
	if search != "" {
		q.Set("q", search)
	}
	if after != "" {
		first = href
		if len(q) > 0 {
			first += "?" + q.Encode()
		}
	}
	if p.HasNext {
		q.Set("after", p.EndCursor)
		next = href + "?" + q.Encode()
	}
	return next, first
}

// renderPage renders a whole page, or only the fragment an htmx request
// targets when it is one of fragments.
func (s *Server) renderPage(w http.ResponseWriter, r *http.Request, page templ.Component, fragments ...any) {
	if r.Header.Get("HX-Request") == "true" {
		target := r.Header.Get("HX-Target")
		for _, f := range fragments {
			if f == target {
				s.render(w, r, http.StatusOK, templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
					return templ.RenderFragments(ctx, w, page, f)
				}))
				return
			}
		}
	}
	s.render(w, r, http.StatusOK, page)
}
