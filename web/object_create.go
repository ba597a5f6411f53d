package web

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/views"
)

// objectCreate answers POST /objects/{kind}: creates an object of the kind
// on the branch from the form, numbers from pools as the form chose, and
// leads to its form, which says what it got; or shows the form again
// with every mistake beside its field.
func (s *Server) objectCreate(w http.ResponseWriter, r *http.Request) {
	s.objectSave(w, r, "")
}

// objectSave creates (id "") or updates the object id from the form.
func (s *Server) objectSave(w http.ResponseWriter, r *http.Request, id string) {
	actor, _ := actorFrom(r.Context())
	if !readForm(w, r) {
		return
	}
	kp, ok := s.kindPageOf(w, r, func(kind string) string {
		if id == "" {
			return "New " + kind
		}
		return "Edit " + kind
	})
	if !ok {
		return
	}
	if kp.kind.Generic {
		s.notFound(w, r)
		return
	}
	kind := kp.kind.FullName()
	in, from, errs := objectInput(r, kp.schema, kind, id != "")
	var o branch.Object
	var err error
	if len(errs) == 0 {
		if id == "" {
			o, err = s.numbers.CreateObject(r.Context(), actor, kp.branch, kind, in, from)
		} else {
			o, err = s.numbers.UpdateObject(r.Context(), actor, kp.branch, id, in, from)
		}
		if err == nil {
			s.objectSaved(w, r, kp, o, id == "", from)
			return
		}
	}
	if err != nil {
		refused := refusal.Classify(err)
		if refused.Code == refusal.CodeNotFound && id != "" {
			// The object gone is the page's 404; a peer or a pool not
			// found, the form's refusal.
			if _, err := s.branches.Object(r.Context(), actor, kp.branch, id); err != nil {
				s.failed(w, r, err)
				return
			}
		}
		if !fieldErrorsOf(errs, err, kp.inputs()...) {
			s.serverError(w, r, err)
			return
		}
	} else {
		// The form's values it could not read are refused here; those it
		// could are the domain's to check, once they all can be read: the
		// required ones left empty are said with the others meanwhile.
		s.missingValues(r, kp, id != "", errs)
	}
	p, perr := s.objectFormProps(r.Context(), actor, kp, nil)
	if perr != nil {
		s.serverError(w, r, perr)
		return
	}
	p.ID, p.Error = id, errs[""]
	keepInput(r, &p, errs)
	if err := predictNumbers(&p); err != nil {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, http.StatusUnprocessableEntity, views.ObjectFormPage(p))
}

// inputs are the names of the form's inputs: the kind's attributes and
// its relationships of cardinality one.
func (kp kindPage) inputs() []string {
	kind := kp.kind.FullName()
	var out []string
	for _, a := range kp.schema.Attributes(kind) {
		out = append(out, a.Name)
	}
	for _, rel := range kp.schema.Relationships(kind) {
		if rel.Cardinality == schema.One {
			out = append(out, rel.Name)
		}
	}
	return out
}

// missingValues adds to errs the required fields of a new object that the
// form leaves empty, as the domain words them: said with the values the
// form could not read, which keep the domain from checking the object.
func (s *Server) missingValues(r *http.Request, kp kindPage, update bool, errs views.FieldErrors) {
	if update {
		return
	}
	kind := kp.kind.FullName()
	for _, a := range kp.schema.Attributes(kind) {
		if a.Optional || a.Kind == schema.Boolean || a.DefaultValue != "" || errs[a.Name] != "" || r.PostFormValue(a.Name+"__mode") == "pool" ||
			strings.TrimSpace(r.PostFormValue(a.Name)) != "" {
			continue
		}
		errs.Add(a.Name, candidates.Plain(a.Name, a.Name+": a value is required"))
	}
	for _, rel := range kp.schema.Relationships(kind) {
		if rel.Cardinality == schema.One && !rel.Optional && r.PostFormValue(rel.Name) == "" {
			errs.Add(rel.Name, candidates.Plain(rel.Name, rel.Name+": a peer is required"))
		}
	}
}

