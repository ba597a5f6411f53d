package web

import (
	"maps"
	"slices"
	"strings"

	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// fieldErrorsOf puts the refusal err into errs, the mistakes of a form
// whose inputs are named inputs: each field of the refusal
// (refusal.Refusal.Fields, in plain words) beside the input that holds it
// (inputOf), and a refusal of no input, or of a field the form has no
// input for, as the form's own (""). An input the handler refused itself
// already (a number it could not read) keeps its own mistake: the
// domain's about the same input would be about what it was given instead.
// It reports false when err is no refusal of what was typed but a failure
// (the server's, the database's), which the caller answers with
// serverError.
//
// It is the one place of the console that turns a refusal into a form's
// mistakes; every form's handler calls it.
func fieldErrorsOf(errs views.FieldErrors, err error, inputs ...string) bool {
	r := refusal.Classify(err)
	if r.Code == refusal.CodeInternal || r.Code == refusal.CodeUnavailable {
		return false
	}
	if len(r.Fields) == 0 {
		errs.Add("", r.Message)
		return true
	}
	own := slices.Collect(maps.Keys(errs))
	for _, f := range r.Fields {
		input := inputOf(f.Field, inputs)
		if input == "" || !slices.Contains(own, input) {
			errs.Add(input, f.Message)
		}
	}
	return true
}

// inputOf is the input of inputs that holds a request's field: the field
// without its indexes ("exclude" of "exclude[2]"), or one of its parts
// ("hostname" of "vm.hostname", "vlan_id" of "vlan_id.from_pool", "site"
// of "site__ids", "ranges" of "ranges[1].start"); "" when none does.
func inputOf(field string, inputs []string) string {
	var b strings.Builder
	depth := 0
	for _, r := range field {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	bare := b.String()
	if slices.Contains(inputs, bare) {
		return bare
	}
	for _, part := range strings.FieldsFunc(bare, func(r rune) bool { return r == '.' }) {
		part, _, _ = strings.Cut(part, "__")
		if slices.Contains(inputs, part) {
			return part
		}
	}
	return ""
}
