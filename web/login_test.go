package web

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/pgtest"
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
	}{
		{"right password", url.Values{"username": {"alice"}, "password": {password}}, http.StatusSeeOther, "/", ""},
		{"back to next", url.Values{"username": {"alice"}, "password": {password}, "next": {"/pools?page=2"}}, http.StatusSeeOther, "/pools?page=2", ""},
		{"next to another site", url.Values{"username": {"alice"}, "password": {password}, "next": {"//evil.example/"}}, http.StatusSeeOther, "/", ""},
		{"wrong password", url.Values{"username": {"alice"}, "password": {password + "x"}}, http.StatusUnauthorized, "", wrongCredentials},
		{"unknown user", url.Values{"username": {"mallory"}, "password": {password}}, http.StatusUnauthorized, "", wrongCredentials},
		{"no password", url.Values{"username": {"alice"}}, http.StatusUnprocessableEntity, "", "Enter your user name and your password."},
		{"no user name", url.Values{"password": {password}}, http.StatusUnprocessableEntity, "", "Enter your user name and your password."},
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
			if want := `data-testid="login-error">` + html.EscapeString(tt.wantMessage) + "<"; !strings.Contains(page, want) {
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

func TestLoginRateLimit(t *testing.T) {
	t.Parallel()
	t.Run("per user name", func(t *testing.T) {
		t.Parallel()
		db := pgtest.NewDB(t)
		h := newConsole(t, db)
		password := addUser(t, db, "alice", auth.Operator)
		for i := range loginLimit.Attempts {
			if status, _, _ := attempt(t, h, "alice", "wrong-password", fmt.Sprintf("198.51.100.%d:1000", i+1)); status != http.StatusUnauthorized {
				t.Fatalf("failed attempt %d = %d, want %d", i+1, status, http.StatusUnauthorized)
			}
		}
		// From yet another address, with the right password: refused
		// without looking at it.
		status, res, page := attempt(t, h, "alice", password, "203.0.113.9:1000")
		if status != http.StatusTooManyRequests {
			t.Fatalf("attempt %d = %d, want %d", loginLimit.Attempts+1, status, http.StatusTooManyRequests)
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
		// Another user from the first address is not held back.
		bob := addUser(t, db, "bob", auth.Operator)
		if status, _, _ := attempt(t, h, "bob", bob, "198.51.100.1:1000"); status != http.StatusSeeOther {
			t.Errorf("bob from an address alice's attempts used = %d, want %d", status, http.StatusSeeOther)
		}
	})
	t.Run("per client address", func(t *testing.T) {
		t.Parallel()
		db := pgtest.NewDB(t)
		h := newConsole(t, db)
		password := addUser(t, db, "alice", auth.Operator)
		for i := range loginLimit.Attempts {
			if status, _, _ := attempt(t, h, fmt.Sprintf("user%d", i), "wrong-password", "[2001:db8:1:2::10]:1000"); status != http.StatusUnauthorized {
				t.Fatalf("failed attempt %d = %d, want %d", i+1, status, http.StatusUnauthorized)
			}
		}
		// Another address of the same /64 is the same client.
		if status, _, _ := attempt(t, h, "alice", password, "[2001:db8:1:2::99]:1000"); status != http.StatusTooManyRequests {
			t.Errorf("alice from the /64 that failed %d times = %d, want %d", loginLimit.Attempts, status, http.StatusTooManyRequests)
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
		for i := range 2 * loginLimit.Attempts {
			if status, _, _ := attempt(t, h, "alice", password, "192.0.2.7:1000"); status != http.StatusSeeOther {
				t.Fatalf("success %d = %d, want %d", i+1, status, http.StatusSeeOther)
			}
			if i < loginLimit.Attempts-1 {
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
			req.RemoteAddr = fmt.Sprintf("198.51.100.%d:1000", i+1)
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
	if count[http.StatusUnauthorized] != loginLimit.Attempts || count[http.StatusTooManyRequests] != n-loginLimit.Attempts {
		t.Errorf("%d concurrent failed attempts answered %v, want %d × 401 and the rest 429", n, count, loginLimit.Attempts)
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
	tests := []struct {
		remoteAddr, want string
	}{
		{"192.0.2.1:1234", "192.0.2.1"},
		{"[::ffff:192.0.2.1]:1234", "192.0.2.1"},
		{"[2001:db8:1:2:3:4:5:6]:1234", "2001:db8:1:2::/64"},
		{"[fe80::1%eth0]:1234", "fe80::/64"},
		{"[::1]:1234", "::/64"},
		{"unix", "unix"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = tt.remoteAddr
		if got := clientOf(r); got != tt.want {
			t.Errorf("clientOf(RemoteAddr %q) = %q, want %q", tt.remoteAddr, got, tt.want)
		}
	}
}
