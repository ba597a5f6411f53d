package routing

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// start starts a router on url whose handler counts its calls and answers
// with the claim's owner name as the allocation's.
func start(t *testing.T, url, process string, calls *atomic.Int64) *Router {
	t.Helper()
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r, err := Start(t.Context(), Config{DB: db, URL: url, Listen: "127.0.0.1:0", Process: process,
		Handle: func(_ context.Context, c Claim) Answer {
			calls.Add(1)
			return Answer{Allocation: store.AllocationRow{OwnerName: c.OwnerName}}
		}})
	if err != nil {
		t.Fatal(err)
	}
	r.Serve()
	t.Cleanup(r.Close)
	return r
}

// TestHandshake: a process of the same database gets its claims served; a
// client that does not know the cluster secret gets nothing served, and
// learns nothing it could replay.
func TestHandshake(t *testing.T) {
	url := pgtest.NewURL(t)
	var calls atomic.Int64
	owner := start(t, url, "owner", &calls)
	other := start(t, url, "other", &calls)

	a, err := other.call(t.Context(), owner.Address(), Claim{OwnerName: "vm-1/0"})
	if err != nil || a.Allocation.OwnerName != "vm-1/0" || calls.Load() != 1 {
		t.Fatalf("call = %+v, %v after %d calls; want the owner's answer", a, err, calls.Load())
	}

	conn, err := net.Dial("tcp", owner.Address())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write(make([]byte, nonceSize)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(conn, make([]byte, nonceSize)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write(make([]byte, sha256.Size)); err != nil {
		t.Fatal(err)
	}
	if n, err := io.ReadFull(conn, make([]byte, sha256.Size)); !errors.Is(err, io.EOF) {
		t.Fatalf("after a wrong proof the owner sent %d bytes, %v; want the connection closed", n, err)
	}

	stranger := &Router{secret: []byte("not the secret")}
	conn2, err := net.Dial("tcp", owner.Address())
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	if err := stranger.clientHandshake(conn2); err == nil {
		t.Fatal("a client with another secret was let in")
	}
	if calls.Load() != 1 {
		t.Errorf("%d claims served, want 1", calls.Load())
	}
}
