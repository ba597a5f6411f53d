package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/metrics"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// TestMetricsForOperators: GET /metrics answers an operator's bearer token
// with the metrics, a tenant's with 403 (they name every tenant's pools)
// and no token with 401 saying what to send.
func TestMetricsForOperators(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.NewDB(t)
	m := metrics.New()
	svc, err := ipam.New(ctx, ipam.Config{DB: db, Logger: quietLogger, Observer: m})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	m.Watch(svc, db.DB.DB)
	users := auth.NewService(db)
	h, err := New(Config{Auth: users, IPAM: svc, Numbers: testNumbers(t, db), Logger: quietLogger, Version: "test", Metrics: m.Handler()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreatePublicPool(ctx, auth.System, ipam.CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	hash, err := tenancyHash()
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[string]string{}
	for _, u := range []struct{ name, role string }{{"ops", "operator"}, {"acme", "tenant"}} {
		row := store.UserRow{Name: u.name, Role: u.role, PasswordHash: hash}
		if u.role == "tenant" {
			row.Namespaces = []string{"acme/*"}
		}
		if _, err := store.CreateUser(ctx, db, "system", row); err != nil {
			t.Fatal(err)
		}
		if tokens[u.name], err = users.CreateToken(ctx, auth.System, u.name); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name     string
		header   http.Header
		status   int
		contains string
	}{
		{"no token", nil, http.StatusUnauthorized, "sign in, or send Authorization: Bearer <token> (ipam token create NAME makes one)"},
		{"a tenant's token", http.Header{"Authorization": {"Bearer " + tokens["acme"]}}, http.StatusForbidden, "only operators read the metrics: they name every tenant's pools"},
		{"an operator's token", http.Header{"Authorization": {"Bearer " + tokens["ops"]}}, http.StatusOK, `ipam_pool_size{kind="public",namespace="",pool="public-zone-a",subnet=""} 254`},
	} {
		res := do(t, h, http.MethodGet, "/metrics", tt.header)
		body := string(readBody(t, res))
		if res.StatusCode != tt.status || !strings.Contains(body, tt.contains) {
			t.Errorf("%s: %d %q, want %d with %q", tt.name, res.StatusCode, body, tt.status, tt.contains)
		}
	}
}
