package web

import (
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/static"
)

// scripts returns the page's scripts whose src starts with prefix.
func (p htmlPage) scripts(prefix string) []*html.Node {
	return p.elements(func(n *html.Node) bool { return n.Data == "script" && strings.HasPrefix(attrOf(n, "src"), prefix) })
}

func TestHomePage(t *testing.T) {
	t.Parallel()
	requirePreview(t)
	h, session := signedIn(t)
	res := do(t, h, http.MethodGet, "/", session)
	body := string(readBody(t, res))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET / = %d, want %d", res.StatusCode, http.StatusOK)
	}
	if got := res.Header.Get("Content-Type"); !strings.HasPrefix(got, "text/html") {
		t.Errorf("GET / Content-Type = %q, want text/html", got)
	}
	page := parseHTML(body)
	if got := page.text("database-status"); got != "ok" {
		t.Errorf("GET / says the database is %q, want ok:\n%s", got, body)
	}
	assets := realAssets(t)

	tags := page.scripts("/static/js/htmx.min.js")
	if len(tags) != 1 {
		t.Fatalf("GET / has %d htmx <script>s, want 1:\n%s", len(tags), body)
	}
	if got, want := attrOf(tags[0], "src"), assets.URL("js/htmx.min.js"); got != want {
		t.Errorf("htmx <script> src = %q, want %q", got, want)
	}
	if got, ok := nodeAttr(tags[0], "integrity"); !ok || got != static.HTMXIntegrity {
		t.Errorf("htmx <script> integrity = %q (%v), want %q", got, ok, static.HTMXIntegrity)
	}

	if !page.has("dashboard") || page.has("preview-form") {
		t.Errorf("GET / shows the dashboard %v and the preview %v, want the dashboard alone", page.has("dashboard"), page.has("preview-form"))
	}

	// The preview lives on in the new-pool form.
	res = do(t, h, http.MethodGet, "/pools/new", session)
	body = string(readBody(t, res))
	page = parseHTML(body)
	previews := page.elements(func(n *html.Node) bool { _, ok := nodeAttr(n, "data-wasm"); return ok })
	if len(previews) == 0 {
		t.Fatalf("GET /pools/new has no data-wasm attribute:\n%s", body)
	}
	wasmURL := attrOf(previews[0], "data-wasm")
	if want := assets.URL(previewWasm); wasmURL != want {
		t.Errorf("data-wasm = %q, want %q", wasmURL, want)
	}
	if got := page.text("preview-error"); got != "" {
		t.Errorf("GET /pools/new says %q although the preview is built", got)
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
			s, err := newServer(Config{Auth: auth.NewService(db), IPAM: testIPAM(t, db), Numbers: testNumbers(t, db), Logger: quietLogger})
			if err != nil {
				t.Fatal(err)
			}
			res := do(t, s.middleware(asActor(operator, s.home)), http.MethodGet, "/", nil)
			page := parseHTML(string(readBody(t, res)))
			if res.StatusCode != http.StatusOK {
				t.Fatalf("GET / = %d, want %d", res.StatusCode, http.StatusOK)
			}
			if got := page.text("database-status"); got != "unavailable" {
				t.Errorf("GET / says the database is %q, want unavailable", got)
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

func TestPoolFormWithoutPreview(t *testing.T) {
	t.Parallel()
	assets, err := NewAssets(testFiles)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{ipam: testIPAM(t, nil), log: quietLogger, assets: assets}
	res := do(t, s.middleware(asActor(auth.Actor{Name: "alice", Role: auth.Operator}, s.poolNew)), http.MethodGet, "/pools/new", nil)
	page := parseHTML(string(readBody(t, res)))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /pools/new = %d, want %d", res.StatusCode, http.StatusOK)
	}
	if got, want := page.text("preview-error"), "The preview is not built: run make wasm."; got != want {
		t.Errorf("GET /pools/new without the preview says %q, want %q", got, want)
	}
	if page.mentions("wasm_exec.js") {
		t.Errorf("GET /pools/new without the preview still loads wasm_exec.js")
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
		{"/", "Dashboard", false},
		{"/pools", "Pools", true},
		{"/pools/public-1", "Page not found", true},
		{"/poolside", "Page not found", false},
		{"/vpcs/acme/prod", "Page not found", false},
	}
	for _, tt := range tests {
		res := do(t, h, http.MethodGet, tt.target, session)
		page := parseHTML(string(readBody(t, res)))
		if got := page.title(); got != tt.title+" · PiVirt IPAM" {
			t.Errorf("GET %s has the title %q, want %q", tt.target, got, tt.title+" · PiVirt IPAM")
		}
		if titles := page.all("page-title"); len(titles) != 1 || titles[0].Data != "h1" || textOf(titles[0]) != tt.title {
			t.Errorf("GET %s has no heading %q", tt.target, tt.title)
		}
		if !page.has("nav") || page.text("user-name") != "acme-ops" || page.text("user-role") != "tenant" {
			t.Errorf("GET %s has navigation %v for %q (%q), want acme-ops, a tenant", tt.target, page.has("nav"), page.text("user-name"), page.text("user-role"))
		}
		signOut := page.all("sign-out")
		if len(signOut) != 1 || signOut[0].Data != "button" || attrOf(signOut[0], "type") != "submit" || signOut[0].Parent.Data != "form" ||
			attrOf(signOut[0].Parent, "method") != "post" || attrOf(signOut[0].Parent, "action") != "/logout" {
			t.Errorf("GET %s has no sign-out form posting to /logout", tt.target)
		}
		nav := page.in("nav")
		pools, vpcs := nav.linksTo("/pools", true), nav.linksTo("/vpcs", true)
		if pools != tt.wantPools || vpcs != strings.HasPrefix(tt.target, "/vpcs/") {
			t.Errorf("GET %s marks Pools %v and VPCs %v as current", tt.target, pools, vpcs)
		}
		if got := res.Header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("GET %s Cache-Control = %q, want no-store", tt.target, got)
		}
	}
}
