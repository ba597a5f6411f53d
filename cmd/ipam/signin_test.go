package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
)

// console is a browser of one ipam serve: it keeps no cookie of its own
// and follows no redirect, so that tests see each answer.
type console struct {
	t      *testing.T
	base   string
	client *http.Client
}

func newConsole(t *testing.T, base string) *console {
	return &console{t: t, base: base, client: &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// do sends a request with header and returns the response, its body read.
func (c *console) do(method, path string, form url.Values, header http.Header) *http.Response {
	c.t.Helper()
	req, err := http.NewRequestWithContext(c.t.Context(), method, c.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		c.t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := c.client.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	res.Body.Close()
	return res
}

// signIn posts the sign-in form with header and returns the answer.
func (c *console) signIn(user, password string, header http.Header) *http.Response {
	c.t.Helper()
	return c.do(http.MethodPost, "/login", url.Values{"username": {user}, "password": {password}}, header)
}

// session signs user in and returns the header that sends the session
// cookie, and the cookie.
func (c *console) session(user, password string) (http.Header, *http.Cookie) {
	c.t.Helper()
	res := c.signIn(user, password, nil)
	for _, ck := range res.Cookies() {
		if ck.Name == "ipam_session" && ck.Value != "" {
			return http.Header{"Cookie": {ck.Name + "=" + ck.Value}}, ck
		}
	}
	c.t.Fatalf("signing in as %s = %d with no session cookie", user, res.StatusCode)
	return nil, nil
}

// signedIn reports whether the session of header still opens the console.
func (c *console) signedIn(header http.Header) bool {
	c.t.Helper()
	res := c.do(http.MethodGet, "/", nil, header)
	switch {
	case res.StatusCode == http.StatusOK:
		return true
	case res.StatusCode == http.StatusSeeOther && res.Header.Get("Location") == "/login":
		return false
	}
	c.t.Fatalf("GET / = %d to %q, want 200 or the sign-in form", res.StatusCode, res.Header.Get("Location"))
	return false
}

// TestUserSessionsEnd checks that ipam user sessions end, and ipam user
// set-password, end the sessions a running ipam serve holds for the user,
// and only theirs.
func TestUserSessionsEnd(t *testing.T) {
	dbURL := pgtest.NewURL(t)
	const password = "a long enough secret"
	mustRun(t, password+"\n", nil, "user", "add", "alice", "--role", "operator", "--password-stdin", "--database-url", dbURL)
	mustRun(t, password+"\n", nil, "user", "add", "bob", "--role", "operator", "--password-stdin", "--database-url", dbURL)
	p := start(t, nil, "serve", "--listen", "127.0.0.1:0", "--database-url", dbURL)
	c := newConsole(t, p.waitServing(t))

	alice, _ := c.session("alice", password)
	bob, _ := c.session("bob", password)
	if !c.signedIn(alice) || !c.signedIn(bob) {
		t.Fatal("the sessions of alice and bob do not open the console")
	}
	if out := mustRun(t, "", nil, "user", "sessions", "end", "alice", "--database-url", dbURL); out != "Ended the console sessions of \"alice\".\n" {
		t.Errorf("ipam user sessions end alice printed %q", out)
	}
	if c.signedIn(alice) {
		t.Error("alice's session opens the console after ipam user sessions end alice")
	}
	if !c.signedIn(bob) {
		t.Error("bob's session ended with alice's")
	}

	// Her password is unchanged: she signs in again, until it is.
	alice, _ = c.session("alice", password)
	mustRun(t, "a brand new secret\n", nil, "user", "set-password", "alice", "--password-stdin", "--database-url", dbURL)
	if c.signedIn(alice) {
		t.Error("alice's session opens the console after ipam user set-password alice")
	}
	alice, _ = c.session("alice", "a brand new secret")
	if !c.signedIn(alice) {
		t.Error("alice's session with her new password does not open the console")
	}
	p.stop(t)
}

// TestServeSecureCookieAndTrustedProxy checks --secure-cookie on a
// loopback address, and that with --trusted-proxy the limit of failed
// sign-ins holds back the client named in X-Forwarded-For, not every
// client of the proxy.
func TestServeSecureCookieAndTrustedProxy(t *testing.T) {
	dbURL := pgtest.NewURL(t)
	const password = "a long enough secret"
	mustRun(t, password+"\n", nil, "user", "add", "alice", "--role", "operator", "--password-stdin", "--database-url", dbURL)

	plain := start(t, nil, "serve", "--listen", "127.0.0.1:0", "--database-url", dbURL)
	if _, cookie := newConsole(t, plain.waitServing(t)).session("alice", password); cookie.Secure {
		t.Error("ipam serve on a loopback address without --secure-cookie set a Secure cookie")
	}
	plain.stop(t)

	p := start(t, nil, "serve", "--listen", "127.0.0.1:0", "--database-url", dbURL, "--secure-cookie",
		"--trusted-proxy", "192.0.2.0/24", "--trusted-proxy", "127.0.0.1")
	c := newConsole(t, p.waitServing(t))
	if _, cookie := c.session("alice", password); !cookie.Secure {
		t.Error("ipam serve --secure-cookie set a cookie without Secure")
	}
	from := func(client string) http.Header { return http.Header{"X-Forwarded-For": {client}} }
	for i := range 5 {
		if res := c.signIn("alice", "wrong password", from("198.51.100.66")); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failed sign-in %d from 198.51.100.66 through the proxy = %d, want %d", i+1, res.StatusCode, http.StatusUnauthorized)
		}
	}
	if res := c.signIn("alice", password, from("198.51.100.66")); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("alice from 198.51.100.66 after 5 failures = %d, want %d", res.StatusCode, http.StatusTooManyRequests)
	}
	if res := c.signIn("alice", password, from("203.0.113.1")); res.StatusCode != http.StatusSeeOther {
		t.Errorf("alice from 203.0.113.1 through the same proxy = %d, want %d", res.StatusCode, http.StatusSeeOther)
	}
	p.stop(t)
}
