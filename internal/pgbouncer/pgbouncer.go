// Package pgbouncer runs Debian's PgBouncer as a child process in front of a
// PostgreSQL server, in transaction mode: the connection pooler that the
// tests and the bench put between ipam and its database.
package pgbouncer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"pivirt.hu/ipam/internal/pgembed"
)

// Binary is where Debian's pgbouncer package installs PgBouncer.
const Binary = "/usr/sbin/pgbouncer"

// Options say where PgBouncer runs and what it pools.
type Options struct {
	// Dir holds its configuration and log; it is created.
	Dir string
	// Host and Port are PostgreSQL's: a host name or the folder of its unix
	// socket, and its port. Every database there is pooled, logged in as
	// User (default postgres) with Password, if any; clients log in to
	// PgBouncer as postgres without one.
	Host           string
	Port           int
	User, Password string
	// PoolSize is the number of server connections per database (default
	// 20, what one ipam process opens).
	PoolSize int
}

// A Bouncer is a running PgBouncer.
type Bouncer struct {
	port    int
	logPath string
	cmd     *exec.Cmd
	exited  chan struct{}
	exitErr error
	stop    sync.Once
}

// Start starts PgBouncer on a free port of 127.0.0.1 in transaction mode
// and waits until it accepts connections.
func Start(ctx context.Context, opts Options) (*Bouncer, error) {
	if _, err := os.Stat(Binary); err != nil {
		return nil, fmt.Errorf("pgbouncer: %s is missing: install Debian's pgbouncer package (scripts/setup.sh does)", Binary)
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("pgbouncer: unable to resolve %s: %w", opts.Dir, err)
	}
	attr, err := pgembed.PrepareDir(dir)
	if err != nil {
		return nil, fmt.Errorf("pgbouncer: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	poolSize := opts.PoolSize
	if poolSize == 0 {
		poolSize = 20
	}
	login := "user=postgres"
	if opts.User != "" {
		login = "user=" + opts.User
	}
	if opts.Password != "" {
		login += " password=" + opts.Password
	}
	b := &Bouncer{port: port, logPath: filepath.Join(dir, "pgbouncer.log"), exited: make(chan struct{})}
	config := filepath.Join(dir, "pgbouncer.ini")
	users := filepath.Join(dir, "userlist.txt")
	ini := fmt.Sprintf(`[databases]
* = host=%s port=%d %s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
default_pool_size = %d
max_client_conn = 1000
ignore_startup_parameters = extra_float_digits
logfile = %s
log_connections = 0
log_disconnections = 0
`, opts.Host, opts.Port, login, port, users, poolSize, b.logPath)
	for name, content := range map[string]string{config: ini, users: `"postgres" ""` + "\n"} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			return nil, fmt.Errorf("pgbouncer: unable to write %s: %w", name, err)
		}
	}
	b.cmd = exec.Command(Binary, config)
	b.cmd.SysProcAttr = attr
	if err := b.cmd.Start(); err != nil {
		return nil, fmt.Errorf("pgbouncer: unable to start %s: %w", Binary, err)
	}
	go func() {
		b.exitErr = b.cmd.Wait()
		close(b.exited)
	}()
	if err := b.waitReady(ctx); err != nil {
		b.Stop()
		return nil, err
	}
	return b, nil
}

// freePort returns a TCP port of 127.0.0.1 that nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgbouncer: unable to find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady waits until PgBouncer accepts TCP connections, up to 10 s.
func (b *Bouncer) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", b.Addr())
		if err == nil {
			conn.Close()
			return nil
		}
		select {
		case <-b.exited:
			return fmt.Errorf("pgbouncer: it exited at start: %v\n%s", b.exitErr, b.logTail())
		case <-ctx.Done():
			return fmt.Errorf("pgbouncer: not listening on %s after 10 s: %w\n%s", b.Addr(), err, b.logTail())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Addr is the address PgBouncer listens on.
func (b *Bouncer) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(b.port)) }

// URL returns a lib/pq URL of database through PgBouncer, as postgres.
func (b *Bouncer) URL(database string) string {
	u := url.URL{Scheme: "postgres", User: url.User("postgres"), Host: b.Addr(), Path: "/" + database, RawQuery: "sslmode=disable"}
	return u.String()
}

// Stop stops PgBouncer (SIGINT: at once, closing every connection).
func (b *Bouncer) Stop() error {
	var err error
	b.stop.Do(func() {
		if e := b.cmd.Process.Signal(syscall.SIGINT); e != nil && !errors.Is(e, os.ErrProcessDone) {
			err = fmt.Errorf("pgbouncer: unable to stop it: %w", e)
			return
		}
		select {
		case <-b.exited:
		case <-time.After(10 * time.Second):
			b.cmd.Process.Kill()
			<-b.exited
		}
	})
	return err
}

// logTail returns the last lines of PgBouncer's log.
func (b *Bouncer) logTail() string {
	data, _ := os.ReadFile(b.logPath)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	return strings.Join(lines[max(0, len(lines)-10):], "\n")
}
