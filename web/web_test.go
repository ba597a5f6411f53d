package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/graphql"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/static"
)

func TestMain(m *testing.M) {
	pgtest.Main(m)
}

// quietLogger drops the request log lines.
var quietLogger = slog.New(slog.DiscardHandler)

// staticAssets are the real static files, read once: compressing the
// preview takes a while.
var staticAssets = sync.OnceValues(func() (*Assets, error) { return NewAssets(static.Files) })

// realAssets returns the Assets of static.Files, to ask for their URLs.
func realAssets(t *testing.T) *Assets {
	t.Helper()
	assets, err := staticAssets()
	if err != nil {
		t.Fatal(err)
	}
	return assets
}

// newHandler returns the server of web.New, with the real static files, on a
// fresh database.
func newHandler(t *testing.T) http.Handler {
	t.Helper()
	db := pgtest.NewDB(t)
	h, err := New(Config{Auth: auth.NewService(db), IPAM: testIPAM(t, db), Numbers: testNumbers(t, db), Logger: quietLogger, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// testIPAM returns an IPAM service on db (a fresh database when nil), alone
// on it: it follows no other process.
func testIPAM(t *testing.T, db *store.DB) *ipam.Service {
	t.Helper()
	if db == nil {
		db = pgtest.NewDB(t)
	}
	svc, err := ipam.New(t.Context(), ipam.Config{DB: db, Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return svc
}

// testNumbers returns a number service on db, its branches guarded as
// ipam serve's are: what every server needs (Config.Numbers).
func testNumbers(tb testing.TB, db *store.DB) *numbers.Service {
	tb.Helper()
	nums, err := numbers.New(tb.Context(), numbers.Config{DB: db, Logger: quietLogger, Branch: branch.Config{Guard: branch.SchemaGuard(graphql.CheckSchema)}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nums.Close)
	return nums
}

// do serves one request through h and returns the recorded response.
func do(t *testing.T, h http.Handler, method, target string, header http.Header) *http.Response {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), method, target, nil)
	for k, vs := range header {
		req.Header[k] = vs
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

// readBody reads and closes a response body.
func readBody(t *testing.T, res *http.Response) []byte {
	t.Helper()
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// latestMigration is the version of the newest migration file; they are
// numbered from 0001 without gaps.
func latestMigration(t *testing.T) int {
	t.Helper()
	files, err := filepath.Glob("../internal/store/migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no migration files in internal/store/migrations")
	}
	return len(files)
}

// requirePreview fails the test when the WebAssembly preview is not built.
func requirePreview(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("../static/wasm/preview.wasm"); err != nil {
		t.Fatalf("static/wasm/preview.wasm is missing: run make wasm (%v)", err)
	}
}
