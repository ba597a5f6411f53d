package web

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"net/url"

	"github.com/a-h/templ"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// allocationsPerPage is the length of a page of the allocation table.
const allocationsPerPage = 50

// poolShow answers GET /pools/<name> and /pools/<namespace>/<name>: the
// pool's figures, its address map (?block=<a /24> for one block of a large
// pool) and its allocations (?q= to search, ?after= for the next page).
// Tenants see the private pools of their namespaces only; anything else
// answers as a pool that does not exist.
func (s *Server) poolShow(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	ctx := r.Context()
	namespace, name := splitPath(r.PathValue("path"))
	p, err := s.ipam.Pool(ctx, actor, namespace, name)
	if errors.Is(err, ipam.ErrNotFound) || err == nil && p.Kind == ipam.Public && !actor.IsOperator() {
		s.notFound(w, r)
		return
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	v := views.PoolView{Pool: p, Href: poolHref(p), Search: r.URL.Query().Get("q")}
	if v.Usage, err = s.ipam.PoolUsage(ctx, actor, p); err != nil {
		s.serverError(w, r, err)
		return
	}
	var block netip.Prefix
	if b, err := netip.ParsePrefix(r.URL.Query().Get("block")); err == nil && b.Bits() == 24 && p.CIDR.Bits() < 24 && p.CIDR.Contains(b.Addr()) {
		block, v.Block = b.Masked(), b.Masked().String()
	}
	if v.Map, err = s.ipam.PoolMap(ctx, actor, p, block); err != nil {
		s.serverError(w, r, err)
		return
	}
	v.BlockHref = func(b candidates.Block) string { return v.Href + "?block=" + url.QueryEscape(b.Prefix.String()) }
	after := r.URL.Query().Get("after")
	v.Page, err = s.ipam.PoolAllocations(ctx, actor, p, ipam.Page{First: allocationsPerPage, After: after, Search: v.Search})
	if errors.Is(err, ipam.ErrInvalid) {
		after = ""
		v.Page, err = s.ipam.PoolAllocations(ctx, actor, p, ipam.Page{First: allocationsPerPage})
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	v.NextHref, v.FirstHref = pageLinks(v.Href, v.Search, after, v.Page)
	s.renderPage(w, r, views.PoolPage(s.shell(r, p.Name), v), "allocations")
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
