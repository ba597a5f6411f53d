package web

import (
	"net/http"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// vpcSubnetCreate answers the VPC page's create-subnet form: a subnet of
// the VPC by its size (the lowest free prefix of that length) or by its
// CIDR.
func (s *Server) vpcSubnetCreate(w http.ResponseWriter, r *http.Request, v ipam.VPC) {
	actor, _ := actorFrom(r.Context())
	f := views.SubnetForm{Name: formValue(r, "name"), PrefixLength: formValue(r, "prefixLength"), CIDR: formValue(r, "cidr"), Gateway: formValue(r, "gateway"),
		IPv6PrefixLength: formValue(r, "ipv6PrefixLength"), IPv6CIDR: formValue(r, "ipv6Cidr")}
	in, err := ipam.SubnetForm{Name: f.Name, PrefixLength: f.PrefixLength, CIDR: f.CIDR, Gateway: f.Gateway}.Input(v.Namespace, v.Name)
	if v.IPv6CIDR.IsValid() {
		// The IPv6 size is a choice of the form's: no number is a
		// crafted post.
		bits, bad := strconv.Atoi(strings.TrimPrefix(f.IPv6PrefixLength, "/"))
		if f.IPv6PrefixLength != "" && bad != nil {
			err = refusal.Collect(err, &refusal.InvalidError{Field: "ipv6PrefixLength", Message: "ipv6PrefixLength " + strconv.Quote(f.IPv6PrefixLength) + " is not a prefix length such as 64"})
		}
		if f.IPv6CIDR == "" {
			in.IPv6PrefixLength = bits
		}
		in.IPv6CIDR = f.IPv6CIDR
	}
	var sub ipam.Subnet
	if err == nil {
		sub, err = s.ipam.CreateSubnet(r.Context(), actor, in)
	}
	if err != nil {
		f.PrefixLength = strings.TrimPrefix(f.PrefixLength, "/")
		s.claimRefused(w, r, v, err, []string{"name", "prefixLength", "cidr", "gateway", "ipv6PrefixLength", "ipv6Cidr"}, func(p *views.VPCPageProps, errs views.FieldErrors) {
			f.Errors = errs
			p.Subnet = f
		})
		return
	}
	result := views.ClaimResult{Form: "create-subnet", Message: "Created subnet " + f.Name + ":", Address: sub.CIDR.String(), Detail: "with gateway " + sub.Gateway.String()}
	if sub.IPv6CIDR.IsValid() {
		result.Address6, result.Detail6 = sub.IPv6CIDR.String(), "with gateway "+sub.IPv6Gateway.String()
	}
	s.claimDone(w, r, v, result)
}
