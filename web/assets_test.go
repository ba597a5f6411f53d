package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"pivirt.hu/ipam/static"
)

const (
	cacheImmutable = "public, max-age=31536000, immutable"
	cacheRevalid   = "no-cache"
)

func TestAcceptsGzip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		header string
		want   bool
	}{
		{"gzip", true},
		{"br, gzip;q=0.5", true},
		{"gzip, deflate, br, zstd", true},
		{"gzip;q=0", false},
		{"gzip; q=0.0", false},
		{"gzip;q=0.001", true},
		{"identity", false},
		{"", false},
		{"GZIP", true},
		{"x-gzip", false},
		{"deflate, br", false},
	}
	for _, tt := range tests {
		if got := acceptsGzip(tt.header); got != tt.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

// gunzip decompresses a gzip body.
func gunzip(t *testing.T, body []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("the body is not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("the gzip body is corrupt: %v", err)
	}
	return out
}

// assetRequest is one request for a static file and what must come back.
type assetRequest struct {
	name         string
	method       string
	target       string
	header       http.Header
	wantStatus   int
	wantGzip     bool
	wantCache    string
	wantNoBody   bool
	wantFullBody bool
}

// checkAsset serves tt through h and checks the response against raw, the
// file's bytes, and contentType.
func checkAsset(t *testing.T, h http.Handler, tt assetRequest, raw []byte, contentType string) {
	t.Helper()
	res := do(t, h, tt.method, tt.target, tt.header)
	body := readBody(t, res)
	req := tt.method + " " + tt.target
	if res.StatusCode != tt.wantStatus {
		t.Fatalf("%s = %d, want %d", req, res.StatusCode, tt.wantStatus)
	}
	if got := res.Header.Get("Content-Type"); got != contentType {
		t.Errorf("%s Content-Type = %q, want %q", req, got, contentType)
	}
	if got := res.Header.Get("Vary"); got != "Accept-Encoding" {
		t.Errorf("%s Vary = %q, want Accept-Encoding", req, got)
	}
	if got := res.Header.Get("Cache-Control"); got != tt.wantCache {
		t.Errorf("%s Cache-Control = %q, want %q", req, got, tt.wantCache)
	}
	if res.Header.Get("ETag") == "" {
		t.Errorf("%s has no ETag", req)
	}
	gotGzip := res.Header.Get("Content-Encoding") == "gzip"
	if gotGzip != tt.wantGzip {
		t.Errorf("%s Content-Encoding = %q, want gzip: %v", req, res.Header.Get("Content-Encoding"), tt.wantGzip)
	}
	if tt.wantNoBody && len(body) != 0 {
		t.Errorf("%s sent a %d-byte body, want none", req, len(body))
	}
	if !tt.wantFullBody {
		return
	}
	if got, want := res.Header.Get("Content-Length"), strconv.Itoa(len(body)); got != want {
		t.Errorf("%s Content-Length = %s, want %s", req, got, want)
	}
	if gotGzip {
		body = gunzip(t, body)
	}
	if !bytes.Equal(body, raw) {
		t.Errorf("%s sent %d bytes that differ from the %d of the file", req, len(body), len(raw))
	}
}

// assetRequests are the requests every compressible static file must
// answer: the encodings, the cache policy by URL, revalidation and HEAD.
func assetRequests(t *testing.T, h http.Handler, url string, compressed bool) []assetRequest {
	t.Helper()
	path, _, _ := strings.Cut(url, "?")
	etag := do(t, h, http.MethodGet, url, nil).Header.Get("ETag")
	gzipOK := http.Header{"Accept-Encoding": {"gzip, deflate, br"}}
	return []assetRequest{
		{name: "gzip", method: http.MethodGet, target: url, header: gzipOK,
			wantStatus: http.StatusOK, wantGzip: compressed, wantCache: cacheImmutable, wantFullBody: true},
		{name: "identity", method: http.MethodGet, target: url,
			wantStatus: http.StatusOK, wantCache: cacheImmutable, wantFullBody: true},
		{name: "gzip refused", method: http.MethodGet, target: url, header: http.Header{"Accept-Encoding": {"br, gzip;q=0"}},
			wantStatus: http.StatusOK, wantCache: cacheImmutable, wantFullBody: true},
		{name: "unversioned", method: http.MethodGet, target: path, header: gzipOK,
			wantStatus: http.StatusOK, wantGzip: compressed, wantCache: cacheRevalid, wantFullBody: true},
		{name: "stale version", method: http.MethodGet, target: path + "?v=000000000000",
			wantStatus: http.StatusOK, wantCache: cacheRevalid, wantFullBody: true},
		{name: "etag matches", method: http.MethodGet, target: path, header: http.Header{"If-None-Match": {etag}},
			wantStatus: http.StatusNotModified, wantCache: cacheRevalid, wantNoBody: true},
		{name: "weak etag matches", method: http.MethodGet, target: url, header: http.Header{"If-None-Match": {"W/" + etag}},
			wantStatus: http.StatusNotModified, wantCache: cacheImmutable, wantNoBody: true},
		{name: "etag in a list", method: http.MethodGet, target: path, header: http.Header{"If-None-Match": {`"other", ` + etag}},
			wantStatus: http.StatusNotModified, wantCache: cacheRevalid, wantNoBody: true},
		{name: "etag differs", method: http.MethodGet, target: path, header: http.Header{"If-None-Match": {`"other"`}},
			wantStatus: http.StatusOK, wantCache: cacheRevalid, wantFullBody: true},
		{name: "head", method: http.MethodHead, target: url,
			wantStatus: http.StatusOK, wantCache: cacheImmutable, wantNoBody: true},
		{name: "head gzip", method: http.MethodHead, target: url, header: gzipOK,
			wantStatus: http.StatusOK, wantGzip: compressed, wantCache: cacheImmutable, wantNoBody: true},
	}
}

func TestPreviewWasm(t *testing.T) {
	t.Parallel()
	requirePreview(t)
	raw, err := fs.ReadFile(static.Files, previewWasm)
	if err != nil {
		t.Fatalf("static.Files lacks %s: run make wasm, then rebuild: %v", previewWasm, err)
	}
	assets := realAssets(t)
	url := assets.URL(previewWasm)
	if !strings.HasPrefix(url, "/static/"+previewWasm+"?v=") {
		t.Fatalf("URL(%q) = %q, want a versioned URL", previewWasm, url)
	}
	h := newHandler(t)
	for _, tt := range assetRequests(t, h, url, true) {
		t.Run(tt.name, func(t *testing.T) {
			checkAsset(t, h, tt, raw, "application/wasm")
		})
	}
	head := do(t, h, http.MethodHead, url, nil)
	if got, want := head.Header.Get("Content-Length"), strconv.Itoa(len(raw)); got != want {
		t.Errorf("HEAD %s Content-Length = %s, want %s", url, got, want)
	}
}

func TestHTMX(t *testing.T) {
	t.Parallel()
	const name = "js/htmx.min.js"
	raw, err := fs.ReadFile(static.Files, name)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum384(raw)
	if got := "sha384-" + base64.StdEncoding.EncodeToString(sum[:]); got != static.HTMXIntegrity {
		t.Fatalf("%s hashes to %s but static.HTMXIntegrity is %q", name, got, static.HTMXIntegrity)
	}
	assets := realAssets(t)
	h := newHandler(t)
	for _, tt := range assetRequests(t, h, assets.URL(name), true) {
		t.Run(tt.name, func(t *testing.T) {
			checkAsset(t, h, tt, raw, "text/javascript; charset=utf-8")
		})
	}
}

func TestStaticNotFound(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	for _, target := range []string{
		"/static/nope.js",
		"/static/js/VENDORED.md",
		"/static/js/htmx.min.js.sha384",
		"/static/js/",
		"/static/css",
		"/static/js/htmx.min.js/x",
		"/static/embed.go",
	} {
		if res := do(t, h, http.MethodGet, target, nil); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d, want %d", target, res.StatusCode, http.StatusNotFound)
		}
	}
}

