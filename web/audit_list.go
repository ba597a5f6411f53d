package web

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// auditPerPage is the length of a page of the audit log.
const auditPerPage = 50

// auditFilters are the parameters of /audit that filter it, in the order
// the pager's links write them.
var auditFilters = []string{"actor", "action", "kind", "namespace", "since", "until", "object_kind", "object_namespace", "object_name"}

// auditList answers GET /audit, one of the operatorRoutes: the audit log,
// newest first, filtered by ?actor=, ?action=, ?kind= (of object),
// ?namespace= (a namespace or a pattern such as acme/*), ?since= and
// ?until= (UTC, as a datetime-local input writes them, or a date), and to
// the history of an object by ?object_kind=, ?object_namespace= and
// ?object_name= (auditHistoryHref); ?before= is the next page, whose links
// keep the filters. A time that does not read answers 422 with the form
// and its error.
func (s *Server) auditList(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	q := r.URL.Query()
	form := views.AuditFilterForm{Actor: strings.TrimSpace(q.Get("actor")), Action: strings.TrimSpace(q.Get("action")),
		Kind: strings.TrimSpace(q.Get("kind")), Namespace: strings.TrimSpace(q.Get("namespace")),
		Since: strings.TrimSpace(q.Get("since")), Until: strings.TrimSpace(q.Get("until")),
		ObjectKind: q.Get("object_kind"), ObjectNamespace: q.Get("object_namespace"), ObjectName: q.Get("object_name"), Errors: map[string]string{}}
	kinds, err := s.auditKinds(r)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	v := views.AuditView{Filter: form, Actions: audit.Actions(), Kinds: kinds}
	f := ipam.AuditFilter{Actor: form.Actor, Action: form.Action, Kind: form.Kind, Namespace: form.Namespace, Limit: auditPerPage + 1}
	var ok bool
	if f.Since, ok = filterTime(form.Since); !ok {
		form.Errors["since"] = timeRefusal(form.Since)
	}
	if f.Until, ok = filterTime(form.Until); !ok {
		form.Errors["until"] = timeRefusal(form.Until)
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Until.After(f.Since) {
		form.Errors["until"] = "Until must come after From: " + form.Until + " is not after " + form.Since + "."
	}
	if form.ObjectName != "" {
		f.Object = &audit.Ref{Kind: form.ObjectKind, Namespace: form.ObjectNamespace, Name: form.ObjectName}
		all := auditValues(q)
		for _, k := range []string{"object_kind", "object_namespace", "object_name"} {
			all.Del(k)
		}
		v.AllHref = views.AuditHref(all, 0)
	}
	v.Filter = form
	if len(form.Errors) > 0 {
		s.render(w, r, http.StatusUnprocessableEntity, views.AuditPage(s.shell(r, "Audit log"), v))
		return
	}
	f.Before, err = strconv.ParseInt(q.Get("before"), 10, 64)
	if err != nil || f.Before < 0 {
		f.Before = 0
	}
	entries, err := s.ipam.AuditLog(r.Context(), actor, f)
	if errors.Is(err, refusal.ErrForbidden) {
		s.notFound(w, r)
		return
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	if f.Object != nil {
		v.Object = historyTitle(*f.Object, entries)
	}
	if len(entries) > auditPerPage {
		entries = entries[:auditPerPage]
		v.NextHref = views.AuditHref(auditValues(q), entries[auditPerPage-1].ID)
	}
	if f.Before > 0 {
		v.FirstHref = views.AuditHref(auditValues(q), 0)
	}
	if v.Rows, err = s.changeRows(r.Context(), actor, entries); err != nil {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, views.AuditPage(s.shell(r, "Audit log"), v))
}

// auditKinds are the kinds of objects the filters offer: the built-in
// kinds in words, then the kinds of the schema of main.
func (s *Server) auditKinds(r *http.Request) ([]views.AuditKind, error) {
	var out []views.AuditKind
	for _, k := range audit.Kinds() {
		out = append(out, views.AuditKind{Value: k, Label: audit.KindWords(k)})
	}
	slices.SortFunc(out, func(a, b views.AuditKind) int {
		return strings.Compare(strings.ToLower(a.Label), strings.ToLower(b.Label))
	})
	sc, err := s.branches.Schema(r.Context(), branch.Main)
	if err != nil {
		return nil, err
	}
	for _, k := range sc.Kinds() {
		if !k.Generic {
			out = append(out, views.AuditKind{Value: k.FullName(), Label: k.FullName()})
		}
	}
	return out, nil
}

// filterTime reads a time of the filters, in UTC: as a datetime-local
// input writes it (2026-12-02T14:07, with seconds or without), in RFC
// 3339, or a date (its midnight); zero for none, false when s is none of
// these.
func filterTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, true
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05", time.RFC3339, time.DateOnly} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// timeRefusal says what is wrong with a time of the filters.
func timeRefusal(s string) string {
	return "Write a time in UTC as 2026-12-02T14:07, or a date as 2026-12-02: " + strconv.Quote(s) + " is neither."
}

// auditValues are the filters of q that are set.
func auditValues(q url.Values) url.Values {
	out := url.Values{}
	for _, k := range auditFilters {
		if v := q.Get(k); v != "" {
			out.Set(k, v)
		}
	}
	return out
}

// historyTitle names the object r whose history entries are: "subnet web
// of VPC main in acme/prod", an object by its display label.
func historyTitle(r audit.Ref, entries []ipam.AuditEntry) string {
	label := r.Name
	for _, e := range entries {
		if e.Kind == r.Kind && (e.Name == r.Name || r.Kind == audit.KindNumberPool) {
			label = audit.Label(e)
			break
		}
	}
	in := ""
	if r.Namespace != "" {
		in = " in " + r.Namespace
	}
	switch r.Kind {
	case audit.KindPool:
		return "pool " + label + in
	case audit.KindVPC:
		return "VPC " + label + in
	case audit.KindSubnet:
		vpc, name, _ := strings.Cut(r.Name, "/")
		return "subnet " + name + " of VPC " + vpc + in
	case audit.KindBranch:
		return "branch " + r.Name
	case audit.KindNumberPool:
		if label == r.Name {
			return "a number pool"
		}
		return "number pool " + label
	}
	if label == r.Name {
		return "an object of " + r.Kind
	}
	return r.Kind + " " + label + in
}
