package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/a-h/templ"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/pgtest"
)

// logBuffer collects a server's log as JSON lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// records returns the log's records whose message is msg.
func (b *logBuffer) records(t *testing.T, msg string) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	dec := json.NewDecoder(bytes.NewReader(b.buf.Bytes()))
	for {
		var rec map[string]any
		if err := dec.Decode(&rec); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
}

// loggedServer returns a server on a fresh database whose log goes to the
// returned buffer.
func loggedServer(t *testing.T) (*Server, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	db := pgtest.NewDB(t)
	s, err := newServer(Config{Auth: auth.NewService(db), IPAM: testIPAM(t, db), Numbers: testNumbers(t, db), Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return s, logs
}

// checkServerErrorPage checks that res is the 500 page showing the
// request id of its X-Request-Id header, and returns that id.
func checkServerErrorPage(t *testing.T, res *http.Response) string {
	t.Helper()
	page := string(readBody(t, res))
	if res.StatusCode != http.StatusInternalServerError {
		t.Fatalf("status = %d, want %d:\n%s", res.StatusCode, http.StatusInternalServerError, page)
	}
	if got := res.Header.Get("Content-Type"); !strings.HasPrefix(got, "text/html") {
		t.Errorf("Content-Type = %q, want text/html", got)
	}
	id := res.Header.Get("X-Request-Id")
	doc := parseHTML(page)
	if got := doc.text("request-id"); id == "" || got != id {
		t.Errorf("the 500 page shows the request id %q, want X-Request-Id %q:\n%s", got, id, page)
	}
	if got := doc.title(); got != "Something went wrong · PiVirt IPAM" {
		t.Errorf("the 500 page's title is %q:\n%s", got, page)
	}
	return id
}

// checkLogged checks that the log has one record msg of the request id
// whose err contains wantErr, and returns it.
func checkLogged(t *testing.T, logs *logBuffer, msg, id, wantErr string) map[string]any {
	t.Helper()
	for _, rec := range logs.records(t, msg) {
		if rec["request_id"] == id {
			if err, _ := rec["err"].(string); !strings.Contains(err, wantErr) {
				t.Errorf("the log's %q of request %s has err %q, want it to contain %q", msg, id, err, wantErr)
			}
			return rec
		}
	}
	t.Fatalf("the log has no %q with request_id %s:\n%s", msg, id, logs.buf.String())
	return nil
}

func TestNotFoundPage(t *testing.T) {
	t.Parallel()
	h, session := signedIn(t)
	for _, target := range []string{"/nope", "/index.html", "/healthz/x", "/pools/unknown/really"} {
		res := do(t, h, http.MethodGet, target, session)
		page := parseHTML(string(readBody(t, res)))
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d, want %d", target, res.StatusCode, http.StatusNotFound)
			continue
		}
		if page.title() != "Page not found · PiVirt IPAM" || !page.has("not-found") || page.text("user-name") != "alice" {
			t.Errorf("GET %s: the page is %q with not-found %v for %q, want the 404 page for alice", target, page.title(), page.has("not-found"), page.text("user-name"))
		}
		if got := res.Header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("GET %s Cache-Control = %q, want no-store", target, got)
		}
	}
}

func TestServerErrorPage(t *testing.T) {
	t.Parallel()
	s, logs := loggedServer(t)
	h := s.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serverError(w, r, errors.New("the disk is on fire"))
	}))
	id := checkServerErrorPage(t, do(t, h, http.MethodGet, "/pools", nil))
	checkLogged(t, logs, "request failed", id, "the disk is on fire")
	for _, rec := range logs.records(t, "request") {
		if rec["request_id"] == id && rec["status"] != float64(http.StatusInternalServerError) {
			t.Errorf("the request's log line has status %v, want 500", rec["status"])
		}
	}
}

func TestRenderFailureIsServerError(t *testing.T) {
	t.Parallel()
	s, logs := loggedServer(t)
	broken := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		io.WriteString(w, "<p>half a page")
		return errors.New("template exploded")
	})
	h := s.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.render(w, r, http.StatusOK, broken)
	}))
	res := do(t, h, http.MethodGet, "/", nil)
	id := checkServerErrorPage(t, res)
	checkLogged(t, logs, "request failed", id, "template exploded")
}

func TestPanicBecomesServerError(t *testing.T) {
	t.Parallel()
	s, logs := loggedServer(t)
	h := s.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		explode()
	}))
	id := checkServerErrorPage(t, do(t, h, http.MethodGet, "/", nil))
	rec := checkLogged(t, logs, "request failed: panic", id, "index out of range")
	if stack, _ := rec["stack"].(string); !strings.Contains(stack, "web.explode") {
		t.Errorf("the panic's log has no stack through explode:\n%s", stack)
	}

	// A panic after the response started cannot change it; it is logged.
	h = s.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		explode()
	}))
	res := do(t, h, http.MethodGet, "/late", nil)
	readBody(t, res)
	if res.StatusCode != http.StatusAccepted {
		t.Errorf("a panic after WriteHeader(202) turned the status into %d", res.StatusCode)
	}
	checkLogged(t, logs, "request failed: panic", res.Header.Get("X-Request-Id"), "index out of range")
}

// explode panics as a bug would: an index out of range.
func explode() {
	var fields []string
	_ = fields[len(fields)]
}

func TestPanicInConsoleRoute(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	logs := &logBuffer{}
	s, err := newServer(Config{Auth: auth.NewService(db), IPAM: testIPAM(t, db), Numbers: testNumbers(t, db), Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	// The whole chain: sessions, the sign-in check, the handler.
	h := s.middleware(s.withSession(s.requireActor(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		explode()
	}))))
	session := cookieHeader(signIn(t, newConsole(t, db), "alice", addUser(t, db, "alice", "operator")))
	id := checkServerErrorPage(t, do(t, h, http.MethodGet, "/pools", session))
	checkLogged(t, logs, "request failed: panic", id, "index out of range")
}
