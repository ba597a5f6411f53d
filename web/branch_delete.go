package web

import (
	"net/http"

	"pivirt.hu/ipam/views"
)

// branchDeleteForm answers GET /branches/<name>/-/delete: the page that
// confirms the deletion, saying what it discards.
func (s *Server) branchDeleteForm(w http.ResponseWriter, r *http.Request, name string) {
	actor, _ := actorFrom(r.Context())
	d, err := s.branches.BranchDiff(r.Context(), actor, name)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, views.BranchDeletePage(views.BranchDeletePageProps{Shell: s.shell(r, "Delete "+name), Diff: d}))
}

// branchDelete answers POST /branches/delete: deletes the branch named and
// its changes.
func (s *Server) branchDelete(w http.ResponseWriter, r *http.Request) {
	s.branchAct(w, r, "delete", "Deleted branch %s.", s.branches.DeleteBranch)
}
