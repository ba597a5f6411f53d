package web

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/a-h/templ"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// poolShow answers GET /pools/<name> and /pools/<namespace>/<name>: the
// pool's figures, its address map (?block=<a /24> for one block of a large
// pool; an IPv6 pool larger than what it hands out is a zoom map, ?block=
// one level down: poolZoom), its usage over time (?span=7d|30d|1y) with the forecast, a private
// pool's VPC and subnets, and its allocation table (?q= to search,
// ?prefix= to keep a prefix, ?page= by number: allocationTable).
// Tenants see the private pools of their namespaces only; anything else
// answers as a pool that does not exist.
func (s *Server) poolShow(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	namespace, name := splitPath(r.PathValue("path"))
	q := r.URL.Query()
	o, err := s.ipam.PoolOverview(r.Context(), actor, namespace, name, q.Get("block"))
	if err != nil {
		s.failed(w, r, err)
		return
	}
	chart, err := s.ipam.UsageChart(r.Context(), actor, o.Pool.Namespace, o.Pool.UID, o.Usage, views.ChartSpan(q.Get("span")), time.Now())
	if err != nil {
		s.failed(w, r, err)
		return
	}
	p := views.PoolPageProps{Shell: s.shell(r, o.Pool.Name), Overview: o, Href: views.PoolHref(o.Pool), SubnetHref: views.SubnetHref,
		CanManage: actor.IsOperator() && o.Pool.Kind == ipam.Public}
	p.Chart = views.UsageChartProps{Chart: chart, Href: p.Href}
	if o.VPC.Name != "" {
		p.VPCHref = views.VPCHref(o.VPC)
	}
	if p.Zoom, err = s.poolZoom(r, o, p.Href); err != nil {
		s.failed(w, r, err)
		return
	}
	table, status, err := s.allocationTable(r, p.Href, o.Pool, o.Pool.CIDR, true, func(tq ipam.TableQuery) (ipam.AllocationTable, error) {
		return s.ipam.PoolTable(r.Context(), actor, o.Pool, tq)
	})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	p.Table = table
	if p.History, err = s.history(r.Context(), audit.Ref{Kind: audit.KindPool, Namespace: o.Pool.Namespace, Name: o.Pool.Name}, "pool "+o.Pool.Name); err != nil {
		s.serverError(w, r, err)
		return
	}
	var f views.Flash
	if s.popFlash(r.Context(), p.Href, &f) {
		p.Flash = &f
	}
	s.renderPageStatus(w, r, status, views.PoolPage(p), "allocations")
}

// renderPage renders a whole page, or only the fragment an htmx request
// targets when it is one of fragments.
func (s *Server) renderPage(w http.ResponseWriter, r *http.Request, page templ.Component, fragments ...any) {
	s.renderPageStatus(w, r, http.StatusOK, page, fragments...)
}

// renderPageStatus is renderPage answering status.
func (s *Server) renderPageStatus(w http.ResponseWriter, r *http.Request, status int, page templ.Component, fragments ...any) {
	if r.Header.Get("HX-Request") == "true" {
		target := r.Header.Get("HX-Target")
		for _, f := range fragments {
			if f == target {
				s.render(w, r, status, templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
					return templ.RenderFragments(ctx, w, page, f)
				}))
				return
			}
		}
	}
	s.render(w, r, status, page)
}
