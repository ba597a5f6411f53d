package pgtest

import (
	"net/url"
	"os"
	"testing"

	"pivirt.hu/ipam/internal/pgbouncer"
	"pivirt.hu/ipam/internal/store"
)

// NewPgBouncer starts Debian's PgBouncer in transaction mode in front of
// the server of dbURL (a URL from NewURL) and returns the URL of dbURL's
// database through it. It stops when the test ends.
func NewPgBouncer(t testing.TB, dbURL string) string {
	t.Helper()
	cfg, err := store.ParseURL(server.baseURL)
	if err != nil {
		t.Fatalf("pgtest: unable to read the server's URL: %v", err)
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatalf("pgtest: unable to read %s", store.RedactURL(dbURL))
	}
	// Not t.TempDir(): PgBouncer runs as the postgres user, who must reach
	// its folder, as the cluster's.
	dir, err := os.MkdirTemp(clusterParentDir(), "ipam-pgbouncer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	b, err := pgbouncer.Start(t.Context(), pgbouncer.Options{
		Dir: dir, Host: cfg.Host, Port: int(cfg.Port), User: cfg.User, Password: cfg.Password,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Stop(); err != nil {
			t.Error(err)
		}
	})
	return b.URL(u.Path[1:])
}
