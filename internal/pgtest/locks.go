package pgtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

const (
	// lockWaitPoll is how often WaitForLock reads pg_stat_activity.
	lockWaitPoll = 5 * time.Millisecond
	// lockWaitMargin is left before the test binary's deadline, so that a
	// wait that never ends fails the test with its message instead of
	// the binary's panic.
	lockWaitMargin = 10 * time.Second
)

// A LockWait says which sessions WaitForLock waits for. Its zero value is
// one session waiting for any lock.
type LockWait struct {
	// Sessions is how many sessions wait at once: 1 when 0.
	Sessions int
	// BlockedBy, when not 0, is the backend pid of the session that holds
	// the lock they wait for (pg_blocking_pids; BackendPID names it).
	BlockedBy int
	// Query, when not "", is a part of the waiting session's statement.
	Query string
	// MayEnd lets the operations watched end instead of waiting:
	// WaitForLock then answers false rather than failing the test.
	MayEnd bool
}

// WaitForLock forces an interleaving by waiting until it happened: the
// sessions w names, of db's database, wait for a lock (pg_stat_activity's
// wait_event_type 'Lock': a row, a transaction, an advisory lock…), so
// that the operations that run in them have gone as far as the locks held
// now let them; it returns true. Each test has a database of its own
// (NewURL), so a session of it that waits is one of the test's.
//
// When one of done is closed first (the operation watched ended without
// waiting) it returns false if w.MayEnd, and fails the test otherwise. It
// polls; no timer decides: the wait ends with the test's context, or
// shortly before the test binary's deadline (go test -timeout), which only
// turns a hang into a failure. An operation that waits for something else
// than a lock (a channel, a mutex) is seen neither ending nor waiting: the
// test fails then.
func WaitForLock(t testing.TB, db sqlx.QueryerContext, what string, w LockWait, done ...<-chan struct{}) bool {
	t.Helper()
	ctx := t.Context()
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if deadline, ok := d.Deadline(); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline.Add(-lockWaitMargin))
			defer cancel()
		}
	}
	want := max(w.Sessions, 1)
	tick := time.NewTicker(lockWaitPoll)
	defer tick.Stop()
	for {
		for _, d := range done {
			select {
			case <-d:
				if !w.MayEnd {
					t.Fatalf("%s ended without waiting for a lock (%s)", what, w)
				}
				return false
			default:
			}
		}
		n, err := lockWaits(ctx, db, w)
		switch {
		case err == nil && n >= want:
			return true
		case ctx.Err() != nil:
			t.Fatalf("%s: not seen waiting (%s) before the wait ended: %v", what, w, context.Cause(ctx))
		case err != nil:
			t.Fatal(fmt.Errorf("pgtest: unable to read the sessions' lock waits: %w", err))
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
		}
	}
}

// String says what w waits for, for a failure's message.
func (w LockWait) String() string {
	s := fmt.Sprintf("want %d waiting for a lock", max(w.Sessions, 1))
	if w.BlockedBy != 0 {
		s += fmt.Sprintf(" of session %d", w.BlockedBy)
	}
	if w.Query != "" {
		s += fmt.Sprintf(" in a statement holding %q", w.Query)
	}
	return s
}

// BackendPID returns the backend pid of the session q runs its statements
// on (a transaction's, or a connection's).
func BackendPID(t testing.TB, q sqlx.QueryerContext) int {
	t.Helper()
	var pid int
	if err := sqlx.GetContext(t.Context(), q, &pid, `SELECT pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
	return pid
}

// lockWaits counts the sessions of db's database that wait for a lock as
// w says.
func lockWaits(ctx context.Context, db sqlx.QueryerContext, w LockWait) (int, error) {
	var n int
	err := sqlx.GetContext(ctx, db, &n, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock'
			AND ($1 = 0 OR $1 = ANY(pg_blocking_pids(pid)))
			AND strpos(query, $2) > 0`, w.BlockedBy, w.Query)
	return n, err
}
