package web

import (
	"net/http"
	"strconv"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// vpcInterfaceAttach answers the VPC page's attach-interface form: gives
// the NIC of a VM, which the console knows by its hostname in the VPC, an
// address in a subnet, and in a dual-stack VPC one of each family the
// subnet has.
func (s *Server) vpcInterfaceAttach(w http.ResponseWriter, r *http.Request, v ipam.VPC) {
	actor, _ := actorFrom(r.Context())
	f := views.AttachForm{Subnet: formValue(r, "subnet"), Hostname: formValue(r, "hostname"), NIC: formValue(r, "nic")}
	in, err := ipam.AttachForm{Subnet: f.Subnet, Hostname: f.Hostname, NIC: f.NIC}.Input(v.Namespace, v.Name)
	var nic ipam.Nic
	if err == nil && v.IPv6CIDR.IsValid() {
		// A dual-stack VPC: an address of each family its subnet has.
		nic, err = s.ipam.AttachNic(r.Context(), actor, in)
	} else if err == nil {
		var a ipam.Allocation
		a, err = s.ipam.AttachInterface(r.Context(), actor, in)
		nic.IPv4 = &a
	}
	if err != nil {
		s.claimRefused(w, r, v, err, []string{"subnet", "hostname", "nic"}, func(p *views.VPCPageProps, errs views.FieldErrors) {
			f.Errors = errs
			p.Attach = f
		})
		return
	}
	result := views.ClaimResult{Form: "attach-interface", Message: "Attached " + f.Hostname + "/" + strconv.Itoa(in.NIC) + ":"}
	if nic.IPv4 != nil {
		result.Address = nic.IPv4.Address.String()
	}
	if nic.IPv6 != nil {
		result.Address6 = nic.IPv6.Address.String()
	}
	s.claimDone(w, r, v, result)
}
