package web

import (
	"net/http"

	"pivirt.hu/ipam/views"
)

// vpcList answers GET /vpcs: the VPCs the user may see, read in a constant
// number of statements.
func (s *Server) vpcList(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	sums, err := s.ipam.VPCSummaries(r.Context(), actor, "")
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	rows := make([]views.VPCRow, len(sums))
	for i, sum := range sums {
		rows[i] = views.VPCRow{VPCSummary: sum, Href: views.VPCHref(sum.VPC)}
	}
	p := views.VPCsPageProps{Shell: s.shell(r, "VPCs"), Rows: rows}
	var f views.Flash
	if s.popFlash(r.Context(), views.VPCsPath, &f) {
		p.Flash = &f
	}
	s.render(w, r, http.StatusOK, views.VPCsPage(p))
}
