package store_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

func TestUnavailable(t *testing.T) {
	t.Parallel()
	pqErr := func(code string) error { return &pq.Error{Severity: "ERROR", Code: pqerror.Code(code)} }
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &net.AddrError{Err: syscall.ECONNREFUSED.Error()}}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"not found", store.ErrNotFound, false},
		{"object exists", fmt.Errorf("store: pool p: %w", store.ErrObjectExists), false},
		{"no rows", sql.ErrNoRows, false},
		{"canceled by the caller", context.Canceled, false},
		{"a plain error naming a refusal", errors.New("pq: connection refused"), false},
		{"unique violation", pqErr("23505"), false},
		{"foreign key violation", pqErr("23503"), false},
		{"undefined table", pqErr("42P01"), false},
		{"serialization failure", pqErr("40001"), false},
		{"ErrUnavailable", store.ErrUnavailable, true},
		{"bad connection", driver.ErrBadConn, true},
		{"bad connection, wrapped", fmt.Errorf("store: unable to list the pools: %w", driver.ErrBadConn), true},
		{"connection done", sql.ErrConnDone, true},
		{"connection refused", refused, true},
		{"connection reset", fmt.Errorf("x: %w", &net.OpError{Op: "read", Net: "unix", Err: syscall.ECONNRESET}), true},
		{"EOF", io.EOF, true},
		{"unexpected EOF", io.ErrUnexpectedEOF, true},
		{"deadline exceeded", fmt.Errorf("x: %w", context.DeadlineExceeded), true},
		{"connection failure 08006", pqErr("08006"), true},
		{"cannot establish 08001", pqErr("08001"), true},
		{"admin shutdown 57P01", pqErr("57P01"), true},
		{"crash shutdown 57P02", pqErr("57P02"), true},
		{"cannot connect now 57P03", pqErr("57P03"), true},
		{"too many connections 53300", pqErr("53300"), true},
		{"disk full 53100", pqErr("53100"), true},
		{"out of memory 53200", pqErr("53200"), true},
		{"statement timeout 57014", pqErr("57014"), true},
		{"lock timeout 55P03", pqErr("55P03"), true},
		{"a standby, read only 25006", pqErr("25006"), true},
		{"disk full, wrapped", fmt.Errorf("store: unable to insert the allocation a: %w", pqErr("53100")), true},
	}
	for _, tt := range tests {
		if got := store.Unavailable(tt.err); got != tt.want {
			t.Errorf("Unavailable(%s: %v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

// TestUnavailableErrorsWrapErrUnavailable makes the database fail the store's
// calls in the ways a client meets: a server that cannot be reached, a
// statement that runs out of time in a single statement and in a
// transaction. Each error wraps ErrUnavailable and still lets callers find
// the driver's error.
func TestUnavailableErrorsWrapErrUnavailable(t *testing.T) {
	t.Parallel()
	ctx := t.Context()

	// Nothing listens on port 1.
	_, err := store.Open(ctx, "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=5")
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Open of an unreachable server: %v, want it to wrap ErrUnavailable", err)
	}
	if _, ok := errors.AsType[*net.OpError](err); !ok {
		t.Errorf("Open of an unreachable server: %v, want a *net.OpError in the chain", err)
	}

	url := pgtest.NewURL(t)
	admin, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.ExecContext(ctx, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET statement_timeout = 1000', current_database()); END $$`); err != nil {
		t.Fatal(err)
	}
	// 1 s, not less: a new connection's setup (which reads pg_settings)
	// runs under it too, and took over 100 ms on a loaded CI machine.
	db, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	// Another session holds every table a call below needs.
	lock, err := admin.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	if _, err := lock.ExecContext(ctx, `LOCK TABLE pools, users IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		name string
		call func() error
	}{
		{"Pools", func() error { _, err := store.Pools(ctx, db, ""); return err }},
		{"Pool", func() error { _, err := store.Pool(ctx, db, "", "public-a"); return err }},
		{"CreateUser (in a transaction)", func() error {
			_, err := store.CreateUser(ctx, db, "test", store.UserRow{Name: "alice", Role: "operator", PasswordHash: "x"})
			return err
		}},
	}
	for _, c := range calls {
		began := time.Now()
		err := c.call()
		if !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("%s behind a lock with statement_timeout 1s: %v, want it to wrap ErrUnavailable", c.name, err)
			continue
		}
		if pqErr := pq.As(err, pqerror.QueryCanceled); pqErr == nil {
			t.Errorf("%s: %v, want the driver's 57014 in the chain", c.name, err)
		}
		if took := time.Since(began); took > 5*time.Second {
			t.Errorf("%s took %v to fail, want about 1s", c.name, took)
		}
	}
}

// TestDefaultStatementTimeout checks that connections get
// DefaultStatementTimeout unless the database (or the role, the URL or the
// server) sets a statement_timeout, even to 0, which is then left as it
// is.
func TestDefaultStatementTimeout(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url := pgtest.NewURL(t)
	show := func() string {
		t.Helper()
		db, err := store.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var got string
		if err := db.GetContext(ctx, &got, `SHOW statement_timeout`); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got, want := show(), fmt.Sprint(store.DefaultStatementTimeout.Seconds())+"s"; got != want {
		t.Errorf("statement_timeout of a new connection = %s, want %s", got, want)
	}
	db, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, setting := range []string{"2min", "0"} {
		if _, err := db.ExecContext(ctx, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET statement_timeout = %L', current_database(), `+pq.QuoteLiteral(setting)+`); END $$`); err != nil {
			t.Fatal(err)
		}
		if got := show(); got != setting {
			t.Errorf("statement_timeout with the database's own setting %s = %s", setting, got)
		}
	}
}
