package web

import (
	"net/http"
	"net/url"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// Destructive actions ask first, on a page of their own (views.ConfirmPage)
// that a button of the object's page leads to with a GET: it says what
// goes with the action, and its final button posts it. That page is the
// answer to a refused post too, with the domain's refusal (422); a post
// that succeeds answers 303 with a flash on the page it leads to.

// confirmFailed answers a confirmation page that err kept from being
// drawn: what does not exist, or was named wrongly in the query, is the
// 404 page.
func (s *Server) confirmFailed(w http.ResponseWriter, r *http.Request, err error) {
	switch refusal.Classify(err).Code {
	case refusal.CodeNotFound, refusal.CodeInvalidArgument:
		s.notFound(w, r)
	default:
		s.serverError(w, r, err)
	}
}

// confirmRefused answers a posted action that err refused: its
// confirmation page again (422), saying the domain's refusal; what does
// not exist (any more) is the 404 page, a failure of the server its
// error page.
func (s *Server) confirmRefused(w http.ResponseWriter, r *http.Request, err error, p views.ConfirmProps) {
	switch refused := refusal.Classify(err); refused.Code {
	case refusal.CodeNotFound:
		s.notFound(w, r)
	case refusal.CodeInternal, refusal.CodeUnavailable:
		s.serverError(w, r, err)
	default:
		p.Refusal = refused.Message
		s.render(w, r, http.StatusUnprocessableEntity, views.ConfirmPage(p))
	}
}

// done answers a posted action that succeeded: the flash message for the
// page at path (which pops it under flashPath), and a redirect there.
func (s *Server) done(w http.ResponseWriter, r *http.Request, path, flashPath, message string) {
	if err := s.putFlash(r.Context(), flashPath, views.Flash{Message: message}); err != nil {
		s.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, path, http.StatusSeeOther)
}

// vpcDoneKey is the path under which an action of the VPC page leaves its
// flash for the page: the claim forms leave theirs, a views.ClaimResult,
// under the page's own path.
func vpcDoneKey(v ipam.VPC) string { return views.VPCHref(v) + "#done" }

// A vpcConfirm draws the page that confirms one of the VPC page's
// destructive actions on the VPC v, which the user may see.
type vpcConfirm func(w http.ResponseWriter, r *http.Request, v ipam.VPC)

// vpcPages answers GET /vpcs/<namespace>/<name>: the VPC page, or with
// ?confirm=<action> the page that confirms one of its destructive actions
// (routes.go lists them). A VPC the user may not see is not found.
func (s *Server) vpcPages(show http.HandlerFunc, confirms map[string]vpcConfirm) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		what := r.URL.Query().Get("confirm")
		if what == "" {
			show(w, r)
			return
		}
		confirm, ok := confirms[what]
		if !ok {
			s.notFound(w, r)
			return
		}
		actor, _ := actorFrom(r.Context())
		namespace, name := splitPath(r.PathValue("path"))
		v, err := s.ipam.VPC(r.Context(), actor, namespace, name)
		if err != nil {
			s.failed(w, r, err)
			return
		}
		confirm(w, r, v)
	}
}

// vpcConfirmProps is the frame of a confirmation of the VPC page: posted
// to the action's own path with fields, cancelled back to its page.
func (s *Server) vpcConfirmProps(r *http.Request, v ipam.VPC, title, action string, fields url.Values) views.ConfirmProps {
	return views.ConfirmProps{Shell: s.shell(r, title), Action: views.VPCFormHref(v, action), Fields: fields, CancelHref: views.VPCHref(v), TestID: "confirm-" + action}
}

// count says n things: "no address", "1 address", "24 addresses".
func count(n int, one, many string) string {
	switch n {
	case 0:
		return "no " + one
	case 1:
		return "1 " + one
	}
	return views.Figure(n) + " " + many
}
