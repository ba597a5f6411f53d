package store_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// TestOwnerLocks: one process owns a pool at a time, its route recorded
// with the lock; the ownership ends when it gives the pool up or its
// connection ends, and a process whose connection ended without giving
// its route up is taken over only a lease after another process found the
// lock free; a pool that is gone cannot be owned.
func TestOwnerLocks(t *testing.T) {
	url := pgtest.NewURL(t)
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pool := privatePool(t, db)
	const lease = 300 * time.Millisecond
	open := func() *store.OwnerLocks {
		l, err := store.OpenOwnerLocks(t.Context(), url, lease)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	a, b := open(), open()
	ra := store.Route{Address: "127.0.0.1:7001", Host: "h", Process: "a"}
	rb := store.Route{Address: "127.0.0.1:7002", Host: "h", Process: "b"}

	got, gen, err := a.TryOwn(t.Context(), pool, ra)
	if !got || err != nil || !a.Holds(gen) {
		t.Fatalf("a.TryOwn = %v, %v (held %v); want the pool", got, err, a.Holds(gen))
	}
	if got, _, err := b.TryOwn(t.Context(), pool, rb); got || err != nil {
		t.Fatalf("b.TryOwn while a owns the pool = %v, %v; want false", got, err)
	}
	if r, err := store.RouteOf(t.Context(), db, pool); r.Address != ra.Address || r.Process != ra.Process || err != nil {
		t.Fatalf("RouteOf = %+v, %v; want a's route", r, err)
	}
	if err := a.Disown(t.Context(), pool); err != nil {
		t.Fatal(err)
	}
	if err := store.DeleteRoute(t.Context(), db, pool, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.RouteOf(t.Context(), db, pool); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("RouteOf after a gave the pool up = %v, want ErrNotFound", err)
	}
	if got, _, err := b.TryOwn(t.Context(), pool, rb); !got || err != nil {
		t.Fatalf("b.TryOwn after a gave the pool up = %v, %v; want the pool", got, err)
	}

	// b's connection ends, its route left behind: a finds the lock free
	// (once the server has seen the connection end), marks the route
	// orphaned, and takes the pool a lease later.
	var pid int
	if err := db.Get(&pid, `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted`); err != nil {
		t.Fatal(err)
	}
	var terminated bool
	if err := db.Get(&terminated, `SELECT pg_terminate_backend($1, 10000)`, pid); err != nil || !terminated {
		t.Fatalf("pg_terminate_backend(b's connection) = %v, %v", terminated, err)
	}
	if err := b.Check(t.Context()); !errors.Is(err, store.ErrLocksLost) {
		t.Errorf("b.Check after its connection ended = %v, want ErrLocksLost", err)
	}
	if got, _, err := a.TryOwn(t.Context(), pool, ra); got || err != nil {
		t.Fatalf("a.TryOwn at once after b's connection ended = %v, %v; want false: b may not know yet", got, err)
	}
	var orphaned time.Time
	if err := db.Get(&orphaned, `SELECT orphaned_at FROM claim_routes WHERE pool_uid = $1 AND process = 'b'`, pool); err != nil {
		t.Fatalf("b's route is not marked orphaned: %v", err)
	}
	for {
		got, _, err := a.TryOwn(t.Context(), pool, ra)
		if err != nil {
			t.Fatal(err)
		}
		if got {
			break
		}
		var waited bool
		if err := db.Get(&waited, `SELECT clock_timestamp() - orphaned_at > $1 * interval '1 millisecond' FROM claim_routes WHERE pool_uid = $2`, 2*lease.Milliseconds(), pool); err != nil || waited {
			t.Fatalf("a.TryOwn two leases after b's route was orphaned: not the pool (%v)", err)
		}
	}
	if r, err := store.RouteOf(t.Context(), db, pool); r.Address != ra.Address || r.Process != ra.Process || err != nil {
		t.Fatalf("RouteOf = %+v, %v; want a's route again", r, err)
	}

	gone := "6d1f8a52-3c1e-4d7b-9a0e-1f2e3d4c5b6a"
	if got, _, err := a.TryOwn(t.Context(), gone, ra); got || !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a.TryOwn of a pool that is gone = %v, %v; want ErrNotFound", got, err)
	}
	c := open()
	if got, _, err := c.TryOwn(t.Context(), gone, ra); got || !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the lock of a pool that is gone stayed held: TryOwn = %v, %v", got, err)
	}
	secrets, err := store.ClusterSecrets(t.Context(), db)
	if err != nil || len(secrets) != 1 || len(secrets[0]) != 64 {
		t.Fatalf("ClusterSecrets = %q, %v; want one of 64 hex digits", secrets, err)
	}
}

