package web

import (
	"context"
	"net/http"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/views"
)

// branchList answers GET /branches: every branch with its state (merged
// ones marked), the forms that create and rebase them, and links to their
// pages and to the pages that confirm merging and deleting them
// (operators; tenants get the 404 page).
func (s *Server) branchList(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	p := views.BranchesPageProps{}
	var f views.Flash
	if s.popFlash(r.Context(), views.BranchesPath, &f) {
		p.Flash = &f
	}
	s.renderBranches(w, r, actor, http.StatusOK, p)
}

// renderBranches renders the branches page, p given its rows and frame.
func (s *Server) renderBranches(w http.ResponseWriter, r *http.Request, actor auth.Actor, status int, p views.BranchesPageProps) {
	rows, err := s.branchRows(r.Context(), actor)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	p.Shell, p.Branches = s.shell(r, "Branches"), rows
	s.render(w, r, status, views.BranchesPage(p))
}

// branchRows are the branches as the branches page lists them.
func (s *Server) branchRows(ctx context.Context, actor auth.Actor) ([]views.BranchRow, error) {
	all, err := s.branches.Branches(ctx, actor)
	if err != nil {
		return nil, err
	}
	rows := make([]views.BranchRow, len(all))
	for i, b := range all {
		rows[i] = views.BranchRow{Name: b.Name, IsDefault: b.IsDefault, BranchedFrom: b.BranchedFrom, Point: b.Point,
			OwnSchema: b.OwnSchema, CreatedBy: b.CreatedBy, Merged: b.State() == branch.StateMerged, Changed: b.Changed}
	}
	return rows, nil
}

// branchDone leads to the page at path (the branches page, or a branch's
// page), which says message once.
func (s *Server) branchDone(w http.ResponseWriter, r *http.Request, path, message string) {
	if err := s.putFlash(r.Context(), path, views.Flash{Message: message}); err != nil {
		s.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, path, http.StatusSeeOther)
}

// branchBack is where a form acting on the branch called name leads once
// done: back to the branch's page when it was sent from there (its field
// back is "branch"), else to the branches page.
func branchBack(r *http.Request, name string) string {
	if formValue(r, "back") == "branch" {
		return views.BranchPageHref(name)
	}
	return views.BranchesPath
}
