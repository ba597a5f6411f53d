package web

import (
	"net/http"

	"pivirt.hu/ipam/views"
)

// objectNew answers GET /objects/{kind}/new?branch=: the form of a new
// object of the kind, drawn from the branch's schema.
func (s *Server) objectNew(w http.ResponseWriter, r *http.Request) {
	kp, ok := s.kindPageOf(w, r, func(kind string) string { return "New " + kind })
	if !ok {
		return
	}
	if kp.kind.Generic {
		s.notFound(w, r)
		return
	}
	actor, _ := actorFrom(r.Context())
	p, err := s.objectFormProps(r.Context(), actor, kp, nil)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, views.ObjectFormPage(p))
}
