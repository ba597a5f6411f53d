package web

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// newConsole returns the handler of web.New on db.
func newConsole(t *testing.T, db *store.DB) http.Handler {
	t.Helper()
	h, err := New(Config{Auth: auth.NewService(db), IPAM: testIPAM(t, db), Numbers: testNumbers(t, db), Logger: quietLogger, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// addUser creates a user on db and returns their password.
func addUser(t *testing.T, db *store.DB, name string, role auth.Role, namespaces ...string) string {
	t.Helper()
	password := "pw-" + rand.Text()
	if err := auth.NewService(db).AddUser(t.Context(), auth.System, name, role, namespaces, password); err != nil {
		t.Fatal(err)
	}
	return password
}

// postForm posts form to target through h, from 192.0.2.1 unless header
// says otherwise with an X-Test-Remote-Addr.
func postForm(t *testing.T, h http.Handler, target string, form url.Values, header http.Header) *http.Response {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, vs := range header {
		req.Header[k] = vs
	}
	if addr := req.Header.Get("X-Test-Remote-Addr"); addr != "" {
		req.RemoteAddr = addr
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

// sessionCookie returns the session cookie res sets, or nil.
func sessionCookieOf(res *http.Response) *http.Cookie {
	for _, c := range res.Cookies() {
		if c.Name == sessionCookie {
			return c
		}
	}
	return nil
}

// cookieHeader returns the request header that sends c.
func cookieHeader(c *http.Cookie) http.Header {
	return http.Header{"Cookie": {c.Name + "=" + c.Value}}
}

// signIn signs name in through h and returns the session cookie.
func signIn(t *testing.T, h http.Handler, name, password string) *http.Cookie {
	t.Helper()
	res := postForm(t, h, "/login", url.Values{"username": {name}, "password": {password}}, nil)
	body := readBody(t, res)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("signing in as %s: POST /login = %d, want %d:\n%s", name, res.StatusCode, http.StatusSeeOther, body)
	}
	c := sessionCookieOf(res)
	if c == nil {
		t.Fatalf("signing in as %s set no %s cookie", name, sessionCookie)
	}
	return c
}

// signedIn returns the handler of web.New on a fresh database and the
// header of an operator, alice, signed in to it.
func signedIn(t *testing.T) (http.Handler, http.Header) {
	t.Helper()
	db := pgtest.NewDB(t)
	h := newConsole(t, db)
	return h, cookieHeader(signIn(t, h, "alice", addUser(t, db, "alice", auth.Operator)))
}

func TestAnonymousVisitorsAreSentToLogin(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	tests := []struct {
		method, target string
		header         http.Header
		wantStatus     int
		wantLocation   string
		wantHXRedirect string
	}{
		{http.MethodGet, "/", nil, http.StatusSeeOther, "/login", ""},
		{http.MethodHead, "/", nil, http.StatusSeeOther, "/login", ""},
		{http.MethodGet, "/pools?page=2", nil, http.StatusSeeOther, "/login?next=%2Fpools%3Fpage%3D2", ""},
		{http.MethodGet, "/vpcs/acme/prod", nil, http.StatusSeeOther, "/login?next=%2Fvpcs%2Facme%2Fprod", ""},
		{http.MethodGet, "/nope", nil, http.StatusSeeOther, "/login?next=%2Fnope", ""},
		{http.MethodPost, "/logout", nil, http.StatusSeeOther, "/login", ""},
		{http.MethodGet, "/pools/x", http.Header{"Hx-Request": {"true"}, "Hx-Current-Url": {"http://ipam.example/pools?q=a"}},
			http.StatusUnauthorized, "", "/login?next=%2Fpools%3Fq%3Da"},
	}
	for _, tt := range tests {
		req := tt.method + " " + tt.target
		res := do(t, h, tt.method, tt.target, tt.header)
		readBody(t, res)
		if res.StatusCode != tt.wantStatus {
			t.Errorf("%s = %d, want %d", req, res.StatusCode, tt.wantStatus)
		}
		if got := res.Header.Get("Location"); got != tt.wantLocation {
			t.Errorf("%s Location = %q, want %q", req, got, tt.wantLocation)
		}
		if got := res.Header.Get("HX-Redirect"); got != tt.wantHXRedirect {
			t.Errorf("%s HX-Redirect = %q, want %q", req, got, tt.wantHXRedirect)
		}
		if c := sessionCookieOf(res); c != nil {
			t.Errorf("%s set a session cookie for an anonymous visitor: %v", req, c)
		}
	}
	for _, target := range []string{"/healthz", "/static/css/app.css", "/login", "/login?next=%2Fpools"} {
		res := do(t, h, http.MethodGet, target, nil)
		readBody(t, res)
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d, want %d", target, res.StatusCode, http.StatusOK)
		}
	}
}

func TestSessionCookie(t *testing.T) {
	t.Parallel()
	for _, secure := range []bool{false, true} {
		db := pgtest.NewDB(t)
		h, err := New(Config{Auth: auth.NewService(db), IPAM: testIPAM(t, db), Numbers: testNumbers(t, db), Logger: quietLogger, SecureCookies: secure})
		if err != nil {
			t.Fatal(err)
		}
		c := signIn(t, h, "alice", addUser(t, db, "alice", auth.Operator))
		if !c.HttpOnly {
			t.Errorf("SecureCookies %v: the session cookie is not HttpOnly", secure)
		}
		if c.SameSite != http.SameSiteLaxMode {
			t.Errorf("SecureCookies %v: the session cookie's SameSite = %v, want Lax", secure, c.SameSite)
		}
		if c.Secure != secure {
			t.Errorf("SecureCookies %v: the session cookie's Secure = %v", secure, c.Secure)
		}
		if c.Path != "/" {
			t.Errorf("SecureCookies %v: the session cookie's Path = %q, want /", secure, c.Path)
		}
		if c.MaxAge <= 0 || time.Duration(c.MaxAge)*time.Second > sessionLifetime {
			t.Errorf("SecureCookies %v: the session cookie's Max-Age = %d s, want at most %v", secure, c.MaxAge, sessionLifetime)
		}
		// Only the token's hash is stored: a copy of the table signs no
		// one in.
		var rows, plain int
		if err := db.Get(&rows, `SELECT count(*) FROM sessions`); err != nil {
			t.Fatal(err)
		}
		if err := db.Get(&plain, `SELECT count(*) FROM sessions WHERE token = $1`, c.Value); err != nil {
			t.Fatal(err)
		}
		if rows != 1 || plain != 0 {
			t.Errorf("SecureCookies %v: sessions has %d rows, %d of them under the plain token; want 1, 0", secure, rows, plain)
		}
	}
}

func TestSessionRenewedAtLogin(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	h := newConsole(t, db)
	alice := signIn(t, h, "alice", addUser(t, db, "alice", auth.Operator))
	bobPassword := addUser(t, db, "bob", auth.Tenant, "acme/*")

	// A token planted by someone else, or the one of a previous sign-in,
	// is replaced: whoever knew it knows nothing of the new session.
	for _, planted := range []*http.Cookie{{Name: sessionCookie, Value: "planted-by-mallory"}, alice} {
		res := postForm(t, h, "/login", url.Values{"username": {"bob"}, "password": {bobPassword}}, cookieHeader(planted))
		readBody(t, res)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("POST /login with the cookie %s = %d, want %d", planted.Value, res.StatusCode, http.StatusSeeOther)
		}
		bob := sessionCookieOf(res)
		if bob == nil || bob.Value == "" || bob.Value == planted.Value {
			t.Fatalf("POST /login with the cookie %s set the session cookie %v, want a new token", planted.Value, bob)
		}
		page := string(readBody(t, do(t, h, http.MethodGet, "/", cookieHeader(bob))))
		if !strings.Contains(page, `data-testid="user-name">bob<`) {
			t.Errorf("GET / with the new token does not show bob:\n%s", page)
		}
	}
	res := do(t, h, http.MethodGet, "/", cookieHeader(alice))
	readBody(t, res)
	if res.StatusCode != http.StatusSeeOther {
		t.Errorf("GET / with the token replaced at the next sign-in = %d, want %d", res.StatusCode, http.StatusSeeOther)
	}
}

func TestLogoutDestroysSession(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	h := newConsole(t, db)
	c := signIn(t, h, "alice", addUser(t, db, "alice", auth.Operator))
	res := postForm(t, h, "/logout", nil, cookieHeader(c))
	readBody(t, res)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/login" {
		t.Fatalf("POST /logout = %d to %q, want %d to /login", res.StatusCode, res.Header.Get("Location"), http.StatusSeeOther)
	}
	gone := sessionCookieOf(res)
	if gone == nil || gone.Value != "" || gone.MaxAge >= 0 {
		t.Errorf("POST /logout set the cookie %v, want it deleted", gone)
	}
	var rows int
	if err := db.Get(&rows, `SELECT count(*) FROM sessions`); err != nil {
		t.Fatal(err)
	}
	if rows != 0 {
		t.Errorf("after POST /logout sessions has %d rows, want 0", rows)
	}
	// The old token, sent again by whoever kept it, signs no one in.
	res = do(t, h, http.MethodGet, "/", cookieHeader(c))
	readBody(t, res)
	if res.StatusCode != http.StatusSeeOther {
		t.Errorf("GET / with the token of a closed session = %d, want %d", res.StatusCode, http.StatusSeeOther)
	}
}

func TestSessionOfDeletedUser(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	h := newConsole(t, db)
	c := signIn(t, h, "alice", addUser(t, db, "alice", auth.Operator))
	if _, err := db.Exec(`DELETE FROM users WHERE name = 'alice'`); err != nil {
		t.Fatal(err)
	}
	res := do(t, h, http.MethodGet, "/", cookieHeader(c))
	readBody(t, res)
	if res.StatusCode != http.StatusSeeOther {
		t.Errorf("GET / as a deleted user = %d, want %d", res.StatusCode, http.StatusSeeOther)
	}
	var rows int
	if err := db.Get(&rows, `SELECT count(*) FROM sessions`); err != nil {
		t.Fatal(err)
	}
	if rows != 0 {
		t.Errorf("the session of a deleted user is kept: sessions has %d rows, want 0", rows)
	}
}

// TestSessionEndedByUserChange checks that a new password, or ending the
// sessions without one, ends a user's sessions at once in every process,
// for the console and the API alike, and leaves other users' sessions.
func TestSessionEndedByUserChange(t *testing.T) {
	t.Parallel()
	service := func(db *store.DB) *auth.Service { return auth.NewService(db) }
	tests := []struct {
		name   string
		change func(t *testing.T, db *store.DB) error
	}{
		{"set-password", func(t *testing.T, db *store.DB) error {
			return service(db).SetPassword(t.Context(), auth.System, "alice", "a brand new password")
		}},
		{"sessions end", func(t *testing.T, db *store.DB) error {
			return service(db).EndSessions(t.Context(), auth.System, "alice")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := pgtest.NewDB(t)
			// Two processes on one database: alice signs in on a.
			a, b := newConsole(t, db), newConsole(t, db)
			alice := cookieHeader(signIn(t, a, "alice", addUser(t, db, "alice", auth.Operator)))
			bob := cookieHeader(signIn(t, b, "bob", addUser(t, db, "bob", auth.Tenant, "acme/*")))
			for name, h := range map[string]http.Handler{"a": a, "b": b} {
				res := do(t, h, http.MethodGet, "/", alice)
				readBody(t, res)
				if res.StatusCode != http.StatusOK {
					t.Fatalf("GET / on %s with alice's session = %d, want %d", name, res.StatusCode, http.StatusOK)
				}
			}
			if err := tt.change(t, db); err != nil {
				t.Fatal(err)
			}
			for name, h := range map[string]http.Handler{"a": a, "b": b} {
				res := do(t, h, http.MethodGet, "/pools", alice)
				readBody(t, res)
				if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/login?next=%2Fpools" {
					t.Errorf("GET /pools on %s with alice's session after %s = %d to %q, want %d to the sign-in form",
						name, tt.name, res.StatusCode, res.Header.Get("Location"), http.StatusSeeOther)
				}
				req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ __typename }"}`))
				req.Header = http.Header{"Content-Type": {"application/json"}, "Cookie": alice["Cookie"]}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusUnauthorized {
					t.Errorf("POST /graphql on %s with alice's session after %s = %d, want %d", name, tt.name, rec.Code, http.StatusUnauthorized)
				}
			}
			var rows int
			if err := db.Get(&rows, `SELECT count(*) FROM sessions`); err != nil {
				t.Fatal(err)
			}
			if rows != 1 {
				t.Errorf("after %s sessions has %d rows, want bob's only", tt.name, rows)
			}
			res := do(t, a, http.MethodGet, "/", bob)
			page := string(readBody(t, res))
			if res.StatusCode != http.StatusOK || !strings.Contains(page, `data-testid="user-name">bob<`) {
				t.Errorf("GET / with bob's session after alice's %s = %d, want %d showing bob", tt.name, res.StatusCode, http.StatusOK)
			}
		})
	}
}

