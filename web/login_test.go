package web

import (
	"cmp"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

var (
	inputTag    = regexp.MustCompile(`<input\b[^>]*>`)
	labelFor    = regexp.MustCompile(`<label\b[^>]*\bfor="([^"]*)"`)
	attrPattern = `\b%s="([^"]*)"`
)

// attr returns the value of the attribute name of tag, and whether it has it.
func attr(tag, name string) (string, bool) {
	m := regexp.MustCompile(fmt.Sprintf(attrPattern, name)).FindStringSubmatch(tag)
	if m == nil {
		return "", false
	}
	return html.UnescapeString(m[1]), true
}

// formInputs returns the <input> tags of page by name.
func formInputs(page string) map[string]string {
	inputs := map[string]string{}
	for _, tag := range inputTag.FindAllString(page, -1) {
		name, _ := attr(tag, "name")
		inputs[name] = tag
	}
	return inputs
}

func TestLoginForm(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	res := do(t, h, http.MethodGet, "/login?next=%2Fpools%3Fpage%3D2", nil)
	page := string(readBody(t, res))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /login = %d, want %d", res.StatusCode, http.StatusOK)
	}
	if got := res.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("GET /login Cache-Control = %q, want no-store", got)
	}
	if !strings.Contains(page, "<title>Sign in · PiVirt IPAM</title>") {
		t.Errorf("GET /login has no title Sign in:\n%s", page)
	}
	if !regexp.MustCompile(`<form\b[^>]*\bmethod="post"[^>]*\baction="/login"`).MatchString(page) {
		t.Errorf("GET /login has no form posting to /login:\n%s", page)
	}
	if strings.Contains(page, `data-testid="nav"`) || strings.Contains(page, `data-testid="sign-out"`) {
		t.Errorf("GET /login shows the navigation to an anonymous visitor")
	}
	inputs := formInputs(page)
	labels := map[string]bool{}
	for _, m := range labelFor.FindAllStringSubmatch(page, -1) {
		labels[m[1]] = true
	}
	for name, wantType := range map[string]string{"username": "", "password": "password"} {
		tag, ok := inputs[name]
		if !ok {
			t.Errorf("GET /login has no input named %s:\n%s", name, page)
			continue
		}
		if typ, _ := attr(tag, "type"); typ != wantType {
			t.Errorf("input %s has type %q, want %q", name, typ, wantType)
		}
		if id, _ := attr(tag, "id"); id == "" || !labels[id] {
			t.Errorf("input %s (id %q) has no <label for>", name, id)
		}
		if _, ok := attr(tag, "autocomplete"); !ok {
			t.Errorf("input %s has no autocomplete attribute", name)
		}
	}
	if next, _ := attr(inputs["next"], "value"); next != "/pools?page=2" {
		t.Errorf("hidden input next = %q, want /pools?page=2", next)
	}
}

func TestLoginFormWhenSignedIn(t *testing.T) {
	t.Parallel()
	h, session := signedIn(t)
	for target, want := range map[string]string{
		"/login":                     "/",
		"/login?next=%2Fpools":       "/pools",
		"/login?next=https://evil.x": "/",
	} {
		res := do(t, h, http.MethodGet, target, session)
		readBody(t, res)
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != want {
			t.Errorf("signed-in GET %s = %d to %q, want %d to %q", target, res.StatusCode, res.Header.Get("Location"), http.StatusSeeOther, want)
		}
	}
}