// TestOwnerLocksOutliveAClaimGivenUp: a claim whose context has ended (its
// client went away) while it asks for a pool's owner does not make the
// process give up the pools it owns: the statement on the locks'
// connection runs to its end.
func TestOwnerLocksOutliveAClaimGivenUp(t *testing.T) {
	url := pgtest.NewURL(t)
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pool := privatePool(t, db)
	l, err := store.OpenOwnerLocks(t.Context(), url, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	route := store.Route{Address: "127.0.0.1:7001", Host: "h", Process: "a"}
	got, gen, err := l.TryOwn(t.Context(), pool, route)
	if !got || err != nil {
		t.Fatalf("TryOwn = %v, %v; want the pool", got, err)
	}

	ended, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := l.TryOwn(ended, "5b0f3c1e-9d2a-4f6b-8c7e-1a2b3c4d5e6f", route); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("TryOwn of a pool that is gone, its claim's context ended = %v; want ErrNotFound, the statement run to its end", err)
	}
	if err := l.Disown(ended, "5b0f3c1e-9d2a-4f6b-8c7e-1a2b3c4d5e6f"); err != nil {
		t.Errorf("Disown with its claim's context ended = %v", err)
	}
	if !l.Holds(gen) || l.Generation() != gen {
		t.Fatalf("after a claim given up: holds %v, generation %d (was %d); want the pool still owned on the same connection", l.Holds(gen), l.Generation(), gen)
	}
}

// TestClusterSecretReadByOwnerOnly: on a database where PUBLIC was
// granted every table (as default privileges may do) and a reporting role
// every table of the schema before the route link's migration, the
// migrations leave the cluster secret to the tables' owner: neither an unprivileged role nor the reporting role
// reads it, while the reporting role still reads the rest.
func TestClusterSecretReadByOwnerOnly(t *testing.T) {
	db := migratedTo(t, migrationVersion(t, "route_link")-1)
	ctx := t.Context()
	var name string
	if err := db.GetContext(ctx, &name, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	nobody, reporting := name+"_nobody", name+"_reporting"
	for _, role := range []string{nobody, reporting} {
		if _, err := db.ExecContext(ctx, `CREATE ROLE `+role); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if _, err := db.ExecContext(context.Background(), `DROP OWNED BY `+role+`; DROP ROLE `+role); err != nil {
				t.Error(err)
			}
		})
	}
	// migratedTo's schema public is made afresh: PUBLIC may use it, as it
	// may a new database's.
	if _, err := db.ExecContext(ctx, `GRANT USAGE ON SCHEMA public TO PUBLIC; GRANT SELECT ON ALL TABLES IN SCHEMA public TO PUBLIC, `+reporting); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	// reads runs a query as role, and returns its error.
	reads := func(role, query string) error {
		tx, err := db.BeginTxx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `SET LOCAL ROLE `+role); err != nil {
			t.Fatal(err)
		}
		_, err = tx.ExecContext(ctx, query)
		return err
	}
	for _, role := range []string{nobody, reporting} {
		var pe *pq.Error
		if err := reads(role, `SELECT secret FROM cluster_secret`); !errors.As(err, &pe) || pe.Code != "42501" {
			t.Errorf("role %s reading the cluster secret: %v; want insufficient_privilege", role, err)
		}
	}
	if err := reads(reporting, `SELECT count(*) FROM pools`); err != nil {
		t.Errorf("the reporting role lost its other grants: %v", err)
	}
	if _, err := store.ClusterSecrets(ctx, db); err != nil {
		t.Errorf("the owner reading the cluster secret: %v", err)
	}
}

// TestProcessCertificates: a process's certificate is found by its
// process and with its routes until it is removed, or until it was not
// published again for as long as PruneProcesses is told.
func TestProcessCertificates(t *testing.T) {
	ctx := t.Context()
	db := pgtest.NewDB(t)
	pool := privatePool(t, db)
	if err := store.PublishProcess(ctx, db, "a", []byte("certificate of a")); err != nil {
		t.Fatal(err)
	}
	if err := store.PublishProcess(ctx, db, "b", []byte("certificate of b")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO claim_routes (pool_uid, address, host, process) VALUES ($1, '127.0.0.1:7001', 'h', 'a')`, pool); err != nil {
		t.Fatal(err)
	}
	if c, err := store.ProcessCertificate(ctx, db, "a"); string(c) != "certificate of a" || err != nil {
		t.Errorf("ProcessCertificate(a) = %q, %v", c, err)
	}
	if r, err := store.RouteOf(ctx, db, pool); string(r.Certificate) != "certificate of a" || err != nil {
		t.Errorf("RouteOf = %+v, %v; want a's certificate with it", r, err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE route_processes SET seen = now() - interval '2 hours' WHERE process = 'b'`); err != nil {
		t.Fatal(err)
	}
	if err := store.PruneProcesses(ctx, db, time.Hour); err != nil {
		t.Fatal(err)
	}
	if c, err := store.ProcessCertificate(ctx, db, "b"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ProcessCertificate(b) unseen for 2 hours = %q, %v; want ErrNotFound", c, err)
	}
	if err := store.UnpublishProcess(ctx, db, "a"); err != nil {
		t.Fatal(err)
	}
	if r, err := store.RouteOf(ctx, db, pool); r.Certificate != nil || err != nil {
		t.Errorf("RouteOf after a removed its certificate = %+v, %v; want no certificate", r, err)
	}
}

// migrationVersion returns the version of the migration named name.
func migrationVersion(t *testing.T, name string) int {
	t.Helper()
	entries, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range entries {
		if strings.HasSuffix(e.Name(), "_"+name+".sql") {
			return i + 1
		}
	}
	t.Fatalf("no migration named %s", name)
	return 0
}
