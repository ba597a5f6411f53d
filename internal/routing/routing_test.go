package routing

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// start starts a router on url whose handler counts its calls and answers
// with the claim's owner name as the allocation's.
func start(t testing.TB, url, process string, calls *atomic.Int64) *Router {
	t.Helper()
	return startHandling(t, url, process, counting(calls))
}

// counting is a handler that counts its calls and answers with the
// claim's owner name as the allocation's.
func counting(calls *atomic.Int64) Handler {
	return func(_ context.Context, c Claim) Answer {
		calls.Add(1)
		return Answer{Allocation: store.AllocationRow{OwnerName: c.OwnerName}}
	}
}

// startHandling starts a router on url that makes forwarded claims with
// handle.
func startHandling(t testing.TB, url, process string, handle Handler) *Router {
	t.Helper()
	r := newRouter(t, url, process, handle, nil)
	r.Serve()
	return r
}

// newRouter starts a router on url that makes forwarded claims with
// handle and logs to log (slog's default when nil), but does not serve
// them yet.
func newRouter(t testing.TB, url, process string, handle Handler, log *slog.Logger) *Router {
	t.Helper()
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r, err := Start(t.Context(), Config{DB: db, URL: url, Listen: "127.0.0.1:0", Process: process, Handle: handle, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// routeTo is the route to r.
func routeTo(r *Router) store.Route {
	return store.Route{Address: r.Address(), Process: r.self.Process, Certificate: r.cert.Certificate[0]}
}

// callAnswered has from call to with a claim of owner in pool, and wants
// the answer of counting.
func callAnswered(t *testing.T, from *Router, to store.Route, pool, owner string) {
	t.Helper()
	if ans, err := from.call(t.Context(), to, Claim{PoolUID: pool, OwnerName: owner}); err != nil || ans.Allocation.OwnerName != owner {
		t.Fatalf("%s's call to %s for %s = %+v, %v; want its answer", from.self.Process, to.Process, owner, ans, err)
	}
}

// TestIdlePoolGivenUp: an owner gives up a pool nobody claimed in for
// ownerIdle; another process then owns it, and the first forwards to it.
func TestIdlePoolGivenUp(t *testing.T) {
	a, b, pool, _ := pair(t)
	ctx := t.Context()
	if peer, err := a.owner(ctx, pool); peer.Process != "" || err != nil {
		t.Fatalf("a.owner = %+v, %v; want a to own the pool", peer, err)
	}
	if peer, err := b.owner(ctx, pool); peer.Address != a.Address() || err != nil {
		t.Fatalf("b.owner = %+v, %v; want a's address %s", peer, err, a.Address())
	}
	a.sweep(ctx, time.Now().Add(ownerIdle/2))
	if r, err := store.RouteOf(ctx, a.cfg.DB, pool); err != nil || r.Process != "a" {
		t.Fatalf("a gave the pool up before it was idle: %+v, %v", r, err)
	}
	a.sweep(ctx, time.Now().Add(2*ownerIdle))
	if _, err := store.RouteOf(ctx, a.cfg.DB, pool); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the route of an idle pool = %v, want none", err)
	}
	b.mu.Lock()
	delete(b.pools, pool) // b's route expired
	b.mu.Unlock()
	if peer, err := b.owner(ctx, pool); peer.Process != "" || err != nil {
		t.Fatalf("b.owner after a gave the pool up = %+v, %v; want b to own it", peer, err)
	}
	if peer, err := a.owner(ctx, pool); peer.Address != b.Address() || err != nil {
		t.Fatalf("a.owner = %+v, %v; want b's address %s", peer, err, b.Address())
	}
}

// pair starts processes a and b on a fresh database holding a pool, both
// counting the claims they serve in calls.
func pair(t *testing.T) (a, b *Router, pool string, calls *atomic.Int64) {
	t.Helper()
	url := pgtest.NewURL(t)
	calls = new(atomic.Int64)
	a, b = start(t, url, "a", calls), start(t, url, "b", calls)
	return a, b, makePool(t, a.cfg.DB), calls
}

// makePool stores a VPC's pool and returns its uid.
func makePool(t testing.TB, db *store.DB) string {
	t.Helper()
	cidr := netip.MustParsePrefix("10.42.0.0/16")
	v, err := store.InsertVPC(t.Context(), db, store.VPCRow{UID: "8f0c5c6e-0d3b-4c8e-9a51-5c1b0c3d2e10", Namespace: "acme/prod", Name: "main", CIDR: cidr, CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.InsertPool(t.Context(), db, store.PoolRow{UID: "0b8e2b4a-6a51-4c1e-8f0d-2d9b1a7c3e44", Namespace: "acme/prod", Name: "vpc-main", Kind: "private", CIDR: cidr, VPCUID: v.UID, CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return p.UID
}

// TestListenAddressReachable: an address the other processes could not
// dial is refused, saying what to give.
func TestListenAddressReachable(t *testing.T) {
	for _, listen := range []string{":7070", "0.0.0.0:7070", "[::]:7070", "7070"} {
		_, err := Start(t.Context(), Config{Listen: listen})
		want := `routing: listen address "` + listen + `": give host:port with an address the other ipam processes reach (it is what they dial), not an unspecified one`
		if err == nil || err.Error() != want {
			t.Errorf("Start(%q) = %v, want %q", listen, err, want)
		}
	}
}

// TestSilentOwner: an owner that takes a forwarded claim and never answers
// it (stopped, paused, cut off) costs the claim forwardTimeout, not the
// request's time: the forwarding process drops the owner's connection and
// makes the claim itself, well before the request's deadline. The owner
// gives a forwarded claim no longer than forwardTimeout, whatever the
// claim asks.
func TestSilentOwner(t *testing.T) {
	ctx := t.Context()
	url := pgtest.NewURL(t)
	deadlines := make(chan time.Duration, 4)
	silent := make(chan struct{})
	handle := func(ctx context.Context, c Claim) Answer {
		d, _ := ctx.Deadline()
		deadlines <- time.Until(d)
		if c.OwnerName == "silent" {
			<-silent
		}
		return Answer{Allocation: store.AllocationRow{OwnerName: c.OwnerName}}
	}
	a := startHandling(t, url, "a", handle)
	b := startHandling(t, url, "b", handle)
	t.Cleanup(func() { close(silent) })
	pool := makePool(t, a.cfg.DB)
	if peer, err := a.owner(ctx, pool); peer.Process != "" || err != nil {
		t.Fatalf("a.owner = %+v, %v; want a to own the pool", peer, err)
	}

	request, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ans, forwarded, err := b.Forward(request, pool, Claim{PoolUID: pool, OwnerName: "silent"})
	if err != nil || forwarded {
		t.Fatalf("Forward to a silent owner = %+v, %v, %v; want the claim left to b, before the request's deadline", ans, forwarded, err)
	}
	if s := b.Stats(); s.Fallbacks != 1 || s.Timeouts != 1 || s.Forwarded != 0 {
		t.Errorf("b's counts %+v, want 1 fallback, of a timeout", s)
	}
	b.peersMu.Lock()
	_, kept := b.peers["a"]
	b.peersMu.Unlock()
	if kept {
		t.Error("b kept its connection to the silent owner")
	}
	if left := <-deadlines; left > forwardTimeout {
		t.Errorf("the owner was given %v for a forwarded claim, want at most %v", left, forwardTimeout)
	}

	aRoute := routeTo(a)
	if _, err := b.call(ctx, aRoute, Claim{PoolUID: pool, OwnerName: "vm-1/0", Timeout: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if left := <-deadlines; left > forwardTimeout {
		t.Errorf("a claim asking an hour was given %v, want at most %v", left, forwardTimeout)
	}
}

// TestStuckPeerStallsNoOther: with the connection to one process stuck in
// its handshake, a claim forwarded to another process is answered while
// the stuck one still waits.
func TestStuckPeerStallsNoOther(t *testing.T) {
	ctx := t.Context()
	a, b, pool, _ := pair(t)

	// stuck accepts connections and never answers.
	stuck, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := stuck.Accept(); err == nil {
			accepted <- c
		}
	}()
	stuckRoute := store.Route{Address: stuck.Addr().String(), Process: "stuck", Certificate: a.cert.Certificate[0]}
	stuckDone := make(chan error, 1)
	go func() {
		_, err := b.call(ctx, stuckRoute, Claim{PoolUID: pool, OwnerName: "vm-0/0"})
		stuckDone <- err
	}()
	conn := <-accepted // b's handshake with stuck has begun
	defer conn.Close()

	aRoute := routeTo(a)
	callAnswered(t, b, aRoute, pool, "vm-1/0")
	select {
	case err := <-stuckDone:
		t.Errorf("the call to the stuck process ended (%v) before the call to a was answered: a waited for it", err)
	default:
	}
}

// TestLockConnectionLost: the connection holding an owner's locks is
// terminated while the owner lives on. Another process does not own the
// pool while the owner may still believe it does; the owner notices,
// gives the pool up (its route removed), and the other process then takes
// it over at once, with one lock held on the pool throughout.
func TestLockConnectionLost(t *testing.T) {
	ctx := t.Context()
	a, b, pool, _ := pair(t)
	db := a.cfg.DB
	if peer, err := a.owner(ctx, pool); peer.Process != "" || err != nil {
		t.Fatalf("a.owner = %+v, %v; want a to own the pool", peer, err)
	}
	// believes reports whether r believes it owns the pool, reading its
	// state without changing it.
	believes := func(r *Router) bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		rt := r.pools[pool]
		if rt == nil {
			return false
		}
		select {
		case <-rt.decided:
			return rt.owned && r.locks.Holds(rt.gen)
		default:
			return false
		}
	}
	forget := func(r *Router) {
		r.mu.Lock()
		delete(r.pools, pool)
		r.mu.Unlock()
	}

	var pid int
	if err := db.GetContext(ctx, &pid, `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted`); err != nil {
		t.Fatal(err)
	}
	var terminated bool
	if err := db.GetContext(ctx, &terminated, `SELECT pg_terminate_backend($1, 10000)`, pid); err != nil || !terminated {
		t.Fatalf("pg_terminate_backend(a's lock connection) = %v, %v", terminated, err)
	}
	forget(b)
	peer, err := b.owner(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if peer.Process == "" && believes(a) {
		t.Fatal("b owns the pool while a still believes it does: two owners")
	}

	a.checkLocks()
	if believes(a) {
		t.Error("a still owns the pool after its lock connection was terminated")
	}
	if r, err := store.RouteOf(ctx, db, pool); err == nil && r.Process == "a" {
		t.Errorf("a's route is left: %+v", r)
	}
	forget(b)
	if peer, err := b.owner(ctx, pool); peer.Process != "" || err != nil {
		t.Fatalf("b.owner once a gave the pool up = %+v, %v; want b to own it", peer, err)
	}
	if peer, err := a.owner(ctx, pool); peer.Process != "b" || err != nil {
		t.Fatalf("a.owner = %+v, %v; want b", peer, err)
	}
	var locks int
	if err := db.GetContext(ctx, &locks, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted`); err != nil || locks != 1 {
		t.Errorf("%d advisory locks held, %v; want b's only", locks, err)
	}
}

// BenchmarkForwardedCall measures a forwarded claim's round trip on the
// route link, from a call to its answer, the owner's handler doing
// nothing; in parallel, the calls share one connection, as a process's
// claims do. cpu-ns/op is the CPU time of both ends (one test process).
func BenchmarkForwardedCall(b *testing.B) {
	url := pgtest.NewURL(b)
	var calls atomic.Int64
	owner, other := start(b, url, "owner", &calls), start(b, url, "other", &calls)
	pool := makePool(b, owner.cfg.DB)
	to := routeTo(owner)
	claim := Claim{PoolUID: pool, Pool: "vpc-main", PoolNamespace: "acme/prod", VPC: "main", Subnet: "web",
		OwnerKind: "VirtualMachine", OwnerUID: "8f0c5c6e-0d3b-4c8e-9a51-5c1b0c3d2e10", OwnerName: "vm-1/0", OwnerNamespace: "acme/prod", Actor: "acme"}
	if _, err := other.call(b.Context(), to, claim); err != nil {
		b.Fatal(err)
	}
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := other.call(b.Context(), to, claim); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}
