package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"time"

	"github.com/alexedwards/scs/v2"

	"pivirt.hu/ipam/internal/auth"
)

// The console's sessions.
const (
	// sessionCookie is the name of the session cookie.
	sessionCookie = "ipam_session"
	// sessionLifetime is how long a sign-in lasts at most.
	sessionLifetime = 12 * time.Hour
	// sessionIdleTimeout ends a session unused for that long.
	sessionIdleTimeout = 2 * time.Hour
	// sessionUser is the session's key of the signed-in user's name.
	sessionUser = "user"
	// sessionGeneration is the session's key of the user's session
	// generation at sign-in (see auth.Service.SignIn).
	sessionGeneration = "generation"
)

// sessionRefresh is how far a page view must push a session's idle expiry
// back before its session is written back unchanged: an idle session ends
// between sessionIdleTimeout-sessionRefresh and sessionIdleTimeout after
// its last use.
const sessionRefresh = time.Minute

// newSessions returns the manager of the console's sessions: kept by auth
// in the database, so that every ipam serve process knows them, under the
// SHA-256 of their token; expired ones are deleted at sign-in. The cookie
// is HttpOnly, SameSite=Lax, and Secure when secure is.
func (s *Server) newSessions(secure bool) *scs.SessionManager {
	sm := scs.New()
	sm.Store = sessionStore{auth: s.auth, codec: sm.Codec}
	sm.HashTokenInStore = true
	sm.Lifetime = sessionLifetime
	sm.IdleTimeout = sessionIdleTimeout
	sm.Cookie.Name = sessionCookie
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Secure = secure
	sm.ErrorFunc = func(w http.ResponseWriter, r *http.Request, err error) {
		s.serverError(w, r, fmt.Errorf("session: %w", err))
	}
	return sm
}

// sessionStore keeps the console's sessions through auth, as an
// scs.CtxStore: every call honours the request's context. A page view
// writes its session back only when it changed: scs commits a session at
// every request when an idle timeout is set, to push its expiry back;
// sessionStore writes it only when its values changed or its expiry moves
// by sessionRefresh or more.
type sessionStore struct {
	auth  *auth.Service
	codec scs.Codec
}

var _ scs.CtxStore = sessionStore{}

// A loadedSession is the session a request found, or last wrote, which
// sessionStore compares with what the request commits. withSession puts an
// empty one in the request's context.
type loadedSession struct {
	token  string
	data   []byte
	expiry time.Time
}

type loadedSessionKey struct{}

func (st sessionStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	data, expiry, found, err := st.auth.Session(ctx, token)
	if l, ok := ctx.Value(loadedSessionKey{}).(*loadedSession); ok && found {
		*l = loadedSession{token: token, data: data, expiry: expiry}
	}
	return data, found, err
}

func (st sessionStore) CommitCtx(ctx context.Context, token string, data []byte, expiry time.Time) error {
	l, ok := ctx.Value(loadedSessionKey{}).(*loadedSession)
	if ok && l.token == token && expiry.Sub(l.expiry) < sessionRefresh && st.sameValues(l.data, data) {
		return nil
	}
	if err := st.auth.SaveSession(ctx, token, data, expiry); err != nil {
		return err
	}
	if ok {
		*l = loadedSession{token: token, data: data, expiry: expiry}
	}
	return nil
}

func (st sessionStore) DeleteCtx(ctx context.Context, token string) error {
	return st.auth.DeleteSession(ctx, token)
}

// Find, Commit and Delete are scs.Store's: scs calls them only of a store
// that is not an scs.CtxStore.

func (st sessionStore) Find(token string) ([]byte, bool, error) {
	return st.FindCtx(context.Background(), token)
}

func (st sessionStore) Commit(token string, data []byte, expiry time.Time) error {
	return st.CommitCtx(context.Background(), token, data, expiry)
}

func (st sessionStore) Delete(token string) error {
	return st.DeleteCtx(context.Background(), token)
}

// sameValues reports whether the encoded sessions a and b hold the same
// deadline and values. Their bytes may differ all the same: gob writes a
// map in no fixed order.
func (st sessionStore) sameValues(a, b []byte) bool {
	deadlineA, valuesA, err := st.codec.Decode(a)
	if err != nil {
		return false
	}
	deadlineB, valuesB, err := st.codec.Decode(b)
	return err == nil && deadlineA.Equal(deadlineB) && reflect.DeepEqual(valuesA, valuesB)
}

type actorKey struct{}

// actorFrom returns the signed-in user of the request ctx belongs to, or
// false for an anonymous visitor.
func actorFrom(ctx context.Context) (auth.Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(auth.Actor)
	return a, ok
}

// withSession loads the request's session and, when it names a user, puts
// the user in the context as the actor (see actorFrom). A session that has
// ended (see sessionActor) is deleted. What it serves is never cached: it
// shows someone's data.
func (s *Server) withSession(next http.Handler) http.Handler {
	load := s.sessions.LoadAndSave(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		ctx := r.Context()
		actor, ended, err := s.sessionActor(ctx)
		switch {
		case err != nil:
			s.serverError(w, r, err)
			return
		case ended:
			if err := s.sessions.Destroy(ctx); err != nil {
				s.serverError(w, r, fmt.Errorf("deleting an ended session: %w", err))
				return
			}
		case actor.Name != "":
			r = r.WithContext(context.WithValue(ctx, actorKey{}, actor))
		}
		next.ServeHTTP(w, r)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		load.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), loadedSessionKey{}, &loadedSession{})))
	})
}

// sessionActor returns the user signed in to the session loaded in ctx, or
// no one (a zero Actor) for an anonymous session and for one that has
// ended (auth.ErrSessionEnded).
func (s *Server) sessionActor(ctx context.Context) (actor auth.Actor, ended bool, err error) {
	name := s.sessions.GetString(ctx, sessionUser)
	if name == "" {
		return auth.Actor{}, false, nil
	}
	actor, err = s.auth.SessionActor(ctx, name, s.sessions.GetInt64(ctx, sessionGeneration))
	if errors.Is(err, auth.ErrSessionEnded) {
		return auth.Actor{}, true, nil
	}
	return actor, false, err
}

// requireOperator serves next to operators only, behind requireActor:
// anyone else gets the 404 page, as for what does not exist, so that a
// tenant cannot tell an operator's page from nothing.
func (s *Server) requireOperator(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if actor, ok := actorFrom(r.Context()); !ok || !actor.IsOperator() {
			s.notFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireActor serves next to signed-in users only. Anonymous visitors are
// sent to the sign-in form, which brings them back to the page they asked
// for; htmx requests are told to load the form in place of the whole page.
func (s *Server) requireActor(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := actorFrom(r.Context()); ok {
			next.ServeHTTP(w, r)
			return
		}
		// The page to come back to: the one asked for, or the one an htmx
		// request came from. A form's target is not one.
		htmx := r.Header.Get("HX-Request") == "true"
		back := ""
		switch {
		case htmx:
			if u, err := url.Parse(r.Header.Get("HX-Current-URL")); err == nil {
				back = u.RequestURI()
			}
		case r.Method == http.MethodGet || r.Method == http.MethodHead:
			back = r.URL.RequestURI()
		}
		target := "/login"
		if next := safeNext(back); next != "/" {
			target += "?next=" + url.QueryEscape(next)
		}
		if htmx {
			w.Header().Set("HX-Redirect", target)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		http.Redirect(w, r, target, http.StatusSeeOther)
	})
}
