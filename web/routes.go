package web

import "net/http"

// routes lists every route of the server.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.home)
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.Handle("GET /static/{path...}", s.assets)
	return mux
}