// testFiles stand in for static/: a compressible script, a stylesheet too
// small to gain from gzip, a file of an unserved type, and no preview.
var testFiles = fstest.MapFS{
	"js/app.js":   {Data: bytes.Repeat([]byte("console.log('PiVirt IPAM');\n"), 200)},
	"css/a.css":   {Data: []byte("a{}")},
	"notes.txt":   {Data: []byte("not served")},
	"wasm/x.wasm": {Data: []byte("\x00asm\x01\x00\x00\x00")},
}

// testServer is a Server on testFiles; db is nil, so only static files work.
func testServer(t *testing.T) (*Assets, http.Handler) {
	t.Helper()
	assets, err := NewAssets(testFiles)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{log: quietLogger, assets: assets}
	return assets, s.middleware(s.routes())
}

func TestAssetsFromMapFS(t *testing.T) {
	t.Parallel()
	assets, h := testServer(t)
	tests := []struct {
		name        string
		contentType string
		compressed  bool
	}{
		{"js/app.js", "text/javascript; charset=utf-8", true},
		{"css/a.css", "text/css; charset=utf-8", false},
		{"wasm/x.wasm", "application/wasm", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !assets.Has(tt.name) {
				t.Fatalf("Has(%q) = false, want true", tt.name)
			}
			for _, req := range assetRequests(t, h, assets.URL(tt.name), tt.compressed) {
				t.Run(req.name, func(t *testing.T) {
					checkAsset(t, h, req, testFiles[tt.name].Data, tt.contentType)
				})
			}
		})
	}
}

func TestAssetsVersionFollowsContent(t *testing.T) {
	t.Parallel()
	changed := fstest.MapFS{"js/app.js": {Data: []byte("console.log('changed');")}}
	before, err := NewAssets(testFiles)
	if err != nil {
		t.Fatal(err)
	}
	after, err := NewAssets(changed)
	if err != nil {
		t.Fatal(err)
	}
	if before.URL("js/app.js") == after.URL("js/app.js") {
		t.Errorf("URL(js/app.js) = %q for two different contents", before.URL("js/app.js"))
	}
	again, err := NewAssets(testFiles)
	if err != nil {
		t.Fatal(err)
	}
	if before.URL("js/app.js") != again.URL("js/app.js") {
		t.Errorf("URL(js/app.js) = %q then %q for the same content", before.URL("js/app.js"), again.URL("js/app.js"))
	}
}

func TestAssetsMissing(t *testing.T) {
	t.Parallel()
	assets, h := testServer(t)
	tests := []struct {
		name     string
		wantBody string
	}{
		{"notes.txt", ""},
		{"nope.js", ""},
		{previewWasm, "run make wasm"},
	}
	for _, tt := range tests {
		if assets.Has(tt.name) {
			t.Errorf("Has(%q) = true, want false", tt.name)
		}
		if got, want := assets.URL(tt.name), "/static/"+tt.name; got != want {
			t.Errorf("URL(%q) = %q, want %q", tt.name, got, want)
		}
		res := do(t, h, http.MethodGet, "/static/"+tt.name, nil)
		body := readBody(t, res)
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("GET /static/%s = %d, want %d", tt.name, res.StatusCode, http.StatusNotFound)
		}
		if !strings.Contains(string(body), tt.wantBody) {
			t.Errorf("GET /static/%s body = %q, want it to contain %q", tt.name, body, tt.wantBody)
		}
	}
}
