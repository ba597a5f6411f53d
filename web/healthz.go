package web

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"pivirt.hu/ipam/internal/store"
)

// healthz answers GET /healthz: 200 when the database answers, 503 when it
// does not. Load balancers read the status; people read the body.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	body := map[string]any{"status": "ok", "database": "ok", "version": s.version}
	status := http.StatusOK
	version, err := store.SchemaVersion(ctx, s.db)
	if err != nil {
		status = http.StatusServiceUnavailable
		body["status"] = "unavailable"
		body["database"] = err.Error()
	} else {
		body["schemaVersion"] = version
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}
