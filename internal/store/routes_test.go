package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lib/pq"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// TestOwnerLocks: one process owns a pool at a time, its route recorded
// with the lock; the ownership ends when it gives the pool up or its
// connection ends; a pool that is gone cannot be owned.
func TestOwnerLocks(t *testing.T) {
	url := pgtest.NewURL(t)
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pool := privatePool(t, db)
	a, err := store.OpenOwnerLocks(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := store.OpenOwnerLocks(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ra := store.Route{Address: "127.0.0.1:7001", Host: "h", Process: "a"}
	rb := store.Route{Address: "127.0.0.1:7002", Host: "h", Process: "b"}

	if got, err := a.TryOwn(t.Context(), pool, ra); !got || err != nil {
		t.Fatalf("a.TryOwn = %v, %v; want the pool", got, err)
	}
	if got, err := b.TryOwn(t.Context(), pool, rb); got || err != nil {
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
	if got, err := b.TryOwn(t.Context(), pool, rb); !got || err != nil {
		t.Fatalf("b.TryOwn after a gave the pool up = %v, %v; want the pool", got, err)
	}
	b.Close()
	// The lock ends once the server has seen the connection closed.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		got, err := a.TryOwn(t.Context(), pool, ra)
		if err != nil {
			t.Fatal(err)
		}
		if got {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a.TryOwn after b's connection ended: still not the pool after 10 s")
		}
	}
	if r, err := store.RouteOf(t.Context(), db, pool); r.Address != ra.Address || r.Process != ra.Process || err != nil {
		t.Fatalf("RouteOf = %+v, %v; want a's route again", r, err)
	}

	gone := "6d1f8a52-3c1e-4d7b-9a0e-1f2e3d4c5b6a"
	if got, err := a.TryOwn(t.Context(), gone, ra); got || !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a.TryOwn of a pool that is gone = %v, %v; want ErrNotFound", got, err)
	}
	c, err := store.OpenOwnerLocks(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, err := c.TryOwn(t.Context(), gone, ra); got || !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the lock of a pool that is gone stayed held: TryOwn = %v, %v", got, err)
	}
	secrets, err := store.ClusterSecrets(t.Context(), db)
	if err != nil || len(secrets) != 1 || len(secrets[0]) != 64 {
		t.Fatalf("ClusterSecrets = %q, %v; want one of 64 hex digits", secrets, err)
	}
}

// TestClusterSecretReadByOwnerOnly: on a database where PUBLIC was
// granted every table (as default privileges may do) and a reporting role
// every table of the schema, the migrations leave the cluster secret to
// the tables' owner: neither an unprivileged role nor the reporting role
// reads it, while the reporting role still reads the rest.
func TestClusterSecretReadByOwnerOnly(t *testing.T) {
	db := migratedTo(t, 15)
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
