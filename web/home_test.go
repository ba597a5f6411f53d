package web

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/static"
)

var (
	htmxScript = regexp.MustCompile(`<script[^>]*\bsrc="(/static/js/htmx\.min\.js[^"]*)"[^>]*>`)
	integrity  = regexp.MustCompile(`\bintegrity="([^"]*)"`)
	dataWasm   = regexp.MustCompile(`\bdata-wasm="([^"]*)"`)
)

func TestHomePage(t *testing.T) {
	t.Parallel()
	requirePreview(t)
	h, session := signedIn(t)
	res := do(t, h, http.MethodGet, "/", session)
	page := string(readBody(t, res))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET / = %d, want %d", res.StatusCode, http.StatusOK)
	}
	if got := res.Header.Get("Content-Type"); !strings.HasPrefix(got, "text/html") {
		t.Errorf("GET / Content-Type = %q, want text/html", got)
	}
	if want := `data-testid="database-status">ok</span>`; !strings.Contains(page, want) {
		t.Errorf("GET / lacks %s:\n%s", want, page)
	}
	assets := realAssets(t)

	tag := htmxScript.FindStringSubmatch(page)
	if tag == nil {
		t.Fatalf("GET / has no htmx <script>:\n%s", page)
	}
	if got, want := html.UnescapeString(tag[1]), assets.URL("js/htmx.min.js"); got != want {
		t.Errorf("htmx <script> src = %q, want %q", got, want)
	}
	m := integrity.FindStringSubmatch(tag[0])
	if m == nil {
		t.Fatalf("htmx <script> has no integrity attribute: %s", tag[0])
	}
	if got := html.UnescapeString(m[1]); got != static.HTMXIntegrity {
		t.Errorf("htmx <script> integrity = %q, want %q", got, static.HTMXIntegrity)
	}

	m = dataWasm.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("GET / has no data-wasm attribute:\n%s", page)
	}
	wasmURL := html.UnescapeString(m[1])
	if want := assets.URL(previewWasm); wasmURL != want {
		t.Errorf("data-wasm = %q, want %q", wasmURL, want)
	}
	if strings.Contains(page, "The preview is not built") {
		t.Errorf("GET / says the preview is not built although it is")
	}
	wasm := do(t, h, http.MethodGet, wasmURL, nil)
	readBody(t, wasm)
	if wasm.StatusCode != http.StatusOK || wasm.Header.Get("Cache-Control") != cacheImmutable {
		t.Errorf("GET %s = %d with Cache-Control %q, want %d with %q", wasmURL, wasm.StatusCode, wasm.Header.Get("Cache-Control"), http.StatusOK, cacheImmutable)
	}
}

func TestHomePageDatabaseDown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		db   func(t testing.TB) *store.DB
	}{
		{"database closed", func(t testing.TB) *store.DB {
			db := pgtest.NewDB(t)
			db.Close()
			return db
		}},
		{"database silent", silentDB},
	}
	operator := auth.Actor{Name: "alice", Role: auth.Operator}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := tt.db(t)
			s, err := newServer(Config{Auth: auth.NewService(db), IPAM: testIPAM(t, db), Logger: quietLogger})
			if err != nil {
				t.Fatal(err)
			}
			res := do(t, s.middleware(asActor(operator, s.home)), http.MethodGet, "/", nil)
			page := string(readBody(t, res))
			if res.StatusCode != http.StatusOK {
				t.Fatalf("GET / = %d, want %d", res.StatusCode, http.StatusOK)
			}
			if want := `data-testid="database-status">unavailable</span>`; !strings.Contains(page, want) {
				t.Errorf("GET / lacks %s:\n%s", want, page)
			}
			// The sign-in form needs no database until it is posted.
			h := s.middleware(s.routes())
			for target, want := range map[string]int{"/": http.StatusSeeOther, "/login": http.StatusOK} {
				res := do(t, h, http.MethodGet, target, nil)
				readBody(t, res)
				if res.StatusCode != want {
					t.Errorf("anonymous GET %s = %d, want %d", target, res.StatusCode, want)
				}
			}
		})
	}
}

func TestHomePageSessionDatabaseClosed(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	h := newConsole(t, db)
	session := cookieHeader(signIn(t, h, "alice", addUser(t, db, "alice", auth.Operator)))
	db.Close()
	checkServerErrorPage(t, do(t, h, http.MethodGet, "/", session))
}

func TestHomePageWithoutPreview(t *testing.T) {
	t.Parallel()
	assets, err := NewAssets(testFiles)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{ipam: testIPAM(t, nil), log: quietLogger, assets: assets}
	res := do(t, s.middleware(asActor(auth.Actor{Name: "alice", Role: auth.Operator}, s.home)), http.MethodGet, "/", nil)
	page := string(readBody(t, res))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET / = %d, want %d", res.StatusCode, http.StatusOK)
	}
	if want := "The preview is not built: run make wasm."; !strings.Contains(page, want) {
		t.Errorf("GET / without the preview lacks %q:\n%s", want, page)
	}
	if strings.Contains(page, "wasm_exec.js") {
		t.Errorf("GET / without the preview still loads wasm_exec.js")
	}
}

func TestShell(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	h := newConsole(t, db)
	session := cookieHeader(signIn(t, h, "acme-ops", addUser(t, db, "acme-ops", auth.Tenant, "acme/*")))
	tests := []struct {
		target    string
		title     string
		wantPools bool // Pools marked as the current section
	}{
		{"/", "Status", false},
		{"/pools", "Pools", true},
		{"/pools/public-1", "Page not found", true},
		{"/poolside", "Page not found", false},
		{"/vpcs/acme/prod", "Page not found", false},
	}
	for _, tt := range tests {
		res := do(t, h, http.MethodGet, tt.target, session)
		page := string(readBody(t, res))
		for _, want := range []string{
			"<title>" + tt.title + " · PiVirt IPAM</title>",
			`<h1 data-testid="page-title">` + tt.title + "</h1>",
			`data-testid="nav"`,
			`data-testid="user-name">acme-ops</span>`,
			`data-testid="user-role">tenant</span>`,
			`data-testid="sign-out"`,
		} {
			if !strings.Contains(page, want) {
				t.Errorf("GET %s lacks %s:\n%s", tt.target, want, page)
			}
		}
		if !regexp.MustCompile(`<form method="post" action="/logout"><button type="submit" data-testid="sign-out">`).MatchString(page) {
			t.Errorf("GET %s has no sign-out form posting to /logout", tt.target)
		}
		pools := strings.Contains(page, `<a href="/pools" aria-current="page">Pools</a>`)
		vpcs := strings.Contains(page, `<a href="/vpcs" aria-current="page">VPCs</a>`)
		if pools != tt.wantPools || vpcs != strings.HasPrefix(tt.target, "/vpcs/") {
			t.Errorf("GET %s marks Pools %v and VPCs %v as current", tt.target, pools, vpcs)
		}
		if got := res.Header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("GET %s Cache-Control = %q, want no-store", tt.target, got)
		}
	}
}
