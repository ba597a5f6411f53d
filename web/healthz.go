package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/store"
)

// healthz answers GET /healthz: 200 when the database answers, 503 when it
// does not. Load balancers read the status. Anyone gets {"status": "ok"}
// or {"status": "unavailable"}; an operator, by bearer token or console
// session, also the database's error, the version and the schema version.
// The error is logged either way: it names hosts and ports, which are no
// one else's business.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	version, err := s.schemaVersion(ctx)
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
			body["schemaVersion"] = version
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
	actor, err := bounded(ctx, func(ctx context.Context) (auth.Actor, error) {
		if c != nil {
			ctx, err := s.sessions.Load(ctx, c.Value)
			if err != nil {
				return auth.Actor{}, err
			}
			actor, _, err := s.sessionActor(ctx)
			if err != nil {
				return auth.Actor{}, err
			}
			if actor.Name != "" {
				return actor, nil
			}
		}
		return s.authenticate(r.WithContext(ctx))
	})
	return err == nil && actor.IsOperator()
}

// schemaVersion reads the database's schema version, giving up when ctx ends
// (see bounded).
func (s *Server) schemaVersion(ctx context.Context) (int, error) {
	return bounded(ctx, func(ctx context.Context) (int, error) {
		return store.SchemaVersion(ctx, s.db)
	})
}

// bounded returns f(ctx), giving up when ctx ends even if f does not:
// lib/pq waits for a server that accepted the connection but never answers
// without a bound. The abandoned call holds one connection of the pool
// until the driver returns.
func bounded[T any](ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("the database did not answer: %w", ctx.Err())
	}
}
