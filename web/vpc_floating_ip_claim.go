package web

import (
	"net/http"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// vpcFloatingIPClaim answers the VPC page's claim-floating-ip form: claims
// a floating IP of the VPC's namespace in a zone.
func (s *Server) vpcFloatingIPClaim(w http.ResponseWriter, r *http.Request, v ipam.VPC) {
	actor, _ := actorFrom(r.Context())
	f := views.FloatingIPForm{Name: formValue(r, "name"), Zone: formValue(r, "zone")}
	fip, err := s.ipam.ClaimFloatingIP(r.Context(), actor, ipam.ClaimFloatingIPInput{Namespace: v.Namespace, Name: f.Name, Zone: f.Zone})
	if err != nil {
		s.claimRefused(w, r, v, err, []string{"name", "zone"}, func(p *views.VPCPageProps, errs views.FieldErrors) {
			f.Errors = errs
			p.FloatingIP = f
		})
		return
	}
	s.claimDone(w, r, v, views.ClaimResult{Form: "claim-floating-ip", Message: "Claimed floating IP " + f.Name + ":", Address: fip.Address.String()})
}
