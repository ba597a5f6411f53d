package web

import (
	"encoding/json"
	"log/slog"
	"net/http"
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
	s, err := newServer(Config{Auth: users, IPAM: testIPAM(t, db), Branches: testBranches(t, db), Logger: slog.New(slog.NewJSONHandler(logs, nil))})
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
