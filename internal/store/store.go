// Package store holds every SQL statement of PiVirt IPAM: it opens the
// PostgreSQL database, keeps its schema up to date and reads and writes its
// rows.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// A DB is the database: its pool of connections, whose methods it has, and
// the statements prepared on it. Open returns one; Close closes both.
type DB struct {
	*sqlx.DB
	// pooled says that the connections go through a connection pooler in
	// transaction mode (OpenPooled): nothing is prepared on them.
	pooled bool
	// claim is the claim of an address (insertAllocationSQL), prepared on
	// first use.
	claim atomic.Pointer[sqlx.Stmt]
	// claimMany is the claim of many addresses (insertAllocationsSQL).
	claimMany atomic.Pointer[sqlx.Stmt]
	// statements are the statements of branches and objects run most
	// (reads by id, a branch locked, a version written), prepared on first
	// use, by their text.
	statements sync.Map // string → *sqlx.Stmt
}

// A Tx is a transaction of a DB (see InTx).
type Tx struct {
	*sqlx.Tx
	db *DB
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
	return open(ctx, url, false)
}

// OpenPooled connects as Open does to url, a connection pooler in
// transaction mode (PgBouncer's pool_mode = transaction) in front of the
// database: each transaction, and each statement outside one, may run on
// another server connection. So nothing lives longer than a transaction:
// no statement is prepared by name (each is sent with its arguments in one
// round trip, lib/pq's binary_parameters) and no session setting is made.
// Instead, a new connection checks that the database's
// default_transaction_isolation is READ COMMITTED (pooledConnectionCheck);
// statement_timeout is the role's or the database's. Notifications cannot
// go through such a pooler: Listen needs a URL of the server itself.
func OpenPooled(ctx context.Context, url string) (*DB, error) {
	return open(ctx, url, true)
}

func open(ctx context.Context, url string, pooled bool) (*DB, error) {
	cfg, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	setup := connectionSetup
	if pooled {
		cfg.BinaryParameters = true
		setup = pooledConnectionCheck
	}
	connector, err := pq.NewConnectorConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the database URL %s: %w", RedactURL(url), err)
	}
	connector.Dialer(newDialer())
	db := New(sqlx.NewDb(sql.OpenDB(boundedConnector{Connector: connector, setup: setup}), "postgres"))
	db.pooled = pooled

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
	for _, slot := range []*atomic.Pointer[sqlx.Stmt]{&db.claim, &db.claimMany} {
		if stmt := slot.Swap(nil); stmt != nil {
			stmt.Close()
		}
	}
	db.statements.Range(func(query, stmt any) bool {
		db.statements.Delete(query)
		stmt.(*sqlx.Stmt).Close()
		return true
	})
	return db.DB.Close()
}

// prepared returns the statement query prepared on db, in slot, preparing
// it on first use; database/sql prepares it again on each connection that
// runs it. Through a connection pooler it returns nil: run query itself.
func (db *DB) prepared(ctx context.Context, slot *atomic.Pointer[sqlx.Stmt], query string) (*sqlx.Stmt, error) {
	if db.pooled {
		return nil, nil
	}
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

// statement returns query prepared on db, preparing it on first use;
// database/sql prepares it again on each connection that runs it. Through
// a connection pooler it returns nil: run query itself.
func (db *DB) statement(ctx context.Context, query string) (*sqlx.Stmt, error) {
	if db.pooled {
		return nil, nil
	}
	if stmt, ok := db.statements.Load(query); ok {
		return stmt.(*sqlx.Stmt), nil
	}
	stmt, err := db.PreparexContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if prev, loaded := db.statements.LoadOrStore(query, stmt); loaded {
		stmt.Close()
		return prev.(*sqlx.Stmt), nil
	}
	return stmt, nil
}

// preparedIn returns query prepared on q's database and run by q (a *DB,
// or a *Tx of InTx), or nil: a prepared statement runs in one round trip
// where an unprepared one with arguments takes two (but through a
// connection pooler, where nothing is prepared, lib/pq's binary_parameters
// sends it in one). A *DB prepares it on
// first use; a *Tx uses it only when it is prepared already (see
// PrepareStatements), as preparing needs a connection of the pool besides
// the transaction's, which a pool busy with transactions could not give.
func preparedIn(ctx context.Context, q sqlx.QueryerContext, query string) (*sqlx.Stmt, error) {
	switch q := q.(type) {
	case *DB:
		return q.statement(ctx, query)
	case *Tx:
		if q.db == nil {
			return nil, nil
		}
		stmt, ok := q.db.statements.Load(query)
		if !ok {
			return nil, nil
		}
		return q.StmtxContext(ctx, stmt.(*sqlx.Stmt)), nil
	}
	return nil, nil
}

// PrepareStatements prepares the statements that reads and writes of
// objects and branches run most, for the transactions to use (see
// preparedIn). Call it once the database is migrated.
func PrepareStatements(ctx context.Context, db *DB) error {
	if db.pooled {
		return nil
	}
	queries := []string{objectOnMainSQL, objectOnBranchSQL, objectsOnMainSQL, objectsOnBranchSQL, heldAtPointSQL, branchSQL}
	queries = append(queries, numberStatements...)
	for _, lock := range []BranchLock{ShareBranch, ExclusiveBranch} {
		queries = append(queries, lockBranchSQL(lock, false), lockBranchSQL(lock, true))
	}
	for _, onMain := range []bool{true, false} {
		queries = append(queries, writeVersionSQL(onMain, true), writeVersionSQL(onMain, false))
	}
	for _, q := range queries {
		if _, err := db.statement(ctx, q); err != nil {
			return fmt.Errorf("store: unable to prepare the statements of objects: %w", classify(err))
		}
	}
	return nil
}

// getPrepared reads one row of query into dest through the statement
// prepared once (see preparedIn).
func getPrepared(ctx context.Context, q sqlx.QueryerContext, dest any, query string, args ...any) error {
	stmt, err := preparedIn(ctx, q, query)
	switch {
	case err != nil:
		return err
	case stmt == nil:
		return sqlx.GetContext(ctx, q, dest, query, args...)
	}
	return stmt.GetContext(ctx, dest, args...)
}

// selectPrepared reads every row of query into dest through the statement
// prepared once (see preparedIn).
func selectPrepared(ctx context.Context, q sqlx.QueryerContext, dest any, query string, args ...any) error {
	stmt, err := preparedIn(ctx, q, query)
	switch {
	case err != nil:
		return err
	case stmt == nil:
		return sqlx.SelectContext(ctx, q, dest, query, args...)
	}
	return stmt.SelectContext(ctx, dest, args...)
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
