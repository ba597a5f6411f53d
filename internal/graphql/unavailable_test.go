package graphql

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/store"
)

var unavailableMessage = regexp.MustCompile(`^the database is unavailable right now; retry in a moment \(request id [0-9a-f]{16}\)$`)

// checkUnavailable wants res to carry one error UNAVAILABLE, retryable, that
// tells the client to retry and shows nothing of the database's error.
func checkUnavailable(t *testing.T, res result) {
	t.Helper()
	if code := res.code(t); code != codeUnavailable {
		t.Fatalf("code %s, want %s; answer %s", code, codeUnavailable, res.body)
	}
	var raw struct {
		Errors []struct {
			Extensions struct {
				Retryable bool `json:"retryable"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(res.body, &raw); err != nil || !raw.Errors[0].Extensions.Retryable {
		t.Errorf("extensions.retryable is not true: %s", res.body)
	}
	if !unavailableMessage.MatchString(res.Errors[0].Message) {
		t.Errorf("message %q, want %s", res.Errors[0].Message, unavailableMessage)
	}
	for _, leak := range []string{"store", "pq:", "canceling", "timeout"} {
		if strings.Contains(string(res.body), leak) {
			t.Errorf("the answer shows the database's error (%q): %s", leak, res.body)
		}
	}
}

// TestUnavailableAuthenticator checks that an authenticator that cannot
// reach the database is answered 503 UNAVAILABLE, retryable.
func TestUnavailableAuthenticator(t *testing.T) {
	e := newEnv(t)
	h, err := NewHandler(e.svc, e.pools, func(*http.Request) (auth.Actor, error) {
		return auth.Actor{}, fmt.Errorf("store: unable to look up a token: %w", store.ErrUnavailable)
	}, e.logger)
	if err != nil {
		t.Fatal(err)
	}
	e.handler = h.(*handler)
	res := e.post("acme", "application/json", strings.NewReader(`{"query": "{ vpcs { name } }"}`))
	if res.status != http.StatusServiceUnavailable {
		t.Errorf("status %d, want 503; answer %s", res.status, res.body)
	}
	checkUnavailable(t, res)
}

// TestUnavailableDatabase checks that a resolver whose statement the
// database cancels (statement_timeout behind a lock) is answered
// UNAVAILABLE, retryable, and that the cause is logged.
func TestUnavailableDatabase(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	if _, err := e.db.ExecContext(ctx, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET statement_timeout = 1000', current_database()); END $$`); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, e.url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc, err := ipam.New(ctx, ipam.Config{DB: db, Logger: e.logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	pools := newPools(t, db, "", e.logger)
	h, err := NewHandler(svc, pools, testAuthenticate, e.logger)
	if err != nil {
		t.Fatal(err)
	}
	e.handler = h.(*handler)

	lock, err := e.db.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	if _, err := lock.ExecContext(ctx, `LOCK TABLE vpcs IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	res := e.query("acme", `{ vpcs { name } }`)
	checkUnavailable(t, res)
	if logs := e.logs.String(); !strings.Contains(logs, "the database is unavailable") || !strings.Contains(logs, "statement timeout") {
		t.Errorf("the log does not hold the cause:\n%s", logs)
	}
}
