package web

import (
	"context"
	"net/http"
	"time"

	"pivirt.hu/ipam/views"
)

// home answers GET /: the service's state and the candidate preview.
func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	d := views.HomeProps{Shell: s.shell(r, "Status"), Version: s.version, PreviewReady: s.assets.Has(previewWasm)}
	if h, err := s.ipam.Health(ctx); err != nil {
		d.DatabaseError = err.Error()
	} else {
		d.DatabaseOK, d.SchemaVersion = true, h.SchemaVersion
	}
	s.render(w, r, http.StatusOK, views.Home(d))
}
