package pgtest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"pivirt.hu/ipam/internal/store"
)

// A Proxy stands between a test's connections and the database server, on
// a loopback port, and forwards PostgreSQL's wire protocol. It can hold
// back one statement, or the server's answer to it, until the test lets it
// go: so a test forces the interleaving of transactions that a race needs,
// instead of hoping for it.
type Proxy struct {
	t      testing.TB
	target url.URL // the server's URL
	ln     net.Listener

	mu    sync.Mutex
	holds []*Hold
	conns []net.Conn
	// stalled holds every statement back (see Stall): the holds made so.
	stalled []*Hold
	stall   bool

	// statements counts the statements run through the proxy.
	statements atomic.Int64
}

// A Hold is a statement held back by a Proxy: the first statement whose
// SQL text contains the Hold's text, on any connection of the proxy.
type Hold struct {
	text   string
	answer bool // hold the server's answer rather than the statement

	reached  chan struct{} // closed when the statement (or its answer) is held
	released chan struct{} // closed by Release
	once     sync.Once
}

// Reached is closed once the statement is held: before the server saw it,
// or, for HoldAnswer, once the server executed it and its answer is held.
func (h *Hold) Reached() <-chan struct{} { return h.reached }

// Release lets the held statement (or answer) go on. It is safe to call
// more than once, and before the statement is reached (it then passes
// unheld).
func (h *Hold) Release() { h.once.Do(func() { close(h.released) }) }

