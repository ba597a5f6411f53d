package ipam

import (
	"context"
	"os"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runChild())
	}
	pgtest.Main(m)
}

var (
	operator = auth.Actor{Name: "op", Role: auth.Operator}
	acme     = auth.Actor{Name: "acme", Role: auth.Tenant, Namespaces: []string{"acme/*"}}
)

// newService returns a service on a fresh database, and its URL.
func newService(t testing.TB) (*Service, *store.DB, string) {
	t.Helper()
	url := pgtest.NewURL(t)
	svc, db := openService(t, url)
	return svc, db, url
}

// openService opens another service (as another process would) on url.
func openService(t testing.TB, url string) (*Service, *store.DB) {
	t.Helper()
	return openServiceVia(t, url, url)
}

// openServiceVia opens a service whose statements go to statementsURL and
// which follows notifications on url.
func openServiceVia(t testing.TB, statementsURL, url string) (*Service, *store.DB) {
	t.Helper()
	return openServiceWith(t, store.Open, statementsURL, url)
}

// openServiceWith is openServiceVia with the database opened by open
// (store.Open, or store.OpenPooled through a connection pooler).
func openServiceWith(t testing.TB, open func(context.Context, string) (*store.DB, error), statementsURL, url string) (*Service, *store.DB) {
	t.Helper()
	return openServiceConfig(t, open, statementsURL, Config{URL: url})
}

// openServiceConfig is openServiceWith with the rest of the service's
// configuration in cfg.
func openServiceConfig(t testing.TB, open func(context.Context, string) (*store.DB, error), statementsURL string, cfg Config) (*Service, *store.DB) {
	t.Helper()
	ctx := context.Background()
	db, err := open(ctx, statementsURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DB = db
	svc, err := New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		svc.Close()
		db.Close()
	})
	return svc, db
}
