package web

import (
	"net/http"
	"slices"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
)

// ipv6Claims adds to the claims of the dual-stack VPC of o what its page
// predicts IPv6 from, as the server claims: the VPC's IPv6 pool, each
// subnet's IPv6 prefix, gateway and taken addresses, and, when its
// interfaces get stable opaque addresses, the VPC's key of them, which
// ipam.OpaqueKey gives only to who may see the VPC (docs/allocation.md,
// "Stable opaque addresses").
func (s *Server) ipv6Claims(r *http.Request, o *ipam.VPCOverview, pool ipam.Pool) error {
	actor, _ := actorFrom(r.Context())
	c := &o.Claims
	c.PoolV6 = &candidates.ClaimPool{Name: pool.Name, PoolSpec: candidates.PoolSpec{CIDR: pool.CIDR.String()}}
	c.IPv6Addressing = string(o.VPC.IPv6Addressing)
	key, err := s.ipam.OpaqueKey(r.Context(), actor, o.VPC)
	if err != nil {
		return err
	}
	c.OpaqueKey = key
	// The overview lists the subnets' claims in the order of its subnets.
	c.Subnets = slices.Clone(c.Subnets)
	for i, sv := range o.Subnets {
		sub := sv.Subnet
		if !sub.IPv6CIDR.IsValid() {
			continue
		}
		taken, err := s.ipam.TakenRanges(r.Context(), actor, pool, sub.IPv6CIDR)
		if err != nil {
			return err
		}
		cs := &c.Subnets[i]
		cs.IPv6CIDR = sub.IPv6CIDR.String()
		if sub.IPv6Gateway.IsValid() {
			cs.IPv6Gateway = sub.IPv6Gateway.String()
		}
		if list := candidates.RangeList(taken); list != "" && cs.Taken != "" {
			cs.Taken += "," + list
		} else if list != "" {
			cs.Taken = list
		}
	}
	return nil
}
