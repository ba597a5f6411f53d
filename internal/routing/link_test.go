package routing

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"net"
	"net/netip"
	"net/rpc"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// A mitm stands on the path between two processes: it relays what they
// send each other and records what the client sent, and it can inject
// bytes towards the server, or answer the client itself.
type mitm struct {
	t      *testing.T
	ln     net.Listener
	target string

	mu     sync.Mutex
	sent   bytes.Buffer // everything the clients sent
	server net.Conn     // the current connection to the server
	// serverGone is closed when the current connection to the server
	// ends.
	serverGone chan struct{}
	// forged, when set, is what the mitm answers the client's next bytes
	// instead of relaying them.
	forged []byte
}

func newMITM(t *testing.T, target string) *mitm {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &mitm{t: t, ln: ln, target: target}
	t.Cleanup(func() { ln.Close() })
	go m.accept()
	return m
}

func (m *mitm) address() string { return m.ln.Addr().String() }

func (m *mitm) accept() {
	for {
		client, err := m.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", m.target)
		if err != nil {
			client.Close()
			continue
		}
		gone := make(chan struct{})
		m.mu.Lock()
		m.server, m.serverGone = server, gone
		m.mu.Unlock()
		m.t.Cleanup(func() { client.Close(); server.Close() })
		go func() {
			defer close(gone)
			defer client.Close()
			buf := make([]byte, 64<<10)
			for {
				n, err := server.Read(buf)
				if err != nil {
					return
				}
				if _, err := client.Write(buf[:n]); err != nil {
					return
				}
			}
		}()
		go func() {
			defer server.Close()
			buf := make([]byte, 64<<10)
			for {
				n, err := client.Read(buf)
				if err != nil {
					return
				}
				m.mu.Lock()
				m.sent.Write(buf[:n])
				forged := m.forged
				m.forged = nil
				m.mu.Unlock()
				if forged != nil {
					client.Write(forged)
					continue
				}
				if _, err := server.Write(buf[:n]); err != nil {
					return
				}
			}
		}()
	}
}

// inject sends b to the server on the current connection, and returns a
// channel closed when that connection ends.
func (m *mitm) inject(b []byte) <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.server.Write(b); err != nil {
		m.t.Fatal(err)
	}
	return m.serverGone
}

// answerNext makes the mitm answer the client's next bytes with b.
func (m *mitm) answerNext(b []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forged = b
}

