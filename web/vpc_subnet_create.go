package web

import (
	"net/http"
	"strings"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// vpcSubnetCreate answers the VPC page's create-subnet form: a subnet of
// the VPC by its size (the lowest free prefix of that length) or by its
// CIDR.
func (s *Server) vpcSubnetCreate(w http.ResponseWriter, r *http.Request, v ipam.VPC) {
	actor, _ := actorFrom(r.Context())
	f := views.SubnetForm{Name: formValue(r, "name"), PrefixLength: formValue(r, "prefixLength"), CIDR: formValue(r, "cidr"), Gateway: formValue(r, "gateway")}
	in, err := ipam.SubnetForm{Name: f.Name, PrefixLength: f.PrefixLength, CIDR: f.CIDR, Gateway: f.Gateway}.Input(v.Namespace, v.Name)
	var sub ipam.Subnet
	if err == nil {
		sub, err = s.ipam.CreateSubnet(r.Context(), actor, in)
	}
	if err != nil {
		f.PrefixLength = strings.TrimPrefix(f.PrefixLength, "/")
		s.claimRefused(w, r, v, err, []string{"name", "prefixLength", "cidr", "gateway"}, func(p *views.VPCPageProps, errs views.FieldErrors) {
			f.Errors = errs
			p.Subnet = f
		})
		return
	}
	s.claimDone(w, r, v, views.ClaimResult{Form: "create-subnet", Message: "Created subnet " + f.Name + ":", Address: sub.CIDR.String(), Detail: "with gateway " + sub.Gateway.String()})
}
