package web

import (
	"encoding/json"
	"net/http"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// vpcShow answers GET /vpcs/<namespace>/<name>: the VPC's address map and
// claim forms, with what the last claim got when one led here.
func (s *Server) vpcShow(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	namespace, name := splitPath(r.PathValue("path"))
	o, err := s.ipam.VPCOverview(r.Context(), actor, namespace, name)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	p, err := s.vpcPage(r, o)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	var result views.ClaimResult
	if s.popFlash(r.Context(), p.Href, &result) {
		p.Result = &result
	}
	s.render(w, r, http.StatusOK, views.VPCPage(p))
}

// vpcPage returns the VPC page of the overview o.
func (s *Server) vpcPage(r *http.Request, o ipam.VPCOverview) (views.VPCPageProps, error) {
	claims, err := json.Marshal(o.Claims)
	if err != nil {
		return views.VPCPageProps{}, err
	}
	history, err := s.history(r.Context(), audit.Ref{Kind: audit.KindVPC, Namespace: o.VPC.Namespace, Name: o.VPC.Name}, "VPC "+o.VPC.Name)
	if err != nil {
		return views.VPCPageProps{}, err
	}
	return views.VPCPageProps{Shell: s.shell(r, o.VPC.Name), Overview: o, Href: vpcHref(o.VPC), PoolHref: poolHref(o.Pool), Claims: string(claims), History: history}, nil
}
