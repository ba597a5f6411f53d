package routing

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/rpc"
	"sync"
	"time"

	"pivirt.hu/ipam/internal/store"
)

// The route link (docs/scaling.md, "The route link"): TLS 1.3, each end
// presenting the self-signed certificate its process made at start and
// published in the database (store.PublishProcess), and each end pinning
// the other's to the one the database holds for that process: the
// dialling end to the certificate of the route's process, the accepting
// end to the certificate of the process its client's certificate names.
// Then each end proves it knows the cluster secret, bound to this TLS
// session (an HMAC of keying material exported from it), the client
// first. Everything after that is TLS records: encrypted, authenticated,
// in order, never replayed.

// handshakeTimeout bounds the making of a connection: dialling, TLS and
// the proofs of the secret.
const handshakeTimeout = 5 * time.Second

// ErrNotAuthenticated means that the other end of a route connection does
// not know the cluster secret: it serves another database, or is no ipam.
var ErrNotAuthenticated = errors.New("routing: the other process does not know this database's cluster secret")

// errClosed means that the router is closed.
var errClosed = errors.New("routing: the router is closed")

// ErrNotPinned means that the other end of a route connection presented a
// certificate other than the one the database holds for it.
var ErrNotPinned = errors.New("routing: the other process's certificate is not the one the database holds for it")

const (
	// exporterLabel names the keying material the proofs of the secret
	// are bound to (RFC 8446, section 7.5).
	exporterLabel = "EXPERIMENTAL pivirt ipam route link"
	roleClient    = "ipam route client"
	roleServer    = "ipam route server"
)

// newIdentity makes a key pair and a self-signed certificate for process,
// named by its common name.
func newIdentity(process string) (tls.Certificate, error) {
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	template := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: process},
		NotBefore:    now.Add(-time.Hour),
		// The certificate is pinned, not verified by a chain: it is valid
		// as long as the database holds it.
		NotAfter:    now.AddDate(100, 0, 0),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, pub, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// pinned returns a check of the other end's certificates: one, want.
func pinned(want []byte) func([][]byte, [][]*x509.Certificate) error {
	return func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) != 1 || !bytes.Equal(raw[0], want) {
			return ErrNotPinned
		}
		return nil
	}
}

// proof is the proof that one end of the TLS session cs knows secret.
func proof(secret, role string, cs tls.ConnectionState) ([]byte, error) {
	ekm, err := cs.ExportKeyingMaterial(exporterLabel, nil, 32)
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(role))
	m.Write(ekm)
	return m.Sum(nil), nil
}

// dial connects to the owner process to and authenticates the connection
// both ways.
func (r *Router) dial(ctx context.Context, to store.Route) (*tls.Conn, error) {
	if len(to.Certificate) == 0 {
		return nil, fmt.Errorf("routing: process %s published no certificate", to.Process)
	}
	ctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
	defer cancel()
	secrets, err := store.ClusterSecrets(ctx, r.cfg.DB)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{}
	raw, err := d.DialContext(ctx, "tcp", to.Address)
	if err != nil {
		return nil, err
	}
	conn := tls.Client(raw, clientConfig(r.cert, to.Certificate))
	if err := clientHandshake(ctx, conn, secrets[0]); err != nil {
		conn.Close()
		return nil, fmt.Errorf("routing: %s: %w", to.Address, err)
	}
	return conn, nil
}

// clientConfig is the TLS configuration of a client with the certificate
// cert, of a server whose certificate must be pin.
func clientConfig(cert tls.Certificate, pin []byte) *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{cert},
		// The server's certificate is pinned instead of verified by a
		// chain.
		InsecureSkipVerify:    true,
		VerifyPeerCertificate: pinned(pin),
	}
}

