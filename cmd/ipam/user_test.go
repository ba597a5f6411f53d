package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

const cliTimeout = 30 * time.Second

// runWithStdin runs ipam to completion with stdin as its standard input,
// in the test's environment without DATABASE_URL plus env, and returns its
// exit code and output.
func runWithStdin(t *testing.T, stdin string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, ipamBinary, args...)
	cmd.Env = append(childEnv(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr) && exitErr.Exited():
		code = exitErr.ExitCode()
	default:
		t.Fatalf("ipam %s: %v\nstderr:\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return code, out.String(), errOut.String()
}

// mustRun runs ipam and wants exit code 0.
func mustRun(t *testing.T, stdin string, env []string, args ...string) (stdout string) {
	t.Helper()
	code, stdout, stderr := runWithStdin(t, stdin, env, args...)
	if code != 0 {
		t.Fatalf("ipam %s exited %d, want 0\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout
}

var tokenLine = regexp.MustCompile(`^pvt_[A-Za-z0-9_-]{43}\n$`)

// TestUserAndToken adds a tenant, gives it a token, revokes the token and
// checks each step through auth.Service.
func TestUserAndToken(t *testing.T) {
	url := pgtest.NewURL(t)
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	service := auth.NewService(db)
	ctx := t.Context()

	// Flags after the name; the password line ends in CR LF.
	out := mustRun(t, "a long enough secret\r\n", nil,
		"user", "add", "alice", "--role", "tenant", "--namespace", "acme/*", "--namespace", "shared/dns", "--password-stdin", "--database-url", url)
	if out != "Added the tenant \"alice\".\n" {
		t.Errorf("ipam user add printed %q", out)
	}
	alice, err := signIn(ctx, service, "alice", "a long enough secret")
	if err != nil {
		t.Fatalf("SignIn(alice, the password given on stdin): %v", err)
	}
	if alice.Role != auth.Tenant || !slices.Equal(alice.Namespaces, []string{"acme/*", "shared/dns"}) {
		t.Errorf("alice = %+v, want a tenant of acme/* and shared/dns", alice)
	}

	token := mustRun(t, "", nil, "token", "create", "alice", "--database-url", url)
	if !tokenLine.MatchString(token) {
		t.Fatalf("ipam token create printed %q, want one pvt_… line", token)
	}
	token = strings.TrimSuffix(token, "\n")
	if got, err := service.AuthenticateToken(ctx, token); err != nil || got.Name != "alice" {
		t.Fatalf("AuthenticateToken(the printed token) = %+v, %v, want alice", got, err)
	}

	// Flags before the name, the database from DATABASE_URL.
	if out := mustRun(t, "", []string{"DATABASE_URL=" + url}, "token", "revoke", "alice"); out != "1\n" {
		t.Errorf("ipam token revoke printed %q, want 1", out)
	}
	if got, err := service.AuthenticateToken(ctx, token); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("AuthenticateToken(the revoked token) = %+v, %v, want ErrUnauthenticated", got, err)
	}
	if out := mustRun(t, "", nil, "token", "revoke", "--database-url", url, "alice"); out != "0\n" {
		t.Errorf("ipam token revoke again printed %q, want 0", out)
	}

	out = mustRun(t, "another long secret\n", nil, "user", "set-password", "--password-stdin", "alice", "--database-url", url)
	if out != "Set the password of \"alice\" and ended their console sessions.\n" {
		t.Errorf("ipam user set-password printed %q", out)
	}
	if _, err := signIn(ctx, service, "alice", "another long secret"); err != nil {
		t.Errorf("SignIn(alice, the new password): %v", err)
	}

	out = mustRun(t, "", nil, "user", "sessions", "end", "alice", "--database-url", url)
	if out != "Ended the console sessions of \"alice\".\n" {
		t.Errorf("ipam user sessions end printed %q", out)
	}
	if _, err := signIn(ctx, service, "alice", "another long secret"); err != nil {
		t.Errorf("SignIn(alice) after ipam user sessions end: %v", err)
	}

	// An operator, with a password given without a line ending.
	mustRun(t, "root password!", nil, "user", "add", "--role=operator", "root", "--password-stdin", "--database-url="+url)
	if root, err := signIn(ctx, service, "root", "root password!"); err != nil || !root.IsOperator() {
		t.Errorf("SignIn(root) = %+v, %v, want an operator", root, err)
	}

	var entries []struct {
		Actor  string `db:"actor"`
		Action string `db:"action"`
		Kind   string `db:"object_kind"`
	}
	if err := db.SelectContext(ctx, &entries, `SELECT actor, action, object_kind FROM audit_log ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if e.Actor != auth.System.Name {
			t.Errorf("audit entry %+v: actor %q, want %q", e, e.Actor, auth.System.Name)
		}
		got = append(got, e.Action+" "+e.Kind)
	}
	want := []string{"create User", "create APIToken", "revoke APIToken", "set-password User", "end-sessions User", "create User"}
	if !slices.Equal(got, want) {
		t.Errorf("audit log = %q, want %q", got, want)
	}
}

func TestUserAndTokenMistakes(t *testing.T) {
	url := pgtest.NewURL(t)
	mustRun(t, "a long enough secret\n", nil, "user", "add", "alice", "--role", "tenant", "--namespace", "acme/*", "--password-stdin", "--database-url", url)

	tests := []struct {
		stdin      string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"", []string{"user"}, 2, "user needs a subcommand"},
		{"", []string{"user", "remove", "alice"}, 2, `unknown user subcommand "remove"`},
		{"secret secret\n", []string{"user", "add", "bob", "--role", "operator"}, 2, "user add needs --password-stdin"},
		{"secret secret\n", []string{"user", "add", "bob", "--password-stdin"}, 2, "user add needs --role operator or --role tenant"},
		{"secret secret\n", []string{"user", "add", "--role", "operator", "--password-stdin"}, 2, "user add takes one NAME, got []"},
		{"secret secret\n", []string{"user", "add", "bob", "carol", "--role", "operator", "--password-stdin"}, 2, `user add takes one NAME, got ["bob" "carol"]`},
		{"secret secret\n", []string{"user", "add", "bob", "--role", "operator", "--password", "x"}, 2, "flag provided but not defined: -password"},
		{"", []string{"user", "add", "bob", "--role", "operator", "--password-stdin"}, 1, "no password on standard input"},
		{"short\n", []string{"user", "add", "bob", "--role", "operator", "--password-stdin"}, 1, "invalid password: must be at least 12 characters"},
		{"secret secret\n", []string{"user", "add", "Bob", "--role", "operator", "--password-stdin"}, 1, `invalid name: "Bob"`},
		{"secret secret\n", []string{"user", "add", "bob", "--role", "admin", "--password-stdin"}, 1, `invalid role: "admin" is neither operator nor tenant`},
		{"secret secret\n", []string{"user", "add", "bob", "--role", "tenant", "--password-stdin"}, 1, "invalid namespace: a tenant needs at least one namespace pattern"},
		{"secret secret\n", []string{"user", "add", "alice", "--role", "operator", "--password-stdin"}, 1, "unable to create the user alice: store: object exists"},
		{"secret secret\n", []string{"user", "set-password", "alice"}, 2, "user set-password needs --password-stdin"},
		{"secret secret\n", []string{"user", "set-password", "nobody", "--password-stdin"}, 1, "store: not found"},
		{"", []string{"user", "sessions", "stop", "alice"}, 2, `unknown user sessions subcommand "stop"`},
		{"", []string{"user", "sessions", "end"}, 2, "user sessions end takes one NAME, got []"},
		{"", []string{"user", "sessions", "end", "alice", "bob"}, 2, `user sessions end takes one NAME, got ["alice" "bob"]`},
		{"", []string{"user", "sessions", "end", "nobody"}, 1, "unable to end the sessions of nobody: store: not found"},
		{"", []string{"token"}, 2, "token needs a subcommand"},
		{"", []string{"token", "list"}, 2, `unknown token subcommand "list"`},
		{"", []string{"token", "create"}, 2, "token create takes one NAME, got []"},
		{"", []string{"token", "revoke", "alice", "bob"}, 2, `token revoke takes one NAME, got ["alice" "bob"]`},
		{"", []string{"token", "create", "nobody"}, 1, "no such user"},
		{"", []string{"token", "revoke", "nobody"}, 1, "no such user"},
	}
	for _, tt := range tests {
		name := "ipam " + strings.Join(tt.args, " ")
		t.Run(name, func(t *testing.T) {
			args := tt.args
			if len(args) > 1 {
				args = append(args, "--database-url", url)
			}
			code, stdout, stderr := runWithStdin(t, tt.stdin, nil, args...)
			if code != tt.wantCode {
				t.Errorf("%s exited %d, want %d\nstderr:\n%s", name, code, tt.wantCode, stderr)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("%s wrote %q to stderr, want it to contain %q", name, stderr, tt.wantStderr)
			}
			if stdout != "" {
				t.Errorf("%s printed %q, want nothing", name, stdout)
			}
		})
	}
}

// TestServeCreatesAdmin checks that ipam serve creates the operator admin
// on an empty database, prints its password once, and that the password
// works.
func TestServeCreatesAdmin(t *testing.T) {
	url := pgtest.NewURL(t)

	p := start(t, nil, "serve", "--listen", "127.0.0.1:0", "--database-url", url)
	p.waitServing(t)
	p.stop(t)
	password := signInsOf(p.stdout.String())["admin"]
	if len(password) != 20 {
		t.Fatalf("ipam serve on an empty database printed no 20-character admin password:\n%s", p.stdout)
	}

	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if admin, err := signIn(t.Context(), auth.NewService(db), "admin", password); err != nil || !admin.IsOperator() {
		t.Errorf("SignIn(admin, the printed password) = %+v, %v, want the operator", admin, err)
	}

	again := start(t, nil, "serve", "--listen", "127.0.0.1:0", "--database-url", url)
	again.waitServing(t)
	again.stop(t)
	if _, ok := signInsOf(again.stdout.String())["admin"]; ok {
		t.Errorf("the second ipam serve created another admin:\n%s", again.stdout)
	}
}

// signIn signs in as the console does, from an address of its own each
// time, so that the failures of a test never reach the sign-in limit.
func signIn(ctx context.Context, s *auth.Service, name, password string) (auth.Actor, error) {
	n := clients.Add(1)
	actor, _, err := s.SignIn(ctx, fmt.Sprintf("198.51.%d.%d", n/256, n%256), name, password)
	return actor, err
}

// clients counts the addresses signIn signed in from.
var clients atomic.Int64
