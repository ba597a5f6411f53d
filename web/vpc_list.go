package web

import (
	"net/http"
	"net/url"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// vpcHref is the console path of a VPC: /vpcs/<namespace>/<name>.
func vpcHref(v ipam.VPC) string { return "/vpcs/" + v.Namespace + "/" + url.PathEscape(v.Name) }

// vpcList answers GET /vpcs: the VPCs the user may see.
func (s *Server) vpcList(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	ctx := r.Context()
	vpcs, err := s.ipam.VPCs(ctx, actor, "")
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	rows := make([]views.VPCRow, 0, len(vpcs))
	for _, v := range vpcs {
		row := views.VPCRow{VPC: v, Href: vpcHref(v)}
		subnets, err := s.ipam.Subnets(ctx, actor, v)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		row.Subnets = len(subnets)
		if uplink, _, ok, err := s.ipam.Router(ctx, actor, v); err != nil {
			s.serverError(w, r, err)
			return
		} else if ok {
			row.Router = uplink.Address.String()
		}
		if pool, err := s.ipam.VPCPool(ctx, actor, v); err == nil {
			row.Usage, _ = s.ipam.PoolUsage(ctx, actor, pool)
		}
		rows = append(rows, row)
	}
	s.render(w, r, http.StatusOK, views.VPCsPage(s.shell(r, "VPCs"), rows))
}
