package web

import (
	"net/http"
	"strings"

	"pivirt.hu/ipam/views"
)

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
	sums, err := s.ipam.PoolSummaries(r.Context(), actor)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	rows := make([]views.PoolRow, len(sums))
	for i, sum := range sums {
		rows[i] = views.PoolRow{PoolSummary: sum, Href: views.PoolHref(sum.Pool)}
	}
	p := views.PoolsPageProps{Shell: s.shell(r, "Pools"), Rows: rows, CanCreate: actor.IsOperator()}
	var f views.Flash
	if s.popFlash(r.Context(), views.PoolsPath, &f) {
		p.Flash = &f
	}
	s.render(w, r, http.StatusOK, views.PoolsPage(p))
}