func TestLogin(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	h := newConsole(t, db)
	password := addUser(t, db, "alice", auth.Operator)
	tests := []struct {
		name         string
		form         url.Values
		wantStatus   int
		wantLocation string
		wantMessage  string
		// wantAt is where the message is: the form's (login-error) unless
		// said, or beside a field.
		wantAt string
	}{
		{"right password", url.Values{"username": {"alice"}, "password": {password}}, http.StatusSeeOther, "/", "", ""},
		{"back to next", url.Values{"username": {"alice"}, "password": {password}, "next": {"/pools?page=2"}}, http.StatusSeeOther, "/pools?page=2", "", ""},
		{"next to another site", url.Values{"username": {"alice"}, "password": {password}, "next": {"//evil.example/"}}, http.StatusSeeOther, "/", "", ""},
		{"wrong password", url.Values{"username": {"alice"}, "password": {password + "x"}}, http.StatusUnauthorized, "", wrongCredentials, ""},
		{"unknown user", url.Values{"username": {"mallory"}, "password": {password}}, http.StatusUnauthorized, "", wrongCredentials, ""},
		{"no password", url.Values{"username": {"alice"}}, http.StatusUnprocessableEntity, "", "Enter your password.", "error-password"},
		{"no user name", url.Values{"password": {password}}, http.StatusUnprocessableEntity, "", "Enter your user name.", "error-username"},
	}
	for _, tt := range tests {
		res := postForm(t, h, "/login", tt.form, nil)
		page := string(readBody(t, res))
		if res.StatusCode != tt.wantStatus {
			t.Errorf("%s: POST /login = %d, want %d", tt.name, res.StatusCode, tt.wantStatus)
			continue
		}
		if got := res.Header.Get("Location"); got != tt.wantLocation {
			t.Errorf("%s: POST /login Location = %q, want %q", tt.name, got, tt.wantLocation)
		}
		c := sessionCookieOf(res)
		if tt.wantLocation == "" {
			if c != nil {
				t.Errorf("%s: POST /login set a session cookie", tt.name)
			}
			if want := `data-testid="` + cmp.Or(tt.wantAt, "login-error") + `"`; !strings.Contains(page, want) || parseHTML(page).text(cmp.Or(tt.wantAt, "login-error")) != tt.wantMessage {
				t.Errorf("%s: POST /login lacks %s:\n%s", tt.name, want, page)
			}
			// The user name stays in the form; the password does not.
			inputs := formInputs(page)
			if got, _ := attr(inputs["username"], "value"); got != tt.form.Get("username") {
				t.Errorf("%s: the form's user name = %q, want %q", tt.name, got, tt.form.Get("username"))
			}
			if _, ok := attr(inputs["password"], "value"); ok {
				t.Errorf("%s: the form sends the password back", tt.name)
			}
			continue
		}
		if c == nil {
			t.Errorf("%s: POST /login set no session cookie", tt.name)
			continue
		}
		res = do(t, h, http.MethodGet, "/", cookieHeader(c))
		page = string(readBody(t, res))
		if res.StatusCode != http.StatusOK || !strings.Contains(page, `data-testid="user-name">alice<`) {
			t.Errorf("%s: GET / with the new session = %d, want %d showing alice:\n%s", tt.name, res.StatusCode, http.StatusOK, page)
		}
	}
}

func TestLoginSameAnswerForUnknownUserAndWrongPassword(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	h := newConsole(t, db)
	password := addUser(t, db, "alice", auth.Operator)
	answer := func(user string) (int, string) {
		res := postForm(t, h, "/login", url.Values{"username": {user}, "password": {password + "x"}}, nil)
		page := string(readBody(t, res))
		page = strings.ReplaceAll(page, `value="`+user+`"`, `value="USER"`)
		return res.StatusCode, page
	}
	wrongStatus, wrongPage := answer("alice")
	unknownStatus, unknownPage := answer("alicf")
	if wrongStatus != unknownStatus || wrongPage != unknownPage {
		t.Errorf("a wrong password answers %d and an unknown user %d, with pages that differ:\n%s\n---\n%s", wrongStatus, unknownStatus, wrongPage, unknownPage)
	}
}

// attempt posts a sign-in from addr and returns the status.
func attempt(t *testing.T, h http.Handler, user, password, addr string) (int, *http.Response, string) {
	t.Helper()
	res := postForm(t, h, "/login", url.Values{"username": {user}, "password": {password}}, http.Header{"X-Test-Remote-Addr": {addr}})
	page := string(readBody(t, res))
	return res.StatusCode, res, page
}

