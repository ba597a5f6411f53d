package web

import (
	"net/http"

	"pivirt.hu/ipam/views"
)

// resourceManagerList answers GET /resource-managers: every pool, IP and
// number, with what it allocates, its scope and its usage (operators).
func (s *Server) resourceManagerList(w http.ResponseWriter, r *http.Request) {
	sh, branchName, err := s.branchShell(r, "Resource Managers")
	if err != nil {
		s.failed(w, r, err)
		return
	}
	actor, _ := actorFrom(r.Context())
	sums, err := s.ipam.PoolSummaries(r.Context(), actor)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	p := views.ResourceManagersProps{Shell: sh, Branch: branchName, IPPools: make([]views.PoolRow, len(sums))}
	for i, sum := range sums {
		p.IPPools[i] = views.PoolRow{PoolSummary: sum, Href: views.PoolHref(sum.Pool)}
	}
	numberPools, err := s.numbers.PoolSummaries(r.Context(), actor)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	for _, sum := range numberPools {
		p.NumberPools = append(p.NumberPools, views.NumberPoolRow{Pool: sum.Pool, Figures: sum.Figures, Href: views.NumberPoolHref(sum.Pool.ID)})
	}
	var f views.Flash
	if s.popFlash(r.Context(), views.ResourceManagersPath, &f) {
		p.Flash = &f
	}
	s.render(w, r, http.StatusOK, views.ResourceManagersPage(p))
}
