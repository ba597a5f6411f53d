package web

import (
	"net/http"

	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// quotaUnsetForm answers GET /quotas/unset?pattern=PATTERN: the page that
// confirms unsetting the quota, saying what it limits (operators; the 404
// page for tenants and for a quota that is not set).
func (s *Server) quotaUnsetForm(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	q, err := s.ipam.Quota(r.Context(), actor, r.URL.Query().Get("pattern"))
	if err != nil {
		s.quotaFailed(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, views.QuotaUnsetPage(views.QuotaUnsetPageProps{Shell: s.shell(r, "Unset the quota of "+q.Pattern), Quota: q}))
}

// quotaUnset answers POST /quotas/unset: unsets the quota of the pattern
// given and leads back to the quotas page, which says so; a quota that is
// not set is refused there.
func (s *Server) quotaUnset(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	if !readForm(w, r) {
		return
	}
	q, err := s.ipam.UnsetQuota(r.Context(), actor, formValue(r, "pattern"))
	if err == nil {
		if err := s.putFlash(r.Context(), views.QuotasPath, views.Flash{Message: "Unset the quota of " + q.Pattern + ", which allowed " + q.Describe() + "."}); err != nil {
			s.serverError(w, r, err)
			return
		}
		http.Redirect(w, r, views.QuotasPath, http.StatusSeeOther)
		return
	}
	switch refused := refusal.Classify(err); refused.Code {
	case refusal.CodeNotFound, refusal.CodeInvalidArgument:
		s.renderQuotas(w, r, actor, http.StatusUnprocessableEntity, views.QuotasPageProps{Refusal: refused.Message})
	default:
		s.serverError(w, r, err)
	}
}
