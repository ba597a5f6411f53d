package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
)

// TestServeThroughPgBouncer points every command at Debian's PgBouncer in
// transaction mode, started by the test, and the notifications at
// PostgreSQL itself (--listen-database-url): the migrations, users and
// tokens, two serve processes' claims and releases (a release in one
// process reused first by the other), console sessions and the sign-in
// limit. Pointed at PgBouncer alone, serve and the other commands refuse
// to start and say what to give.
func TestServeThroughPgBouncer(t *testing.T) {
	url := emptyDatabaseURL(t)
	pooled := pgtest.NewPgBouncer(t, url)
	through := []string{"--database-url", pooled, "--listen-database-url", url}

	code, stdout, stderr := runIpam(t, time.Minute, append([]string{"migrate"}, through...)...)
	if want := fmt.Sprintf("the database is at schema version %d\n", latestMigration(t)); code != 0 || stdout != want {
		t.Fatalf("ipam migrate through PgBouncer exited %d, printed %q, want 0 and %q\nstderr:\n%s", code, stdout, want, stderr)
	}

	code, _, stderr = runIpam(t, time.Minute, "serve", "--listen", "127.0.0.1:0", "--database-url", pooled)
	const wantRefusal = "store: notifications sent on the database do not reach the listening connection (waited 5s): when the database URL goes through a connection pooler in transaction mode (PgBouncer), give --listen-database-url, a URL of the PostgreSQL server itself"
	if code != 1 || !strings.Contains(stderr, wantRefusal) {
		t.Errorf("ipam serve --database-url <PgBouncer> exited %d, want 1 and %q\nstderr:\n%s", code, wantRefusal, stderr)
	}

	code, _, stderr = runIpam(t, 30*time.Second, "token", "create", "nobody", "--database-url", pooled)
	if code != 1 || !strings.Contains(stderr, wantRefusal) {
		t.Errorf("ipam token create --database-url <PgBouncer> exited %d, want 1 and %q\nstderr:\n%s", code, wantRefusal, stderr)
	}

	const password = "a long enough secret"
	mustRun(t, password+"\n", nil, append([]string{"user", "add", "alice", "--role", "operator", "--password-stdin"}, through...)...)
	mustRun(t, password+"\n", nil, append([]string{"user", "add", "acme", "--role", "tenant", "--namespace", "acme/*", "--password-stdin"}, through...)...)
	token := strings.TrimSpace(mustRun(t, "", nil, append([]string{"token", "create", "acme"}, through...)...))
	var bases []string
	for range 2 {
		p := start(t, nil, append([]string{"serve", "--listen", "127.0.0.1:0"}, through...)...)
		bases = append(bases, p.waitServing(t))
	}
	setupWeb(t, bases, token)

	const clients, each = 16, 10
	got := attachAll(t, bases, token, clients, each)
	if len(got) != clients*each {
		t.Fatalf("%d addresses handed out, want %d", len(got), clients*each)
	}

	// The lowest address, released through one process, is the one the
	// other hands out next, once the release's notification reached it.
	const lowest = "10.42.0.2"
	vm, ok := got[lowest]
	if !ok {
		t.Fatalf("%s, the lowest address, was not handed out", lowest)
	}
	gql(t, bases[0], token, `mutation($vm: String!) { detachInterface(input: {namespace: "acme/prod", vpc: "main", vm: {uid: $vm, hostname: $vm}, nic: 0}) }`, map[string]any{"vm": vm})
	// The other process learns the release from its notification, within
	// milliseconds: a claim before it gets another address, released again.
	var next any
	for i := 0; i < 100 && next != lowest; i++ {
		vm := fmt.Sprintf("after-release-%d", i)
		a, _ := gql(t, bases[1], token, attachMutation, map[string]any{"vm": vm})["attachInterface"].(map[string]any)
		if next = a["address"]; next != lowest {
			gql(t, bases[1], token, `mutation($vm: String!) { detachInterface(input: {namespace: "acme/prod", vpc: "main", vm: {uid: $vm, hostname: $vm}, nic: 0}) }`, map[string]any{"vm": vm})
			time.Sleep(50 * time.Millisecond)
		}
	}
	if next != lowest {
		t.Errorf("the other process's claims 5 s after %s was released got %v, want %s", lowest, next, lowest)
	}

	c := newConsole(t, bases[1])
	alice, _ := c.session("alice", password)
	if !c.signedIn(alice) {
		t.Error("a console session made through PgBouncer does not open the console")
	}
	for i := range 5 {
		if res := c.signIn("alice", "wrong password", nil); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failed sign-in %d = %d, want %d", i+1, res.StatusCode, http.StatusUnauthorized)
		}
	}
	if res := newConsole(t, bases[0]).signIn("alice", password, nil); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("alice after 5 failures, through the other process = %d, want %d", res.StatusCode, http.StatusTooManyRequests)
	}
}
