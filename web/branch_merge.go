package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// branchMerge answers POST /branches/merge: merges the branch named into
// main, or shows every conflict and violated constraint that refused it.
func (s *Server) branchMerge(w http.ResponseWriter, r *http.Request) {
	s.branchAct(w, r, "merge", "Merged branch %s into main.", s.branches.MergeBranch)
}

// branchAct answers the form of action (merge, rebase, delete) on the
// branch its field name names: done, back to the branches page saying so
// (done's %s the branch); refused, the page with every reason.
func (s *Server) branchAct(w http.ResponseWriter, r *http.Request, action, done string,
	act func(context.Context, auth.Actor, string) (branch.Branch, error)) {
	actor, _ := actorFrom(r.Context())
	if !readForm(w, r) {
		return
	}
	name := formValue(r, "name")
	_, err := act(r.Context(), actor, name)
	if err == nil {
		s.branchDone(w, r, fmt.Sprintf(done, name))
		return
	}
	refusal := &views.BranchRefusal{Action: action, Branch: name}
	var merge *branch.MergeError
	status := http.StatusConflict
	switch c := ipam.Classify(err); {
	case errors.As(err, &merge):
		refusal.Lines = merge.Conflicts()
	case c.Code == ipam.CodeNotFound:
		status, refusal.Lines = http.StatusNotFound, []string{c.Message}
	case c.Code == ipam.CodeInvalidArgument:
		status, refusal.Lines = http.StatusUnprocessableEntity, []string{c.Message}
	case c.Code == ipam.CodeConflict:
		refusal.Lines = []string{c.Message}
	default:
		s.serverError(w, r, err)
		return
	}
	s.renderBranches(w, r, actor, status, views.BranchesPageProps{Refusal: refusal})
}
