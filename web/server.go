// Package web is the HTTP edge of PiVirt IPAM: routes, handlers,
// middleware and static files.
package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"

	"github.com/a-h/templ"
	"github.com/alexedwards/scs/v2"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/dashboard"
	"pivirt.hu/ipam/internal/graphql"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/static"
	"pivirt.hu/ipam/views"
)

// Config is what the server needs.
type Config struct {
	IPAM *ipam.Service
	// Numbers holds the number pools, and through Numbers.Branches() the
	// branches, the schema of kinds and the objects of kinds, which the
	// console and the API serve per branch (/graphql/<branch>).
	Numbers *numbers.Service
	// Auth tells who signs in, and keeps the console's sessions.
	Auth    *auth.Service
	Logger  *slog.Logger
	Version string
	// SecureCookies marks the session cookie Secure, so that browsers send
	// it over HTTPS only. ipam serve sets it unless it listens on a
	// loopback address without --secure-cookie.
	SecureCookies bool
	// TrustedProxies are the proxies whose X-Forwarded-For names the
	// client, for the limit of failed sign-ins; of any other peer the
	// header is ignored.
	TrustedProxies []netip.Prefix
	// Metrics, if set, serves GET /metrics to operators (a bearer token or
	// the console's session): internal/metrics.
	Metrics http.Handler
}

// Server answers the console's and the API's requests.
type Server struct {
	// metrics serves GET /metrics; nil: no such route.
	metrics  http.Handler
	ipam     *ipam.Service
	branches *branch.Service
	numbers  *numbers.Service
	auth     *auth.Service
	log      *slog.Logger
	version  string
	assets   *Assets
	graphql  http.Handler
	sessions *scs.SessionManager
	// trustedProxies are Config.TrustedProxies.
	trustedProxies []netip.Prefix
	// dashboards reads the home page's dashboard from ipam and numbers.
	dashboards *dashboard.Service
}

// New returns the server's handler with every route and middleware.
func New(cfg Config) (http.Handler, error) {
	s, err := newServer(cfg)
	if err != nil {
		return nil, err
	}
	return s.middleware(s.routes()), nil
}

// newServer returns the server of cfg, with the static files of static.
func newServer(cfg Config) (*Server, error) {
	assets, err := NewAssets(static.Files)
	if err != nil {
		return nil, err
	}
	if cfg.IPAM == nil || cfg.Numbers == nil || cfg.Auth == nil {
		return nil, errors.New("web: Config.IPAM, Config.Numbers and Config.Auth are required")
	}
	s := &Server{ipam: cfg.IPAM, branches: cfg.Numbers.Branches(), numbers: cfg.Numbers, dashboards: dashboard.New(cfg.IPAM, cfg.Numbers), auth: cfg.Auth, log: cfg.Logger, version: cfg.Version, assets: assets,
		trustedProxies: cfg.TrustedProxies, metrics: cfg.Metrics}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.sessions = s.newSessions(cfg.SecureCookies)
	if s.graphql, err = graphql.NewHandler(s.ipam, s.numbers, s.authenticate, s.log, graphql.WithRequestID(requestID)); err != nil {
		return nil, err
	}
	if !assets.Has(previewWasm) {
		s.log.Warn("the candidate preview is not built; the console will run without it", "fix", "make wasm, then restart")
	}
	return s, nil
}

// shell returns what every page needs to draw its frame: the page's title,
// and the signed-in user, the current path and the Objects menu for the
// navigation.
func (s *Server) shell(r *http.Request, title string) views.Shell {
	sh := views.Shell{Title: title, Path: r.URL.Path, Asset: s.assets.URL, HTMXIntegrity: static.HTMXIntegrity}
	if a, ok := actorFrom(r.Context()); ok {
		sh.User = views.User{Name: a.Name, Role: string(a.Role)}
	}
	sh.Kinds = s.kindsMenu(r)
	return sh
}

// render writes a page, buffered: a failing component becomes the 500
// page, not half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, page templ.Component) {
	body, err := renderBytes(r.Context(), page)
	if err != nil {
		s.serverError(w, r, fmt.Errorf("rendering the page: %w", err))
		return
	}
	writePage(w, status, body)
}

// renderBytes renders page into memory.
func renderBytes(ctx context.Context, page templ.Component) ([]byte, error) {
	var buf bytes.Buffer
	if err := page.Render(ctx, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writePage sends a rendered page.
func writePage(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(body)
}
