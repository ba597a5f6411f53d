package web

import "net/http"

// branchDelete answers POST /branches/delete: deletes the branch named and
// its changes.
func (s *Server) branchDelete(w http.ResponseWriter, r *http.Request) {
	s.branchAct(w, r, "delete", "Deleted branch %s.", s.branches.DeleteBranch)
}
