package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/alexedwards/scs/postgresstore"
	"github.com/alexedwards/scs/v2"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/store"
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
	// generation at sign-in (store.UserRow.SessionGeneration).
	sessionGeneration = "generation"
)

// newSessions returns the manager of the console's sessions: stored in the
// database's sessions table, so that every ipam serve process knows them,
// under the SHA-256 of their token; expired ones are deleted at sign-in.
// The cookie is HttpOnly, SameSite=Lax, and Secure when secure is.
func (s *Server) newSessions(secure bool) *scs.SessionManager {
	sm := scs.New()
	sm.Store = postgresstore.NewWithCleanupInterval(s.db.DB.DB, 0)
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
	return s.sessions.LoadAndSave(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
}

// sessionActor returns the user signed in to the session loaded in ctx, or
// no one (a zero Actor) for an anonymous session and for one that has
// ended: its user was deleted since, or drew a new session generation (a
// new password, ipam user sessions end).
// The user's row is read at every request, so that a change made by any
// process ends the session in every process at once.
func (s *Server) sessionActor(ctx context.Context) (actor auth.Actor, ended bool, err error) {
	name := s.sessions.GetString(ctx, sessionUser)
	if name == "" {
		return auth.Actor{}, false, nil
	}
	u, err := store.User(ctx, s.db, name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return auth.Actor{}, true, nil
	case err != nil:
		return auth.Actor{}, false, err
	case u.SessionGeneration != s.sessions.GetInt64(ctx, sessionGeneration):
		return auth.Actor{}, true, nil
	}
	return auth.ActorOf(u), false, nil
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
