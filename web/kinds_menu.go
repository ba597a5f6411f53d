package web

import (
	"cmp"
	"context"
	"net/http"
	"time"

	"pivirt.hu/ipam/views"
)

// menuWait bounds the read of the menu's schema (cached by the branch
// service, so a read of the database only on a process's first page of
// the branch and after a change): a database that does not answer leaves
// the page without its menu instead of holding it, so that the dashboard
// still says the database is down (TestHomePageDatabaseDown).
const menuWait = time.Second

// kindsMenu returns the navigation's Objects menu (views.KindLinks): the
// kinds of the branch in use, for operators, who alone read objects
// (operatorRoutes); none for tenants, nor when the branch's schema cannot
// be read (the page itself says why: branchShell).
func (s *Server) kindsMenu(r *http.Request) []views.KindLink {
	actor, ok := actorFrom(r.Context())
	// A Server made without branches (TestPoolFormWithoutPreview) has no
	// kinds.
	if !ok || !actor.IsOperator() || s.branches == nil {
		return nil
	}
	name := menuBranch(r)
	ctx, cancel := context.WithTimeout(r.Context(), menuWait)
	defer cancel()
	sc, err := s.branches.Schema(ctx, name)
	if err != nil {
		return nil
	}
	return views.KindLinks(sc, name)
}

// menuBranch is the branch in use (branchInUse) as the URL names it, or
// the form when a handler read it already: the frame reads no body that
// its page did not.
func menuBranch(r *http.Request) string {
	if r.PostForm == nil {
		return cmp.Or(r.URL.Query().Get("branch"), views.MainBranch)
	}
	return branchInUse(r)
}
