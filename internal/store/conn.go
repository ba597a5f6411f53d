package store

import (
	"context"
	"database/sql/driver"
	"net"
	"time"
)

// connectTimeout bounds how long setting up a connection may take: the
// TCP or unix socket connection, TLS, authentication and connectionSetup.
const connectTimeout = 10 * time.Second

// cancelGrace is how long a statement may go on after its context's
// deadline before its connection gives up on the server: long enough for
// lib/pq's cancel request to reach a server that answers, which then ends
// the statement itself; a server that does not answer is given up on then.
const cancelGrace = time.Second

// dialedKey is the context key under which boundedConnector asks the
// dialer for the network connection it makes (a *net.Conn to fill).
type dialedKey struct{}

// boundedConnector opens connections set up by connectionSetup (READ
// COMMITTED, DefaultStatementTimeout), or checked by pooledConnectionCheck
// (through a connection pooler), within connectTimeout, or the
// context's deadline when sooner, as boundedConns; any failure to connect
// is classified.
type boundedConnector struct {
	driver.Connector
	setup string // connectionSetup, or pooledConnectionCheck
}

func (c boundedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	var dialed net.Conn
	conn, err := c.Connector.Connect(context.WithValue(ctx, dialedKey{}, &dialed))
	if err != nil {
		return nil, classify(err)
	}
	bc := &boundedConn{Conn: conn, net: dialed}
	if err := bc.setUp(ctx, c.setup); err != nil {
		conn.Close()
		return nil, err
	}
	return bc, nil
}

// A boundedConn is a connection of lib/pq whose every statement gives up
// on the server cancelGrace after the deadline of its context, by the
// deadline of the network connection: lib/pq sends a cancel request when
// the context ends, but waits without a bound for a server that accepted
// the connection and never answers (a dead link, a stopped host), and so
// would the caller, whatever its context says.
//
// The deadline is set when a statement starts and stays while its rows are
// read and its transaction ends; the next statement sets its own.
type boundedConn struct {
	driver.Conn
	net net.Conn // nil when lib/pq did not dial through dialer
}

// The interfaces of lib/pq's connection that database/sql uses.
var (
	_ driver.QueryerContext     = (*boundedConn)(nil)
	_ driver.ExecerContext      = (*boundedConn)(nil)
	_ driver.ConnPrepareContext = (*boundedConn)(nil)
	_ driver.ConnBeginTx        = (*boundedConn)(nil)
	_ driver.Pinger             = (*boundedConn)(nil)
	_ driver.SessionResetter    = (*boundedConn)(nil)
	_ driver.Validator          = (*boundedConn)(nil)
	_ driver.NamedValueChecker  = (*boundedConn)(nil)
)

// bound gives the network connection the deadline of a statement run
// under ctx: cancelGrace after ctx's, or none.
func (c *boundedConn) bound(ctx context.Context) error {
	if c.net == nil {
		return nil
	}
	var deadline time.Time
	if d, ok := ctx.Deadline(); ok {
		deadline = d.Add(cancelGrace)
	}
	if err := c.net.SetDeadline(deadline); err != nil {
		return driver.ErrBadConn
	}
	return nil
}

func (c *boundedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if err := c.bound(ctx); err != nil {
		return nil, err
	}
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
}

func (c *boundedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if err := c.bound(ctx); err != nil {
		return nil, err
	}
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

func (c *boundedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := c.bound(ctx); err != nil {
		return nil, err
	}
	stmt, err := c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return boundedStmt{Stmt: stmt, conn: c}, nil
}

func (c *boundedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if err := c.bound(ctx); err != nil {
		return nil, err
	}
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *boundedConn) Ping(ctx context.Context) error {
	if err := c.bound(ctx); err != nil {
		return err
	}
	return c.Conn.(driver.Pinger).Ping(ctx)
}

func (c *boundedConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c *boundedConn) IsValid() bool {
	return c.Conn.(driver.Validator).IsValid()
}

func (c *boundedConn) CheckNamedValue(nv *driver.NamedValue) error {
	return c.Conn.(driver.NamedValueChecker).CheckNamedValue(nv)
}

// A boundedStmt is a prepared statement of a boundedConn, bound as its
// other statements are.
type boundedStmt struct {
	driver.Stmt
	conn *boundedConn
}

var (
	_ driver.StmtQueryContext = boundedStmt{}
	_ driver.StmtExecContext  = boundedStmt{}
)

func (s boundedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if err := s.conn.bound(ctx); err != nil {
		return nil, err
	}
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}

func (s boundedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if err := s.conn.bound(ctx); err != nil {
		return nil, err
	}
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}
