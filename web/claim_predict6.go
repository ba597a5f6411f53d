package web

import (
	"encoding/json"
	"net/http"
	"strings"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// An ipv6Claim is what the VPC page carries to predict the IPv6 address
// an interface gets in one dual-stack subnet: the enumerator's preview of
// the subnet in the VPC's IPv6 pool (its gateway reserved) and the
// subnet's taken addresses as a range list, which static/js/claims.js
// passes to ipamPreview apart, as the server's preview reads them.
type ipv6Claim struct {
	Input candidates.PreviewInput `json:"input"`
	Taken string                  `json:"taken"`
}

// ipv6Claims are the ipv6Claim of each dual-stack subnet of the VPC of o,
// by subnet name; none for a VPC whose interfaces get stable opaque
// addresses, which the server derives from a key of its own.
func (s *Server) ipv6Claims(r *http.Request, o ipam.VPCOverview, pool ipam.Pool) (map[string]ipv6Claim, error) {
	actor, _ := actorFrom(r.Context())
	out := map[string]ipv6Claim{}
	if o.VPC.IPv6Addressing == ipam.StableOpaque {
		return out, nil
	}
	for _, sv := range o.Subnets {
		sub := sv.Subnet
		if !sub.IPv6CIDR.IsValid() {
			continue
		}
		taken, err := s.ipam.TakenRanges(r.Context(), actor, pool, sub.IPv6CIDR)
		if err != nil {
			return nil, err
		}
		out[sub.Name] = ipv6Claim{
			Input: candidates.PreviewInput{Pool: candidates.PoolSpec{CIDR: pool.CIDR.String()},
				Request: candidates.RequestSpec{Within: sub.IPv6CIDR.String(), Reserved: []string{sub.IPv6Gateway.String()}}},
			Taken: candidates.RangeList(taken),
		}
	}
	return out, nil
}

// predictIPv6 is the server's prediction of the IPv6 address the attach
// form of p gets in its subnet, from the page's IPv6Claims, as claims.js
// computes it again.
func predictIPv6(p *views.VPCPageProps) {
	var claims map[string]ipv6Claim
	if p.IPv6Claims == "" || json.Unmarshal([]byte(p.IPv6Claims), &claims) != nil {
		return
	}
	subnet := p.Attach.Subnet
	if subnet == "" && len(p.Overview.Subnets) > 0 {
		subnet = p.Overview.Subnets[0].Subnet.Name
	}
	c, ok := claims[subnet]
	if !ok {
		return
	}
	in := c.Input
	in.TakenRanges = c.Taken
	out := candidates.Preview(in)
	switch {
	case out.First != nil:
		p.Attach6 = out.First.String()
	case !out.Valid:
		plain := make([]string, 0, len(out.Errors))
		for _, e := range out.Errors {
			plain = append(plain, e.PlainOf())
		}
		p.Attach6Error = strings.Join(plain, "; ")
	default:
		p.Attach6Error = "no free IPv6 address in subnet " + subnet
	}
}
