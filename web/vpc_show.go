package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
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
	var done views.Flash
	if s.popFlash(r.Context(), vpcDoneKey(o.VPC), &done) {
		p.Flash = &done
	}
	predictClaims(&p)
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
	p := views.VPCPageProps{Shell: s.shell(r, o.VPC.Name), Overview: o, Href: views.VPCHref(o.VPC), PoolHref: views.PoolHref(o.Pool), Claims: string(claims), History: history}
	p.Addresses, err = s.vpcAddresses(r, o, p.Href)
	return p, err
}

// vpcAddressesPerPage is the length of a page of the VPC page's addresses.
const vpcAddressesPerPage = 50

// vpcAddresses is the page of the VPC's addresses (VM interfaces and node
// addresses) that the request asks for (?after=, the address a page
// follows), linked to the next and the first.
func (s *Server) vpcAddresses(r *http.Request, o ipam.VPCOverview, href string) (views.VPCAddresses, error) {
	actor, _ := actorFrom(r.Context())
	after := r.URL.Query().Get("after")
	page, err := s.ipam.PoolAllocations(r.Context(), actor, o.Pool, ipam.Page{First: vpcAddressesPerPage, After: after})
	if errors.Is(err, refusal.ErrInvalid) {
		after = ""
		page, err = s.ipam.PoolAllocations(r.Context(), actor, o.Pool, ipam.Page{First: vpcAddressesPerPage})
	}
	if err != nil {
		return views.VPCAddresses{}, err
	}
	a := views.VPCAddresses{Page: page, Subnets: map[string]string{}}
	for _, sv := range o.Subnets {
		a.Subnets[sv.Subnet.UID] = sv.Subnet.Name
	}
	if page.HasNext {
		a.NextHref = href + "?" + url.Values{"after": {page.EndCursor}}.Encode() + "#addresses"
	}
	if after != "" {
		a.FirstHref = href + "#addresses"
	}
	return a, nil
}
