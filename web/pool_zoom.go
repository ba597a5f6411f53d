package web

import (
	"net/http"
	"net/netip"
	"net/url"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// zoomUnit is the length of what an IPv6 pool hands out: a VPC's IPv6
// pool carves /64 subnets (ipam.CreateSubnetInput's default), a delegation
// pool its delegated prefixes, any other pool addresses.
func zoomUnit(p ipam.Pool) int {
	switch {
	case p.Kind == ipam.Private:
		return 64
	case p.DelegatedPrefixLength > 0:
		return p.DelegatedPrefixLength
	}
	return 128
}

// poolZoom is the zoom grid of an IPv6 pool larger than what it hands out
// at the block the request asks for (?block=, a prefix of the pool that
// is drawn so too; the whole pool otherwise), or nil for any other pool.
// Its cells are shaded by the subnets of the VPC of a VPC's pool, the
// prefixes a delegation pool delegated, or the addresses held.
func (s *Server) poolZoom(r *http.Request, o ipam.PoolOverview, href string) (*views.ZoomGrid, error) {
	p, unit := o.Pool, zoomUnit(o.Pool)
	if !views.Zooms(p.CIDR, unit) {
		return nil, nil
	}
	scope := p.CIDR
	if b, err := netip.ParsePrefix(r.URL.Query().Get("block")); err == nil && b == b.Masked() && b.Bits() > p.CIDR.Bits() && p.CIDR.Contains(b.Addr()) && views.Zooms(b, unit) {
		scope = b
	}
	table := func(b netip.Prefix) string { return poolTableHref(href, b) }
	held, err := s.zoomHeld(r, o, scope, table)
	if err != nil {
		return nil, err
	}
	g := views.NewZoomGrid(scope, unit, held, views.ZoomLinks{
		Down: func(b netip.Prefix) string { return views.BlockHref(p, b) },
		Free: table,
	})
	return &g, nil
}

// zoomHeld is what holds parts of scope, a prefix of the pool of o: the
// subnets of a VPC's pool, the VPCs a delegation pool delegated to, or
// the addresses held, each /64 that holds some leading to its table.
func (s *Server) zoomHeld(r *http.Request, o ipam.PoolOverview, scope netip.Prefix, table func(netip.Prefix) string) ([]views.ZoomHeld, error) {
	actor, _ := actorFrom(r.Context())
	var held []views.ZoomHeld
	switch {
	case o.Pool.Kind == ipam.Private:
		subnets, err := s.ipam.Subnets(r.Context(), actor, o.VPC)
		if err != nil {
			return nil, err
		}
		for _, sub := range subnets {
			if sub.IPv6CIDR.IsValid() {
				held = append(held, views.ZoomHeld{Prefix: sub.IPv6CIDR, Holder: "subnet " + sub.Name, Href: views.SubnetHref(sub)})
			}
		}
	case o.Pool.DelegatedPrefixLength > 0:
		vpcs, err := s.ipam.VPCs(r.Context(), actor, "")
		if err != nil {
			return nil, err
		}
		for _, v := range vpcs {
			if v.IPv6Delegated && o.Pool.CIDR.Overlaps(v.IPv6CIDR) {
				held = append(held, views.ZoomHeld{Prefix: v.IPv6CIDR, Holder: "VPC " + v.Namespace + "/" + v.Name, Href: views.VPCHref(v)})
			}
		}
	default:
		taken, err := s.ipam.TakenRanges(r.Context(), actor, o.Pool, scope)
		if err != nil {
			return nil, err
		}
		// A run of allocations lies in one /64 or runs into the next: no
		// run holds 2^64 addresses.
		for _, t := range taken {
			for _, a := range []netip.Addr{t.From, t.To} {
				p := netip.PrefixFrom(a, views.ZoomLeafMax).Masked()
				held = append(held, views.ZoomHeld{Prefix: p, Href: table(p)})
			}
		}
	}
	return held, nil
}

// poolTableHref is the allocation table of the pool page href kept to the
// prefix b.
func poolTableHref(href string, b netip.Prefix) string {
	return href + "?" + url.Values{"prefix": {b.String()}}.Encode() + "#allocations"
}