// TestSessionOfUserCreatedAgain checks that a user deleted and created
// again under the same name does not get the sessions of the one before.
func TestSessionOfUserCreatedAgain(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	h := newConsole(t, db)
	c := signIn(t, h, "alice", addUser(t, db, "alice", auth.Operator))
	tx := db.MustBegin()
	tx.MustExec(`DELETE FROM users WHERE name = 'alice'`)
	tx.MustExec(`INSERT INTO users (name, role, namespaces, password_hash) VALUES ('alice', 'tenant', '{acme/*}', 'x')`)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	res := do(t, h, http.MethodGet, "/", cookieHeader(c))
	readBody(t, res)
	if res.StatusCode != http.StatusSeeOther {
		t.Errorf("GET / with the session of the alice before = %d, want %d", res.StatusCode, http.StatusSeeOther)
	}
}

func TestActorFrom(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	s, err := newServer(Config{Auth: auth.NewService(db), IPAM: testIPAM(t, db), Numbers: testNumbers(t, db), Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	var got auth.Actor
	var signed bool
	h := s.middleware(s.withSession(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, signed = actorFrom(r.Context())
	})))
	readBody(t, do(t, h, http.MethodGet, "/", nil))
	if signed {
		t.Errorf("actorFrom of an anonymous request = %v, true; want false", got)
	}
	c := signIn(t, newConsole(t, db), "acme-ops", addUser(t, db, "acme-ops", auth.Tenant, "acme/*", "globex/prod"))
	readBody(t, do(t, h, http.MethodGet, "/", cookieHeader(c)))
	if !signed || got.Name != "acme-ops" || got.Role != auth.Tenant || strings.Join(got.Namespaces, " ") != "acme/* globex/prod" {
		t.Errorf("actorFrom of acme-ops's request = %+v, %v; want the tenant with its namespaces", got, signed)
	}
}

