package web

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// maxFormBytes bounds the body of the console's forms: 4096 excludes fit.
const maxFormBytes = 256 << 10

// readForm reads a console form of at most maxFormBytes, or answers why it
// cannot and returns false.
func readForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	err := r.ParseForm()
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		http.Error(w, fmt.Sprintf("The form is larger than %d KiB; send less.", maxFormBytes>>10), http.StatusRequestEntityTooLarge)
		return false
	case err != nil:
		http.Error(w, "The form could not be read: "+err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

// poolNew answers GET /pools/new: the new public pool form (operators).
func (s *Server) poolNew(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, views.PoolNewPage(views.PoolNewPageProps{Shell: s.shell(r, "New public pool"), PreviewReady: s.assets.Has(previewWasm)}))
}

// poolCreate answers POST /pools: creates a public pool and leads to its
// page, which says so, or shows the form again with every mistake beside
// its field.
func (s *Server) poolCreate(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	if !readForm(w, r) {
		return
	}
	f := views.PoolForm{
		Name: formValue(r, "name"), CIDR: formValue(r, "cidr"), Gateway: formValue(r, "gateway"),
		Exclude: r.PostFormValue("exclude"), Zone: formValue(r, "zone"), DelegatedPrefixLength: formValue(r, "delegatedPrefixLength"),
	}
	in := ipam.CreatePublicPoolInput{Name: f.Name, CIDR: f.CIDR, Gateway: f.Gateway, Exclude: splitList(f.Exclude), Zone: f.Zone}
	var p ipam.Pool
	delegated, err := prefixLengthOf("delegatedPrefixLength", f.DelegatedPrefixLength)
	if err == nil {
		in.DelegatedPrefixLength = delegated
		p, err = s.ipam.CreatePublicPool(r.Context(), actor, in)
	}
	if err == nil {
		if err := s.putFlash(r.Context(), views.PoolHref(p), views.Flash{Message: "Created public pool " + p.Name + "."}); err != nil {
			s.serverError(w, r, err)
			return
		}
		http.Redirect(w, r, views.PoolHref(p), http.StatusSeeOther)
		return
	}
	f.Errors = views.FieldErrors{}
	if !fieldErrorsOf(f.Errors, err, "name", "cidr", "gateway", "exclude", "zone", "delegatedPrefixLength") {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, http.StatusUnprocessableEntity, views.PoolNewPage(views.PoolNewPageProps{Shell: s.shell(r, "New public pool"), Form: f, PreviewReady: s.assets.Has(previewWasm),
		Preview: poolPreview(f)}))
}

// prefixLengthOf reads the optional prefix length typed into the field
// named field, with or without its "/": 0 when empty.
func prefixLengthOf(field, typed string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(cmp.Or(typed, "0"), "/"))
	if err != nil {
		return 0, &refusal.InvalidError{Field: field, Message: field + " " + strconv.Quote(typed) + " is not a prefix length such as 56"}
	}
	return n, nil
}

// poolPreview is the preview of the pool typed into f, as the page's
// script computes it (the same enumerator, built as WebAssembly), so that
// a browser without JavaScript shows it too; nil when nothing was typed.
func poolPreview(f views.PoolForm) *candidates.PreviewOutput {
	exclude := splitList(f.Exclude)
	if f.CIDR == "" && f.Gateway == "" && len(exclude) == 0 {
		return nil
	}
	out := candidates.Preview(candidates.PreviewInput{Pool: candidates.PoolSpec{CIDR: f.CIDR, Gateway: f.Gateway, Exclude: exclude}})
	return &out
}

// splitList splits what a textarea holds by lines and commas.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == ',' || r == '\r' }) {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
