package web

import (
	"net/http"
	"strconv"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// quotaSet answers POST /quotas: sets the quota of the pattern given to
// the limits typed (an empty one is no limit) and leads back to the quotas
// page, which says so, or shows the form again with every mistake beside
// its field.
func (s *Server) quotaSet(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	if !readForm(w, r) {
		return
	}
	f := views.QuotaForm{Pattern: formValue(r, "pattern"), Limits: map[ipam.QuotaKind]string{}, Errors: views.FieldErrors{}}
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
			f.Errors.Add(string(k), views.QuotaKindTitle(k)+": give a whole number from 0, or nothing for no limit")
			continue
		}
		change.Set[k] = n
	}
	if len(change.Set) == 0 && len(f.Errors) == 0 {
		f.Errors.Add("", "Give at least one limit; to remove a quota, unset it from the list.")
	}
	var err error
	if len(f.Errors) > 0 {
		// The other fields' mistakes too: those of what could be read.
		err = ipam.ValidateQuotaChange(change)
	} else {
		var q ipam.Quota
		if q, err = s.ipam.SetQuota(r.Context(), actor, change); err == nil {
			if err := s.putFlash(r.Context(), views.QuotasPath, views.Flash{Message: "Set the quota of " + q.Pattern + ": each namespace it matches may hold " + q.Describe() + "."}); err != nil {
				s.serverError(w, r, err)
				return
			}
			http.Redirect(w, r, views.QuotasPath, http.StatusSeeOther)
			return
		}
	}
	if err != nil && !fieldErrorsOf(f.Errors, err, quotaInputs...) {
		s.serverError(w, r, err)
		return
	}
	s.renderQuotas(w, r, actor, http.StatusUnprocessableEntity, views.QuotasPageProps{Form: f})
}

// quotaInputs are the inputs of the set-quota form: the pattern and a
// limit of each kind.
var quotaInputs = append([]string{"pattern"}, func() []string {
	out := make([]string, len(ipam.QuotaKinds))
	for i, k := range ipam.QuotaKinds {
		out[i] = string(k)
	}
	return out
}()...)
