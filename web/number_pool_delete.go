package web

import (
	"fmt"
	"net/http"
	"net/url"

	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/views"
)

// numberPoolDeleteProps is the confirmation of the delete of the number
// pool, which holds used numbers, on the branch in use.
func (s *Server) numberPoolDeleteProps(r *http.Request, sh views.Shell, branchName string, pool numbers.Pool, used int64) views.ConfirmProps {
	return views.ConfirmProps{Shell: sh, Action: views.BranchHref(views.NumberPoolDeleteHref(pool.ID), branchName), Fields: url.Values{},
		Verb: "Delete", Object: "number pool " + pool.Name, CancelHref: views.BranchHref(views.NumberPoolHref(pool.ID), branchName), TestID: "confirm-delete-number-pool",
		Consequences: []string{fmt.Sprintf("Deleting number pool %s forgets the %s it has allocated from %s.%s, on every branch; the objects keep their values, and no pool gives those numbers any more.",
			pool.Name, count(int(used), "number", "numbers"), pool.Kind, pool.Attribute)}}
}

// numberPoolDeleteForm answers GET /resource-managers/<id>/delete: the
// page that confirms the delete of the number pool, saying how many
// numbers it holds (operators).
func (s *Server) numberPoolDeleteForm(w http.ResponseWriter, r *http.Request) {
	pool, ok := s.numberPoolOf(w, r)
	if !ok {
		return
	}
	sh, branchName, err := s.branchShell(r, "Delete number pool "+pool.Name+"?")
	if err != nil {
		s.failed(w, r, err)
		return
	}
	actor, _ := actorFrom(r.Context())
	sum, err := s.numbers.PoolSummary(r.Context(), actor, pool.ID)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, views.ConfirmPage(s.numberPoolDeleteProps(r, sh, branchName, sum.Pool, sum.Figures.Used)))
}

// numberPoolDelete answers POST /resource-managers/<id>/delete: deletes
// the number pool and leads to every pool, which says so.
func (s *Server) numberPoolDelete(w http.ResponseWriter, r *http.Request) {
	pool, ok := s.numberPoolOf(w, r)
	if !ok || !readForm(w, r) {
		return
	}
	sh, branchName, err := s.branchShell(r, "Delete number pool "+pool.Name+"?")
	if err != nil {
		s.failed(w, r, err)
		return
	}
	actor, _ := actorFrom(r.Context())
	if _, err := s.numbers.DeletePool(r.Context(), actor, pool.ID); err != nil {
		s.confirmRefused(w, r, err, s.numberPoolDeleteProps(r, sh, branchName, pool, 0))
		return
	}
	s.done(w, r, views.BranchHref(views.ResourceManagersPath, branchName), views.ResourceManagersPath, "Deleted number pool "+pool.Name+"; the objects keep their values.")
}
