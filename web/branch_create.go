package web

import (
	"cmp"
	"net/http"

	"pivirt.hu/ipam/views"
)

// branchCreate answers POST /branches: creates the branch named and leads
// back to the branches page, or shows the form again with the refusal.
func (s *Server) branchCreate(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	if !readForm(w, r) {
		return
	}
	name := formValue(r, "name")
	b, err := s.branches.CreateBranch(r.Context(), actor, name)
	if err == nil {
		s.branchDone(w, r, views.BranchesPath, "Created branch "+b.Name+".")
		return
	}
	// Every refusal of the form's one input is the name's.
	errs := views.FieldErrors{}
	if !fieldErrorsOf(errs, err, "name") {
		s.serverError(w, r, err)
		return
	}
	s.renderBranches(w, r, actor, http.StatusUnprocessableEntity, views.BranchesPageProps{Name: name, NameError: cmp.Or(errs["name"], errs[""])})
}
