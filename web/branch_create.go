package web

import (
	"net/http"

	"pivirt.hu/ipam/internal/ipam"
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
		s.branchDone(w, r, "Created branch "+b.Name+".")
		return
	}
	switch refusal := ipam.Classify(err); refusal.Code {
	case ipam.CodeInvalidArgument, ipam.CodeConflict:
		s.renderBranches(w, r, actor, http.StatusUnprocessableEntity, views.BranchesPageProps{Name: name, NameError: refusal.Message})
	default:
		s.serverError(w, r, err)
	}
}
