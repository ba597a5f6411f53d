package web

import (
	"net/http"
	"strconv"

	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/views"
)

// poolForm is the form of an existing pool, as it is.
func poolForm(p numbers.Pool) views.NumberPoolForm {
	f := views.NumberPoolForm{Name: p.Name, Description: p.Description, Node: p.Kind, Attribute: p.Attribute, Scope: p.ScopeNames()}
	for _, r := range p.Ranges {
		f.Ranges = append(f.Ranges, views.RangeRow{Start: strconv.FormatInt(r.Start, 10), End: strconv.FormatInt(r.End, 10), Weight: strconv.Itoa(r.Weight)})
	}
	return f
}

// editedPool reads the form of the pool p from v; its kind, attribute and
// scope are the pool's, shown read-only.
func editedPool(p numbers.Pool, v map[string][]string) views.NumberPoolForm {
	f := numberPoolForm(v)
	f.Node, f.Attribute, f.Scope = p.Kind, p.Attribute, p.ScopeNames()
	return f
}

// numberPoolEdit answers GET /resource-managers/<id>/edit: the pool's
// form, Scoped by read-only, and its steps (a row added or removed).
func (s *Server) numberPoolEdit(w http.ResponseWriter, r *http.Request) {
	pool, props, ok := s.numberPoolFormOf(w, r)
	if !ok {
		return
	}
	props.Form = poolForm(pool)
	if q := r.URL.Query(); q.Has("name") {
		props.Form = editedPool(pool, q)
	}
	s.renderNumberPoolForm(w, r, http.StatusOK, props)
}

// numberPoolUpdate answers POST /resource-managers/<id>: changes the
// pool's name, description and ranges, and leads to its page, or shows
// the form again with every mistake beside its field.
func (s *Server) numberPoolUpdate(w http.ResponseWriter, r *http.Request) {
	if !readForm(w, r) {
		return
	}
	pool, props, ok := s.numberPoolFormOf(w, r)
	if !ok {
		return
	}
	props.Form = editedPool(pool, r.PostForm)
	props.Form.Errors = views.FieldErrors{}
	ranges := formRanges(props.Form.Ranges, props.Form.Errors)
	actor, _ := actorFrom(r.Context())
	pool, err := s.numbers.UpdatePool(r.Context(), actor, pool.ID, numbers.PoolUpdate{Name: &props.Form.Name, Description: &props.Form.Description, Ranges: ranges})
	if err != nil {
		if !fieldErrorsOf(props.Form.Errors, err, numberPoolInputs...) {
			s.serverError(w, r, err)
			return
		}
		s.renderNumberPoolForm(w, r, http.StatusUnprocessableEntity, props)
		return
	}
	s.poolSaved(w, r, pool, props.Branch, "Saved number pool "+pool.Name+".")
}

// numberPoolFormOf reads the pool the request names, and the frame of its
// form; it answers the request itself (404 to tenants, or for a pool that
// does not exist) and returns false when it cannot.
func (s *Server) numberPoolFormOf(w http.ResponseWriter, r *http.Request) (numbers.Pool, views.NumberPoolFormProps, bool) {
	pool, ok := s.numberPoolOf(w, r)
	if !ok {
		return numbers.Pool{}, views.NumberPoolFormProps{}, false
	}
	sh, branchName, err := s.branchShell(r, "Edit "+pool.Name)
	if err != nil {
		s.failed(w, r, err)
		return numbers.Pool{}, views.NumberPoolFormProps{}, false
	}
	return pool, views.NumberPoolFormProps{Shell: sh, Editing: true, Branch: branchName, Action: views.NumberPoolHref(pool.ID), Step: views.NumberPoolEditHref(pool.ID)}, true
}

// numberPoolOf reads the pool the request's path names, or answers the
// request with the 404 page (tenants, a pool that does not exist) or the
// error page, and returns false.
func (s *Server) numberPoolOf(w http.ResponseWriter, r *http.Request) (numbers.Pool, bool) {
	actor, _ := actorFrom(r.Context())
	pool, err := s.numbers.Pool(r.Context(), actor, r.PathValue("id"))
	if err != nil {
		s.failed(w, r, err)
		return numbers.Pool{}, false
	}
	return pool, true
}
