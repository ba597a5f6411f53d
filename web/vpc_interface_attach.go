package web

import (
	"net/http"
	"strconv"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// vpcInterfaceAttach answers the VPC page's attach-interface form: gives
// the NIC of a VM, which the console knows by its hostname in the VPC, an
// address in a subnet.
func (s *Server) vpcInterfaceAttach(w http.ResponseWriter, r *http.Request, v ipam.VPC) {
	actor, _ := actorFrom(r.Context())
	f := views.AttachForm{Subnet: formValue(r, "subnet"), Hostname: formValue(r, "hostname"), NIC: formValue(r, "nic")}
	in, err := ipam.AttachForm{Subnet: f.Subnet, Hostname: f.Hostname, NIC: f.NIC}.Input(v.Namespace, v.Name)
	var a ipam.Allocation
	if err == nil {
		a, err = s.ipam.AttachInterface(r.Context(), actor, in)
	}
	if err != nil {
		s.claimRefused(w, r, v, err, []string{"subnet", "hostname", "nic"}, func(p *views.VPCPageProps, errs views.FieldErrors) {
			f.Errors = errs
			p.Attach = f
		})
		return
	}
	s.claimDone(w, r, v, views.ClaimResult{Form: "attach-interface", Message: "Attached " + f.Hostname + "/" + strconv.Itoa(in.NIC) + ":", Address: a.Address.String()})
}
