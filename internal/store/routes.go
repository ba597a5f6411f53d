package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// A Route says where the process that owns a pool's claims listens for
// the claims of the other processes (internal/routing).
type Route struct {
	Address string // host:port
	Host    string // the owner's host name
	Process string // the owner's process id, random
}

// ClusterSecret returns the secret the processes of this database
// authenticate each other with (migration 0010).
func ClusterSecret(ctx context.Context, ext Ext) (string, error) {
	var secret string
	if err := sqlx.GetContext(ctx, ext, &secret, `SELECT secret FROM cluster_secret`); err != nil {
		return "", fmt.Errorf("store: unable to read the cluster secret: %w", classify(err))
	}
	return secret, nil
}

// RouteOf returns the route of the pool uid; ErrNotFound when none is
// recorded.
func RouteOf(ctx context.Context, ext Ext, uid string) (Route, error) {
	var r Route
	err := ext.QueryRowxContext(ctx, `SELECT address, host, process FROM claim_routes WHERE pool_uid = $1`, uid).
		Scan(&r.Address, &r.Host, &r.Process)
	if errors.Is(err, sql.ErrNoRows) {
		return Route{}, ErrNotFound
	}
	if err != nil {
		return Route{}, fmt.Errorf("store: unable to read the route of pool %s: %w", uid, classify(err))
	}
	return r, nil
}

// DeleteRoute removes the route of the pool uid if process recorded it.
func DeleteRoute(ctx context.Context, ext Ext, uid, process string) error {
	if _, err := ext.ExecContext(ctx, `DELETE FROM claim_routes WHERE pool_uid = $1 AND process = $2`, uid, process); err != nil {
		return fmt.Errorf("store: unable to remove the route of pool %s: %w", uid, classify(err))
	}
	return nil
}

// OwnerLocks holds the session advisory locks that make a process the
// owner of pools' claims, on one connection of its own to PostgreSQL
// itself (not through a connection pooler, where a session lock would stay
// on a server connection others use): the locks end with the connection,
// so a process that dies owns nothing.
type OwnerLocks struct {
	db *sql.DB
	mu sync.Mutex
	// conn holds the locks; nil after it failed (every lock is lost with
	// it), until the next TryOwn opens another.
	conn *sql.Conn
}

// OpenOwnerLocks connects to the PostgreSQL server at url.
func OpenOwnerLocks(ctx context.Context, url string) (*OwnerLocks, error) {
	cfg, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	connector, err := pq.NewConnectorConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the database URL %s: %w", RedactURL(url), err)
	}
	connector.Dialer(newDialer())
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	l := &OwnerLocks{db: db}
	if _, err := l.connection(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return l, nil
}

// ErrLocksLost means that the connection holding the locks failed: the
// process owns no pool any more.
var ErrLocksLost = errors.New("store: the connection holding the pool owner locks failed")

func (l *OwnerLocks) connection(ctx context.Context) (*sql.Conn, error) {
	if l.conn != nil {
		return l.conn, nil
	}
	c, err := l.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: unable to connect for the pool owner locks: %w", classify(err))
	}
	l.conn = c
	return c, nil
}

// TryOwn takes the lock of the pool uid if no other process holds it and,
// in the same statement, records r as its route, so that the others find
// the route as soon as they find the lock taken. It reports whether this
// process owns the pool now. ErrNotFound means that the pool is gone;
// ErrLocksLost, that the locks taken before are gone.
func (l *OwnerLocks) TryOwn(ctx context.Context, uid string, r Route) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, err := l.connection(ctx)
	if err != nil {
		return false, err
	}
	var got bool
	err = c.QueryRowContext(ctx, `
		WITH lock AS (SELECT pg_try_advisory_lock(hashtextextended('claim route ' || $1::text, 0)) AS got),
		route AS (
			INSERT INTO claim_routes (pool_uid, address, host, process) SELECT $1::uuid, $2, $3, $4 FROM lock WHERE got
			ON CONFLICT (pool_uid) DO UPDATE SET address = $2, host = $3, process = $4, since = now()
		)
		SELECT got FROM lock`, uid, r.Address, r.Host, r.Process).Scan(&got)
	var pe *pq.Error
	switch {
	case errors.As(err, &pe) && pe.Code == "23503":
		// The lock, a session's, outlives the failed statement.
		if _, err := c.ExecContext(ctx, `SELECT pg_advisory_unlock(hashtextextended('claim route ' || $1, 0))`, uid); err != nil {
			c.Close()
			l.conn = nil
			return false, fmt.Errorf("%w: %w", ErrLocksLost, classify(err))
		}
		return false, ErrNotFound
	case err != nil:
		c.Close()
		l.conn = nil
		return false, fmt.Errorf("%w: %w", ErrLocksLost, classify(err))
	}
	return got, nil
}

// Disown gives up the lock of the pool uid.
func (l *OwnerLocks) Disown(ctx context.Context, uid string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return nil
	}
	if _, err := l.conn.ExecContext(ctx, `SELECT pg_advisory_unlock(hashtextextended('claim route ' || $1, 0))`, uid); err != nil {
		l.conn.Close()
		l.conn = nil
		return fmt.Errorf("%w: %w", ErrLocksLost, classify(err))
	}
	return nil
}

// Close closes the connection: every lock is given up.
func (l *OwnerLocks) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn != nil {
		l.conn.Close()
		l.conn = nil
	}
	return l.db.Close()
}