// failAttempts records n failed sign-ins of user from client in the
// database, as n wrong passwords would, without the time they take.
func failAttempts(t *testing.T, db *store.DB, n int, user, client string) {
	t.Helper()
	if _, err := db.Exec(`INSERT INTO login_attempts (user_name, client) SELECT $1, $2 FROM generate_series(1, $3)`, user, client, n); err != nil {
		t.Fatal(err)
	}
}

func TestLoginRateLimit(t *testing.T) {
	t.Parallel()
	t.Run("per user name and address", func(t *testing.T) {
		t.Parallel()
		db := pgtest.NewDB(t)
		h := newConsole(t, db)
		password := addUser(t, db, "alice", auth.Operator)
		for i := range auth.SignInLimit.PerUserAndClient {
			if status, _, _ := attempt(t, h, "alice", "wrong-password", "198.51.100.1:1000"); status != http.StatusUnauthorized {
				t.Fatalf("failed attempt %d = %d, want %d", i+1, status, http.StatusUnauthorized)
			}
		}
		// From the same address, with the right password: refused without
		// looking at it.
		status, res, page := attempt(t, h, "alice", password, "198.51.100.1:2000")
		if status != http.StatusTooManyRequests {
			t.Fatalf("attempt %d = %d, want %d", auth.SignInLimit.PerUserAndClient+1, status, http.StatusTooManyRequests)
		}
		if c := sessionCookieOf(res); c != nil {
			t.Errorf("a refused attempt set a session cookie")
		}
		if !strings.Contains(page, "Try again in 10 minutes.") {
			t.Errorf("the 429 page does not say when to try again:\n%s", page)
		}
		if got, _ := strconv.Atoi(res.Header.Get("Retry-After")); got < 590 || got > 600 {
			t.Errorf("Retry-After = %q, want about 600", res.Header.Get("Retry-After"))
		}
		if got, _ := attr(formInputs(page)["username"], "value"); got != "alice" {
			t.Errorf("the 429 form's user name = %q, want alice", got)
		}
		// Failures from one address do not lock alice out elsewhere, nor
		// another user out of that address.
		if status, _, _ := attempt(t, h, "alice", password, "203.0.113.9:1000"); status != http.StatusSeeOther {
			t.Errorf("alice from another address = %d, want %d", status, http.StatusSeeOther)
		}
		bob := addUser(t, db, "bob", auth.Operator)
		if status, _, _ := attempt(t, h, "bob", bob, "198.51.100.1:1000"); status != http.StatusSeeOther {
			t.Errorf("bob from an address alice's attempts used = %d, want %d", status, http.StatusSeeOther)
		}
	})
	t.Run("per user name", func(t *testing.T) {
		t.Parallel()
		db := pgtest.NewDB(t)
		h := newConsole(t, db)
		password := addUser(t, db, "alice", auth.Operator)
		// Failures from many addresses, each under its own limit, up to
		// one short of the user's ceiling.
		perAddress := auth.SignInLimit.PerUserAndClient - 1
		for i := 0; i < auth.SignInLimit.PerUser-1; i += perAddress {
			failAttempts(t, db, min(perAddress, auth.SignInLimit.PerUser-1-i), "alice", fmt.Sprintf("198.51.100.%d", i/perAddress+1))
		}
		if status, _, _ := attempt(t, h, "alice", password, "203.0.113.9:1000"); status != http.StatusSeeOther {
			t.Fatalf("alice after %d failures from other addresses = %d, want %d", auth.SignInLimit.PerUser-1, status, http.StatusSeeOther)
		}
		if status, _, _ := attempt(t, h, "alice", "wrong-password", "198.51.100.200:1000"); status != http.StatusUnauthorized {
			t.Fatalf("failure %d = %d, want %d", auth.SignInLimit.PerUser, status, http.StatusUnauthorized)
		}
		if status, _, _ := attempt(t, h, "alice", password, "203.0.113.9:1000"); status != http.StatusTooManyRequests {
			t.Errorf("alice after %d failures from other addresses = %d, want %d", auth.SignInLimit.PerUser, status, http.StatusTooManyRequests)
		}
	})
	t.Run("per client address", func(t *testing.T) {
		t.Parallel()
		db := pgtest.NewDB(t)
		h := newConsole(t, db)
		password := addUser(t, db, "alice", auth.Operator)
		for i := range auth.SignInLimit.PerClient {
			name := fmt.Sprintf("user%d", i)
			if i < auth.SignInLimit.PerClient-1 {
				failAttempts(t, db, 1, name, "2001:db8:1:2::/64")
				continue
			}
			if status, _, _ := attempt(t, h, name, "wrong-password", "[2001:db8:1:2::10]:1000"); status != http.StatusUnauthorized {
				t.Fatalf("failed attempt %d = %d, want %d", i+1, status, http.StatusUnauthorized)
			}
		}
		// Another address of the same /64 is the same client.
		if status, _, _ := attempt(t, h, "alice", password, "[2001:db8:1:2::99]:1000"); status != http.StatusTooManyRequests {
			t.Errorf("alice from the /64 that failed %d times = %d, want %d", auth.SignInLimit.PerClient, status, http.StatusTooManyRequests)
		}
		if status, _, _ := attempt(t, h, "alice", password, "[2001:db8:1:3::10]:1000"); status != http.StatusSeeOther {
			t.Errorf("alice from another /64 = %d, want %d", status, http.StatusSeeOther)
		}
	})
	t.Run("successes do not count", func(t *testing.T) {
		t.Parallel()
		db := pgtest.NewDB(t)
		h := newConsole(t, db)
		password := addUser(t, db, "alice", auth.Operator)
		// Many successes among four failures: only the failures count.
		for i := range 2 * auth.SignInLimit.PerUserAndClient {
			if status, _, _ := attempt(t, h, "alice", password, "192.0.2.7:1000"); status != http.StatusSeeOther {
				t.Fatalf("success %d = %d, want %d", i+1, status, http.StatusSeeOther)
			}
			if i < auth.SignInLimit.PerUserAndClient-1 {
				if status, _, _ := attempt(t, h, "alice", "wrong-password", "192.0.2.7:1000"); status != http.StatusUnauthorized {
					t.Fatalf("failure %d = %d, want %d", i+1, status, http.StatusUnauthorized)
				}
			}
		}
		for _, tt := range []struct {
			password string
			want     int
		}{{"wrong-password", http.StatusUnauthorized}, {password, http.StatusTooManyRequests}} {
			if status, _, _ := attempt(t, h, "alice", tt.password, "192.0.2.7:1000"); status != tt.want {
				t.Errorf("after four failures and ten successes, signing in with %q = %d, want %d", tt.password, status, tt.want)
			}
		}
	})
}

