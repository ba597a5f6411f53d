package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"

	"pivirt.hu/ipam/internal/audit"
)

// A Route says where the process that owns a pool's claims listens for
// the claims of the other processes (internal/routing).
type Route struct {
	Address string // host:port
	Host    string // the owner's host name
	Process string // the owner's process id, random
	// Certificate is the one the owner published (PublishProcess), which
	// it serves on Address; RouteOf fills it in, nil when there is none.
	Certificate []byte
}

// secretGrace is how long the secret before a rotation is still accepted:
// long enough for a handshake that read the secret just before the
// rotation to finish.
const secretGrace = time.Minute

// ClusterSecrets returns the secrets the processes of this database prove
// to each other on the route link (table cluster_secret): the current
// one first, then the one before the last rotation while it is still
// accepted.
func ClusterSecrets(ctx context.Context, ext Ext) ([]string, error) {
	var current, previous string
	err := ext.QueryRowxContext(ctx, `SELECT secret, CASE WHEN rotated_at > now() - $1 * interval '1 millisecond' THEN previous ELSE '' END FROM cluster_secret`,
		secretGrace.Milliseconds()).Scan(&current, &previous)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the cluster secret: %w", classify(err))
	}
	if previous == "" {
		return []string{current}, nil
	}
	return []string{current, previous}, nil
}

