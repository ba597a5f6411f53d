package web

import (
	"context"
	"encoding/json"
	"fmt"
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
	version, err := s.schemaVersion(ctx)
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

// schemaVersion reads the database's schema version, giving up when ctx ends
// even if the driver does not: lib/pq waits for a server that accepted the
// connection but never answers without a bound. The abandoned read holds one
// connection of the pool until the driver returns.
func (s *Server) schemaVersion(ctx context.Context) (int, error) {
	type result struct {
		version int
		err     error
	}
	done := make(chan result, 1)
	go func() {
		v, err := store.SchemaVersion(ctx, s.db)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.version, r.err
	case <-ctx.Done():
		return 0, fmt.Errorf("the database did not answer: %w", ctx.Err())
	}
}
