package web

import (
	"net/http"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// vpcDeletionWords says what goes with a VPC: its subnets ("3 subnets")
// and what is released ("24 addresses and its router uplink
// 203.0.113.5").
func vpcDeletionWords(d ipam.Deletion) (subnets, released string) {
	released = count(d.Addresses, "address", "addresses")
	for _, u := range d.Uplinks {
		released += " and its router uplink " + u.String()
	}
	return count(d.Subnets, "subnet", "subnets"), released
}

// vpcDeleteProps is the confirmation of the delete of the VPC v, saying
// what d says goes with it, or why it is refused.
func (s *Server) vpcDeleteProps(r *http.Request, v ipam.VPC, d ipam.Deletion) views.ConfirmProps {
	p := s.vpcConfirmProps(r, v, "Delete VPC "+v.Name+"?", views.ConfirmDeleteVPC, nil)
	p.Verb, p.Object = "Delete", "VPC "+v.Name
	subnets, released := vpcDeletionWords(d)
	p.Consequences = []string{"Deleting VPC " + v.Name + " deletes " + subnets + " and its pool " + v.PoolName() + ", and releases " + released + "."}
	if d.Refusal != nil {
		p.Refusal = refusal.Classify(d.Refusal).Message
	}
	return p
}

// vpcDeleteForm answers GET /vpcs/<namespace>/<name>?confirm=delete-vpc:
// the page that confirms the delete of the VPC, saying what goes with it,
// or, while it has VM interfaces, the refusal with their count.
func (s *Server) vpcDeleteForm(w http.ResponseWriter, r *http.Request, v ipam.VPC) {
	actor, _ := actorFrom(r.Context())
	d, err := s.ipam.VPCDeletion(r.Context(), actor, v.Namespace, v.Name)
	if err != nil {
		s.confirmFailed(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, views.ConfirmPage(s.vpcDeleteProps(r, v, d)))
}

// vpcDelete answers the delete-vpc form: deletes the VPC (deleteVpc) and
// leads to the VPC list, which says what went with it; refused, the
// confirmation says why.
func (s *Server) vpcDelete(w http.ResponseWriter, r *http.Request, v ipam.VPC) {
	actor, _ := actorFrom(r.Context())
	d, err := s.ipam.VPCDeletion(r.Context(), actor, v.Namespace, v.Name)
	if err == nil {
		err = s.ipam.DeleteVPC(r.Context(), actor, v.Namespace, v.Name)
	}
	if err != nil {
		s.confirmRefused(w, r, err, s.vpcDeleteProps(r, v, ipam.Deletion{Subnets: d.Subnets, Addresses: d.Addresses, Uplinks: d.Uplinks}))
		return
	}
	subnets, released := vpcDeletionWords(d)
	s.done(w, r, views.VPCsPath, views.VPCsPath, "VPC "+v.Namespace+"/"+v.Name+" deleted, with "+subnets+"; "+released+" released.")
}
