package web

import (
	"net/http"
	"strconv"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// quotaList answers GET /quotas: every quota with how the namespaces it
// binds use it, and the form that sets one, filled with the quota of
// ?edit=PATTERN when given (operators; tenants get the 404 page).
func (s *Server) quotaList(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	p := views.QuotasPageProps{}
	var f views.Flash
	if s.popFlash(r.Context(), views.QuotasPath, &f) {
		p.Flash = &f
	}
	if edit := r.URL.Query().Get("edit"); edit != "" {
		q, err := s.ipam.Quota(r.Context(), actor, edit)
		if err != nil {
			s.quotaFailed(w, r, err)
			return
		}
		p.Form = quotaFormOf(q)
	}
	s.renderQuotas(w, r, actor, http.StatusOK, p)
}

// quotaFailed answers a request for a quota that could not be read: the
// 404 page when no quota of that pattern is set (or the pattern is none),
// the server's error page otherwise.
func (s *Server) quotaFailed(w http.ResponseWriter, r *http.Request, err error) {
	switch refusal.Classify(err).Code {
	case refusal.CodeNotFound, refusal.CodeInvalidArgument:
		s.notFound(w, r)
	default:
		s.serverError(w, r, err)
	}
}

// renderQuotas renders the quotas page, p given its rows and frame.
func (s *Server) renderQuotas(w http.ResponseWriter, r *http.Request, actor auth.Actor, status int, p views.QuotasPageProps) {
	quotas, err := s.ipam.Quotas(r.Context(), actor)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	uses, err := s.ipam.QuotaUses(r.Context(), actor)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	p.Uses = map[string]map[ipam.QuotaKind]ipam.QuotaUse{}
	for _, u := range uses {
		if p.Uses[u.Pattern] == nil {
			p.Uses[u.Pattern] = map[ipam.QuotaKind]ipam.QuotaUse{}
		}
		p.Uses[u.Pattern][u.Kind] = u
	}
	p.Shell, p.Quotas = s.shell(r, "Quotas"), quotas
	s.render(w, r, status, views.QuotasPage(p))
}

// quotaFormOf is the set-quota form filled with q.
func quotaFormOf(q ipam.Quota) views.QuotaForm {
	f := views.QuotaForm{Pattern: q.Pattern, Limits: map[ipam.QuotaKind]string{}}
	for k, n := range q.Limits {
		f.Limits[k] = strconv.FormatInt(n, 10)
	}
	return f
}
