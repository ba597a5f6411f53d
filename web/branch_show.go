package web

import (
	"net/http"
	"strings"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/views"
)

// branchPage answers GET /branches/{path...}: the branch's page
// (/branches/<name>), or the pages that confirm merging and deleting it
// (/branches/<name>/-/merge, /branches/<name>/-/delete); in
// operatorRoutes.
func (s *Server) branchPage(w http.ResponseWriter, r *http.Request) {
	name, action, confirm := strings.Cut(r.PathValue("path"), views.ActionSeparator)
	switch {
	case !confirm:
		s.branchShow(w, r, name)
	case action == "merge":
		s.branchMergeForm(w, r, name)
	case action == "delete":
		s.branchDeleteForm(w, r, name)
	default:
		s.notFound(w, r)
	}
}

// branchShow shows the branch called name: its state, what it changed
// against its branch point, with counts, and its actions.
func (s *Server) branchShow(w http.ResponseWriter, r *http.Request, name string) {
	actor, _ := actorFrom(r.Context())
	p := views.BranchPageProps{Shell: s.shell(r, "Branch "+name)}
	var f views.Flash
	if s.popFlash(r.Context(), views.BranchPageHref(name), &f) {
		p.Flash = &f
	}
	var err error
	if name == branch.Main {
		p.Diff.Branch, err = s.branches.Branch(r.Context(), actor, name)
	} else {
		p.Diff, err = s.branches.BranchDiff(r.Context(), actor, name)
	}
	if err != nil {
		s.failed(w, r, err)
		return
	}
	if p.History, err = s.history(r.Context(), audit.Ref{Kind: audit.KindBranch, Name: name}, "branch "+name); err != nil {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, views.BranchPage(p))
}
