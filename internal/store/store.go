// Package store holds every SQL statement of PiVirt IPAM: it opens the
// PostgreSQL database, keeps its schema up to date and reads and writes its
// rows.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// A DB is the database: its pool of connections, whose methods it has, and
// the statements prepared on it. Open returns one; Close closes both.
type DB struct {
	*sqlx.DB
	// claim is the claim of an address (insertAllocationSQL), prepared on
	// first use.
	claim atomic.Pointer[sqlx.Stmt]
	// objectOnMain and objectOnBranch are the reads of an object by id
	// (objectOnMainSQL, objectOnBranchSQL), prepared on first use.
	objectOnMain, objectOnBranch atomic.Pointer[sqlx.Stmt]
}

// A Tx is a transaction of a DB (see InTx).
type Tx struct {
	*sqlx.Tx
}

// An Ext runs statements: a *DB, where each is a transaction of its own, or
// a *Tx.
type Ext interface {
	sqlx.ExtContext
}

var (
	_ Ext = (*DB)(nil)
	_ Ext = (*Tx)(nil)
)

// MaxOpenConns is the size of each process's connection pool.
const MaxOpenConns = 20

// Open connects to the PostgreSQL database at url, a lib/pq URL or DSN.
// Its connections bound their statements by DefaultStatementTimeout unless
// the URL, the role, the database or the server sets a statement_timeout,
// and give up on a server that does not answer by the deadline of the
// statement's context (see boundedConn).
func Open(ctx context.Context, url string) (*DB, error) {
	connector, err := pq.NewConnector(url)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the database URL: %w", err)
	}
	connector.Dialer(newDialer())
	db := New(sqlx.NewDb(sql.OpenDB(boundedConnector{connector}), "postgres"))

	db.SetMaxOpenConns(MaxOpenConns)
	db.SetMaxIdleConns(MaxOpenConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	db.SetConnMaxLifetime(time.Hour)

	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: unable to connect to the database: %w", classify(err))
	}
	return db, nil
}

// New returns the DB of a pool opened elsewhere (the benchmark's, which
// counts the statements it sends). Open's pool is the one to serve with.
func New(db *sqlx.DB) *DB {
	return &DB{DB: db}
}

// Close closes the prepared statements and the pool.
func (db *DB) Close() error {
	for _, slot := range []*atomic.Pointer[sqlx.Stmt]{&db.claim, &db.objectOnMain, &db.objectOnBranch} {
		if stmt := slot.Swap(nil); stmt != nil {
			stmt.Close()
		}
	}
	return db.DB.Close()
}

// prepared returns the statement query prepared on db, in slot, preparing
// it on first use; database/sql prepares it again on each connection that
// runs it.
func (db *DB) prepared(ctx context.Context, slot *atomic.Pointer[sqlx.Stmt], query string) (*sqlx.Stmt, error) {
	if stmt := slot.Load(); stmt != nil {
		return stmt, nil
	}
	stmt, err := db.PreparexContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if !slot.CompareAndSwap(nil, stmt) {
		stmt.Close()
		return slot.Load(), nil
	}
	return stmt, nil
}

// getPrepared reads one row of query into dest: through the statement
// prepared in slot(db) when q is a *DB, else as it is (in a transaction).
func getPrepared(ctx context.Context, q sqlx.QueryerContext, slot func(*DB) *atomic.Pointer[sqlx.Stmt], dest any, query string, args ...any) error {
	db, ok := q.(*DB)
	if !ok {
		return sqlx.GetContext(ctx, q, dest, query, args...)
	}
	stmt, err := db.prepared(ctx, slot(db), query)
	if err != nil {
		return err
	}
	return stmt.GetContext(ctx, dest, args...)
}

// dialer bounds how long a connection attempt may take, so that a database
// that accepts nothing makes requests fail instead of hang, and keeps
// connections alive.
type dialer struct{ net.Dialer }

func newDialer() dialer {
	return dialer{net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second}}
}

func (d dialer) Dial(network, address string) (net.Conn, error) {
	return d.Dialer.Dial(network, address)
}

func (d dialer) DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	nd := d.Dialer
	nd.Timeout = min(timeout, nd.Timeout)
	return nd.Dial(network, address)
}

// DialContext connects within ctx and gives the connection ctx's deadline,
// by which lib/pq must have set it up (boundedConnector lifts it then) or,
// for a connection that sends a cancel request, be done with it. The
// connection is also put where boundedConnector asks (dialedKey).
func (d dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	conn, err := d.Dialer.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	if deadline, ok := ctx.Deadline(); ok {
		if err := conn.SetDeadline(deadline); err != nil {
			conn.Close()
			return nil, err
		}
	}
	if dialed, ok := ctx.Value(dialedKey{}).(*net.Conn); ok {
		*dialed = conn
	}
	return conn, nil
}
