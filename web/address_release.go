package web

import (
	"fmt"
	"net/http"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// addressRelease answers the release form of an address's page: lets the
// holder the page showed go, by its own operation (ipam.Service.
// ReleaseAddress: detach a VM's interface, release a floating IP, release
// a node's address), and leads back to the address's page, which says
// what was released. A tenant's floating IP, once released, is an
// address of a public pool the tenant may not see: that release leads to
// the VPC page that listed it, which says what was released (or the VPC
// list, when its namespace has no VPC). A refusal answers 422 with the page and
// the domain's message; what the user may not see is the 404 page.
func (s *Server) addressRelease(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	namespace, pool, address := addressOf(r)
	d, err := s.ipam.Address(r.Context(), actor, namespace, pool, address)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	owner := ipam.Owner{Kind: ipam.OwnerKind(formValue(r, "kind")), UID: formValue(r, "uid"), Name: formValue(r, "owner")}
	released, err := s.ipam.ReleaseAddress(r.Context(), actor, ipam.ReleaseAddressInput{
		Namespace: namespace, Pool: pool, Address: address, Owner: owner, OwnerNamespace: formValue(r, "ownerNamespace"),
	})
	if err != nil {
		switch refused := refusal.Classify(err); refused.Code {
		case refusal.CodeNotFound:
			s.notFound(w, r)
		case refusal.CodeInternal, refusal.CodeUnavailable:
			s.serverError(w, r, err)
		default:
			p := s.addressPage(r, actor.IsOperator(), d)
			p.Refusal = refused.Message
			s.render(w, r, http.StatusUnprocessableEntity, views.AddressPage(p))
		}
		return
	}
	message := fmt.Sprintf("%s no longer held %s: nothing was released.", holderWords(owner), d.Address)
	if released {
		message = releasedMessage(d)
	}
	href := views.AddressHref(d.Pool, d.Address)
	var flash any = views.Flash{Message: message}
	if !actor.IsOperator() && d.Pool.Kind == ipam.Public {
		href, flash = views.VPCsPath, nil
		if d.VPC.Name != "" {
			href, flash = views.VPCHref(d.VPC), views.ClaimResult{Form: string(d.Release), Message: message}
		}
	}
	if flash != nil {
		if err := s.putFlash(r.Context(), href, flash); err != nil {
			s.serverError(w, r, err)
			return
		}
	}
	http.Redirect(w, r, href, http.StatusSeeOther)
}

// releasedMessage says what the release of d's holder did.
func releasedMessage(d ipam.AddressDetail) string {
	h := d.Holder
	switch d.Release {
	case ipam.ReleaseDetach:
		return fmt.Sprintf("Detached %s from subnet %s; %s is free again.", holderWords(h.Owner), d.Subnet.Name, d.Address)
	case ipam.ReleaseFloatingIP:
		return fmt.Sprintf("Released floating IP %s; %s is free again.", h.Owner.Name, d.Address)
	}
	return fmt.Sprintf("Released %s from %s; it is free again.", d.Address, holderWords(h.Owner))
}

// holderWords names an address's holder in a sentence, as the VPC page's
// Detach does (views.OwnerObject) and, but for a node, the audit log's
// sentences (audit.Describe): a VM's interface by its name ("web-01/0"), a
// host by its node ("node hv-1"), a floating IP by its name, any other
// owner by its kind and name.
func holderWords(o ipam.Owner) string {
	switch o.Kind {
	case ipam.OwnerVirtualMachine, ipam.OwnerNode:
		return views.OwnerObject(ipam.Allocation{Owner: o})
	case ipam.OwnerFloatingIP:
		return "floating IP " + o.Name
	}
	return string(o.Kind) + " " + o.Name
}
