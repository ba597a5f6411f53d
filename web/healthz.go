package web

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// healthz answers GET /healthz: 200 when the database answers within 2 s,
// 503 when it does not (ipam.Service.Health, which starts no goroutine). Load balancers read the status. Anyone gets {"status": "ok"}
// or {"status": "unavailable"}; an operator, by bearer token or console
// session, also the database's error, the version and the schema version.
// The error is logged either way: it names hosts and ports, which are no
// one else's business.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	health, err := s.ipam.Health(ctx)
	status, body := http.StatusOK, map[string]any{"status": "ok"}
	if err != nil {
		s.log.WarnContext(ctx, "health check: the database is unavailable", "err", err, "request_id", requestID(ctx))
		status, body["status"] = http.StatusServiceUnavailable, "unavailable"
	}
	if s.operatorAsking(ctx, r) {
		body["version"] = s.version
		if err != nil {
			body["database"] = err.Error()
		} else {
			body["database"] = "ok"
			body["schemaVersion"] = health.SchemaVersion
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

// operatorAsking reports whether r comes from an operator, by a bearer
// token or a console session that has not ended. It reads the session
// without touching it, and asks the database no longer than ctx lasts: a
// caller it cannot tell is anyone.
func (s *Server) operatorAsking(ctx context.Context, r *http.Request) bool {
	c, err := r.Cookie(sessionCookie)
	if r.Header.Get("Authorization") == "" && err != nil {
		return false
	}
	if c != nil {
		sctx, err := s.sessions.Load(ctx, c.Value)
		if err != nil {
			return false
		}
		actor, _, err := s.sessionActor(sctx)
		if err != nil {
			return false
		}
		if actor.Name != "" {
			return actor.IsOperator()
		}
	}
	actor, err := s.authenticate(r.WithContext(ctx))
	return err == nil && actor.IsOperator()
}
