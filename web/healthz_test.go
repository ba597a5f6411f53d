package web

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq"

	"pivirt.hu/ipam/internal/pgtest"
)

// healthzBudget bounds every /healthz request: the handler gives the
// database 2 s, so a load balancer must never wait much longer.
const healthzBudget = 5 * time.Second

type healthzBody struct {
	Status        string `json:"status"`
	Database      string `json:"database"`
	SchemaVersion *int   `json:"schemaVersion"`
}

// silentDB returns a pool to a server that accepts connections and never
// answers, like a database behind a dead link.
func silentDB(t testing.TB) *sqlx.DB {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, conn)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-accepted
		for _, conn := range conns {
			conn.Close()
		}
	})
	db, err := sqlx.Open("postgres", "postgres://nobody@"+ln.Addr().String()+"/none?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestHealthz(t *testing.T) {
	t.Parallel()
	latest := latestMigration(t)
	tests := []struct {
		name       string
		db         func(t testing.TB) *sqlx.DB
		wantStatus int
		wantBody   string
		wantSchema bool
	}{
		{"database answers", pgtest.NewDB, http.StatusOK, "ok", true},
		{"database closed", func(t testing.TB) *sqlx.DB {
			db := pgtest.NewDB(t)
			db.Close()
			return db
		}, http.StatusServiceUnavailable, "unavailable", false},
		{"database silent", silentDB, http.StatusServiceUnavailable, "unavailable", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, err := New(Config{DB: tt.db(t), IPAM: testIPAM(t, nil), Logger: quietLogger})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			client := &http.Client{Timeout: healthzBudget}

			res, err := client.Get(srv.URL + "/healthz")
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
			var body healthzBody
			if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
				t.Fatalf("GET /healthz body: %v", err)
			}
			if body.Status != tt.wantBody {
				t.Errorf("GET /healthz status = %q, want %q", body.Status, tt.wantBody)
			}
			if tt.wantSchema {
				if body.SchemaVersion == nil || *body.SchemaVersion != latest {
					t.Errorf("GET /healthz schemaVersion = %v, want %d", body.SchemaVersion, latest)
				}
				if body.Database != "ok" {
					t.Errorf("GET /healthz database = %q, want ok", body.Database)
				}
				return
			}
			if body.SchemaVersion != nil {
				t.Errorf("GET /healthz schemaVersion = %d, want none", *body.SchemaVersion)
			}
			if body.Database == "" || body.Database == "ok" {
				t.Errorf("GET /healthz database = %q, want the database error", body.Database)
			}
		})
	}
}
