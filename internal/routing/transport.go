package routing

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/rpc"
	"time"
)

// handshakeTimeout bounds the authentication of a connection.
const handshakeTimeout = 5 * time.Second

// ErrNotAuthenticated means that the other end of a route connection does
// not know the cluster secret: it serves another database, or is no ipam.
var ErrNotAuthenticated = errors.New("routing: the other process does not know this database's cluster secret")

// A connection is authenticated both ways before anything is sent: each
// end sends a random nonce, then proves it knows the secret by the HMAC of
// the other's nonce with its role. The server answers only once the
// client has proven it.
const (
	nonceSize  = 32
	roleClient = "ipam route client"
	roleServer = "ipam route server"
)

// nonce returns nonceSize random bytes.
func nonce() []byte {
	b := make([]byte, nonceSize)
	rand.Read(b)
	return b
}

func (r *Router) mac(role string, nonce []byte) []byte {
	m := hmac.New(sha256.New, r.secret)
	m.Write([]byte(role))
	m.Write(nonce)
	return m.Sum(nil)
}

// clientHandshake authenticates conn, dialled by this process.
func (r *Router) clientHandshake(conn net.Conn) error {
	conn.SetDeadline(time.Now().Add(handshakeTimeout))
	defer conn.SetDeadline(time.Time{})
	mine := nonce()
	theirs := make([]byte, nonceSize)
	proof := make([]byte, sha256.Size)
	if _, err := conn.Write(mine); err != nil {
		return err
	}
	if _, err := io.ReadFull(conn, theirs); err != nil {
		return err
	}
	if _, err := conn.Write(r.mac(roleClient, theirs)); err != nil {
		return err
	}
	if _, err := io.ReadFull(conn, proof); err != nil {
		return ErrNotAuthenticated
	}
	if !hmac.Equal(proof, r.mac(roleServer, mine)) {
		return ErrNotAuthenticated
	}
	return nil
}

// serverHandshake authenticates conn, accepted by this process.
func (r *Router) serverHandshake(conn net.Conn) error {
	conn.SetDeadline(time.Now().Add(handshakeTimeout))
	defer conn.SetDeadline(time.Time{})
	theirs := make([]byte, nonceSize)
	mine := nonce()
	proof := make([]byte, sha256.Size)
	if _, err := io.ReadFull(conn, theirs); err != nil {
		return err
	}
	if _, err := conn.Write(mine); err != nil {
		return err
	}
	if _, err := io.ReadFull(conn, proof); err != nil {
		return err
	}
	if !hmac.Equal(proof, r.mac(roleClient, mine)) {
		return ErrNotAuthenticated
	}
	_, err := conn.Write(r.mac(roleServer, theirs))
	return err
}

// accept serves the connections of other processes until the listener is
// closed.
func (r *Router) accept() {
	for {
		conn, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.connsMu.Lock()
		if r.closed {
			r.connsMu.Unlock()
			conn.Close()
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
			if err := r.serverHandshake(conn); err != nil {
				r.log.Warn("routing: refused a connection", "from", conn.RemoteAddr().String(), "err", err)
				return
			}
			r.server.ServeConn(conn)
		})
	}
}

// claims is the service other processes call.
type claims struct{ r *Router }

// Claim makes a forwarded claim here.
func (c *claims) Claim(in Claim, out *Answer) error {
	r := c.r
	deadline := in.Deadline
	if deadline.IsZero() {
		deadline = time.Now().Add(callTimeout)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	*out = r.cfg.Handle(ctx, in)
	peer, err := r.owner(ctx, in.PoolUID)
	out.Owner = err == nil && peer == ""
	r.served.Add(1)
	return nil
}

// call sends c to the process at addr.
func (r *Router) call(ctx context.Context, addr string, c Claim) (Answer, error) {
	client, err := r.client(ctx, addr)
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

// client returns the connection to addr, dialling it on first use.
func (r *Router) client(ctx context.Context, addr string) (*rpc.Client, error) {
	r.peersMu.Lock()
	defer r.peersMu.Unlock()
	if c, ok := r.peers[addr]; ok {
		return c, nil
	}
	d := net.Dialer{Timeout: handshakeTimeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if err := r.clientHandshake(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("routing: %s: %w", addr, err)
	}
	c := rpc.NewClient(conn)
	r.peers[addr] = c
	return c, nil
}

// dropPeer closes the connection to addr.
func (r *Router) dropPeer(addr string) {
	r.peersMu.Lock()
	defer r.peersMu.Unlock()
	if c, ok := r.peers[addr]; ok {
		c.Close()
		delete(r.peers, addr)
	}
}
