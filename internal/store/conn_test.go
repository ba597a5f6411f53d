package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// TestStatementsGiveUpOnASilentServer checks that a statement whose
// context has a deadline returns soon after it, unavailable, when the
// server stops answering, on a connection of the pool and on a new one.
func TestStatementsGiveUpOnASilentServer(t *testing.T) {
	t.Parallel()
	proxy, url := pgtest.NewProxy(t, pgtest.NewURL(t))
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	proxy.Stall()
	const deadline = 200 * time.Millisecond
	for _, conn := range []string{"a connection of the pool", "a new connection"} {
		ctx, cancel := context.WithTimeout(t.Context(), deadline)
		start := time.Now()
		_, err := store.SchemaVersion(ctx, db)
		took := time.Since(start)
		cancel()
		if !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("SchemaVersion on %s of a silent server = %v, want ErrUnavailable", conn, err)
		}
		// The connection gives up a second after the deadline.
		if took > deadline+3*time.Second {
			t.Errorf("SchemaVersion on %s of a silent server took %v with a deadline of %v", conn, took, deadline)
		}
	}
}