// gobMessages encodes header and body as net/rpc's gob codec does on a
// connection that already carried one message of their types: no type
// definitions, only the values.
func gobMessages(t *testing.T, header, body any) []byte {
	var buf bytes.Buffer
	enc := gob.NewEncoder(&buf)
	for _, v := range []any{header, body} {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	buf.Reset()
	for _, v := range []any{header, body} {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// TestLinkOnThePath: whoever stands on the path between two processes,
// relaying their connection, reads no claim, has no claim of its own
// made, and cannot answer one: the forwarding process then makes the
// claim itself.
func TestLinkOnThePath(t *testing.T) {
	ctx := t.Context()
	url := pgtest.NewURL(t)
	actors := make(chan string, 16)
	handle := func(_ context.Context, c Claim) Answer {
		actors <- c.Actor
		return Answer{Allocation: store.AllocationRow{OwnerName: c.OwnerName, Address: netip.MustParseAddr("10.42.0.7")}}
	}
	a := startHandling(t, url, "a", handle)
	b := startHandling(t, url, "b", handle)
	pool := makePool(t, a.cfg.DB)
	if peer, err := a.owner(ctx, pool); err != nil || peer.Process != "" {
		t.Fatalf("a.owner = %+v, %v; want a to own the pool", peer, err)
	}
	m := newMITM(t, a.Address())
	if _, err := a.cfg.DB.ExecContext(ctx, `UPDATE claim_routes SET address = $1`, m.address()); err != nil {
		t.Fatal(err)
	}

	forward := func(owner string) (Answer, bool) {
		t.Helper()
		ans, forwarded, err := b.Forward(ctx, pool, Claim{PoolUID: pool, OwnerName: owner, Actor: "tenant"})
		if err != nil {
			t.Fatal(err)
		}
		return ans, forwarded
	}
	if ans, ok := forward("vm-confidential/0"); !ok || ans.Allocation.OwnerName != "vm-confidential/0" {
		t.Fatalf("a claim through the relay: %+v, forwarded %v; want the owner's answer", ans, ok)
	}
	if <-actors != "tenant" {
		t.Fatal("the owner made the claim for another actor")
	}
	m.mu.Lock()
	read := bytes.Contains(m.sent.Bytes(), []byte("vm-confidential"))
	m.mu.Unlock()
	if read {
		t.Error("the claim crossed the path in clear")
	}

	gone := m.inject(gobMessages(t, &rpc.Request{ServiceMethod: "Claims.Claim", Seq: 99},
		Claim{PoolUID: pool, OwnerName: "vm-of-mallory/0", Actor: "mallory"}))
	select {
	case actor := <-actors:
		t.Errorf("the owner made a claim injected on the path, as %q", actor)
	case <-gone:
	}

	b.dropPeer("a")
	if _, ok := forward("vm-1/0"); !ok {
		t.Fatal("a claim through the relay on a new connection was not forwarded")
	}
	<-actors
	forged := netip.MustParseAddr("10.42.1.2")
	m.answerNext(gobMessages(t, &rpc.Response{ServiceMethod: "Claims.Claim", Seq: 1},
		Answer{Allocation: store.AllocationRow{OwnerName: "vm-2/0", Address: forged}, Owner: true}))
	ans, ok := forward("vm-2/0")
	if ok && ans.Allocation.Address == forged {
		t.Errorf("the process took the answer forged on the path: %+v", ans)
	}
	if ok {
		t.Errorf("a claim the owner never received was answered: %+v", ans)
	}
	if s := b.Stats(); s.Fallbacks != 1 {
		t.Errorf("b's counts %+v, want the claim the path answered made here (1 fallback)", s)
	}
}

// TestLinkPinned: a client whose certificate is not the one its process
// published, or that does not know the cluster secret, is refused before
// anything is served; a server whose certificate is not the route's
// process's is refused by the client, which makes the claim itself.
func TestLinkPinned(t *testing.T) {
	ctx := t.Context()
	url := pgtest.NewURL(t)
	var calls atomic.Int64
	a := start(t, url, "a", &calls)
	b := start(t, url, "b", &calls)
	c := start(t, url, "c", &calls)
	pool := makePool(t, a.cfg.DB)
	aRoute := routeTo(a)

	callAnswered(t, b, aRoute, pool, "vm-1/0")

	// A stranger that calls itself b, with a key of its own; one whose
	// process published nothing; one that published its certificate but
	// does not know the secret.
	impostor, err := newIdentity("b")
	if err != nil {
		t.Fatal(err)
	}
	unknown, err := newIdentity("unknown")
	if err != nil {
		t.Fatal(err)
	}
	published, err := newIdentity("published")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.PublishProcess(ctx, a.cfg.DB, "published", published.Certificate[0]); err != nil {
		t.Fatal(err)
	}
	secrets, err := store.ClusterSecrets(ctx, a.cfg.DB)
	if err != nil {
		t.Fatal(err)
	}
	refused := a.Stats().Refused
	for _, stranger := range []struct {
		name   string
		cert   tls.Certificate
		secret string
	}{
		{"b's name, another key", impostor, secrets[0]},
		{"a process that published nothing", unknown, secrets[0]},
		{"a published process without the secret", published, "not the secret"},
	} {
		raw, err := net.Dial("tcp", a.Address())
		if err != nil {
			t.Fatal(err)
		}
		conn := tls.Client(raw, clientConfig(stranger.cert, aRoute.Certificate))
		err = clientHandshake(ctx, conn, stranger.secret)
		conn.Close()
		if !errors.Is(err, ErrNotAuthenticated) {
			t.Errorf("%s: handshake = %v, want ErrNotAuthenticated", stranger.name, err)
		}
	}
	if calls.Load() != 1 {
		t.Errorf("%d claims served, want 1", calls.Load())
	}
	if got := a.Stats().Refused - refused; got != 3 {
		t.Errorf("a refused %d connections, want 3", got)
	}

	// A route naming a but leading to c: b refuses c's certificate.
	b.dropPeer("a")
	wrong := aRoute
	wrong.Address = c.Address()
	if _, err := b.call(ctx, wrong, Claim{PoolUID: pool, OwnerName: "vm-2/0"}); !errors.Is(err, ErrNotPinned) {
		t.Errorf("b's call to c in a's name = %v, want ErrNotPinned", err)
	}
	if calls.Load() != 1 {
		t.Errorf("%d claims served, want 1", calls.Load())
	}
}

// TestLinkMessageBounded: a process of the cluster that announces a
// message of 400 MB is cut off after the announcement, the owner's memory
// never holding it; the owner serves on.
func TestLinkMessageBounded(t *testing.T) {
	ctx := t.Context()
	a, b, pool, calls := pair(t)
	aRoute := routeTo(a)
	conn, err := b.dial(ctx, aRoute)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	const size = 400 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var header [4]byte
	binary.BigEndian.PutUint32(header[:], size)
	sent, chunk := 0, make([]byte, 1<<20)
	_, err = conn.Write(header[:])
	for ; err == nil && sent < size; sent += len(chunk) {
		_, err = conn.Write(chunk)
	}
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Errorf("the owner read a message of %d bytes", sent)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
		t.Errorf("%d MB allocated while a message of %d MB was announced", grew>>20, size>>20)
	}
	if calls.Load() != 0 {
		t.Errorf("%d claims served, want none", calls.Load())
	}
	callAnswered(t, b, aRoute, pool, "vm-1/0")
}

// TestRotatedSecret: after the cluster secret is rotated, the connections
// made before go on, new ones prove the new secret, and a process that
// read the secret just before the rotation is let in for a moment, not
// after.
func TestRotatedSecret(t *testing.T) {
	ctx := t.Context()
	a, b, pool, _ := pair(t)
	db := a.cfg.DB
	aRoute := routeTo(a)
	late, err := newIdentity("late")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.PublishProcess(ctx, db, "late", late.Certificate[0]); err != nil {
		t.Fatal(err)
	}
	handshake := func(secret string) error {
		raw, err := net.Dial("tcp", a.Address())
		if err != nil {
			t.Fatal(err)
		}
		conn := tls.Client(raw, clientConfig(late, aRoute.Certificate))
		defer conn.Close()
		return clientHandshake(ctx, conn, secret)
	}

	callAnswered(t, b, aRoute, pool, "before the rotation")
	before, err := store.ClusterSecrets(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.RotateClusterSecret(ctx, db, "test"); err != nil {
		t.Fatal(err)
	}
	after, err := store.ClusterSecrets(ctx, db)
	if err != nil || len(after) != 2 || after[0] == before[0] || after[1] != before[0] {
		t.Fatalf("secrets after the rotation = %q, %v; want a new one, then %q", after, err, before[0])
	}
	callAnswered(t, b, aRoute, pool, "on the connection made before")
	if err := handshake(before[0]); err != nil {
		t.Errorf("a handshake proving the secret read just before the rotation: %v", err)
	}
	b.dropPeer("a")
	callAnswered(t, b, aRoute, pool, "on a new connection")

	if _, err := db.ExecContext(ctx, `UPDATE cluster_secret SET rotated_at = rotated_at - $1 * interval '1 millisecond'`, (2 * time.Minute).Milliseconds()); err != nil {
		t.Fatal(err)
	}
	if err := handshake(before[0]); !errors.Is(err, ErrNotAuthenticated) {
		t.Errorf("a handshake proving the previous secret long after the rotation = %v, want ErrNotAuthenticated", err)
	}
	if err := handshake(after[0]); err != nil {
		t.Errorf("a handshake proving the new secret: %v", err)
	}
	var audited int
	if err := db.GetContext(ctx, &audited, `SELECT count(*) FROM audit_log WHERE action = 'rotate' AND object_kind = 'ClusterSecret' AND actor = 'test' AND before IS NULL AND after IS NULL`); err != nil || audited != 1 {
		t.Errorf("%d audit entries of the rotation, %v; want 1, without the secrets", audited, err)
	}
}
