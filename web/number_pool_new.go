package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/views"
)

// numberPoolForm reads the number pool form from v: the query of a step
// (a kind chosen, a row added or removed) or the body of a POST.
func numberPoolForm(v url.Values) views.NumberPoolForm {
	f := views.NumberPoolForm{
		Name: strings.TrimSpace(v.Get("name")), Description: strings.TrimSpace(v.Get("description")),
		Node: v.Get("node"), Attribute: v.Get("node_attribute"), Scope: v["scope"],
	}
	starts, ends, weights := v["start"], v["end"], v["weight"]
	at := func(s []string, i int) string {
		if i < len(s) {
			return strings.TrimSpace(s[i])
		}
		return ""
	}
	for i := range max(len(starts), len(ends), len(weights)) {
		f.Ranges = append(f.Ranges, views.RangeRow{Start: at(starts, i), End: at(ends, i), Weight: at(weights, i)})
	}
	if i, err := strconv.Atoi(v.Get("remove")); err == nil && i >= 0 && i < len(f.Ranges) && len(f.Ranges) > 1 {
		f.Ranges = slices.Delete(f.Ranges, i, i+1)
	}
	if v.Get("add") != "" || len(f.Ranges) == 0 {
		f.Ranges = append(f.Ranges, views.RangeRow{Weight: strconv.Itoa(1)})
	}
	return f
}

// offer fills what the form offers from main, the default branch's
// schema: the kinds with a Number attribute, the Number attributes of the
// kind chosen, and the fields that can be part of its scope; a choice
// that is not offered is dropped.
func offer(main schema.Schema, f *views.NumberPoolForm) {
	f.Kinds, f.Attributes, f.Eligible = nil, nil, nil
	for _, k := range main.Kinds() {
		if len(numberAttributes(main, k.FullName())) > 0 {
			f.Kinds = append(f.Kinds, k.FullName())
		}
	}
	slices.Sort(f.Kinds)
	if !slices.Contains(f.Kinds, f.Node) {
		f.Node = ""
	}
	f.Attributes = numberAttributes(main, f.Node)
	if !slices.Contains(f.Attributes, f.Attribute) {
		f.Attribute = ""
		if len(f.Attributes) > 0 {
			f.Attribute = f.Attributes[0]
		}
	}
	f.Eligible = numbers.EligibleScope(main, f.Node, f.Attribute)
	var scope []string
	for _, e := range f.Eligible {
		if slices.Contains(f.Scope, e) {
			scope = append(scope, e)
		}
	}
	f.Scope = scope
}

// numberAttributes are the names of the kind's Number attributes.
func numberAttributes(main schema.Schema, kind string) []string {
	var out []string
	for _, a := range main.Attributes(kind) {
		if a.Kind == schema.Number {
			out = append(out, a.Name)
		}
	}
	return out
}

// formRanges reads the form's rows as the pool's ranges; a weight left
// empty is the API's default, 1. A row it cannot read is a mistake of the
// ranges, each said in errs: then the ranges are none, which the domain
// refuses (so that nothing is stored) while it checks the form's other
// fields.
func formRanges(rows []views.RangeRow, errs views.FieldErrors) []numbers.Range {
	out := make([]numbers.Range, 0, len(rows))
	refused := false
	for i, r := range rows {
		if r.Start == "" && r.End == "" && len(rows) > 1 {
			continue
		}
		var err error
		var x numbers.Range
		mistake := func(what, value string) {
			errs.Add("ranges", fmt.Sprintf("Range %d: the %s %q is not a whole number", i+1, what, value))
			refused = true
		}
		if x.Start, err = strconv.ParseInt(r.Start, 10, 64); err != nil {
			mistake("start", r.Start)
		}
		if x.End, err = strconv.ParseInt(r.End, 10, 64); err != nil {
			mistake("end", r.End)
		}
		x.Weight = 1
		if r.Weight != "" {
			if x.Weight, err = strconv.Atoi(r.Weight); err != nil {
				mistake("weight", r.Weight)
			}
		}
		out = append(out, x)
	}
	if refused {
		return []numbers.Range{}
	}
	return out
}

// numberPoolInputs are the inputs of the number pool form a refusal's
// field may name.
var numberPoolInputs = []string{"name", "description", "node", "node_attribute", "allocation_scope", "ranges"}

