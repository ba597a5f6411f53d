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
	nic, err := ipam.ParseNIC(f.NIC)
	var a ipam.Allocation
	if err == nil {
		a, err = s.ipam.AttachInterface(r.Context(), actor, ipam.AttachInterfaceInput{
			Namespace: v.Namespace, VPC: v.Name, Subnet: f.Subnet, VM: ipam.ConsoleVM(v.Namespace, v.Name, f.Hostname), NIC: nic,
		})
	}
	if err != nil {
		s.claimRefused(w, r, v, err, func(p *views.VPCPageProps) { p.Attach = f })
		return
	}
	s.claimDone(w, r, v, views.ClaimResult{Form: "attach-interface", Message: "Attached " + f.Hostname + "/" + strconv.Itoa(nic) + ":", Address: a.Address.String()})
}
