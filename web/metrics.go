package web

import (
	"errors"
	"net/http"
	"strings"

	"pivirt.hu/ipam/internal/graphql"
)

// serveMetrics serves the metrics (internal/metrics) to operators: a
// bearer token of one, or an operator's console session. ipam serve
// --metrics-listen serves them without a token on an address of its own.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	actor, err := s.authenticate(r)
	switch {
	case errors.Is(err, graphql.ErrUnauthenticated):
		w.Header().Set("WWW-Authenticate", `Bearer realm="ipam"`)
		http.Error(w, strings.TrimPrefix(err.Error(), graphql.ErrUnauthenticated.Error()+": ")+"\n", http.StatusUnauthorized)
		return
	case err != nil:
		s.log.Error("metrics: unable to authenticate", "err", err)
		http.Error(w, "the database could not tell who you are; try again\n", http.StatusServiceUnavailable)
		return
	case !actor.IsOperator():
		http.Error(w, "only operators read the metrics: they name every tenant's pools\n", http.StatusForbidden)
		return
	}
	s.metrics.ServeHTTP(w, r)
}
