package web

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/views"
)

// predictNumbers fills the prediction of each "From pool" tab of the
// object form p as it is drawn (the pool chosen, the values of the pool's
// scope in the form: what was typed into a refused one), from the pools
// the page carries, with the enumerator static/js/object-form.js runs as
// WebAssembly and the same lookup of the division: a browser without
// JavaScript reads what one with it would before the user types.
func predictNumbers(p *views.ObjectFormPageProps) error {
	if p.Pools == "" {
		return nil
	}
	var pools []formPool
	if err := json.Unmarshal([]byte(p.Pools), &pools); err != nil {
		return err
	}
	for i := range p.Fields {
		f := &p.Fields[i]
		if len(f.Pools) == 0 {
			continue
		}
		// The select shows the pool chosen, else its first option.
		chosen := f.Pools[0].Value
		if slices.ContainsFunc(f.Pools, func(c views.Choice) bool { return c.Value == f.Pool }) {
			chosen = f.Pool
		}
		j := slices.IndexFunc(pools, func(fp formPool) bool { return fp.ID == chosen })
		if j < 0 {
			f.Predicted, f.PredictionError = "", "choose a pool"
			continue
		}
		f.Predicted, f.PredictionError = predictNumber(p.Fields, pools[j])
	}
	return nil
}

// predictNumber is the number the pool gives next in the division the
// form's fields choose, else why there is none.
func predictNumber(fields []views.ObjectField, pool formPool) (number, why string) {
	values := make([]string, len(pool.Scope))
	labels := make([]string, len(pool.Scope))
	var missing []string
	for i, name := range pool.Scope {
		values[i], labels[i] = scopeValue(fields, name)
		if values[i] == "" {
			missing = append(missing, pool.ScopeLabels[i])
		}
	}
	if len(missing) > 0 {
		return "", "choose " + strings.Join(missing, ", ") + " first"
	}
	in := candidates.NumberPreviewInput{Ranges: pool.Ranges, Pool: pool.Name, Division: strings.Join(labels, " / ")}
	for _, d := range pool.Divisions {
		if slices.Equal(d.Values, values) {
			in.TakenRanges = d.Taken
			break
		}
	}
	out := candidates.NumberPreview(in)
	if out.First != nil {
		number = strconv.FormatInt(*out.First, 10)
	}
	why = out.NoFree
	if why == "" {
		var msgs []string
		for _, e := range out.Errors {
			msgs = append(msgs, e.Message)
		}
		why = strings.Join(msgs, "; ")
	}
	return number, why
}

// scopeValue returns the value of the form's field name as a division
// names it (a peer's id, an attribute's value as text; "" when not
// chosen) and as its label shows it (the peer's display label).
func scopeValue(fields []views.ObjectField, name string) (value, label string) {
	i := slices.IndexFunc(fields, func(f views.ObjectField) bool { return f.Name == name })
	if i < 0 {
		return "", ""
	}
	f := fields[i]
	switch f.Type {
	case views.FieldBoolean:
		value = strconv.FormatBool(f.Value == "true")
		return value, value
	case views.FieldDropdown, views.FieldRelationship:
		// A value not among the choices leaves the first option, "",
		// selected.
		for _, c := range f.Choices {
			if c.Value == f.Value && c.Value != "" {
				return c.Value, strings.TrimSpace(c.Label)
			}
		}
		return "", ""
	}
	value = strings.TrimSpace(f.Value)
	return value, value
}
