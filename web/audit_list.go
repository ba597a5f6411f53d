package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// auditPerPage is the length of a page of the audit log.
const auditPerPage = 50

// auditList answers GET /audit: the audit log, newest first, to operators
// (?namespace= a namespace or a pattern such as acme/*, ?before= the next
// page); anyone else, whom the domain refuses, gets the 404 page.
func (s *Server) auditList(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	q := r.URL.Query()
	v := views.AuditView{Namespace: strings.TrimSpace(q.Get("namespace"))}
	before, err := strconv.ParseInt(q.Get("before"), 10, 64)
	if err != nil || before < 0 {
		before = 0
	}
	entries, err := s.ipam.AuditLog(r.Context(), actor, ipam.AuditFilter{Namespace: v.Namespace, Before: before, Limit: auditPerPage + 1})
	if errors.Is(err, ipam.ErrForbidden) {
		s.notFound(w, r)
		return
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	if len(entries) > auditPerPage {
		entries = entries[:auditPerPage]
		v.NextHref = auditHref(v.Namespace, entries[auditPerPage-1].ID)
	}
	if before > 0 {
		v.FirstHref = auditHref(v.Namespace, 0)
	}
	v.Rows = changeRows(entries, true)
	s.render(w, r, http.StatusOK, views.AuditPage(s.shell(r, "Audit log"), v))
}

// auditHref is the path of a page of the audit log: of namespace, before
// the entry of id (0 for the newest).
func auditHref(namespace string, before int64) string {
	q := url.Values{}
	if namespace != "" {
		q.Set("namespace", namespace)
	}
	if before > 0 {
		q.Set("before", strconv.FormatInt(before, 10))
	}
	if len(q) == 0 {
		return "/audit"
	}
	return "/audit?" + q.Encode()
}
