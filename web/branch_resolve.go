package web

import (
	"net/http"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// branchResolve answers POST /branches/resolve: keeps the side chosen
// (field side: main or branch) of the conflict of the branch's merge on the
// field of the object ("" for the whole object), and leads back to the
// merge's page, which says so and lists what still stands in the way, or
// to the branches page when the conflict refused a rebase (field then:
// rebase). A conflict that is no longer there is refused on the merge's
// page (422).
func (s *Server) branchResolve(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	if !readForm(w, r) {
		return
	}
	name := formValue(r, "name")
	res, err := s.branches.ResolveConflict(r.Context(), actor, name, formValue(r, "object"), formValue(r, "field"), branch.Side(formValue(r, "side")))
	if err == nil {
		back := views.BranchMergeHref(name)
		if formValue(r, "then") == "rebase" {
			back = views.BranchesPath
		}
		if err := s.putFlash(r.Context(), back, views.Flash{Message: resolvedMessage(res)}); err != nil {
			s.serverError(w, r, err)
			return
		}
		http.Redirect(w, r, back, http.StatusSeeOther)
		return
	}
	switch c := refusal.Classify(err); c.Code {
	case refusal.CodeInvalidArgument:
		s.renderMerge(w, r, http.StatusUnprocessableEntity, name, views.BranchMergePageProps{Error: c.Message})
	default:
		s.failed(w, r, err)
	}
}

// resolvedMessage says what the merge will keep: "Kept main's name of
// users: users-main."
func resolvedMessage(res branch.Resolution) string {
	side := "this branch's"
	if res.Side == branch.SideMain {
		side = "main's"
	}
	if res.Field == "" {
		if res.Kept.Deleted {
			return "Kept " + side + " deletion of " + res.Object.Label + "."
		}
		return "Kept " + side + " version of " + res.Object.Label + "."
	}
	value := res.Kept.Text
	if !res.Kept.Set {
		value = "no value"
	}
	return "Kept " + side + " " + res.Field + " of " + res.Object.Label + ": " + value + "."
}
