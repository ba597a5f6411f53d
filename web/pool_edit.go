package web

import (
	"net/http"
	"strings"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// publicPoolOf reads the public pool the path names, or answers the
// request with the 404 page (a pool that does not exist) or the error
// page, and returns false.
func (s *Server) publicPoolOf(w http.ResponseWriter, r *http.Request) (ipam.Pool, bool) {
	actor, _ := actorFrom(r.Context())
	p, err := s.ipam.Pool(r.Context(), actor, "", r.PathValue("name"))
	if err != nil {
		s.failed(w, r, err)
		return ipam.Pool{}, false
	}
	return p, true
}

// poolEditProps is the edit form of the public pool p, holding f.
func (s *Server) poolEditProps(r *http.Request, p ipam.Pool, f views.PoolForm) views.PoolEditPageProps {
	return views.PoolEditPageProps{Shell: s.shell(r, "Edit public pool "+p.Name), Pool: p, Form: f, Action: views.PoolEditHref(p), CancelHref: views.PoolHref(p)}
}

// poolEdit answers GET /pools/<name>/edit: the form that changes the
// public pool's gateway, excludes and zone, filled with them (operators).
func (s *Server) poolEdit(w http.ResponseWriter, r *http.Request) {
	p, ok := s.publicPoolOf(w, r)
	if !ok {
		return
	}
	f := views.PoolForm{Name: p.Name, CIDR: p.CIDR.String(), Exclude: strings.Join(p.Exclude, "\n"), Zone: p.Zone}
	if p.Gateway.IsValid() {
		f.Gateway = p.Gateway.String()
	}
	s.render(w, r, http.StatusOK, views.PoolEditPage(s.poolEditProps(r, p, f)))
}

// poolUpdate answers POST /pools/<name>/edit: changes the public pool's
// gateway, excludes and zone (updatePublicPool) and leads to its page,
// which says so; refused, the form again (422), each message beside its
// field.
func (s *Server) poolUpdate(w http.ResponseWriter, r *http.Request) {
	p, ok := s.publicPoolOf(w, r)
	if !ok || !readForm(w, r) {
		return
	}
	f := views.PoolForm{Name: p.Name, CIDR: p.CIDR.String(), Gateway: formValue(r, "gateway"), Exclude: r.PostFormValue("exclude"), Zone: formValue(r, "zone")}
	exclude := splitList(f.Exclude)
	actor, _ := actorFrom(r.Context())
	saved, err := s.ipam.UpdatePublicPool(r.Context(), actor, ipam.UpdatePublicPoolInput{Name: p.Name, Gateway: &f.Gateway, Exclude: &exclude, Zone: &f.Zone})
	if err != nil {
		f.Errors = views.FieldErrors{}
		if !fieldErrorsOf(f.Errors, err, "gateway", "exclude", "zone") {
			s.failed(w, r, err)
			return
		}
		s.render(w, r, http.StatusUnprocessableEntity, views.PoolEditPage(s.poolEditProps(r, p, f)))
		return
	}
	s.done(w, r, views.PoolHref(saved), views.PoolHref(saved), "Saved public pool "+saved.Name+": "+specWords(saved)+".")
}

// specWords says a public pool's gateway, excludes and zone.
func specWords(p ipam.Pool) string {
	parts := []string{"no gateway", "no exclude", "no zone"}
	if p.Gateway.IsValid() {
		parts[0] = "gateway " + p.Gateway.String()
	}
	if len(p.Exclude) > 0 {
		parts[1] = "exclude " + strings.Join(p.Exclude, ", ")
	}
	if p.Zone != "" {
		parts[2] = "zone " + p.Zone
	}
	return strings.Join(parts, "; ")
}