// clientHandshake runs TLS on conn, then proves secret and checks that the
// server proves it too.
func clientHandshake(ctx context.Context, conn *tls.Conn, secret string) error {
	if d, ok := ctx.Deadline(); ok {
		conn.SetDeadline(d)
		defer conn.SetDeadline(time.Time{})
	}
	if err := conn.HandshakeContext(ctx); err != nil {
		return err
	}
	cs := conn.ConnectionState()
	mine, err := proof(secret, roleClient, cs)
	if err != nil {
		return err
	}
	if _, err := conn.Write(mine); err != nil {
		return err
	}
	theirs := make([]byte, sha256.Size)
	if _, err := io.ReadFull(conn, theirs); err != nil {
		// A server that refused the client's certificate or proof closes
		// the connection.
		return fmt.Errorf("%w (%w)", ErrNotAuthenticated, err)
	}
	want, err := proof(secret, roleServer, cs)
	if err != nil {
		return err
	}
	if !hmac.Equal(theirs, want) {
		return ErrNotAuthenticated
	}
	return nil
}

// serverHandshake runs TLS on conn, accepted by this process, checks the
// client's certificate and proof of the secret, and proves the secret in
// turn.
func (r *Router) serverHandshake(conn net.Conn) (*tls.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), handshakeTimeout)
	defer cancel()
	conn.SetDeadline(time.Now().Add(handshakeTimeout))
	defer conn.SetDeadline(time.Time{})
	tc := tls.Server(conn, &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{r.cert},
		ClientAuth:   tls.RequireAnyClientCert,
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) != 1 {
				return ErrNotPinned
			}
			c, err := x509.ParseCertificate(raw[0])
			if err != nil {
				return err
			}
			want, err := store.ProcessCertificate(ctx, r.cfg.DB, c.Subject.CommonName)
			if errors.Is(err, store.ErrNotFound) {
				return ErrNotPinned
			}
			if err != nil {
				return err
			}
			return pinned(want)(raw, nil)
		},
	})
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, err
	}
	cs := tc.ConnectionState()
	theirs := make([]byte, sha256.Size)
	if _, err := io.ReadFull(tc, theirs); err != nil {
		return nil, err
	}
	secrets, err := store.ClusterSecrets(ctx, r.cfg.DB)
	if err != nil {
		return nil, err
	}
	for _, secret := range secrets {
		want, err := proof(secret, roleClient, cs)
		if err != nil {
			return nil, err
		}
		if hmac.Equal(theirs, want) {
			mine, err := proof(secret, roleServer, cs)
			if err != nil {
				return nil, err
			}
			_, err = tc.Write(mine)
			return tc, err
		}
	}
	return nil, ErrNotAuthenticated
}

// maxHandshakes bounds the connections being authenticated at once: a
// connection that comes while so many are is closed at once. Processes
// make one connection to each other and keep it, so the bound is for
// whoever else reaches the listener.
const maxHandshakes = 64

// refusalsLogEvery is how often at most a refused connection is logged.
const refusalsLogEvery = 10 * time.Second

// Accept's errors are retried after firstAcceptRetry, each error in a row
// doubling the wait, up to lastAcceptRetry, as net/http's Server.Serve
// does: running out of file descriptors (EMFILE) must not end serving.
const (
	firstAcceptRetry = 5 * time.Millisecond
	lastAcceptRetry  = time.Second
)

// accept serves the connections of other processes until the router is
// closed.
func (r *Router) accept() {
	var retry time.Duration
	for {
		conn, err := r.ln.Accept()
		if err != nil {
			select {
			case <-r.ctx.Done():
				return
			default:
			}
			r.acceptErrors.Add(1)
			retry = min(max(2*retry, firstAcceptRetry), lastAcceptRetry)
			if ok, left := r.refusals.allow(time.Now()); ok {
				r.log.Warn("routing: unable to accept a connection; retrying", "in", retry, "err", err, "not_logged", left)
			}
			select {
			case <-time.After(retry):
				continue
			case <-r.ctx.Done():
				return
			}
		}
		retry = 0
		select {
		case r.handshakes <- struct{}{}:
		default:
			r.refuse(conn, fmt.Errorf("routing: %d connections are being authenticated already", maxHandshakes))
			conn.Close()
			continue
		}
		r.connsMu.Lock()
		if r.closed {
			r.connsMu.Unlock()
			conn.Close()
			<-r.handshakes
			return
		}
		r.conns[conn] = struct{}{}
		r.connsMu.Unlock()
		r.running.Go(func() {
			defer func() {
				r.connsMu.Lock()
				delete(r.conns, conn)
				r.connsMu.Unlock()
				conn.Close()
			}()
			tc, err := r.serverHandshake(conn)
			<-r.handshakes
			if err != nil {
				r.refuse(conn, err)
				return
			}
			r.server.ServeCodec(newServerCodec(tc))
		})
	}
}

