// Package web is the HTTP edge of PiVirt IPAM: routes, handlers,
// middleware and static files.
package web

import (
	"bytes"
	"log/slog"
	"net/http"

	"github.com/a-h/templ"
	"github.com/jmoiron/sqlx"

	"pivirt.hu/ipam/static"
	"pivirt.hu/ipam/views"
)

// Config is what the server needs.
type Config struct {
	DB      *sqlx.DB
	Logger  *slog.Logger
	Version string
}

// Server answers the console's and the API's requests.
type Server struct {
	db      *sqlx.DB
	log     *slog.Logger
	version string
	assets  *Assets
}

// New returns the server's handler with every route and middleware.
func New(cfg Config) (http.Handler, error) {
	assets, err := NewAssets(static.Files)
	if err != nil {
		return nil, err
	}
	s := &Server{db: cfg.DB, log: cfg.Logger, version: cfg.Version, assets: assets}
	if s.log == nil {
		s.log = slog.Default()
	}
	if !assets.Has(previewWasm) {
		s.log.Warn("the candidate preview is not built; the console will run without it", "fix", "make wasm, then restart")
	}
	return s.middleware(s.routes()), nil
}

// shell returns what every page needs to draw its frame.
func (s *Server) shell(title string) views.Shell {
	return views.Shell{Title: title, Asset: s.assets.URL, HTMXIntegrity: static.HTMXIntegrity}
}

// render writes a page, buffered: a failing component becomes a 500, not
// half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, page templ.Component) {
	var buf bytes.Buffer
	if err := page.Render(r.Context(), &buf); err != nil {
		id := requestID(r.Context())
		s.log.ErrorContext(r.Context(), "rendering a page failed", "path", r.URL.Path, "err", err, "request_id", id)
		http.Error(w, "The page could not be drawn. Request id: "+id, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
