package web

import (
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// healthzBudget bounds every /healthz request: the handler gives the
// database 2 s, so a load balancer must never wait much longer.
const healthzBudget = 5 * time.Second

type healthzBody struct {
	Status        string `json:"status"`
	Database      string `json:"database"`
	Version       string `json:"version"`
	SchemaVersion *int   `json:"schemaVersion"`
}

// silentDB returns a database that stops answering once opened: a proxy
// holds back every statement, as a server behind a dead link answers none.
func silentDB(t testing.TB) *store.DB {
	t.Helper()
	proxy, url := pgtest.NewProxy(t, pgtest.NewURL(t))
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	proxy.Stall()
	return db
}

// healthzFailed is the log message of a failed health check.
const healthzFailed = "health check: the database is unavailable"

func TestHealthz(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		db         func(t testing.TB) *store.DB
		wantStatus int
		wantBody   string
	}{
		{"database answers", pgtest.NewDB, http.StatusOK, "ok"},
		{"database closed", func(t testing.TB) *store.DB {
			db := pgtest.NewDB(t)
			db.Close()
			return db
		}, http.StatusServiceUnavailable, "unavailable"},
		{"database silent", silentDB, http.StatusServiceUnavailable, "unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var log logBuffer
			db := tt.db(t)
			h, err := New(Config{Auth: auth.NewService(db), IPAM: testIPAM(t, db), Numbers: testNumbers(t, db), Logger: slog.New(slog.NewJSONHandler(&log, nil))})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			client := &http.Client{Timeout: healthzBudget}

			// A session cookie that cannot be checked, as the database
			// does not answer, counts as none.
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/healthz", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Cookie", sessionCookie+"=unknown")
			res, err := client.Do(req)
			if err != nil {
				t.Fatalf("GET /healthz: %v", err)
			}
			defer res.Body.Close()
			if res.StatusCode != tt.wantStatus {
				t.Errorf("GET /healthz = %d, want %d", res.StatusCode, tt.wantStatus)
			}
			if got := res.Header.Get("Content-Type"); got != "application/json" {
				t.Errorf("GET /healthz Content-Type = %q, want application/json", got)
			}
			if got := res.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("GET /healthz Cache-Control = %q, want no-store", got)
			}
			// Anyone gets the status and nothing else: the database's error
			// names hosts and ports.
			var body map[string]any
			if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
				t.Fatalf("GET /healthz body: %v", err)
			}
			if want := map[string]any{"status": tt.wantBody}; !maps.Equal(body, want) {
				t.Errorf("GET /healthz anonymously = %v, want %v", body, want)
			}
			if tt.wantStatus != http.StatusOK && len(log.records(t, healthzFailed)) == 0 {
				t.Errorf("GET /healthz logged no %q", healthzFailed)
			}
		})
	}
}

// TestHealthzDetailForOperators checks that operators, by session or
// token, read why the database failed, and that no one else does.
func TestHealthzDetailForOperators(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	var log logBuffer
	h, err := New(Config{Auth: auth.NewService(db), IPAM: testIPAM(t, db), Numbers: testNumbers(t, db), Logger: slog.New(slog.NewJSONHandler(&log, nil)), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	operator := cookieHeader(signIn(t, h, "root", addUser(t, db, "root", auth.Operator)))
	tenant := cookieHeader(signIn(t, h, "acme", addUser(t, db, "acme", auth.Tenant, "acme/*")))
	token, err := auth.NewService(db).CreateToken(t.Context(), auth.System, "root")
	if err != nil {
		t.Fatal(err)
	}
	bearer := http.Header{"Authorization": {"Bearer " + token}}
	get := func(header http.Header) (int, healthzBody, map[string]any) {
		t.Helper()
		res := do(t, h, http.MethodGet, "/healthz", header)
		raw := readBody(t, res)
		var body healthzBody
		var fields map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatalf("GET /healthz body %s: %v", raw, err)
		}
		if err := json.Unmarshal(raw, &fields); err != nil {
			t.Fatal(err)
		}
		if c := sessionCookieOf(res); c != nil {
			t.Errorf("GET /healthz set the session cookie %v", c)
		}
		return res.StatusCode, body, fields
	}

	latest := latestMigration(t)
	for name, header := range map[string]http.Header{"operator session": operator, "operator token": bearer} {
		status, body, _ := get(header)
		if status != http.StatusOK || body.Status != "ok" || body.Database != "ok" || body.Version != "test" ||
			body.SchemaVersion == nil || *body.SchemaVersion != latest {
			t.Errorf("GET /healthz with an %s = %d %+v, want 200 with database ok, version test and schema version %d", name, status, body, latest)
		}
	}
	for name, header := range map[string]http.Header{"anonymous": nil, "tenant session": tenant,
		"unknown token": {"Authorization": {"Bearer pvt_" + strings.Repeat("A", 43)}}} {
		if status, _, fields := get(header); status != http.StatusOK || !maps.Equal(fields, map[string]any{"status": "ok"}) {
			t.Errorf("GET /healthz, %s = %d %v, want 200 with the status only", name, status, fields)
		}
	}

	// The schema version cannot be read, while users and sessions can.
	db.MustExec(`ALTER TABLE schema_migrations RENAME TO schema_migrations_kept`)
	db.MustExec(`CREATE VIEW schema_migrations AS SELECT 1 / 0 AS version`)
	const cause = "division by zero"
	for name, header := range map[string]http.Header{"operator session": operator, "operator token": bearer} {
		status, body, _ := get(header)
		if status != http.StatusServiceUnavailable || body.Status != "unavailable" || !strings.Contains(body.Database, cause) || body.SchemaVersion != nil {
			t.Errorf("GET /healthz with an %s = %d %+v, want 503 with the database's error", name, status, body)
		}
	}
	for name, header := range map[string]http.Header{"anonymous": nil, "tenant session": tenant} {
		status, _, fields := get(header)
		if status != http.StatusServiceUnavailable || !maps.Equal(fields, map[string]any{"status": "unavailable"}) {
			t.Errorf("GET /healthz, %s = %d %v, want 503 with the status only", name, status, fields)
		}
	}
	records := log.records(t, healthzFailed)
	if len(records) == 0 {
		t.Fatalf("the log has no %q", healthzFailed)
	}
	for _, r := range records {
		if err, _ := r["err"].(string); !strings.Contains(err, cause) {
			t.Errorf("the log says %v, want why the database failed", r)
		}
	}
}
