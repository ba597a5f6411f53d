package web

import (
	"net/http"
	"strconv"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// quotaSet answers POST /quotas: sets the quota of the pattern given to
// the limits typed (an empty one is no limit) and leads back to the quotas
// page, which says so, or shows the form again with the server's message
// next to the field.
func (s *Server) quotaSet(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	if !readForm(w, r) {
		return
	}
	f := views.QuotaForm{Pattern: formValue(r, "pattern"), Limits: map[ipam.QuotaKind]string{}, Errors: map[string]string{}}
	change := ipam.QuotaChange{Pattern: f.Pattern, Set: map[ipam.QuotaKind]int64{}}
	for _, k := range ipam.QuotaKinds {
		v := formValue(r, string(k))
		f.Limits[k] = v
		if v == "" {
			change.Lift = append(change.Lift, k)
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			f.Errors[string(k)] = views.QuotaKindTitle(k) + ": give a whole number from 0, or nothing for no limit"
			continue
		}
		change.Set[k] = n
	}
	if len(change.Set) == 0 && len(f.Errors) == 0 {
		f.Errors[""] = "Give at least one limit; to remove a quota, unset it from the list."
	}
	if len(f.Errors) > 0 {
		s.renderQuotas(w, r, actor, http.StatusUnprocessableEntity, views.QuotasPageProps{Form: f})
		return
	}
	q, err := s.ipam.SetQuota(r.Context(), actor, change)
	if err == nil {
		if err := s.putFlash(r.Context(), quotasPath, views.Flash{Message: "Set the quota of " + q.Pattern + ": each namespace it matches may hold " + q.Describe() + "."}); err != nil {
			s.serverError(w, r, err)
			return
		}
		http.Redirect(w, r, quotasPath, http.StatusSeeOther)
		return
	}
	refusal := ipam.Classify(err)
	if refusal.Code != ipam.CodeInvalidArgument {
		s.serverError(w, r, err)
		return
	}
	field := refusal.Field
	if field == "limits" {
		field = ""
	}
	f.Errors[field] = refusal.Message
	s.renderQuotas(w, r, actor, http.StatusUnprocessableEntity, views.QuotasPageProps{Form: f})
}
