package web

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/views"
)

// wrongCredentials is the one message for an unknown user and a wrong
// password alike.
const wrongCredentials = "The user name or the password is wrong."

// maxLoginForm bounds the size of a sign-in form.
const maxLoginForm = 16 << 10

// loginForm answers GET /login: the sign-in form, or for a signed-in user
// the page to go back to.
func (s *Server) loginForm(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.URL.Query().Get("next"))
	if _, ok := actorFrom(r.Context()); ok {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, views.Login(s.shell(r, "Sign in"), views.LoginData{Next: next}))
}

// login answers POST /login: it signs in with the user name and the
// password (auth.Service.SignIn, which holds back a user or a client
// address after too many failures), starts a session under a new token and
// goes back to the page asked for.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	r.Body = http.MaxBytesReader(w, r.Body, maxLoginForm)
	d := views.LoginData{Username: r.PostFormValue("username"), Next: safeNext(r.PostFormValue("next"))}
	password := r.PostFormValue("password")
	shell := s.shell(r, "Sign in")
	d.Errors = views.FieldErrors{}
	if d.Username == "" {
		d.Errors.Add("username", "Enter your user name.")
	}
	if password == "" {
		d.Errors.Add("password", "Enter your password.")
	}
	if len(d.Errors) > 0 {
		s.render(w, r, http.StatusUnprocessableEntity, views.Login(shell, d))
		return
	}
	client := s.clientOf(r)
	actor, generation, err := s.auth.SignIn(ctx, client, d.Username, password)
	var throttled *auth.ThrottledError
	switch {
	case errors.As(err, &throttled):
		s.log.WarnContext(ctx, "sign-in refused: too many failed attempts", "user", d.Username, "client", client, "request_id", requestID(ctx))
		minutes := int(math.Ceil(throttled.RetryIn.Minutes()))
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(throttled.RetryIn.Seconds()))))
		d.Error = fmt.Sprintf("Too many failed sign-ins for this user or from your address. Try again in %d minute%s.", minutes, plural(minutes))
		s.render(w, r, http.StatusTooManyRequests, views.Login(shell, d))
		return
	case errors.Is(err, auth.ErrUnauthenticated):
		s.log.WarnContext(ctx, "sign-in refused: wrong credentials", "user", d.Username, "client", client, "request_id", requestID(ctx))
		d.Error = wrongCredentials
		s.render(w, r, http.StatusUnauthorized, views.Login(shell, d))
		return
	case err != nil:
		s.serverError(w, r, err)
		return
	}
	if err := s.sessions.RenewToken(ctx); err != nil {
		s.serverError(w, r, fmt.Errorf("renewing the session token: %w", err))
		return
	}
	s.sessions.Put(ctx, sessionUser, actor.Name)
	s.sessions.Put(ctx, sessionGeneration, generation)
	if err := s.auth.DeleteExpiredSessions(ctx); err != nil {
		s.log.WarnContext(ctx, "unable to delete expired sessions", "err", err, "request_id", requestID(ctx))
	}
	s.log.InfoContext(ctx, "signed in", "user", actor.Name, "client", client, "request_id", requestID(ctx))
	http.Redirect(w, r, d.Next, http.StatusSeeOther)
}

// logout answers POST /logout: it ends the session, in the database too.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if err := s.sessions.Destroy(r.Context()); err != nil {
		s.serverError(w, r, fmt.Errorf("ending the session: %w", err))
		return
	}
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// safeNext returns target when it is a path of this site to go to after
// signing in, and "/" otherwise: never another site ("//host",
// "https://host", "/\host", which browsers read as "//host"), nor the
// sign-in form itself.
func safeNext(target string) string {
	if len(target) > 2048 || !strings.HasPrefix(target, "/") || strings.HasPrefix(target, "//") ||
		strings.ContainsRune(target, '\\') || strings.ContainsFunc(target, unicode.IsControl) {
		return "/"
	}
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || u.Path == "/login" {
		return "/"
	}
	return target
}

// clientOf returns the address a request came from, as the rate limit of
// sign-ins counts it: an IPv4 address, or the /64 of an IPv6 address, as
// one machine usually holds a whole /64. The address is the direct peer's,
// unless the peer is a trusted proxy (Config.TrustedProxies): then it is
// the first address of X-Forwarded-For, read from the right, that is not a
// trusted proxy's. Each proxy appends the address it got the request from,
// so only what trusted proxies appended can be believed; whatever stands
// to the left of the first untrusted hop, the client wrote itself.
func (s *Server) clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	a = a.Unmap().WithZone("")
	if s.trustedProxy(a) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for _, hop := range slices.Backward(hops) {
			hopAddr, ok := forwardedAddr(hop)
			if !ok {
				// Not what a proxy writes: believe nothing to its left.
				break
			}
			a = hopAddr
			if !s.trustedProxy(a) {
				break
			}
		}
	}
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// trustedProxy reports whether a is the address of a proxy whose
// X-Forwarded-For is believed.
func (s *Server) trustedProxy(a netip.Addr) bool {
	return slices.ContainsFunc(s.trustedProxies, func(p netip.Prefix) bool { return p.Contains(a) })
}

// forwardedAddr returns the address of one entry of X-Forwarded-For: an
// address, or an address and a port as some proxies write.
func forwardedAddr(hop string) (netip.Addr, bool) {
	hop = strings.TrimSpace(hop)
	a, err := netip.ParseAddr(hop)
	if err != nil {
		ap, err := netip.ParseAddrPort(hop)
		if err != nil {
			return netip.Addr{}, false
		}
		a = ap.Addr()
	}
	return a.Unmap().WithZone(""), true
}

// plural returns "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
