package web

import (
	"net/http"
	"strings"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// A vpcForm answers one of the VPC page's forms, posted to the VPC v,
// which the user may see; the form is read.
type vpcForm func(w http.ResponseWriter, r *http.Request, v ipam.VPC)

// vpcForms answers POST /vpcs/<namespace>/<name>/-/<form>: one of the VPC
// page's forms, each at its own path (views.VPCFormHref) and answered by
// its own handler (routes.go lists them). A VPC the user may not see, or
// a form that does not exist, is not found.
func (s *Server) vpcForms(forms map[string]vpcForm) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		path, name, ok := vpcFormOf(r)
		form, known := forms[name]
		if !ok || !known {
			s.notFound(w, r)
			return
		}
		actor, _ := actorFrom(r.Context())
		namespace, vpc := splitPath(path)
		v, err := s.ipam.VPC(r.Context(), actor, namespace, vpc)
		if err != nil {
			s.failed(w, r, err)
			return
		}
		if !readForm(w, r) {
			return
		}
		form(w, r, v)
	}
}

// vpcFormOf cuts the path of a VPC form's post into the VPC's path
// (<namespace>/<name>) and the form's name; false when it names no form.
func vpcFormOf(r *http.Request) (path, form string, ok bool) {
	return strings.Cut(r.PathValue("path"), views.ActionSeparator)
}

// formValue returns the form's field key, trimmed.
func formValue(r *http.Request, key string) string {
	return strings.TrimSpace(r.PostFormValue(key))
}

// claimDone answers a claim form that got what result says: a flash for
// the VPC page, with the address the page had predicted, and a redirect
// to it.
func (s *Server) claimDone(w http.ResponseWriter, r *http.Request, v ipam.VPC, result views.ClaimResult) {
	result.Predicted = formValue(r, "predicted")
	if result.Address6 != "" {
		result.Predicted6 = formValue(r, "predicted6")
	}
	if err := s.putFlash(r.Context(), views.VPCHref(v), result); err != nil {
		s.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, views.VPCHref(v), http.StatusSeeOther)
}

// claimRefused answers a claim form that err refused: the VPC page again,
// 422, with every mistake of the form beside its input (the form's inputs
// are named inputs) and what was typed (keep puts both back into the
// page); the result panel above says the form's own refusal, or that the
// form holds mistakes. A failure of the server is its error page.
func (s *Server) claimRefused(w http.ResponseWriter, r *http.Request, v ipam.VPC, err error, inputs []string, keep func(*views.VPCPageProps, views.FieldErrors)) {
	errs := views.FieldErrors{}
	if !fieldErrorsOf(errs, err, inputs...) {
		s.serverError(w, r, err)
		return
	}
	actor, _ := actorFrom(r.Context())
	o, err := s.ipam.VPCOverview(r.Context(), actor, v.Namespace, v.Name)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	p, err := s.vpcPage(r, o)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	_, form, _ := vpcFormOf(r)
	result := &views.ClaimResult{Form: form, Error: errs[""]}
	if result.Error == "" {
		result.Error = "Nothing was done: correct the fields marked in the form."
	}
	p.Result = result
	keep(&p, errs)
	predictClaims(&p)
	s.render(w, r, http.StatusUnprocessableEntity, views.VPCPage(p))
}