func TestCrossOriginRequestsRefused(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	h := newConsole(t, db)
	password := addUser(t, db, "alice", auth.Operator)
	c := signIn(t, h, "alice", password)
	session := cookieHeader(c)
	with := func(h http.Header, kv ...string) http.Header {
		h = h.Clone()
		if h == nil {
			h = http.Header{}
		}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	crossSite := with(session, "Sec-Fetch-Site", "cross-site")
	tests := []struct {
		name   string
		target string
		form   url.Values
		header http.Header
	}{
		{"logout, cross-site", "/logout", nil, crossSite},
		{"logout, same-site", "/logout", nil, with(session, "Sec-Fetch-Site", "same-site")},
		{"logout, other Origin", "/logout", nil, with(session, "Origin", "https://evil.example")},
		{"login, cross-site", "/login", url.Values{"username": {"alice"}, "password": {password}}, with(nil, "Sec-Fetch-Site", "cross-site")},
	}
	for _, tt := range tests {
		res := postForm(t, h, tt.target, tt.form, tt.header)
		readBody(t, res)
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: POST %s = %d, want %d", tt.name, tt.target, res.StatusCode, http.StatusForbidden)
		}
		if c := sessionCookieOf(res); c != nil {
			t.Errorf("%s: POST %s set the session cookie %v", tt.name, tt.target, c)
		}
	}
	// The refused logouts left the session as it was.
	res := do(t, h, http.MethodGet, "/", with(crossSite))
	readBody(t, res)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET / after refused cross-site logouts = %d, want %d (a cross-site GET is allowed)", res.StatusCode, http.StatusOK)
	}
	for _, kv := range [][2]string{{"Sec-Fetch-Site", "same-origin"}, {"Origin", "http://example.com"}} {
		c := signIn(t, h, "alice", password)
		res := postForm(t, h, "/logout", nil, with(cookieHeader(c), kv[0], kv[1]))
		readBody(t, res)
		if res.StatusCode != http.StatusSeeOther {
			t.Errorf("POST /logout with %s: %s = %d, want %d", kv[0], kv[1], res.StatusCode, http.StatusSeeOther)
		}
		if gone := sessionCookieOf(res); gone == nil || gone.MaxAge >= 0 {
			t.Errorf("POST /logout with %s: %s did not delete the session cookie", kv[0], kv[1])
		}
	}
}