// TestLoginRateLimitBehindProxy checks that behind a trusted proxy the
// client's address counts, not the proxy's, and that the header is not
// believed from anyone else.
func TestLoginRateLimitBehindProxy(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	h, err := New(Config{Auth: auth.NewService(db), IPAM: testIPAM(t, db), Numbers: testNumbers(t, db), Logger: quietLogger, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24")}})
	if err != nil {
		t.Fatal(err)
	}
	password := addUser(t, db, "alice", auth.Operator)
	via := func(peer, forwardedFor, pw string) int {
		res := postForm(t, h, "/login", url.Values{"username": {"alice"}, "password": {pw}},
			http.Header{"X-Test-Remote-Addr": {peer}, "X-Forwarded-For": {forwardedFor}})
		readBody(t, res)
		return res.StatusCode
	}
	// An attacker behind the proxy fails until held back...
	for i := range auth.SignInLimit.PerUserAndClient {
		if status := via("10.0.0.1:1000", "198.51.100.66", "wrong-password"); status != http.StatusUnauthorized {
			t.Fatalf("failed attempt %d through the proxy = %d, want %d", i+1, status, http.StatusUnauthorized)
		}
	}
	if status := via("10.0.0.2:1000", "198.51.100.66", password); status != http.StatusTooManyRequests {
		t.Errorf("198.51.100.66 through the proxy after %d failures = %d, want %d", auth.SignInLimit.PerUserAndClient, status, http.StatusTooManyRequests)
	}
	// ...and cannot pass for another client by writing the header
	// itself: the proxy appends the address it got the request from.
	if status := via("10.0.0.1:1000", "203.0.113.1, 198.51.100.66", password); status != http.StatusTooManyRequests {
		t.Errorf("198.51.100.66 through the proxy, claiming to be 203.0.113.1 = %d, want %d", status, http.StatusTooManyRequests)
	}
	// alice, behind the same proxy, signs in.
	if status := via("10.0.0.1:1000", "203.0.113.1", password); status != http.StatusSeeOther {
		t.Errorf("alice from 203.0.113.1 through the proxy = %d, want %d", status, http.StatusSeeOther)
	}
	// Without a trusted proxy in front, the header is the client's word:
	// 198.51.100.66 reaching the server itself is still held back.
	if status := via("198.51.100.66:1000", "203.0.113.1", password); status != http.StatusTooManyRequests {
		t.Errorf("198.51.100.66 directly, claiming to be 203.0.113.1 = %d, want %d", status, http.StatusTooManyRequests)
	}
}

func TestLoginRateLimitSharedByServers(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	a, b := newConsole(t, db), newConsole(t, db)
	password := addUser(t, db, "alice", auth.Operator)
	for i, h := range []http.Handler{a, a, a, b, b} {
		if status, _, _ := attempt(t, h, "alice", "wrong-password", "192.0.2.1:1000"); status != http.StatusUnauthorized {
			t.Fatalf("failed attempt %d = %d, want %d", i+1, status, http.StatusUnauthorized)
		}
	}
	for name, h := range map[string]http.Handler{"a": a, "b": b} {
		if status, _, _ := attempt(t, h, "alice", password, "192.0.2.1:1000"); status != http.StatusTooManyRequests {
			t.Errorf("server %s after 3 failures on a and 2 on b = %d, want %d", name, status, http.StatusTooManyRequests)
		}
	}
}

func TestLoginRateLimitUnderConcurrency(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	servers := []http.Handler{newConsole(t, db), newConsole(t, db)}
	addUser(t, db, "alice", auth.Operator)
	const n = 12
	statuses := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/login",
				strings.NewReader(url.Values{"username": {"alice"}, "password": {"wrong-password"}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.RemoteAddr = fmt.Sprintf("198.51.100.1:%d", 1000+i)
			rec := httptest.NewRecorder()
			servers[i%2].ServeHTTP(rec, req)
			statuses <- rec.Code
		})
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[http.StatusUnauthorized] != auth.SignInLimit.PerUserAndClient || count[http.StatusTooManyRequests] != n-auth.SignInLimit.PerUserAndClient {
		t.Errorf("%d concurrent failed attempts answered %v, want %d × 401 and the rest 429", n, count, auth.SignInLimit.PerUserAndClient)
	}
}

func TestSafeNext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		target, want string
	}{
		{"", "/"},
		{"/", "/"},
		{"/pools", "/pools"},
		{"/pools?page=2&q=a b", "/pools?page=2&q=a b"},
		{"/vpcs/acme/prod#subnets", "/vpcs/acme/prod#subnets"},
		{"/%2F%2Fevil.example", "/%2F%2Fevil.example"},
		{"//evil.example", "/"},
		{"//evil.example/pools", "/"},
		{"///evil.example", "/"},
		{"/\\evil.example", "/"},
		{"\\\\evil.example", "/"},
		{"/pools\\..\\x", "/"},
		{"https://evil.example/", "/"},
		{"http:/evil.example", "/"},
		{"javascript:alert(1)", "/"},
		{"evil.example", "/"},
		{"pools", "/"},
		{" /pools", "/"},
		{"/\t/evil.example", "/"},
		{"/\n/evil.example", "/"},
		{"/pools\x00", "/"},
		{"/login", "/"},
		{"/login?next=/pools", "/"},
		{"/" + strings.Repeat("a", 4096), "/"},
	}
	for _, tt := range tests {
		if got := safeNext(tt.target); got != tt.want {
			t.Errorf("safeNext(%q) = %q, want %q", tt.target, got, tt.want)
		}
	}
}

