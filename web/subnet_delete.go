package web

import (
	"net/http"
	"net/url"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// subnetDeleteProps is the confirmation of the delete of the VPC's subnet
// name, saying what d says goes with it, or why it is refused.
func (s *Server) subnetDeleteProps(r *http.Request, v ipam.VPC, name string, d ipam.Deletion) views.ConfirmProps {
	p := s.vpcConfirmProps(r, v, "Delete subnet "+name+"?", views.ConfirmDeleteSubnet, url.Values{"subnet": {name}})
	p.Verb, p.Object = "Delete", "subnet "+name
	p.Consequences = []string{"Deleting subnet " + name + " releases " + count(d.Addresses, "address", "addresses") + "."}
	if d.Refusal != nil {
		p.Refusal = refusal.Classify(d.Refusal).Message
	}
	return p
}

// subnetDeleteForm answers GET /vpcs/<namespace>/<name>?confirm=
// delete-subnet&subnet=S: the page that confirms the delete of the subnet
// S, saying how many addresses go with it, or, while it has VM interfaces,
// the refusal with their count.
func (s *Server) subnetDeleteForm(w http.ResponseWriter, r *http.Request, v ipam.VPC) {
	actor, _ := actorFrom(r.Context())
	name := r.URL.Query().Get("subnet")
	d, err := s.ipam.SubnetDeletion(r.Context(), actor, v.Namespace, v.Name, name)
	if err != nil {
		s.confirmFailed(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, views.ConfirmPage(s.subnetDeleteProps(r, v, name, d)))
}

// subnetDelete answers the delete-subnet form: deletes the subnet
// (deleteSubnet) and leads back to the VPC page, which says how many
// addresses went with it; refused, the confirmation says why.
func (s *Server) subnetDelete(w http.ResponseWriter, r *http.Request, v ipam.VPC) {
	actor, _ := actorFrom(r.Context())
	name := formValue(r, "subnet")
	d, err := s.ipam.SubnetDeletion(r.Context(), actor, v.Namespace, v.Name, name)
	if err == nil {
		err = s.ipam.DeleteSubnet(r.Context(), actor, v.Namespace, v.Name, name)
	}
	if err != nil {
		s.confirmRefused(w, r, err, s.subnetDeleteProps(r, v, name, ipam.Deletion{Addresses: d.Addresses}))
		return
	}
	s.done(w, r, views.VPCHref(v), vpcDoneKey(v), "Subnet "+name+" deleted; "+count(d.Addresses, "address", "addresses")+" released.")
}