// NewProxy starts a proxy to the database of url (a URL from NewURL) and
// returns it with the URL that connects through it. It stops when the test
// ends; its held statements are released then.
func NewProxy(t testing.TB, dbURL string) (*Proxy, string) {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil || u.Scheme != "postgres" && u.Scheme != "postgresql" {
		t.Fatalf("pgtest: the proxy needs a postgres:// URL, not %s", store.RedactURL(dbURL))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{t: t, target: *u, ln: ln}
	go p.accept()
	t.Cleanup(p.close)

	through := *u
	q := through.Query()
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	through.Host = ""
	q.Set("host", host)
	q.Set("port", port)
	q.Set("sslmode", "disable")
	through.RawQuery = q.Encode()
	return p, through.String()
}

// Hold holds back, before the server runs it, the next statement whose SQL
// contains text: a simple query, or the Bind that runs a statement parsed
// on the connection, whether it was prepared for this run or once for
// all.
func (p *Proxy) Hold(text string) *Hold { return p.add(text, false) }

// Statements returns how many statements ran through the proxy so far:
// each simple query and each execution of a prepared or unnamed statement
// (BEGIN and COMMIT count as one each).
func (p *Proxy) Statements() int64 { return p.statements.Load() }

// HoldAnswer lets the next statement whose SQL contains text run, and holds
// back the server's answer to it: the statement's snapshot is taken, the
// client does not know the result yet.
func (p *Proxy) HoldAnswer(text string) *Hold { return p.add(text, true) }

// Stall holds back every statement from now on, on every connection, old
// or new, as a server behind a dead link answers none; they are let go
// when the test ends.
func (p *Proxy) Stall() {
	p.mu.Lock()
	p.stall = true
	p.mu.Unlock()
}

func newHold(text string, answer bool) *Hold {
	return &Hold{text: text, answer: answer, reached: make(chan struct{}), released: make(chan struct{})}
}

func (p *Proxy) add(text string, answer bool) *Hold {
	h := newHold(text, answer)
	p.mu.Lock()
	p.holds = append(p.holds, h)
	p.mu.Unlock()
	return h
}

// stallHold returns a new hold of sql when the proxy stalls, else nil.
func (p *Proxy) stallHold(sql string) *Hold {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stall {
		return nil
	}
	h := newHold(sql, false)
	p.stalled = append(p.stalled, h)
	return h
}

// match returns the first hold whose text sql contains, and forgets it;
// a new hold of sql when the proxy stalls.
func (p *Proxy) match(sql string) *Hold {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stall {
		h := newHold(sql, false)
		p.stalled = append(p.stalled, h)
		return h
	}
	for i, h := range p.holds {
		if strings.Contains(sql, h.text) {
			p.holds = append(p.holds[:i], p.holds[i+1:]...)
			return h
		}
	}
	return nil
}

func (p *Proxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for _, h := range append(p.holds, p.stalled...) {
		h.Release()
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
}

func (p *Proxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := p.dial()
		if err != nil {
			p.t.Errorf("pgtest: the proxy cannot reach the server: %v", err)
			client.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, client, server)
		p.mu.Unlock()
		c := &proxyConn{proxy: p, client: client, server: server, answers: make(chan *Hold, 1)}
		go c.toServer()
		go c.toClient()
	}
}

// dial connects to the server as the URL says: a unix socket when its host
// is a folder, TCP otherwise.
func (p *Proxy) dial() (net.Conn, error) {
	q := p.target.Query()
	host, port := q.Get("host"), q.Get("port")
	if host == "" {
		host = p.target.Hostname()
	}
	if port == "" {
		port = p.target.Port()
	}
	if port == "" {
		port = "5432"
	}
	if strings.HasPrefix(host, "/") {
		return net.Dial("unix", filepath.Join(host, ".s.PGSQL."+port))
	}
	if host == "" {
		host = "localhost"
	}
	return net.Dial("tcp", net.JoinHostPort(host, port))
}

// proxyConn is one client's connection through the proxy.
type proxyConn struct {
	proxy          *Proxy
	client, server net.Conn
	// answers passes to toClient the hold of an answer: the next bytes
	// from the server answer the held statement.
	answers chan *Hold
}

// toServer forwards the client's messages, holding a statement that
// matches a hold.
func (c *proxyConn) toServer() {
	defer c.server.Close()
	r := io.Reader(c.client)
	// The startup phase: untyped messages (an SSL or GSS request, then
	// the startup message), then typed ones.
	for {
		msg, err := readMessage(r, false)
		if err != nil {
			return
		}
		if _, err := c.server.Write(msg); err != nil {
			return
		}
		if code := binary.BigEndian.Uint32(msg[4:8]); code != 80877103 && code != 80877104 {
			break
		}
	}
	var answer *Hold // an answer hold matched by a Bind, armed by Execute
	// parsed are the texts of the statements the client prepared on this
	// connection, by name ("" the unnamed one): a statement prepared once
	// is run by a Bind of its name, which holds match.
	parsed := map[string]string{}
	for {
		msg, err := readMessage(r, true)
		if err != nil {
			return
		}
		if msg[0] == 'Q' || msg[0] == 'E' {
			c.proxy.statements.Add(1)
		}
		var text string
		switch msg[0] {
		case 'P':
			name, query := parseMessage(msg)
			parsed[name] = query
			if h := c.proxy.stallHold(query); h != nil {
				close(h.reached)
				<-h.released
			}
		case 'Q':
			text = statementText(msg)
		case 'B':
			text = parsed[bindStatement(msg)]
		case 'E':
			if answer != nil {
				c.answers <- answer
				answer = nil
			}
		}
		if msg[0] == 'Q' || msg[0] == 'B' {
			if h := c.proxy.match(text); h != nil {
				if h.answer && msg[0] == 'B' {
					answer = h
				} else if h.answer {
					c.answers <- h
				} else {
					close(h.reached)
					<-h.released
				}
			}
		}
		if _, err := c.server.Write(msg); err != nil {
			return
		}
	}
}

// toClient forwards the server's answers, holding one when toServer armed
// a hold: the bytes that follow the statement are its answer.
func (c *proxyConn) toClient() {
	defer c.client.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := c.server.Read(buf)
		if n > 0 {
			select {
			case h := <-c.answers:
				close(h.reached)
				<-h.released
			default:
			}
			if _, werr := c.client.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// readMessage reads one protocol message: a type byte (typed) and a length
// that counts itself.
func readMessage(r io.Reader, typed bool) ([]byte, error) {
	head := 4
	if typed {
		head = 5
	}
	msg := make([]byte, head)
	if _, err := io.ReadFull(r, msg); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(msg[head-4:])
	if n < 4 || n > 1<<30 {
		return nil, fmt.Errorf("pgtest: a message of %d bytes", n)
	}
	msg = append(msg, make([]byte, n-4)...)
	_, err := io.ReadFull(r, msg[head:])
	return msg, err
}

// statementText returns the SQL of a Query message.
func statementText(msg []byte) string {
	text, _ := cstring(msg[5:])
	return text
}

// parseMessage returns the name and the SQL of a Parse message.
func parseMessage(msg []byte) (name, text string) {
	name, rest := cstring(msg[5:])
	text, _ = cstring(rest)
	return name, text
}

// bindStatement returns the name of the statement a Bind message runs.
func bindStatement(msg []byte) string {
	_, rest := cstring(msg[5:]) // the portal
	name, _ := cstring(rest)
	return name
}

// cstring splits a NUL-terminated string off the front of b.
func cstring(b []byte) (string, []byte) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return string(b), nil
	}
	return string(b[:i]), b[i+1:]
}