// refuse counts and logs, at a bounded rate, the refusal of conn.
func (r *Router) refuse(conn net.Conn, err error) {
	r.refused.Add(1)
	if ok, left := r.refusals.allow(time.Now()); ok {
		r.log.Warn("routing: refused a connection", "from", conn.RemoteAddr().String(), "err", err, "not_logged", left)
	}
}

// A rateLog lets a line be logged at most once every so often, and counts
// the lines it kept back since the last one.
type rateLog struct {
	every time.Duration
	mu    sync.Mutex
	last  time.Time
	left  int
}

// allow reports whether a line may be logged at now, and how many were
// kept back since the last one.
func (l *rateLog) allow(now time.Time) (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() && now.Sub(l.last) < l.every {
		l.left++
		return false, 0
	}
	left := l.left
	l.last, l.left = now, 0
	return true, left
}

// claims is the service other processes call.
type claims struct{ r *Router }

// Claim makes a forwarded claim here.
func (c *claims) Claim(in Claim, out *Answer) error {
	r := c.r
	timeout := in.Timeout
	if timeout <= 0 || timeout > forwardTimeout {
		timeout = forwardTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	*out = r.cfg.Handle(ctx, in)
	peer, err := r.owner(ctx, in.PoolUID)
	out.Owner = err == nil && peer.Process == ""
	r.served.Add(1)
	return nil
}

// call sends c to the process to.
func (r *Router) call(ctx context.Context, to store.Route, c Claim) (Answer, error) {
	client, err := r.client(ctx, to)
	if err != nil {
		return Answer{}, err
	}
	var a Answer
	call := client.Go("Claims.Claim", c, &a, make(chan *rpc.Call, 1))
	select {
	case <-call.Done:
		return a, call.Error
	case <-ctx.Done():
		return Answer{}, ctx.Err()
	}
}

// A peerConn is the connection to another process.
type peerConn struct {
	// dialled is closed once the connection is made, or failed (err).
	dialled chan struct{}
	client  *rpc.Client
	err     error
}

// close closes the connection, if it was made.
func (p *peerConn) close() {
	select {
	case <-p.dialled:
		if p.client != nil {
			p.client.Close()
		}
	default:
	}
}

// client returns the connection to the process to, dialling it on first
// use: the claims that need it meanwhile wait for that dial (or their
// ctx), and the claims to other processes wait for nothing.
func (r *Router) client(ctx context.Context, to store.Route) (*rpc.Client, error) {
	r.peersMu.Lock()
	if r.peers == nil {
		r.peersMu.Unlock()
		return nil, errClosed
	}
	p, ok := r.peers[to.Process]
	if !ok {
		p = &peerConn{dialled: make(chan struct{})}
		r.peers[to.Process] = p
		r.dials.Go(func() { r.connect(p, to) })
	}
	r.peersMu.Unlock()
	select {
	case <-p.dialled:
		return p.client, p.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// connect dials the process to for p, which is forgotten when that fails
// or when it was dropped meanwhile.
func (r *Router) connect(p *peerConn, to store.Route) {
	conn, err := r.dial(r.ctx, to)
	r.peersMu.Lock()
	defer r.peersMu.Unlock()
	dropped := r.peers[to.Process] != p
	switch {
	case err != nil:
		p.err = err
	case dropped:
		conn.Close()
		p.err = fmt.Errorf("routing: the connection to %s was dropped while it was made", to.Address)
	default:
		p.client = rpc.NewClientWithCodec(newClientCodec(conn))
	}
	if p.err != nil && !dropped {
		delete(r.peers, to.Process)
	}
	close(p.dialled)
}

// dropPeer closes the connection to the process, or forgets it while it is
// being dialled.
func (r *Router) dropPeer(process string) {
	r.peersMu.Lock()
	defer r.peersMu.Unlock()
	if p, ok := r.peers[process]; ok {
		p.close()
		delete(r.peers, process)
	}
}
