package pgtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"pivirt.hu/ipam/internal/store"
)

// The waits below force an interleaving by waiting until it happened: a
// session of the test's database waits for a lock (pg_stat_activity's
// wait_event_type 'Lock': a row, a transaction, an advisory lock…), so
// that the operation that runs in it has gone as far as the locks held now
// let it. Each test has a database of its own (NewURL), so a session of it
// that waits is one of the test's. They poll; none decides by a timer:
// lockWaitDeadline only turns a hang into a failure, far beyond any wait a
// test forces on a loaded machine.
const (
	lockWaitDeadline = 30 * time.Second
	lockWaitPoll     = 5 * time.Millisecond
)

// AwaitLockWaits waits until n sessions of db's database wait for a lock at
// once. It fails the test when one of done is closed first (the operation
// it watches ended without waiting), or after the deadline.
func AwaitLockWaits(t testing.TB, db *store.DB, n int, what string, done ...<-chan struct{}) {
	t.Helper()
	switch pollLocks(done, func() bool { return lockWaits(t, db, 0) >= n }) {
	case endedFirst:
		t.Fatalf("%s ended without waiting for a lock (%d sessions wait, want %d)", what, lockWaits(t, db, 0), n)
	case timedOut:
		t.Fatalf("%s: %d sessions do not wait for a lock after %v (%d do)", what, n, lockWaitDeadline, lockWaits(t, db, 0))
	}
}

// AwaitLockWait waits until a session of db's database waits for a lock:
// AwaitLockWaits of one session.
func AwaitLockWait(t testing.TB, db *store.DB, what string, done ...<-chan struct{}) {
	t.Helper()
	AwaitLockWaits(t, db, 1, what, done...)
}

// AwaitBlockedBy waits until a session of db's database waits for a lock
// that the session of backend pid holds (pg_blocking_pids), as
// AwaitLockWait does.
func AwaitBlockedBy(t testing.TB, db *store.DB, pid int, what string, done ...<-chan struct{}) {
	t.Helper()
	switch pollLocks(done, func() bool { return lockWaits(t, db, pid) > 0 }) {
	case endedFirst:
		t.Fatalf("%s ended without waiting for a lock of session %d", what, pid)
	case timedOut:
		t.Fatalf("%s: no session waits for a lock of session %d after %v", what, pid, lockWaitDeadline)
	}
}

// DoneOrWaiting waits until one of done is closed, and returns false, or
// until a session of db's database waits for a lock, and returns true:
// what the operations watched could do without the locks held now, they
// did. An operation that waits for something else than a lock (a channel,
// a mutex) is seen neither ending nor waiting: the test fails after the
// deadline.
func DoneOrWaiting(t testing.TB, db *store.DB, what string, done ...<-chan struct{}) bool {
	t.Helper()
	switch pollLocks(done, func() bool { return lockWaits(t, db, 0) > 0 }) {
	case endedFirst:
		return false
	case timedOut:
		t.Fatalf("%s neither ended nor waited for a lock in %v", what, lockWaitDeadline)
	}
	return true
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

type pollEnd int

const (
	condMet pollEnd = iota
	endedFirst
	timedOut
)

// pollLocks polls cond until it holds, one of done is closed (checked
// first: an operation that ended is not waiting), or the deadline passed.
func pollLocks(done []<-chan struct{}, cond func() bool) pollEnd {
	deadline := time.Now().Add(lockWaitDeadline)
	for {
		for _, d := range done {
			select {
			case <-d:
				return endedFirst
			default:
			}
		}
		if cond() {
			return condMet
		}
		if time.Now().After(deadline) {
			return timedOut
		}
		time.Sleep(lockWaitPoll)
	}
}

// lockWaits counts the sessions of db's database that wait for a lock, of
// the session of backend pid blocker when not 0.
func lockWaits(t testing.TB, db *store.DB, blocker int) int {
	t.Helper()
	var n int
	err := db.GetContext(t.Context(), &n, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock'
			AND ($1 = 0 OR $1 = ANY(pg_blocking_pids(pid)))`, blocker)
	if err != nil {
		t.Fatal(fmt.Errorf("pgtest: unable to read the sessions' lock waits: %w", err))
	}
	return n
}
