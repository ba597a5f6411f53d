package web

import (
	"net/http"

	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// notFound answers with the 404 page. It is the answer both for what does
// not exist and for what is not the user's, so that the two cannot be told
// apart.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusNotFound, views.NotFound(s.shell(r, "Page not found")))
}

// serverError logs err with the request id and answers with the 500 page,
// which shows that id: the user can quote it, the operator finds the cause
// in the log. When err says that the database is unavailable, the answer is
// the 503 page instead, which asks to try again.
func (s *Server) serverError(w http.ResponseWriter, r *http.Request, err error) {
	if refusal.Classify(err).Retryable() {
		s.log.WarnContext(r.Context(), "request failed: the database is unavailable", "method", r.Method, "path", r.URL.Path,
			"err", err, "request_id", requestID(r.Context()))
		s.unavailablePage(w, r)
		return
	}
	s.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err,
		"request_id", requestID(r.Context()))
	s.errorPage(w, r)
}

// unavailableRetryAfter is the Retry-After of the 503 page, in seconds.
const unavailableRetryAfter = "5"

// unavailablePage answers with the 503 page, which shows the request id.
func (s *Server) unavailablePage(w http.ResponseWriter, r *http.Request) {
	id := requestID(r.Context())
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Retry-After", unavailableRetryAfter)
	body, err := renderBytes(r.Context(), views.Unavailable(views.ErrorPageProps{Shell: s.shell(r, "Database unavailable"), RequestID: id}))
	if err != nil {
		s.log.ErrorContext(r.Context(), "rendering the error page failed", "err", err, "request_id", id)
		http.Error(w, "The database is unavailable right now; try again in a moment. Request id: "+id, http.StatusServiceUnavailable)
		return
	}
	writePage(w, http.StatusServiceUnavailable, body)
}

// errorPage answers with the 500 page; its cause is logged already.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request) {
	id := requestID(r.Context())
	w.Header().Set("Cache-Control", "no-store")
	body, err := renderBytes(r.Context(), views.ServerError(views.ErrorPageProps{Shell: s.shell(r, "Something went wrong"), RequestID: id}))
	if err != nil {
		s.log.ErrorContext(r.Context(), "rendering the error page failed", "err", err, "request_id", id)
		http.Error(w, "The server could not answer this request. Request id: "+id, http.StatusInternalServerError)
		return
	}
	writePage(w, http.StatusInternalServerError, body)
}

// failed answers a request whose object could not be read: the 404 page
// when the user may not see it (or it does not exist), the server's error
// page otherwise.
func (s *Server) failed(w http.ResponseWriter, r *http.Request, err error) {
	if refusal.Classify(err).Code == refusal.CodeNotFound {
		s.notFound(w, r)
		return
	}
	s.serverError(w, r, err)
}
