package web

import (
	"net/http"
	"net/url"
	"strings"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// poolHref is the console path of a pool: /pools/<name> for a public pool,
// /pools/<namespace>/<name> for a private one.
func poolHref(p ipam.Pool) string {
	if p.Namespace == "" {
		return "/pools/" + url.PathEscape(p.Name)
	}
	return "/pools/" + p.Namespace + "/" + url.PathEscape(p.Name)
}

// splitPath cuts "<namespace>/<name>" (the namespace itself may hold
// slashes, or be empty) into its parts.
func splitPath(path string) (namespace, name string) {
	path = strings.Trim(path, "/")
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[:i], path[i+1:]
	}
	return "", path
}

// poolList answers GET /pools: operators see every pool; tenants the
// private pools of their namespaces.
func (s *Server) poolList(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	pools, err := s.ipam.Pools(r.Context(), actor, "", "")
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	rows := make([]views.PoolRow, 0, len(pools))
	for _, p := range pools {
		if p.Kind == ipam.Public && !actor.IsOperator() {
			continue
		}
		u, err := s.ipam.PoolUsage(r.Context(), actor, p)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		rows = append(rows, views.PoolRow{Pool: p, Usage: u, Href: poolHref(p)})
	}
	s.render(w, r, http.StatusOK, views.PoolsPage(s.shell(r, "Pools"), rows, actor.IsOperator()))
}
