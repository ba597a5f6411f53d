package web

import (
	"cmp"
	"net/http"

	"pivirt.hu/ipam/views"
)

// branchInUse returns the branch a page of kinds, objects, schema or pools
// works on: the one its URL names (?branch=add-vlans), main when absent.
func branchInUse(r *http.Request) string {
	return cmp.Or(r.FormValue("branch"), views.MainBranch)
}

// branchShell returns the frame of a page of kinds, objects, schema or
// pools, with the branch selector in its header, and the branch in use;
// ErrNotFound (see failed) when the branch does not exist, or to tenants.
func (s *Server) branchShell(r *http.Request, title string) (views.Shell, string, error) {
	actor, _ := actorFrom(r.Context())
	name := branchInUse(r)
	if _, err := s.branches.Branch(r.Context(), actor, name); err != nil {
		return views.Shell{}, "", err
	}
	all, err := s.branches.Branches(r.Context(), actor)
	if err != nil {
		return views.Shell{}, "", err
	}
	names := make([]string, len(all))
	for i, b := range all {
		names[i] = b.Name
	}
	sh := s.shell(r, title)
	sh.Branch = &views.BranchSelectProps{Branches: names, Current: name, Action: r.URL.Path}
	return sh, name, nil
}
