package web

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"pivirt.hu/ipam/internal/pgtest"
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
	h := newHandler(t)
	res := do(t, h, http.MethodGet, "/", nil)
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
		db   func(t testing.TB) *sqlx.DB
	}{
		{"database closed", func(t testing.TB) *sqlx.DB {
			db := pgtest.NewDB(t)
			db.Close()
			return db
		}},
		{"database silent", silentDB},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, err := New(Config{DB: tt.db(t), Logger: quietLogger})
			if err != nil {
				t.Fatal(err)
			}
			res := do(t, h, http.MethodGet, "/", nil)
			page := string(readBody(t, res))
			if res.StatusCode != http.StatusOK {
				t.Fatalf("GET / = %d, want %d", res.StatusCode, http.StatusOK)
			}
			if want := `data-testid="database-status">unavailable</span>`; !strings.Contains(page, want) {
				t.Errorf("GET / lacks %s:\n%s", want, page)
			}
		})
	}
}

func TestHomePageWithoutPreview(t *testing.T) {
	t.Parallel()
	assets, err := NewAssets(testFiles)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{db: pgtest.NewDB(t), log: quietLogger, assets: assets}
	res := do(t, s.middleware(s.routes()), http.MethodGet, "/", nil)
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

func TestUnknownPaths(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	for _, target := range []string{"/nope", "/index.html", "/healthz/x"} {
		res := do(t, h, http.MethodGet, target, nil)
		readBody(t, res)
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d, want %d", target, res.StatusCode, http.StatusNotFound)
		}
	}
}
