package web

import (
	"net/http"
	"slices"
	"strings"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// vpcNew answers GET /vpcs/new: the new-VPC form, its namespace filled in
// when the user may create VPCs in one namespace only.
func (s *Server) vpcNew(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	f := views.VPCForm{}
	if len(actor.Namespaces) == 1 && !strings.Contains(actor.Namespaces[0], "*") {
		f.Namespace = actor.Namespaces[0]
	}
	s.renderVPCNew(w, r, http.StatusOK, actor, f)
}

// vpcCreate answers POST /vpcs: creates a VPC and leads to its page, which
// says so, or shows the form again with every mistake beside its field.
func (s *Server) vpcCreate(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	if !readForm(w, r) {
		return
	}
	f := views.VPCForm{
		Namespace: formValue(r, "namespace"), Name: formValue(r, "name"), CIDR: formValue(r, "cidr"), Zone: formValue(r, "zone"),
		IPv6CIDR: formValue(r, "ipv6Cidr"), IPv6PrefixLength: formValue(r, "ipv6PrefixLength"), IPv6Addressing: formValue(r, "ipv6Addressing"),
	}
	in := ipam.CreateVPCInput{Namespace: f.Namespace, Name: f.Name, CIDR: f.CIDR, Zone: f.Zone, IPv6CIDR: f.IPv6CIDR, IPv6Addressing: f.IPv6Addressing}
	var v ipam.VPC
	length, err := prefixLengthOf("ipv6PrefixLength", f.IPv6PrefixLength)
	if err == nil {
		in.IPv6PrefixLength = length
		v, err = s.ipam.CreateVPC(r.Context(), actor, in)
	}
	if err == nil {
		if err := s.putFlash(r.Context(), vpcDoneKey(v), views.Flash{Message: "Created VPC " + v.Name + "."}); err != nil {
			s.serverError(w, r, err)
			return
		}
		http.Redirect(w, r, views.VPCHref(v), http.StatusSeeOther)
		return
	}
	f.Errors = views.FieldErrors{}
	if refused := refusal.Classify(err); refused.Code == refusal.CodeForbidden {
		// The namespace is what the user may not create in.
		f.Errors.Add("namespace", refused.Message)
		s.renderVPCNew(w, r, http.StatusUnprocessableEntity, actor, f)
		return
	}
	if !fieldErrorsOf(f.Errors, err, "namespace", "name", "cidr", "zone", "ipv6Cidr", "ipv6PrefixLength", "ipv6Addressing") {
		s.serverError(w, r, err)
		return
	}
	s.renderVPCNew(w, r, http.StatusUnprocessableEntity, actor, f)
}

// renderVPCNew draws the new-VPC form f with the zones of the public pools.
func (s *Server) renderVPCNew(w http.ResponseWriter, r *http.Request, status int, actor auth.Actor, f views.VPCForm) {
	publics, err := s.ipam.Pools(r.Context(), actor, ipam.Public, "")
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	var zones []string
	for _, p := range publics {
		if p.Zone != "" {
			zones = append(zones, p.Zone)
		}
	}
	slices.Sort(zones)
	s.render(w, r, status, views.VPCNewPage(views.VPCNewPageProps{Shell: s.shell(r, "New VPC"), Form: f, Zones: slices.Compact(zones), Namespaces: actor.Namespaces}))
}
