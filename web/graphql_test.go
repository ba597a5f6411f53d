package web

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/pgtest"
)

// TestGraphQLRequestID checks that a GraphQL error names the request id
// of the middleware: the one of X-Request-Id, of the access log and of
// the error's own log line.
func TestGraphQLRequestID(t *testing.T) {
	t.Parallel()
	logs := &logBuffer{}
	db := pgtest.NewDB(t)
	users := auth.NewService(db)
	if err := users.AddUser(t.Context(), auth.System, "op", auth.Operator, nil, "a password of the operator"); err != nil {
		t.Fatal(err)
	}
	token, err := users.CreateToken(t.Context(), auth.System, "op")
	if err != nil {
		t.Fatal(err)
	}
	s, err := newServer(Config{Auth: users, IPAM: testIPAM(t, db), Numbers: testNumbers(t, db), Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	h := s.middleware(s.routes())
	db.Close()
	res := do(t, h, http.MethodPost, "/graphql", http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}})
	var answer struct {
		Errors []struct{ Message string } `json:"errors"`
	}
	if err := json.Unmarshal(readBody(t, res), &answer); err != nil || len(answer.Errors) != 1 {
		t.Fatalf("POST /graphql on a closed database answered %d %v (%v)", res.StatusCode, answer, err)
	}
	id := res.Header.Get("X-Request-Id")
	if want := "internal error (request id " + id + ")"; id == "" || answer.Errors[0].Message != want {
		t.Errorf("the error says %q, want %q", answer.Errors[0].Message, want)
	}
	checkLogged(t, logs, "graphql request failed", id, "database is closed")
	checkLogged(t, logs, "request", id, "")
}

// TestGraphQLNumberPools checks that a server given Config.Numbers, and no
// Config.Branches (Numbers gives it), serves the number pools to
// operators.
func TestGraphQLNumberPools(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	users := auth.NewService(db)
	if err := users.AddUser(t.Context(), auth.System, "op", auth.Operator, nil, "a password of the operator"); err != nil {
		t.Fatal(err)
	}
	token, err := users.CreateToken(t.Context(), auth.System, "op")
	if err != nil {
		t.Fatal(err)
	}
	pools := testNumbers(t, db)
	h, err := New(Config{Auth: users, IPAM: testIPAM(t, db), Numbers: pools, Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/graphql", strings.NewReader(`{"query": "{ CoreNumberPool { count } }"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if got, want := strings.TrimSpace(rec.Body.String()), `{"data":{"CoreNumberPool":{"count":0}}}`; rec.Code != http.StatusOK || got != want {
		t.Errorf("POST /graphql answered %d %s, want 200 %s", rec.Code, got, want)
	}
}
