package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"pivirt.hu/ipam/internal/pgembed"
	"pivirt.hu/ipam/internal/store"
)

// A database is the scratch database every measurement runs on: in a
// PostgreSQL of its own (durable settings, the defaults of a production
// server) or, with --database-url, in a database created for the run on
// that server and dropped after it.
type database struct {
	url     string // of the scratch database
	server  string // "PostgreSQL 15.x, fsync on, …", for the report
	cleanup func()
}

// openDatabase starts or connects to PostgreSQL, creates the scratch
// database and applies the product's migrations to it. A PostgreSQL of its
// own is durable unless fast (a smoke run, whose figures are not judged).
func openDatabase(ctx context.Context, serverURL string, fast bool, log *slog.Logger) (*database, error) {
	d := &database{cleanup: func() {}}
	var adminURL, name string
	if serverURL == "" {
		// /var/tmp: reachable by the postgres user, to whom pgembed hands
		// the folder when the bench runs as root; not a tmpfs, so commits
		// really reach the disk.
		dir, err := os.MkdirTemp("/var/tmp", "ipambench-")
		if err != nil {
			return nil, fmt.Errorf("unable to create a folder for PostgreSQL: %w", err)
		}
		if fast {
			progress("starting PostgreSQL in %s (fsync and synchronous_commit off: a smoke run)", dir)
		} else {
			progress("starting PostgreSQL in %s (durable: fsync and synchronous_commit on)", dir)
		}
		cluster, err := pgembed.Start(ctx, pgembed.Options{DataDir: dir, Fast: fast, Logger: log})
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		d.cleanup = func() {
			if err := cluster.Stop(); err != nil {
				progress("stopping PostgreSQL: %v", err)
			}
			os.RemoveAll(dir)
		}
		adminURL, name = cluster.URL("postgres"), "ipambench"
	} else {
		adminURL, name = serverURL, "ipambench_"+strings.ToLower(rand.Text()[:10])
	}
	admin, err := store.Open(ctx, adminURL)
	if err != nil {
		d.cleanup()
		return nil, err
	}
	defer admin.Close()
	if err := store.CreateDatabase(ctx, admin, name, ""); err != nil {
		d.cleanup()
		return nil, fmt.Errorf("unable to create the scratch database %s (the bench needs CREATEDB on --database-url's server): %w", name, err)
	}
	stop := d.cleanup
	d.cleanup = func() {
		if serverURL != "" {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if a, err := store.Open(ctx, adminURL); err == nil {
				if err := store.DropDatabase(ctx, a, name); err != nil {
					progress("dropping the scratch database %s: %v", name, err)
				}
				a.Close()
			}
		}
		stop()
	}
	if d.url, err = withDatabase(adminURL, name); err != nil {
		d.cleanup()
		return nil, err
	}
	db, err := store.Open(ctx, d.url)
	if err != nil {
		d.cleanup()
		return nil, err
	}
	defer db.Close()
	if _, err := store.Migrate(ctx, db); err != nil {
		d.cleanup()
		return nil, err
	}
	var version, fsync, syncCommit, walSync string
	err = db.QueryRowContext(ctx, `SELECT current_setting('server_version'), current_setting('fsync'),
		current_setting('synchronous_commit'), current_setting('wal_sync_method')`).Scan(&version, &fsync, &syncCommit, &walSync)
	if err != nil {
		d.cleanup()
		return nil, err
	}
	d.server = fmt.Sprintf("PostgreSQL %s, fsync %s, synchronous_commit %s, wal_sync_method %s", version, fsync, syncCommit, walSync)
	if !fast && (fsync != "on" || syncCommit != "on") {
		progress("warning: %s: commits are not durable, the floor and the claims are both cheaper than in production", d.server)
	}
	return d, nil
}

// withDatabase returns url (a URL or a key=value DSN) naming database name.
func withDatabase(dsn, name string) (string, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", fmt.Errorf("the database URL %s cannot be read", store.RedactURL(dsn))
		}
		u.Path = "/" + name
		return u.String(), nil
	}
	return dsn + " dbname=" + name, nil
}

// statements counts the statements sent through the databases the bench
// opens, so that a figure can say how many a claim costs.
var statements atomic.Int64

// openDB opens url with the connection pool of ipam serve (store.Open's
// settings) and counts every statement sent.
func openDB(ctx context.Context, dsn string) (*store.DB, error) {
	cfg, err := store.ParseURL(dsn)
	if err != nil {
		return nil, err
	}
	c, err := pq.NewConnectorConfig(cfg)
	if err != nil {
		return nil, err
	}
	db := sqlx.NewDb(sql.OpenDB(countingConnector{c}), "postgres")
	db.SetMaxOpenConns(store.MaxOpenConns)
	db.SetMaxIdleConns(store.MaxOpenConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	db.SetConnMaxLifetime(time.Hour)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return store.New(db), nil
}

type countingConnector struct{ driver.Connector }

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return countingConn{conn}, nil
}

// countingConn passes everything to lib/pq's connection, counting the
// statements. It implements the optional interfaces lib/pq's does.
type countingConn struct{ driver.Conn }

var errNotSupported = errors.New("ipambench: the driver does not support this")

func (c countingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	statements.Add(1)
	q, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	return q.QueryContext(ctx, query, args)
}

func (c countingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	statements.Add(1)
	e, ok := c.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	return e.ExecContext(ctx, query, args)
}

func (c countingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var st driver.Stmt
	var err error
	if p, ok := c.Conn.(driver.ConnPrepareContext); ok {
		st, err = p.PrepareContext(ctx, query)
	} else {
		st, err = c.Conn.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	return countingStmt{st}, nil
}

// countingStmt counts the executions of a prepared statement.
type countingStmt struct{ driver.Stmt }

func (s countingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	statements.Add(1)
	if e, ok := s.Stmt.(driver.StmtExecContext); ok {
		return e.ExecContext(ctx, args)
	}
	return nil, errNotSupported
}

func (s countingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	statements.Add(1)
	if q, ok := s.Stmt.(driver.StmtQueryContext); ok {
		return q.QueryContext(ctx, args)
	}
	return nil, errNotSupported
}

func (s countingStmt) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := s.Stmt.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

func (c countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	statements.Add(1) // BEGIN; COMMIT or ROLLBACK are counted by countingTx
	b, ok := c.Conn.(driver.ConnBeginTx)
	if !ok {
		return nil, errNotSupported
	}
	tx, err := b.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return countingTx{tx}, nil
}

func (c countingConn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c countingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c countingConn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c countingConn) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := c.Conn.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

type countingTx struct{ driver.Tx }

func (t countingTx) Commit() error {
	statements.Add(1)
	return t.Tx.Commit()
}

func (t countingTx) Rollback() error {
	statements.Add(1)
	return t.Tx.Rollback()
}
