package web

import (
	"net/http"
	"net/netip"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// addressOf reads the path of an address's page, /addresses/<pool's
// path>/<address> (views.AddressHref), into the pool's namespace and name
// and the address.
func addressOf(r *http.Request) (namespace, pool, address string) {
	rest, address := splitPath(r.PathValue("path"))
	namespace, pool = splitPath(rest)
	return namespace, pool, address
}

// addressShow answers GET /addresses/<pool's path>/<address>: who holds
// the address and since when, or why nobody does, its pool, VPC and
// subnet, and the release of its holder where the user may
// (ipam.Service.Address). What the user may not see is the 404 page.
func (s *Server) addressShow(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	namespace, pool, address := addressOf(r)
	d, err := s.ipam.Address(r.Context(), actor, namespace, pool, address)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	p := s.addressPage(r, actor.IsOperator(), d)
	var f views.Flash
	if s.popFlash(r.Context(), p.Href, &f) {
		p.Flash = &f
	}
	s.render(w, r, http.StatusOK, views.AddressPage(p))
}

// addressPage is the page of the address d, with the links the user may
// follow: a tenant opens no public pool's page.
func (s *Server) addressPage(r *http.Request, operator bool, d ipam.AddressDetail) views.AddressPageProps {
	p := views.AddressPageProps{Shell: s.shell(r, d.Address.String()), Detail: d, Href: views.AddressHref(d.Pool, d.Address)}
	if operator || d.Pool.Kind == ipam.Private {
		p.PoolHref = views.PoolHref(d.Pool)
		p.MapHref = p.PoolHref
		if d.Pool.CIDR.Bits() < 24 {
			p.MapHref = views.BlockHref(d.Pool, netip.PrefixFrom(d.Address, 24).Masked())
		}
	}
	if d.VPC.Name != "" {
		p.VPCHref = views.VPCHref(d.VPC)
	}
	if d.Subnet.Name != "" {
		p.SubnetHref = views.SubnetHref(d.Subnet)
		p.MapHref = p.SubnetHref
	}
	if h := d.Holder; h != nil {
		switch h.Owner.Kind {
		case ipam.OwnerVPC, ipam.OwnerFloatingIP:
			// The VPC's page shows its uplink and its namespace's
			// floating IPs.
			p.OwnerHref = p.VPCHref
		}
		if p.OwnerHref == "" {
			p.OwnerHref = views.SearchHref(h.Owner.UID, 0, "")
		}
	}
	return p
}