// numberPoolNew answers GET /resource-managers/new: the number pool form,
// and each of its steps (a kind or an attribute chosen, a row added or
// removed) with what was typed so far (operators).
func (s *Server) numberPoolNew(w http.ResponseWriter, r *http.Request) {
	sh, branchName, err := s.branchShell(r, "New number pool")
	if err != nil {
		s.failed(w, r, err)
		return
	}
	main, err := s.branches.Schema(r.Context(), branch.Main)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	f := numberPoolForm(r.URL.Query())
	offer(main, &f)
	s.renderNumberPoolForm(w, r, http.StatusOK, views.NumberPoolFormProps{Shell: sh, Form: f, Branch: branchName, Action: views.ResourceManagersPath,
		Step: views.ResourceManagersPath + "/new"})
}

// numberPoolCreate answers POST /resource-managers: creates a number pool
// and leads to its page, which says so, or shows the form again with every
// mistake beside its field.
func (s *Server) numberPoolCreate(w http.ResponseWriter, r *http.Request) {
	if !readForm(w, r) {
		return
	}
	sh, branchName, err := s.branchShell(r, "New number pool")
	if err != nil {
		s.failed(w, r, err)
		return
	}
	main, err := s.branches.Schema(r.Context(), branch.Main)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	f := numberPoolForm(r.PostForm)
	offer(main, &f)
	props := views.NumberPoolFormProps{Shell: sh, Form: f, Branch: branchName, Action: views.ResourceManagersPath, Step: views.ResourceManagersPath + "/new"}
	props.Form.Errors = views.FieldErrors{}
	ranges := formRanges(f.Ranges, props.Form.Errors)
	actor, _ := actorFrom(r.Context())
	// What was posted, not what is offered: the domain refuses a kind, an
	// attribute or a scope element in its own words.
	pool, err := s.numbers.CreatePool(r.Context(), actor, numbers.PoolInput{Name: f.Name, Description: f.Description,
		Node: r.PostFormValue("node"), NodeAttribute: r.PostFormValue("node_attribute"), Ranges: ranges, AllocationScope: r.PostForm["scope"]})
	if err != nil {
		if !fieldErrorsOf(props.Form.Errors, err, numberPoolInputs...) {
			s.serverError(w, r, err)
			return
		}
		s.renderNumberPoolForm(w, r, http.StatusUnprocessableEntity, props)
		return
	}
	s.poolSaved(w, r, pool, branchName, "Created number pool "+pool.Name+".")
}

// poolSaved leads to the page of a pool created or changed, which says so.
func (s *Server) poolSaved(w http.ResponseWriter, r *http.Request, pool numbers.Pool, branchName, message string) {
	href := views.NumberPoolHref(pool.ID)
	if err := s.putFlash(r.Context(), href, views.Flash{Message: message}); err != nil {
		s.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, views.BranchHref(href, branchName), http.StatusSeeOther)
}

// renderNumberPoolForm renders the form's page; htmx's steps select the
// form from it.
func (s *Server) renderNumberPoolForm(w http.ResponseWriter, r *http.Request, status int, p views.NumberPoolFormProps) {
	p.PreviewReady = s.assets.Has(previewWasm)
	p.Preview = numberPoolPreview(p.Form.Ranges)
	s.render(w, r, status, views.NumberPoolFormPage(p))
}

// previewShown is how many numbers the number pool form's preview lists,
// as static/js/number-pool.js does.
const previewShown = 12

// numberPoolPreview is the preview of the ranges typed into the form's
// rows, as the page's script computes it (the same enumerator, built as
// WebAssembly), so that a browser without JavaScript shows it too; nil
// when no range was typed.
func numberPoolPreview(rows []views.RangeRow) *candidates.NumberPreviewOutput {
	var typed []views.RangeRow
	for _, r := range rows {
		if r.Start != "" || r.End != "" {
			typed = append(typed, r)
		}
	}
	if len(typed) == 0 {
		return nil
	}
	errs := views.FieldErrors{}
	ranges := formRanges(typed, errs)
	if msg, refused := errs["ranges"]; refused {
		return &candidates.NumberPreviewOutput{Errors: candidates.Errors{{Field: "ranges", Message: msg}}}
	}
	in := candidates.NumberPreviewInput{Next: previewShown}
	for _, r := range ranges {
		in.Ranges = append(in.Ranges, candidates.NumberRange(r))
	}
	out := candidates.NumberPreview(in)
	return &out
}
