package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"
)

// ErrUnavailable means that the database could not serve the call now: it
// is down or restarting, refuses connections, has no connection, disk or
// memory to spare, or did not answer in time. The request was not wrong;
// the same request may succeed in a moment. Every error of this package
// caused so wraps it.
var ErrUnavailable = errors.New("store: the database is unavailable")

// DefaultStatementTimeout bounds every statement on connections whose
// statement_timeout neither the URL, the role, the database nor the
// server's configuration sets, so that a lock held by a stuck client or a
// server that stopped answering makes requests fail with ErrUnavailable
// instead of hang. It is shorter than the GraphQL API's request time limit
// (30 s), so that the database's verdict comes first.
const DefaultStatementTimeout = 15 * time.Second

// connectionSetup runs on every new connection. It pins the isolation
// level of the statements run outside a transaction (each its own) to READ
// COMMITTED, whatever the database's or the role's default: the proof of
// docs/allocation.md rests on it (a claim's INSERT … ON CONFLICT DO NOTHING
// that meets an address committed after it began must change nothing, not
// fail with a serialization error). And it applies DefaultStatementTimeout
// unless statement_timeout is set already, even to 0 (no limit): its source
// is then not PostgreSQL's default.
var connectionSetup = fmt.Sprintf(`SET default_transaction_isolation TO 'read committed';
	SELECT set_config('statement_timeout', '%dms', false)
	FROM pg_settings WHERE name = 'statement_timeout' AND source = 'default'`, DefaultStatementTimeout.Milliseconds())

// pooledConnectionCheck replaces connectionSetup on connections through a
// connection pooler in transaction mode (OpenPooled): a session setting
// would stay with whichever server connection the pooler gave, and apply to
// its other clients, not this one. So it reads the isolation level that
// statements outside a transaction get, which the database's or the role's
// settings give, and setUp refuses a connection where it is not READ
// COMMITTED.
const pooledConnectionCheck = `SELECT current_setting('default_transaction_isolation')`

// ErrIsolation means that a connection through a connection pooler would
// run statements at another isolation level than READ COMMITTED.
var ErrIsolation = errors.New("store: statements would not run at READ COMMITTED")

// setUp runs setup (connectionSetup or pooledConnectionCheck) on c.
func (c *boundedConn) setUp(ctx context.Context, setup string) error {
	if setup == connectionSetup {
		_, err := c.ExecContext(ctx, setup, nil)
		return classify(err)
	}
	rows, err := c.QueryContext(ctx, setup, nil)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	level := make([]driver.Value, 1)
	if err := rows.Next(level); err != nil {
		return classify(err)
	}
	if isolation := fmt.Sprintf("%s", level[0]); isolation != "read committed" {
		return fmt.Errorf("%w: through a connection pooler, ipam cannot set the isolation level of its connections, and the database's default_transaction_isolation is %q: set it for ipam's role (ALTER ROLE … SET default_transaction_isolation = 'read committed'), or connect to PostgreSQL directly", ErrIsolation, isolation)
	}
	return nil
}

// Unavailable reports whether err says that the database could not serve
// the call now rather than that the call was wrong:
//
//   - the connection failed, was refused, reset or cut short (a network
//     error, driver.ErrBadConn, sql.ErrConnDone, io.EOF, io.ErrUnexpectedEOF);
//   - PostgreSQL reported a connection exception (SQLSTATE class 08), an
//     administrator or crash shutdown or a server that cannot take
//     connections yet (57P01, 57P02, 57P03), insufficient resources (class
//     53: disk full, out of memory, too many connections), or a statement
//     or lock wait that ran out of time (57014, 55P03);
//   - the server is a standby that takes no writes (25006): a failover is
//     under way and the connection reached the standby before its
//     promotion;
//   - a deadline ran out (context.DeadlineExceeded).
//
// A canceled context is not unavailability: the caller went away.
func Unavailable(err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, ErrUnavailable),
		errors.Is(err, driver.ErrBadConn),
		errors.Is(err, sql.ErrConnDone),
		errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, context.DeadlineExceeded):
		return true
	}
	if _, ok := errors.AsType[*net.OpError](err); ok {
		return true
	}
	pqErr := pq.As(err)
	if pqErr == nil {
		return false
	}
	switch pqErr.Code.Class() {
	case pqerror.ClassConnectionException, pqerror.ClassInsufficientResources:
		return true
	}
	switch pqErr.Code {
	case pqerror.AdminShutdown, pqerror.CrashShutdown, pqerror.CannotConnectNow,
		pqerror.QueryCanceled, pqerror.LockNotAvailable, pqerror.ReadOnlySQLTransaction:
		return true
	}
	return false
}

// classify returns err marked with ErrUnavailable when Unavailable says so,
// and err itself otherwise. The store applies it wherever it wraps a
// database error, so that callers need only errors.Is(err, ErrUnavailable).
func classify(err error) error {
	if !Unavailable(err) || errors.Is(err, ErrUnavailable) {
		return err
	}
	return &unavailableError{err: err}
}

// unavailableError is a database error that means ErrUnavailable. It
// unwraps to both, so that errors.As still finds the driver's error.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string { return "the database is unavailable: " + e.err.Error() }

func (e *unavailableError) Unwrap() []error { return []error{ErrUnavailable, e.err} }
