package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"
)

// contentSecurityPolicy allows the console's own scripts, styles and the
// WebAssembly preview, and nothing from other origins. Images and fonts
// may also be data: URLs, as GraphiQL's stylesheet carries its fonts.
const contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

type requestIDKey struct{}

// requestID returns the id given to the request being served.
func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// middleware gives every request an id, security headers and a log line
// (at debug level; at error for an answer of the server's failure),
// turns a panic into the 500 page, and refuses state-changing requests
// that a browser sends from another origin (cross-site request forgery).
func (s *Server) middleware(next http.Handler) http.Handler {
	next = new(http.CrossOriginProtection).Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		var b [8]byte
		rand.Read(b[:])
		id := hex.EncodeToString(b[:])
		r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id))
		h := w.Header()
		h.Set("X-Request-Id", id)
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		s.recoverPanic(sw, r, next)
		// Requests at debug: ipam serve logs info and above unless told
		// otherwise, so that they do not scroll its start-up output away.
		level := slog.LevelDebug
		if sw.status >= 500 {
			level = slog.LevelError
		}
		s.log.Log(r.Context(), level, "request", "method", r.Method, "path", r.URL.Path, "status", sw.status,
			"duration", time.Since(start), "request_id", id)
	})
}

// recoverPanic serves r with next and, should next panic, logs the panic
// with its stack and answers with the 500 page if nothing was sent yet.
func (s *Server) recoverPanic(w *statusWriter, r *http.Request, next http.Handler) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if v == http.ErrAbortHandler {
			panic(v)
		}
		s.log.ErrorContext(r.Context(), "request failed: panic", "method", r.Method, "path", r.URL.Path,
			"err", fmt.Sprint(v), "stack", string(debug.Stack()), "request_id", requestID(r.Context()))
		if !w.wrote {
			s.errorPage(w, r)
		}
	}()
	next.ServeHTTP(w, r)
}

// statusWriter remembers the status a handler wrote, for the log, and
// whether it wrote anything.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(status int) {
	w.status, w.wrote = status, true
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
