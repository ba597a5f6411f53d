package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/views"
)

// objectOf reads the object of the path on the branch of kp, or answers
// the request with the 404 page (an object of another kind or none) or the
// error page, and returns false.
func (s *Server) objectOf(w http.ResponseWriter, r *http.Request, kp kindPage) (branch.Object, bool) {
	actor, _ := actorFrom(r.Context())
	o, err := s.branches.Object(r.Context(), actor, kp.branch, r.PathValue("id"))
	if err != nil {
		s.failed(w, r, err)
		return branch.Object{}, false
	}
	if o.Kind != kp.kind.FullName() {
		s.notFound(w, r)
		return branch.Object{}, false
	}
	return o, true
}

// objectDeleteProps is the confirmation of the delete of the object o on
// the branch of kp: what goes with it.
func (s *Server) objectDeleteProps(r *http.Request, kp kindPage, o branch.Object) (views.ConfirmProps, error) {
	kp.shell.Title = "Delete " + o.Kind + " " + o.DisplayLabel + "?"
	p := views.ConfirmProps{Shell: kp.shell, Action: views.ObjectDeleteHref(o.Kind, o.ID, kp.branch), Fields: url.Values{},
		Verb: "Delete", Object: o.Kind + " " + o.DisplayLabel, CancelHref: views.ObjectHref(o.Kind, o.ID, kp.branch), TestID: "confirm-delete-object"}
	what := fmt.Sprintf("Deleting %s %s removes it from branch %s", o.Kind, o.DisplayLabel, kp.branch)
	if kp.branch != branch.Main {
		what += " (main keeps it until the branch is merged)"
	}
	p.Consequences = []string{what + "."}
	freed, err := s.numbersOf(r, o)
	if err != nil {
		return p, err
	}
	if len(freed) > 0 {
		p.Consequences = append(p.Consequences, "Its numbers go back to their pools: "+strings.Join(freed, ", ")+".")
	}
	p.Consequences = append(p.Consequences, "The relationships of other objects that point at it are cleared; a required one refuses the delete.")
	return p, nil
}

// numbersOf lists the numbers number pools allocate to o's attributes that
// o holds: "vlan_id 100 (pool VLANs)".
func (s *Server) numbersOf(r *http.Request, o branch.Object) ([]string, error) {
	actor, _ := actorFrom(r.Context())
	pools, err := s.numbers.Pools(r.Context(), actor, numbers.PoolFilter{}, 0, 0)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range pools.Pools {
		if v, ok := o.Attributes[p.Attribute]; ok && p.Kind == o.Kind {
			out = append(out, fmt.Sprintf("%s %v (pool %s)", p.Attribute, v, p.Name))
		}
	}
	return out, nil
}

// objectDeletion reads the kind's page, the object the request names on
// its branch and the confirmation of its delete; false when it has
// answered (not found, a server error).
func (s *Server) objectDeletion(w http.ResponseWriter, r *http.Request) (kindPage, branch.Object, views.ConfirmProps, bool) {
	kp, ok := s.kindPageOf(w, r, func(kind string) string { return "Delete " + kind })
	if !ok {
		return kp, branch.Object{}, views.ConfirmProps{}, false
	}
	o, ok := s.objectOf(w, r, kp)
	if !ok {
		return kp, o, views.ConfirmProps{}, false
	}
	p, err := s.objectDeleteProps(r, kp, o)
	if err != nil {
		s.serverError(w, r, err)
		return kp, o, p, false
	}
	return kp, o, p, true
}

// objectDeleteForm answers GET /objects/{kind}/{id}/delete?branch=: the
// page that confirms the delete of the object on the branch (operators).
func (s *Server) objectDeleteForm(w http.ResponseWriter, r *http.Request) {
	if _, _, p, ok := s.objectDeletion(w, r); ok {
		s.render(w, r, http.StatusOK, views.ConfirmPage(p))
	}
}

// objectDelete answers POST /objects/{kind}/{id}/delete?branch=: deletes
// the object on the branch (as the API's <Kind>Delete) and leads to the
// kind's objects, which say so (by the kind's label and the object's
// display label, as objectSaved); refused (a required relationship points at
// it), the confirmation says why.
func (s *Server) objectDelete(w http.ResponseWriter, r *http.Request) {
	if !readForm(w, r) {
		return
	}
	kp, o, p, ok := s.objectDeletion(w, r)
	if !ok {
		return
	}
	actor, _ := actorFrom(r.Context())
	if _, err := s.branches.DeleteObject(r.Context(), actor, kp.branch, o.ID); err != nil {
		s.confirmRefused(w, r, err, p)
		return
	}
	list := views.ObjectsHref(o.Kind, "", 0, views.MainBranch)
	s.done(w, r, views.BranchHref(list, kp.branch), list, fmt.Sprintf("Deleted %s %s on branch %s.", views.KindLabel(kp.kind), o.DisplayLabel, kp.branch))
}
