package web

import (
	"net/http"

	"pivirt.hu/ipam/internal/audit"

	"pivirt.hu/ipam/views"
)

// objectEdit answers GET /objects/{kind}/{id}/edit?branch=: the object's
// form, with what its last save said once.
func (s *Server) objectEdit(w http.ResponseWriter, r *http.Request) {
	kp, ok := s.kindPageOf(w, r, func(kind string) string { return "Edit " + kind })
	if !ok {
		return
	}
	actor, _ := actorFrom(r.Context())
	o, err := s.branches.Object(r.Context(), actor, kp.branch, r.PathValue("id"))
	if err != nil {
		s.failed(w, r, err)
		return
	}
	if o.Kind != kp.kind.FullName() {
		s.notFound(w, r)
		return
	}
	p, err := s.objectFormProps(r.Context(), actor, kp, &o)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	p.ID, p.Label = o.ID, o.DisplayLabel
	if p.History, err = s.history(r.Context(), audit.Ref{Kind: o.Kind, Name: o.ID}, o.Kind+" "+o.DisplayLabel); err != nil {
		s.serverError(w, r, err)
		return
	}
	p.Shell.Title = "Edit " + p.KindLabel + " " + o.DisplayLabel
	var saved views.ObjectSaved
	if s.popFlash(r.Context(), views.ObjectHref(o.Kind, o.ID, kp.branch), &saved) {
		p.Saved = &saved
	}
	s.render(w, r, http.StatusOK, views.ObjectFormPage(p))
}
