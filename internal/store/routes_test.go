package store_test

import (
	"errors"
	"testing"
	"time"

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
	if r, err := store.RouteOf(t.Context(), db, pool); r != ra || err != nil {
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
	if r, err := store.RouteOf(t.Context(), db, pool); r != ra || err != nil {
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
	secret, err := store.ClusterSecret(t.Context(), db)
	if err != nil || len(secret) != 64 {
		t.Fatalf("ClusterSecret = %q, %v; want 64 hex digits", secret, err)
	}
}