// RotateClusterSecret replaces the cluster secret by a new random one,
// keeping the one it replaces as the previous (see ClusterSecrets), and
// records who did it (never the secrets).
func RotateClusterSecret(ctx context.Context, db *DB, actor string) error {
	b := make([]byte, 32)
	rand.Read(b)
	return InTx(ctx, db, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE cluster_secret SET previous = secret, secret = $1, rotated_at = now()`, hex.EncodeToString(b)); err != nil {
			return fmt.Errorf("store: unable to rotate the cluster secret: %w", classify(err))
		}
		return InsertAudit(ctx, tx, AuditEntry{Actor: actor, Action: audit.Rotate, ObjectKind: audit.KindClusterSecret, ObjectName: "cluster secret"})
	})
}

// PublishProcess records the certificate of the process, which its peers
// on the route link pin, and that the process runs; it is called again
// every little while (see PruneProcesses).
func PublishProcess(ctx context.Context, ext Ext, process string, certificate []byte) error {
	_, err := ext.ExecContext(ctx, `INSERT INTO route_processes (process, certificate) VALUES ($1, $2)
		ON CONFLICT (process) DO UPDATE SET certificate = $2, seen = now()`, process, certificate)
	if err != nil {
		return fmt.Errorf("store: unable to publish the certificate of process %s: %w", process, classify(err))
	}
	return nil
}

// ProcessCertificate returns the certificate process published;
// ErrNotFound when there is none.
func ProcessCertificate(ctx context.Context, ext Ext, process string) ([]byte, error) {
	var certificate []byte
	err := ext.QueryRowxContext(ctx, `SELECT certificate FROM route_processes WHERE process = $1`, process).Scan(&certificate)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the certificate of process %s: %w", process, classify(err))
	}
	return certificate, nil
}

// UnpublishProcess removes the certificate of process, which stops.
func UnpublishProcess(ctx context.Context, ext Ext, process string) error {
	if _, err := ext.ExecContext(ctx, `DELETE FROM route_processes WHERE process = $1`, process); err != nil {
		return fmt.Errorf("store: unable to remove the certificate of process %s: %w", process, classify(err))
	}
	return nil
}

// PruneProcesses removes the certificates of the processes that have not
// published theirs again for unseen: they stopped without removing it.
func PruneProcesses(ctx context.Context, ext Ext, unseen time.Duration) error {
	if _, err := ext.ExecContext(ctx, `DELETE FROM route_processes WHERE seen < now() - $1 * interval '1 millisecond'`, unseen.Milliseconds()); err != nil {
		return fmt.Errorf("store: unable to remove the certificates of stopped processes: %w", classify(err))
	}
	return nil
}

// RouteOf returns the route of the pool uid; ErrNotFound when none is
// recorded.
func RouteOf(ctx context.Context, ext Ext, uid string) (Route, error) {
	var r Route
	err := ext.QueryRowxContext(ctx, `SELECT r.address, r.host, r.process, p.certificate
		FROM claim_routes r LEFT JOIN route_processes p USING (process) WHERE r.pool_uid = $1`, uid).
		Scan(&r.Address, &r.Host, &r.Process, &r.Certificate)
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
//
// A connection can also die under a process that lives on (terminated by
// an administrator, cut by the network): the locks are free at once, while
// the process may not know for a moment. So that it never owns a pool at
// the same time as another process, each connection is a generation, and
// the locks of a generation are known held for lease after the start of
// the last statement that succeeded on it (Holds); a process that finds a
// pool's lock free while its route names another process marks the route
// orphaned and takes the pool over only a lease later (TryOwn), when that
// other process must have stopped believing it owns it. Every process of
// a database must use the same lease.
type OwnerLocks struct {
	db    *sql.DB
	lease time.Duration
	mu    sync.Mutex
	// conn holds the locks; nil after it failed (every lock is lost with
	// it), until the next TryOwn opens another, of generation gen.
	conn *sql.Conn
	gen  uint64
	// held is the generation whose locks are known held, and until when.
	held atomic.Pointer[holding]
}

type holding struct {
	gen   uint64
	until time.Time
}

// OpenOwnerLocks connects to the PostgreSQL server at url.
func OpenOwnerLocks(ctx context.Context, url string, lease time.Duration) (*OwnerLocks, error) {
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
	l := &OwnerLocks{db: db, lease: lease}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.connection(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return l, nil
}

// lockStatementTimeout bounds a statement on the connection holding the
// locks.
const lockStatementTimeout = 5 * time.Second

// lockStatementContext is the context of a statement on the connection
// holding the locks, asked for by a claim whose context is ctx: not ended
// when the claim's is (a client gone while its claim took a pool's lock).
// A statement given up half way leaves unknown whether its lock was taken,
// and only closing the connection, which gives up every pool the process
// owns, would make that known; so the statement runs to its end, bounded
// by lockStatementTimeout instead (TestOwnerLocksOutliveAClaimGivenUp).
func lockStatementContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), lockStatementTimeout)
}

// ErrLocksLost means that the connection holding the locks failed: the
// process owns no pool any more.
var ErrLocksLost = errors.New("store: the connection holding the pool owner locks failed")

// connection returns the connection holding the locks, opening one if
// there is none. l.mu is held.
func (l *OwnerLocks) connection(ctx context.Context) (*sql.Conn, error) {
	if l.conn != nil {
		return l.conn, nil
	}
	c, err := l.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: unable to connect for the pool owner locks: %w", classify(err))
	}
	l.conn = c
	l.gen++
	return c, nil
}

// lost closes the connection, which failed with err: its locks are gone.
// l.mu is held.
func (l *OwnerLocks) lost(err error) error {
	l.conn.Close()
	l.conn = nil
	l.held.Store(nil)
	return fmt.Errorf("%w: %w", ErrLocksLost, classify(err))
}

// succeeded records that a statement sent at sent succeeded on the
// connection: its locks are held until a lease later. l.mu is held.
func (l *OwnerLocks) succeeded(sent time.Time) {
	l.held.Store(&holding{gen: l.gen, until: sent.Add(l.lease)})
}

// Holds reports whether the locks taken in generation gen are known held
// now. It takes no lock and runs no statement.
func (l *OwnerLocks) Holds(gen uint64) bool {
	h := l.held.Load()
	return h != nil && h.gen == gen && time.Now().Before(h.until)
}

// Generation returns the generation of the connection holding the locks,
// 0 when there is none.
func (l *OwnerLocks) Generation() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return 0
	}
	return l.gen
}

// Check runs a statement on the connection holding the locks, if there is
// one: it succeeds when the locks are held. ErrLocksLost means they are
// not any more.
func (l *OwnerLocks) Check(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return nil
	}
	sent := time.Now()
	if _, err := l.conn.ExecContext(ctx, `SELECT 1`); err != nil {
		return l.lost(err)
	}
	l.succeeded(sent)
	return nil
}

// TryOwn takes the lock of the pool uid if no other process holds it and,
// in the same statement, records r as its route, so that the others find
// the route as soon as they find the lock taken. It reports whether this
// process owns the pool now, and in which generation (see Holds). When the
// lock is free but the route names another process, that process lost its
// lock connection: the route is marked orphaned, and the pool is taken
// over only a lease after that. ErrNotFound means that the pool is gone;
// ErrLocksLost, that the locks taken before are gone.
func (l *OwnerLocks) TryOwn(ctx context.Context, uid string, r Route) (owned bool, gen uint64, err error) {
	ctx, cancel := lockStatementContext(ctx)
	defer cancel()
	l.mu.Lock()
	defer l.mu.Unlock()
	c, err := l.connection(ctx)
	if err != nil {
		return false, 0, err
	}
	sent := time.Now()
	var got, routed bool
	err = c.QueryRowContext(ctx, `
		WITH lock AS (SELECT pg_try_advisory_lock(hashtextextended('claim route ' || $1::text, 0)) AS got),
		route AS (
			INSERT INTO claim_routes (pool_uid, address, host, process) SELECT $1::uuid, $2, $3, $4 FROM lock WHERE got
			ON CONFLICT (pool_uid) DO UPDATE SET address = $2, host = $3, process = $4, since = now(), orphaned_at = NULL
			WHERE claim_routes.process = $4 OR claim_routes.orphaned_at < clock_timestamp() - $5 * interval '1 millisecond'
			RETURNING true
		)
		SELECT got, EXISTS (SELECT FROM route) FROM lock`, uid, r.Address, r.Host, r.Process, l.lease.Milliseconds()).Scan(&got, &routed)
	var pe *pq.Error
	switch {
	case errors.As(err, &pe) && pe.Code == "23503":
		// The lock, a session's, outlives the failed statement.
		if err := l.unlock(ctx, c, uid, false); err != nil {
			return false, 0, err
		}
		return false, 0, ErrNotFound
	case err != nil:
		return false, 0, l.lost(err)
	case got && !routed:
		if err := l.unlock(ctx, c, uid, true); err != nil {
			return false, 0, err
		}
		return false, 0, nil
	}
	l.succeeded(sent)
	return got, l.gen, nil
}

// unlock gives up the lock of the pool uid, taken by a statement that
// could not record the route; orphaned marks the route that kept it from
// being recorded. l.mu is held.
func (l *OwnerLocks) unlock(ctx context.Context, c *sql.Conn, uid string, orphaned bool) error {
	_, err := c.ExecContext(ctx, `
		WITH orphan AS (
			UPDATE claim_routes SET orphaned_at = clock_timestamp() WHERE $2 AND pool_uid = $1::uuid AND orphaned_at IS NULL
		)
		SELECT pg_advisory_unlock(hashtextextended('claim route ' || $1::text, 0))`, uid, orphaned)
	if err != nil {
		return l.lost(err)
	}
	return nil
}

// Disown gives up the lock of the pool uid.
func (l *OwnerLocks) Disown(ctx context.Context, uid string) error {
	ctx, cancel := lockStatementContext(ctx)
	defer cancel()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return nil
	}
	if _, err := l.conn.ExecContext(ctx, `SELECT pg_advisory_unlock(hashtextextended('claim route ' || $1, 0))`, uid); err != nil {
		return l.lost(err)
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
		l.held.Store(nil)
	}
	return l.db.Close()
}
