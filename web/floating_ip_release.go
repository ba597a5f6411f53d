package web

import (
	"net/http"
	"net/url"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// floatingIPOf returns the floating IP name of the VPC's namespace, and
// false when there is none.
func (s *Server) floatingIPOf(r *http.Request, v ipam.VPC, name string) (ipam.FloatingIP, bool, error) {
	actor, _ := actorFrom(r.Context())
	fips, err := s.ipam.FloatingIPs(r.Context(), actor, v.Namespace)
	for _, f := range fips {
		if f.Name == name {
			return f, true, err
		}
	}
	return ipam.FloatingIP{}, false, err
}

// releaseProps is the confirmation of the release of the floating IP f,
// from the page of the VPC v of its namespace.
func (s *Server) releaseProps(r *http.Request, v ipam.VPC, f ipam.FloatingIP) views.ConfirmProps {
	p := s.vpcConfirmProps(r, v, "Release floating IP "+f.Name+"?", views.ConfirmReleaseFIP, url.Values{"name": {f.Name}})
	p.Verb, p.Object = "Release", "floating IP "+f.Name
	p.Consequences = []string{"Releasing floating IP " + f.Name + " frees " + f.Address.String() + " in public pool " + f.Pool + "."}
	return p
}

// floatingIPReleaseForm answers GET /vpcs/<namespace>/<name>?confirm=
// release-floating-ip&name=N: the page that confirms the release of the
// floating IP N of the VPC's namespace, saying the address it frees.
func (s *Server) floatingIPReleaseForm(w http.ResponseWriter, r *http.Request, v ipam.VPC) {
	f, ok, err := s.floatingIPOf(r, v, r.URL.Query().Get("name"))
	switch {
	case err != nil:
		s.serverError(w, r, err)
	case !ok:
		s.notFound(w, r)
	default:
		s.render(w, r, http.StatusOK, views.ConfirmPage(s.releaseProps(r, v, f)))
	}
}

// floatingIPRelease answers the VPC page's release-floating-ip form:
// releases the floating IP (releaseFloatingIp) and leads back to the VPC
// page, which says the address freed.
func (s *Server) floatingIPRelease(w http.ResponseWriter, r *http.Request, v ipam.VPC) {
	f, ok, err := s.floatingIPOf(r, v, formValue(r, "name"))
	switch {
	case err != nil:
		s.serverError(w, r, err)
		return
	case !ok:
		s.notFound(w, r)
		return
	}
	actor, _ := actorFrom(r.Context())
	if err := s.ipam.ReleaseFloatingIP(r.Context(), actor, f.Namespace, f.Name); err != nil {
		s.confirmRefused(w, r, err, s.releaseProps(r, v, f))
		return
	}
	s.done(w, r, views.VPCHref(v), vpcDoneKey(v), "Floating IP "+f.Name+" released; "+f.Address.String()+" is free again.")
}
