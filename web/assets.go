package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

// servedTypes are the files of static/ that are served, by extension.
var servedTypes = map[string]string{
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
	".wasm": "application/wasm",
}

// previewWasm is the path of the built candidate preview inside static/.
const previewWasm = "wasm/preview.wasm"

// asset is one static file, read once at start and compressed at its
// first request that accepts gzip (GraphiQL's 3.5 MB take a quarter of a
// second, which a server's start need not wait for).
type asset struct {
	contentType string
	raw         []byte
	etag        string
	version     string // a short content hash, for cache-busting URLs

	compress sync.Once
	gz       []byte // nil when compressing does not make it smaller
}

// gzipped returns the file compressed, or nil when that is no smaller.
func (f *asset) gzipped() []byte {
	f.compress.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(f.raw)
		zw.Close()
		if buf.Len() < len(f.raw) {
			f.gz = buf.Bytes()
		}
	})
	return f.gz
}

// Assets serves the files of static/ from memory, gzip-compressed when the
// client accepts it. A URL carrying the file's current version (?v=…) is
// cached for a year; any other URL is revalidated by ETag.
type Assets struct {
	files map[string]*asset
}

// NewAssets reads every served file of fsys.
func NewAssets(fsys fs.FS) (*Assets, error) {
	a := &Assets{files: map[string]*asset{}}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ctype, ok := servedTypes[path.Ext(name)]
		if !ok {
			return nil
		}
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(raw)
		a.files[name] = &asset{contentType: ctype, raw: raw, etag: `"` + hex.EncodeToString(sum[:16]) + `"`, version: hex.EncodeToString(sum[:6])}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web: unable to read the static files: %w", err)
	}
	return a, nil
}

// Has reports whether name (a path inside static/) is served.
func (a *Assets) Has(name string) bool {
	_, ok := a.files[name]
	return ok
}

// URL returns the versioned URL of name, a path inside static/.
func (a *Assets) URL(name string) string {
	f, ok := a.files[name]
	if !ok {
		return "/static/" + name
	}
	return "/static/" + name + "?v=" + f.version
}

// ServeHTTP serves GET /static/{path...}.
func (a *Assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("path")
	f, ok := a.files[name]
	if !ok {
		if name == previewWasm {
			http.Error(w, "The candidate preview is not built: run make wasm, then restart ipam serve.", http.StatusNotFound)
			return
		}
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("ETag", f.etag)
	h.Set("Vary", "Accept-Encoding")
	if r.URL.Query().Get("v") == f.version {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	if etagMatches(r.Header.Get("If-None-Match"), f.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := f.raw
	if acceptsGzip(r.Header.Get("Accept-Encoding")) && f.gzipped() != nil {
		h.Set("Content-Encoding", "gzip")
		body = f.gz
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// etagMatches reads an If-None-Match header with the weak comparison RFC 9110
// asks for: W/"x" matches "x", as proxies that compress weaken the ETag.
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		if t = strings.TrimPrefix(strings.TrimSpace(t), "W/"); t == etag || t == "*" {
			return true
		}
	}
	return false
}

// acceptsGzip reads an Accept-Encoding header: gzip is accepted when listed
// with a weight above zero.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		weight := 1.0
		if q, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if v, err := strconv.ParseFloat(q, 64); err == nil {
				weight = v
			}
		}
		return weight > 0
	}
	return false
}
