package web

import (
	"net/http"
	"strings"
	"testing"
)

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	tests := []struct {
		method, target string
		header         http.Header
		wantStatus     int
	}{
		{http.MethodGet, "/", nil, http.StatusSeeOther},
		{http.MethodGet, "/login", nil, http.StatusOK},
		{http.MethodGet, "/healthz", nil, http.StatusOK},
		{http.MethodGet, "/static/css/app.css", nil, http.StatusOK},
		{http.MethodGet, "/static/css/app.css", http.Header{"If-None-Match": {"*"}}, http.StatusNotModified},
		{http.MethodHead, "/static/js/htmx.min.js", nil, http.StatusOK},
		{http.MethodGet, "/static/js/VENDORED.md", nil, http.StatusNotFound},
		{http.MethodGet, "/nope", nil, http.StatusSeeOther},
		{http.MethodPost, "/healthz", nil, http.StatusMethodNotAllowed},
		{http.MethodPost, "/logout", http.Header{"Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden},
	}
	ids := map[string]string{}
	for _, tt := range tests {
		req := tt.method + " " + tt.target
		res := do(t, h, tt.method, tt.target, tt.header)
		readBody(t, res)
		if res.StatusCode != tt.wantStatus {
			t.Errorf("%s = %d, want %d", req, res.StatusCode, tt.wantStatus)
		}
		csp := res.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "'wasm-unsafe-eval'", "object-src 'none'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s Content-Security-Policy = %q, want it to contain %q", req, csp, want)
			}
		}
		if strings.Contains(csp, "'unsafe-eval'") || strings.Contains(csp, "'unsafe-inline'") {
			t.Errorf("%s Content-Security-Policy = %q allows eval or inline code", req, csp)
		}
		if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s X-Content-Type-Options = %q, want nosniff", req, got)
		}
		id := res.Header.Get("X-Request-Id")
		if id == "" {
			t.Errorf("%s has no X-Request-Id", req)
			continue
		}
		if other, ok := ids[id]; ok {
			t.Errorf("%s and %s share the X-Request-Id %s", other, req, id)
		}
		ids[id] = req
	}
}
