package web

import (
	"net/http"

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
// in the log.
func (s *Server) serverError(w http.ResponseWriter, r *http.Request, err error) {
	s.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err,
		"request_id", requestID(r.Context()))
	s.errorPage(w, r)
}

// errorPage answers with the 500 page; its cause is logged already.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request) {
	id := requestID(r.Context())
	w.Header().Set("Cache-Control", "no-store")
	body, err := renderBytes(r.Context(), views.ServerError(s.shell(r, "Something went wrong"), id))
	if err != nil {
		s.log.ErrorContext(r.Context(), "rendering the error page failed", "err", err, "request_id", id)
		http.Error(w, "The server could not answer this request. Request id: "+id, http.StatusInternalServerError)
		return
	}
	writePage(w, http.StatusInternalServerError, body)
}
