package routing

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
)

// A failingListener fails its first Accepts as a process out of file
// descriptors does.
type failingListener struct {
	net.Listener
	fails atomic.Int64
}

func (l *failingListener) Accept() (net.Conn, error) {
	if l.fails.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// TestAcceptErrorsRetried: a listener whose Accept fails (EMFILE) does not
// end the serving of claims.
func TestAcceptErrorsRetried(t *testing.T) {
	url := pgtest.NewURL(t)
	var calls atomic.Int64
	a := newRouter(t, url, "a", counting(&calls), nil)
	failing := &failingListener{Listener: a.ln}
	failing.fails.Store(3)
	a.ln = failing
	a.Serve()
	b := start(t, url, "b", &calls)
	pool := makePool(t, a.cfg.DB)
	callAnswered(t, b, routeTo(a), pool, "vm-1/0")
	if s := a.Stats(); s.AcceptErrors != 3 || s.Served != 1 {
		t.Errorf("a's counts %+v, want 3 accept errors and 1 claim served", s)
	}
}

// A logBuffer collects log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) count(s string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Count(b.buf.String(), s)
}

// A watchedListener tells of the connections it accepts and of their
// closing.
type watchedListener struct {
	net.Listener
	accepted, closed chan struct{}
}

func (l *watchedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.accepted <- struct{}{}
	return &watchedConn{Conn: c, closed: l.closed}, nil
}

type watchedConn struct {
	net.Conn
	once   sync.Once
	closed chan struct{}
}

func (c *watchedConn) Close() error {
	c.once.Do(func() { c.closed <- struct{}{} })
	return c.Conn.Close()
}

// TestHandshakesBounded: with maxHandshakes connections that say nothing
// being authenticated, the next connections are closed at once, counted
// and logged at a bounded rate; once those go, a process is served
// again.
func TestHandshakesBounded(t *testing.T) {
	url := pgtest.NewURL(t)
	var calls atomic.Int64
	var logs logBuffer
	a := newRouter(t, url, "a", counting(&calls), slog.New(slog.NewTextHandler(&logs, nil)))
	const extra = 3
	watched := &watchedListener{Listener: a.ln, accepted: make(chan struct{}, maxHandshakes+extra), closed: make(chan struct{}, maxHandshakes+extra)}
	a.ln = watched
	a.Serve()
	b := start(t, url, "b", &calls)
	pool := makePool(t, a.cfg.DB)

	var silent []net.Conn
	for range maxHandshakes {
		c, err := net.Dial("tcp", a.Address())
		if err != nil {
			t.Fatal(err)
		}
		silent = append(silent, c)
	}
	for range maxHandshakes {
		<-watched.accepted
	}
	for range extra {
		c, err := net.Dial("tcp", a.Address())
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(time.Minute))
		if n, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			t.Errorf("a connection past the bound read %d bytes, %v; want it closed", n, err)
		}
		c.Close()
	}
	a.connsMu.Lock()
	handshaking := len(a.conns)
	a.connsMu.Unlock()
	if handshaking != maxHandshakes {
		t.Errorf("%d connections served when the ones past the bound were closed, want the %d silent ones", handshaking, maxHandshakes)
	}
	if s := a.Stats(); s.Refused != extra {
		t.Errorf("a refused %d connections, want %d", s.Refused, extra)
	}
	if n := logs.count("refused a connection"); n != 1 {
		t.Errorf("%d refusals logged of %d, want 1 (then one every %v)", n, extra, refusalsLogEvery)
	}

	for _, c := range silent {
		c.Close()
	}
	for range maxHandshakes + extra {
		<-watched.closed
	}
	aRoute := routeTo(a)
	callAnswered(t, b, aRoute, pool, "vm-1/0")
}
