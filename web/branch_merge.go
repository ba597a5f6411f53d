package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// branchMergeForm answers GET /branches/<name>/-/merge: the page that
// confirms the merge, saying what it applies; when the merge would be
// refused now (branch.Service.CheckMerge), every conflict instead, each
// field conflict with both values and the form that keeps either side.
func (s *Server) branchMergeForm(w http.ResponseWriter, r *http.Request, name string) {
	p := views.BranchMergePageProps{}
	var f views.Flash
	if s.popFlash(r.Context(), views.BranchMergeHref(name), &f) {
		p.Flash = &f
	}
	s.renderMerge(w, r, http.StatusOK, name, p)
}

// renderMerge renders the merge's page of the branch called name, p given
// its diff and, unless p has them, the conflicts that would refuse the
// merge now.
func (s *Server) renderMerge(w http.ResponseWriter, r *http.Request, status int, name string, p views.BranchMergePageProps) {
	actor, _ := actorFrom(r.Context())
	d, err := s.branches.BranchDiff(r.Context(), actor, name)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	p.Shell, p.Diff = s.shell(r, "Merge "+name+" into main"), d
	if p.Conflicts == nil {
		err := s.branches.CheckMerge(r.Context(), actor, name)
		if !errors.As(err, &p.Conflicts) && err != nil {
			s.failed(w, r, err)
			return
		}
	}
	s.render(w, r, status, views.BranchMergePage(p))
}

// branchMerge answers POST /branches/merge: merges the branch named into
// main and leads to its page, which says what the merge applied; a refused
// merge shows the merge's page with every conflict (409).
func (s *Server) branchMerge(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	if !readForm(w, r) {
		return
	}
	name := formValue(r, "name")
	// What the merge applies, for its flash: read before, as the merge
	// leaves the branch with nothing of its own.
	d, err := s.branches.BranchDiff(r.Context(), actor, name)
	if err != nil {
		s.branchRefused(w, r, actor, "merge", name, err)
		return
	}
	_, err = s.branches.MergeBranch(r.Context(), actor, name)
	var refusal *branch.MergeError
	switch {
	case err == nil:
		if err := s.putFlash(r.Context(), views.BranchPageHref(name), views.Flash{Message: "Merged " + name + " into main: applied " + views.DiffCounts(d) + "."}); err != nil {
			s.serverError(w, r, err)
			return
		}
		http.Redirect(w, r, views.BranchPageHref(name), http.StatusSeeOther)
	case errors.As(err, &refusal):
		s.renderMerge(w, r, http.StatusConflict, name, views.BranchMergePageProps{Conflicts: refusal})
	default:
		s.branchRefused(w, r, actor, "merge", name, err)
	}
}

// branchAct answers the form of action (rebase, delete) on the branch its
// field name names: done, back to the page it came from saying so
// (branchBack; done's %s the branch); refused, the branches page with
// every reason.
func (s *Server) branchAct(w http.ResponseWriter, r *http.Request, action, done string,
	act func(context.Context, auth.Actor, string) (branch.Branch, error)) {
	actor, _ := actorFrom(r.Context())
	if !readForm(w, r) {
		return
	}
	name := formValue(r, "name")
	if _, err := act(r.Context(), actor, name); err != nil {
		s.branchRefused(w, r, actor, action, name, err)
		return
	}
	s.branchDone(w, r, branchBack(r, name), fmt.Sprintf(done, name))
}

// branchRefused shows the branches page with why action on the branch
// called name was refused: every conflict, or the domain's message.
func (s *Server) branchRefused(w http.ResponseWriter, r *http.Request, actor auth.Actor, action, name string, err error) {
	page := &views.BranchRefusal{Action: action, Branch: name}
	var merge *branch.MergeError
	status := http.StatusConflict
	switch c := refusal.Classify(err); {
	case errors.As(err, &merge):
		page.Conflicts = merge
	case c.Code == refusal.CodeNotFound:
		status, page.Lines = http.StatusNotFound, []string{c.Message}
	case c.Code == refusal.CodeInvalidArgument:
		status, page.Lines = http.StatusUnprocessableEntity, []string{c.Message}
	case c.Code == refusal.CodeConflict:
		page.Lines = []string{c.Message}
	default:
		s.serverError(w, r, err)
		return
	}
	s.renderBranches(w, r, actor, status, views.BranchesPageProps{Refusal: page})
}
