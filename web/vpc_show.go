package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"time"

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
	history, err := s.history(r.Context(), audit.Ref{Kind: audit.KindVPC, Namespace: o.VPC.Namespace, Name: o.VPC.Name}, "VPC "+o.VPC.Name)
	if err != nil {
		return views.VPCPageProps{}, err
	}
	p := views.VPCPageProps{Shell: s.shell(r, o.VPC.Name), Href: views.VPCHref(o.VPC), PoolHref: views.PoolHref(o.Pool), History: history}
	if p.IPv6, err = s.vpcIPv6(r, o); err != nil {
		return p, err
	}
	if p.IPv6 != nil {
		if err := s.ipv6Claims(r, &o, p.IPv6.Pool); err != nil {
			return p, err
		}
	}
	claims, err := json.Marshal(o.Claims)
	if err != nil {
		return p, err
	}
	p.Overview, p.Claims = o, string(claims)
	p.Addresses, err = s.vpcAddresses(r, o, p.Href)
	return p, err
}

// vpcIPv6 is the IPv6 side of the VPC of o as its page shows it: its IPv6
// pool, how many /64s its subnets use and their usage over time
// (?span=), and its prefix drawn as its
// children, each leading one level down on the pool's page (poolZoom); nil
// for a VPC of IPv4 only.
func (s *Server) vpcIPv6(r *http.Request, o ipam.VPCOverview) (*views.VPCIPv6, error) {
	v := o.VPC
	if !v.IPv6CIDR.IsValid() {
		return nil, nil
	}
	actor, _ := actorFrom(r.Context())
	pool, err := s.ipam.Pool(r.Context(), actor, v.Namespace, v.IPv6PoolName())
	if err != nil {
		return nil, err
	}
	out := &views.VPCIPv6{Pool: pool, PoolHref: views.PoolHref(pool)}
	if out.Usage, err = s.ipam.VPCIPv6Usage(r.Context(), actor, v, ipam.VPCIPv6HistoryBits); err != nil {
		return nil, err
	}
	chart, err := s.ipam.UsageChart(r.Context(), actor, v.Namespace, v.UID, out.Usage, views.ChartSpan(r.URL.Query().Get("span")), time.Now())
	if err != nil {
		return nil, err
	}
	out.Chart = views.UsageChartProps{Chart: chart, Href: views.VPCHref(v), IPv6: true}
	if unit := zoomUnit(pool); views.Zooms(v.IPv6CIDR, unit) {
		var held []views.ZoomHeld
		for _, sv := range o.Subnets {
			if sv.Subnet.IPv6CIDR.IsValid() {
				held = append(held, views.ZoomHeld{Prefix: sv.Subnet.IPv6CIDR, Holder: "subnet " + sv.Subnet.Name, Href: views.SubnetHref(sv.Subnet)})
			}
		}
		g := views.NewZoomGrid(v.IPv6CIDR, unit, held, views.ZoomLinks{
			Down: func(b netip.Prefix) string { return views.BlockHref(pool, b) },
			Free: func(b netip.Prefix) string { return poolTableHref(out.PoolHref, b) },
		})
		out.Zoom = &g
	}
	return out, nil
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
	if o.VPC.IPv6CIDR.IsValid() {
		if a.IPv6, err = s.ipv6Addresses(r, o.VPC, page); err != nil {
			return views.VPCAddresses{}, err
		}
	}
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

// ipv6Addresses are the IPv6 addresses that the owners of page hold in the
// VPC v's IPv6 pool, by views.OwnerKey: what the page lists beside each
// NIC's IPv4 address.
func (s *Server) ipv6Addresses(r *http.Request, v ipam.VPC, page ipam.AllocationPage) (map[string]ipam.Allocation, error) {
	actor, _ := actorFrom(r.Context())
	pool, err := s.ipam.Pool(r.Context(), actor, v.Namespace, v.IPv6PoolName())
	if err != nil {
		return nil, err
	}
	out := map[string]ipam.Allocation{}
	for _, a := range page.Allocations {
		six, err := s.ipam.PoolAllocations(r.Context(), actor, pool, ipam.Page{First: 20, Search: a.Owner.Name})
		if err != nil {
			return nil, err
		}
		for _, b := range six.Allocations {
			if views.OwnerKey(b) == views.OwnerKey(a) {
				out[views.OwnerKey(a)] = b
			}
		}
	}
	return out, nil
}
