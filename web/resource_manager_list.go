package web

import (
	"math"
	"net/http"

	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/views"
)

// numberPoolHref is the console path of a number pool.
func numberPoolHref(id string) string { return "/resource-managers/" + id }

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
		p.IPPools[i] = views.PoolRow{PoolSummary: sum, Href: poolHref(sum.Pool)}
	}
	pools, err := s.numbers.Pools(r.Context(), actor, numbers.PoolFilter{}, 0, 0)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	for _, pool := range pools.Pools {
		u, err := s.numbers.ResourcePoolUtilization(r.Context(), actor, pool.ID)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		p.NumberPools = append(p.NumberPools, views.NumberPoolRow{Pool: pool, Figures: wholeFigures(pool, u), Href: numberPoolHref(pool.ID)})
	}
	var f views.Flash
	if s.popFlash(r.Context(), resourceManagersPath, &f) {
		p.Flash = &f
	}
	s.render(w, r, http.StatusOK, views.ResourceManagersPage(p))
}

// wholeFigures are the figures of a whole pool, its scope ignored, from
// its ranges' utilization (InfrahubResourcePoolUtilization's, in the
// order of the pool's ranges): each range's numbers used, rounded.
func wholeFigures(pool numbers.Pool, u numbers.PoolUtilization) numbers.Figures {
	var f numbers.Figures
	for i, r := range pool.Ranges {
		size := r.End - r.Start + 1
		f.Size += size
		if i < len(u.Ranges) {
			f.Used += int64(math.Round(u.Ranges[i].Utilization * float64(size) / 100))
		}
	}
	if f.Size > 0 {
		f.Utilization = 100 * float64(f.Used) / float64(f.Size)
	}
	return f
}
