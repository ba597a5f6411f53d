package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// vpcInterfaceDetachForm answers GET /vpcs/<namespace>/<name>?confirm=
// detach&address=A: the page that confirms the detach of the VM interface
// or node address at A, saying what it releases.
func (s *Server) vpcInterfaceDetachForm(w http.ResponseWriter, r *http.Request, v ipam.VPC) {
	actor, _ := actorFrom(r.Context())
	a, err := s.ipam.VPCAllocation(r.Context(), actor, v.Namespace, v.Name, r.URL.Query().Get("address"))
	if err != nil {
		s.confirmFailed(w, r, err)
		return
	}
	subnet, err := s.subnetName(r, v, a.SubnetUID)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	p := s.detachProps(r, v, a.Owner, a.Address.String(), subnet)
	p.Consequences = []string{fmt.Sprintf("Detaching %s from subnet %s releases %s, which it has held since %s.",
		views.OwnerObject(a), subnet, a.Address, views.FormatTime(a.CreatedAt))}
	s.render(w, r, http.StatusOK, views.ConfirmPage(p))
}

// detachProps is the confirmation of the detach of owner's address in
// subnet, which the form posts back.
func (s *Server) detachProps(r *http.Request, v ipam.VPC, owner ipam.Owner, address, subnet string) views.ConfirmProps {
	object := views.OwnerObject(ipam.Allocation{Owner: owner})
	p := s.vpcConfirmProps(r, v, "Detach "+object+"?", views.ConfirmDetach, url.Values{
		"kind": {string(owner.Kind)}, "uid": {owner.UID}, "owner": {owner.Name}, "address": {address}, "subnet": {subnet},
	})
	p.Verb, p.Object = "Detach", object
	return p
}

// subnetName is the name of the VPC's subnet uid.
func (s *Server) subnetName(r *http.Request, v ipam.VPC, uid string) (string, error) {
	actor, _ := actorFrom(r.Context())
	subnets, err := s.ipam.Subnets(r.Context(), actor, v)
	for _, sub := range subnets {
		if sub.UID == uid {
			return sub.Name, err
		}
	}
	return "", err
}

// vpcInterfaceDetach answers the VPC page's detach form: releases the
// address of a VM's NIC (detachInterface) or of a node (release by owner,
// as the API's release does), and leads back to the VPC page, which says
// what was released.
func (s *Server) vpcInterfaceDetach(w http.ResponseWriter, r *http.Request, v ipam.VPC) {
	actor, _ := actorFrom(r.Context())
	owner := ipam.Owner{Kind: ipam.OwnerKind(formValue(r, "kind")), UID: formValue(r, "uid"), Name: formValue(r, "owner")}
	address, subnet := formValue(r, "address"), formValue(r, "subnet")
	var released bool
	var err error
	switch owner.Kind {
	case ipam.OwnerVirtualMachine:
		host, nicText, _ := strings.Cut(owner.Name, "/")
		var nic int
		if nic, err = ipam.ParseNIC(nicText); err == nil {
			released, err = s.ipam.DetachInterface(r.Context(), actor, ipam.DetachInterfaceInput{
				Namespace: v.Namespace, VPC: v.Name, VM: ipam.VMRef{UID: owner.UID, Hostname: host}, NIC: nic,
			})
		}
	case ipam.OwnerNode:
		released, err = s.ipam.Release(r.Context(), actor, ipam.ReleaseInput{Namespace: v.Namespace, Pool: v.PoolName(), Owner: &owner})
	default:
		s.notFound(w, r)
		return
	}
	if err != nil {
		s.confirmRefused(w, r, err, s.detachProps(r, v, owner, address, subnet))
		return
	}
	object := views.OwnerObject(ipam.Allocation{Owner: owner})
	message := object + " was not attached any more: nothing was released."
	if released {
		message = "Detached " + object + " from subnet " + subnet + "; " + address + " is free again."
	}
	s.done(w, r, views.VPCHref(v), vpcDoneKey(v), message)
}