func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{"/pools", "//evil.example", "/\\evil", "https://x/", "/a?b=c#d", "/%2f%2f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, target string) {
		got := safeNext(target)
		if got == "/" {
			return
		}
		// What a browser makes of it: the same host, whatever the base.
		base, _ := url.Parse("https://ipam.example/some/page")
		u, err := base.Parse(got)
		if err != nil {
			t.Fatalf("safeNext(%q) = %q, which does not parse: %v", target, got, err)
		}
		if u.Host != "ipam.example" || u.Scheme != "https" {
			t.Errorf("safeNext(%q) = %q, which leads to %s", target, got, u)
		}
	})
}

func TestClientOf(t *testing.T) {
	t.Parallel()
	s := &Server{trustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24"), netip.MustParsePrefix("2001:db8:ffff::/48")}}
	tests := []struct {
		remoteAddr   string
		forwardedFor []string
		want         string
	}{
		{"192.0.2.1:1234", nil, "192.0.2.1"},
		{"[::ffff:192.0.2.1]:1234", nil, "192.0.2.1"},
		{"[2001:db8:1:2:3:4:5:6]:1234", nil, "2001:db8:1:2::/64"},
		{"[fe80::1%eth0]:1234", nil, "fe80::/64"},
		{"[::1]:1234", nil, "::/64"},
		{"unix", nil, "unix"},
		// Not from a trusted proxy: the header is ignored.
		{"192.0.2.1:1234", []string{"198.51.100.1"}, "192.0.2.1"},
		// From a trusted proxy: the address it appended.
		{"10.0.0.1:1234", []string{"198.51.100.1"}, "198.51.100.1"},
		{"[::ffff:10.0.0.1]:1234", []string{"198.51.100.1"}, "198.51.100.1"},
		{"[2001:db8:ffff::1]:1234", []string{"2001:db8:1:2::10"}, "2001:db8:1:2::/64"},
		// What the client wrote, left of what the proxy appended, is not
		// believed.
		{"10.0.0.1:1234", []string{"203.0.113.1, 198.51.100.1"}, "198.51.100.1"},
		{"10.0.0.1:1234", []string{"203.0.113.1", "198.51.100.1"}, "198.51.100.1"},
		// Trusted proxies in a chain are skipped.
		{"10.0.0.1:1234", []string{"203.0.113.1, 198.51.100.1, 10.0.0.7"}, "198.51.100.1"},
		{"10.0.0.1:1234", []string{"198.51.100.1,2001:db8:ffff::5"}, "198.51.100.1"},
		// Ports and spaces as some proxies write them.
		{"10.0.0.1:1234", []string{" 198.51.100.1:5555 "}, "198.51.100.1"},
		{"10.0.0.1:1234", []string{"[2001:db8:1:2::10]:5555"}, "2001:db8:1:2::/64"},
		// Nothing, or nothing usable, after the trusted hops: the last
		// trusted hop.
		{"10.0.0.1:1234", nil, "10.0.0.1"},
		{"10.0.0.1:1234", []string{""}, "10.0.0.1"},
		{"10.0.0.1:1234", []string{"198.51.100.1, unknown"}, "10.0.0.1"},
		{"10.0.0.1:1234", []string{"198.51.100.1, garbage, 10.0.0.7"}, "10.0.0.7"},
		{"10.0.0.1:1234", []string{"10.0.0.9, 10.0.0.7"}, "10.0.0.9"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = tt.remoteAddr
		for _, v := range tt.forwardedFor {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := s.clientOf(r); got != tt.want {
			t.Errorf("clientOf(RemoteAddr %q, X-Forwarded-For %q) = %q, want %q", tt.remoteAddr, tt.forwardedFor, got, tt.want)
		}
	}
}