// objectSaved leads to the object's form, which says what the save gave,
// naming the object as its page does: the kind's label and its display
// label ("Created VLAN users on main.").
func (s *Server) objectSaved(w http.ResponseWriter, r *http.Request, kp kindPage, o branch.Object, created bool, from []numbers.FromPool) {
	verb := "Saved"
	if created {
		verb = "Created"
	}
	saved := views.ObjectSaved{Message: fmt.Sprintf("%s %s %s on %s.", verb, views.KindLabel(kp.kind), o.DisplayLabel, kp.branch)}
	for _, f := range from {
		saved.Numbers = append(saved.Numbers, views.NumberGiven{Attribute: f.Attribute, Number: formatValue(o.Attributes[f.Attribute]),
			Predicted: formValue(r, f.Attribute+"__predicted")})
	}
	href := views.ObjectHref(o.Kind, o.ID, kp.branch)
	if err := s.putFlash(r.Context(), href, saved); err != nil {
		s.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, href, http.StatusSeeOther)
}

// keepInput puts what was typed back into the form's fields, with errs by
// field.
func keepInput(r *http.Request, p *views.ObjectFormPageProps, errs views.FieldErrors) {
	for i := range p.Fields {
		f := &p.Fields[i]
		f.Value, f.Error = r.PostFormValue(f.Name), errs[f.Name]
		if len(f.Pools) > 0 {
			f.FromPool, f.Pool = r.PostFormValue(f.Name+"__mode") == "pool", r.PostFormValue(f.Name+"__pool")
		}
	}
}

// objectInput reads the object form of the kind: the input, the numbers
// asked from pools, and the mistakes by field. On an update, an empty
// field removes the value; on a create it is left out, so that the
// default applies.
func objectInput(r *http.Request, sc schema.Schema, kind string, update bool) (branch.ObjectInput, []numbers.FromPool, views.FieldErrors) {
	in := branch.ObjectInput{Attributes: map[string]any{}, Relationships: map[string][]string{}}
	var from []numbers.FromPool
	errs := views.FieldErrors{}
	for _, a := range sc.Attributes(kind) {
		if a.Kind == schema.Number && r.PostFormValue(a.Name+"__mode") == "pool" {
			from = append(from, numbers.FromPool{Attribute: a.Name, Pool: r.PostFormValue(a.Name + "__pool")})
			if update {
				in.Attributes[a.Name] = nil
			}
			continue
		}
		raw := r.PostFormValue(a.Name)
		if a.Kind == schema.Boolean {
			in.Attributes[a.Name] = raw == "true"
			continue
		}
		if strings.TrimSpace(raw) == "" {
			if update {
				in.Attributes[a.Name] = nil
			}
			continue
		}
		v, msg := parseValue(a, raw)
		if msg != "" {
			errs.Add(a.Name, candidates.Plain(a.Name, msg))
			continue
		}
		in.Attributes[a.Name] = v
	}
	for _, rel := range sc.Relationships(kind) {
		if rel.Cardinality != schema.One {
			continue
		}
		if peer := r.PostFormValue(rel.Name); peer != "" {
			in.Relationships[rel.Name] = []string{peer}
		} else if update {
			in.Relationships[rel.Name] = []string{}
		}
	}
	return in, from, errs
}

// parseValue reads what an input of the attribute holds, or says why it
// cannot.
func parseValue(a schema.Attribute, raw string) (any, string) {
	switch a.Kind {
	case schema.Number:
		n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
		if err != nil {
			return nil, fmt.Sprintf("%s: %q is not a whole number", a.Name, raw)
		}
		return n, ""
	case schema.List, schema.JSON, schema.Any:
		d := json.NewDecoder(strings.NewReader(raw))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil || d.More() {
			return nil, fmt.Sprintf("%s: not valid JSON: %v", a.Name, cmp.Or(err, fmt.Errorf("more than one value")))
		}
		if _, ok := v.([]any); a.Kind == schema.List && !ok {
			return nil, a.Name + ": a List takes a JSON array, such as [\"a\", \"b\"]"
		}
		return v, ""
	}
	return raw, ""
}
