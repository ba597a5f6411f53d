package web

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// checkUnavailablePage checks that res is the 503 page showing the request
// id of its X-Request-Id header, and returns that id.
func checkUnavailablePage(t *testing.T, res *http.Response) string {
	t.Helper()
	page := string(readBody(t, res))
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("status = %d, want %d:\n%s", res.StatusCode, http.StatusServiceUnavailable, page)
	}
	id := res.Header.Get("X-Request-Id")
	doc := parseHTML(page)
	if got := doc.text("request-id"); id == "" || got != id {
		t.Errorf("the 503 page shows the request id %q, want X-Request-Id %q:\n%s", got, id, page)
	}
	if doc.title() != "Database unavailable · PiVirt IPAM" || !doc.has("unavailable") ||
		!strings.Contains(doc.text("unavailable"), "The database is unavailable right now; try again in a moment.") {
		t.Errorf("the 503 page is %q, without its message:\n%s", doc.title(), page)
	}
	if got := res.Header.Get("Retry-After"); got != unavailableRetryAfter {
		t.Errorf("Retry-After = %q, want %q", got, unavailableRetryAfter)
	}
	if got := res.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store", got)
	}
	return id
}

func TestUnavailablePage(t *testing.T) {
	t.Parallel()
	s, logs := loggedServer(t)
	h := s.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serverError(w, r, fmt.Errorf("store: unable to list the pools: %w", store.ErrUnavailable))
	}))
	id := checkUnavailablePage(t, do(t, h, http.MethodGet, "/pools", nil))
	checkLogged(t, logs, "request failed: the database is unavailable", id, "the database is unavailable")
	if recs := logs.records(t, "request failed"); len(recs) > 0 {
		t.Errorf("an unavailable database was logged as a failure of the server: %v", recs)
	}
}

// TestUnavailableDatabasePage runs the whole chain, sessions included, on a
// database whose statements run out of time behind a lock: the console
// answers the 503 page, and answers again once the lock is gone.
func TestUnavailableDatabasePage(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url := pgtest.NewURL(t)
	admin, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	if _, err := admin.ExecContext(ctx, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET statement_timeout = 1000', current_database()); END $$`); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	logs := &logBuffer{}
	h, err := New(Config{Auth: auth.NewService(db), IPAM: testIPAM(t, db), Numbers: testNumbers(t, db), Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	session := cookieHeader(signIn(t, h, "alice", addUser(t, db, "alice", auth.Operator)))

	for _, table := range []string{"pools", "sessions"} {
		t.Run(table, func(t *testing.T) {
			lock, err := admin.BeginTxx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := lock.ExecContext(ctx, "LOCK TABLE "+table+" IN ACCESS EXCLUSIVE MODE"); err != nil {
				t.Fatal(err)
			}
			id := checkUnavailablePage(t, do(t, h, http.MethodGet, "/pools", session))
			checkLogged(t, logs, "request failed: the database is unavailable", id, "statement timeout")
			if err := lock.Rollback(); err != nil {
				t.Fatal(err)
			}
			if res := do(t, h, http.MethodGet, "/pools", session); res.StatusCode != http.StatusOK {
				t.Errorf("GET /pools once the lock is gone = %d, want 200:\n%s", res.StatusCode, readBody(t, res))
			}
		})
	}
}