func TestGraphQLBySessionOrToken(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.NewURL(t)
	db, err := store.Open(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc, err := ipam.New(t.Context(), ipam.Config{DB: db, URL: dbURL, Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	h, err := New(Config{Auth: auth.NewService(db), IPAM: svc, Numbers: testNumbers(t, db), Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	password := addUser(t, db, "alice", auth.Operator)
	session := cookieHeader(signIn(t, h, "alice", password))
	token, err := auth.NewService(db).CreateToken(t.Context(), auth.System, "alice")
	if err != nil {
		t.Fatal(err)
	}
	header := func(kv ...string) http.Header {
		h := http.Header{"Content-Type": {"application/json"}}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	tests := []struct {
		name       string
		header     http.Header
		wantStatus int
	}{
		{"session, same-origin", header("Cookie", session.Get("Cookie"), "Sec-Fetch-Site", "same-origin"), http.StatusOK},
		{"session, no fetch metadata", header("Cookie", session.Get("Cookie")), http.StatusOK},
		{"session, cross-site", header("Cookie", session.Get("Cookie"), "Sec-Fetch-Site", "cross-site"), http.StatusForbidden},
		{"session, other Origin", header("Cookie", session.Get("Cookie"), "Origin", "https://evil.example"), http.StatusForbidden},
		{"bearer token", header("Authorization", "Bearer "+token), http.StatusOK},
		{"nothing", header(), http.StatusUnauthorized},
		{"closed session", header("Cookie", sessionCookie+"=gone"), http.StatusUnauthorized},
	}
	for _, tt := range tests {
		req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ __typename }"}`))
		req.Header = tt.header
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		res := rec.Result()
		body := string(readBody(t, res))
		if res.StatusCode != tt.wantStatus {
			t.Errorf("%s: POST /graphql = %d, want %d: %s", tt.name, res.StatusCode, tt.wantStatus, body)
			continue
		}
		if tt.wantStatus == http.StatusOK && !strings.Contains(body, `"__typename":"Query"`) {
			t.Errorf("%s: POST /graphql answered %s", tt.name, body)
		}
		if got := res.Header.Get("Cache-Control"); res.StatusCode != http.StatusForbidden && got != "no-store" {
			t.Errorf("%s: POST /graphql Cache-Control = %q, want no-store", tt.name, got)
		}
	}
}

// asActor serves h as if a had signed in, without a session.
func asActor(a auth.Actor, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h(w, r.WithContext(context.WithValue(r.Context(), actorKey{}, a)))
	})
}

// TestSessionWrittenBackOnlyWhenChanged checks that a page view leaves its
// session's row alone until its idle expiry would move by sessionRefresh,
// and that a change is written at once.
func TestSessionWrittenBackOnlyWhenChanged(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	h := newConsole(t, db)
	session := cookieHeader(signIn(t, h, "alice", addUser(t, db, "alice", auth.Operator)))
	type row struct {
		Version string    `db:"version"`
		Expiry  time.Time `db:"expiry"`
	}
	stored := func() row {
		t.Helper()
		var r row
		if err := db.GetContext(t.Context(), &r, `SELECT xmin::text AS version, expiry FROM sessions`); err != nil {
			t.Fatal(err)
		}
		return r
	}
	view := func() {
		t.Helper()
		res := do(t, h, http.MethodGet, "/audit", session)
		readBody(t, res)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET /audit = %d, want %d", res.StatusCode, http.StatusOK)
		}
	}
	signedIn := stored()
	for range 3 {
		view()
	}
	if got := stored(); got != signedIn {
		t.Errorf("three page views rewrote the session: %+v, then %+v", signedIn, got)
	}
	// Once the idle expiry would move by sessionRefresh, a view pushes it
	// back.
	if _, err := db.ExecContext(t.Context(), `UPDATE sessions SET expiry = expiry - $1 * interval '1 second'`, sessionRefresh.Seconds()); err != nil {
		t.Fatal(err)
	}
	aged := stored()
	view()
	if got := stored(); got.Version == aged.Version || !got.Expiry.After(aged.Expiry) {
		t.Errorf("a view after %v kept the session's expiry: %+v, then %+v", sessionRefresh, aged, got)
	}
}

// TestSessionReadHonoursTheRequestsContext checks that a request whose
// session cannot be read, as another transaction locks the sessions (the
// request seen waiting for the lock), ends when its context does, while
// the lock is still held: not when the statement times out.
func TestSessionReadHonoursTheRequestsContext(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	// No statement timeout: a read that did not end with the request's
	// context would wait for the lock until the test ends.
	admin, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.ExecContext(t.Context(), `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET statement_timeout = 0', current_database()); END $$`); err != nil {
		t.Fatal(err)
	}
	admin.Close()
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := newConsole(t, db)
	session := cookieHeader(signIn(t, h, "alice", addUser(t, db, "alice", auth.Operator)))
	lock, err := db.BeginTxx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	if _, err := lock.ExecContext(t.Context(), `LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
	req.Header = session
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(httptest.NewRecorder(), req)
	}()
	pgtest.WaitForLock(t, db, "the request's read of its session", pgtest.LockWait{}, done)
	cancel()
	// The lock is held until the test ends: the bound only turns a
	// request that waits for it into a failure.
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("a request whose session is locked still waits 30 s after its context ended")
	}
}
