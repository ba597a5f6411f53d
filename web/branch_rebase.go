package web

import "net/http"

// branchRebase answers POST /branches/rebase: moves the branch named onto
// main's head and leads back to the page of the form (the branches page or
// the branch's own: branchBack), or shows every conflict that refused it.
func (s *Server) branchRebase(w http.ResponseWriter, r *http.Request) {
	s.branchAct(w, r, "rebase", "Rebased branch %s onto main.", s.branches.RebaseBranch)
}
