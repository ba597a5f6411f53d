package reliability

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgembed"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// ipamBinary is the ipam command, built once by TestMain.
var ipamBinary string

func TestMain(m *testing.M) {
	removeStaleDataDirs()
	os.Exit(pgtest.Run(func() int {
		dir, err := os.MkdirTemp("", "ipam-reliability-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		ipamBinary = filepath.Join(dir, "ipam")
		if out, err := exec.Command("go", "build", "-o", ipamBinary, "pivirt.hu/ipam/cmd/ipam").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building ipam: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}))
}

const (
	servingPrefix = "PiVirt IPAM is serving on "
	startTimeout  = time.Minute
	stopTimeout   = 20 * time.Second
)

// syncBuffer collects a child's output while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// process is a running ipam.
type process struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	exited         chan struct{}
	err            error // set when exited is closed
}

// childEnv is the test's environment without DATABASE_URL, plus env.
func childEnv(env []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DATABASE_URL=") {
			out = append(out, kv)
		}
	}
	return append(out, env...)
}

// start runs ipam with args and stdin. Should the test end with it still
// running, it gets SIGTERM, then SIGKILL 20 s later; should the test binary
// die, the kernel sends it SIGTERM.
func start(t *testing.T, env []string, stdin string, args ...string) *process {
	t.Helper()
	p := &process{
		cmd:    exec.Command(ipamBinary, args...),
		stdout: &syncBuffer{},
		stderr: &syncBuffer{},
		exited: make(chan struct{}),
	}
	p.cmd.Env = childEnv(env)
	p.cmd.Stdin = strings.NewReader(stdin)
	p.cmd.Stdout = p.stdout
	p.cmd.Stderr = p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
			return
		default:
		}
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(stopTimeout):
			p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// wait waits up to timeout for the process to exit and returns its exit
// code.
func (p *process) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(timeout):
		t.Fatalf("ipam %s did not exit within %v\nstderr:\n%s", strings.Join(p.cmd.Args[1:], " "), timeout, p.stderr)
	}
	var exitErr *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &exitErr) && exitErr.Exited():
		return exitErr.ExitCode()
	default:
		t.Fatalf("ipam %s: %v\nstderr:\n%s", strings.Join(p.cmd.Args[1:], " "), p.err, p.stderr)
		return -1
	}
}

// ipam runs an ipam command to completion with stdin and returns its
// standard output, failing the test unless it exits 0.
func ipam(t *testing.T, url, stdin string, args ...string) string {
	t.Helper()
	p := start(t, []string{"DATABASE_URL=" + url}, stdin, args...)
	if code := p.wait(t, time.Minute); code != 0 {
		t.Fatalf("ipam %s exited %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, p.stdout, p.stderr)
	}
	return p.stdout.String()
}

// serve starts ipam serve on url, on a free loopback port, and returns the
// process and its base URL once it serves.
func serve(t *testing.T, url string) (*process, string) {
	t.Helper()
	p := start(t, []string{"DATABASE_URL=" + url}, "", "serve", "--listen", "127.0.0.1:0")
	return p, p.waitServing(t)
}

// waitServing waits for the line announcing the server and returns its URL.
func (p *process) waitServing(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		for line := range strings.Lines(p.stdout.String()) {
			if rest, ok := strings.CutPrefix(line, servingPrefix+"http://"); ok {
				return "http://" + strings.Fields(rest)[0]
			}
		}
		select {
		case <-p.exited:
			t.Fatalf("ipam %s exited (%v) before serving\nstdout:\n%s\nstderr:\n%s", strings.Join(p.cmd.Args[1:], " "), p.err, p.stdout, p.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("ipam %s did not serve within %v\nstderr:\n%s", strings.Join(p.cmd.Args[1:], " "), startTimeout, p.stderr)
	return ""
}

// tenant adds the tenant acme (namespaces acme/*) with password and
// returns a bearer token of it.
func tenant(t *testing.T, url, password string) string {
	t.Helper()
	ipam(t, url, password+"\n", "user", "add", "acme", "--role", "tenant", "--namespace", "acme/*", "--password-stdin")
	return strings.TrimSpace(ipam(t, url, "", "token", "create", "acme"))
}

// operator adds the operator ops and returns a bearer token of it.
func operator(t *testing.T, url string) string {
	t.Helper()
	ipam(t, url, "an operator's long password\n", "user", "add", "ops", "--role", "operator", "--password-stdin")
	return strings.TrimSpace(ipam(t, url, "", "token", "create", "ops"))
}

// dataDirPrefix starts the names of the tests' PostgreSQL folders; the PID
// of the test binary follows, so that TestMain can remove the folders of
// binaries that were killed before they cleaned up.
const dataDirPrefix = "ipam-reliability-"

// dataDirParent is where the clusters live: /dev/shm when it is a tmpfs, so
// that fsync costs nothing while a killed PostgreSQL still loses nothing
// it confirmed, else the temporary folder.
func dataDirParent() string {
	var stat syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &stat); err == nil && stat.Type == 0x01021994 {
		return "/dev/shm"
	}
	return os.TempDir()
}

// removeStaleDataDirs removes the folders of test binaries that are gone.
func removeStaleDataDirs() {
	dirs, _ := filepath.Glob(filepath.Join(dataDirParent(), dataDirPrefix+"*"))
	for _, dir := range dirs {
		var pid int
		if _, err := fmt.Sscanf(filepath.Base(dir), dataDirPrefix+"%d-", &pid); err != nil || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.RemoveAll(dir)
		}
	}
}

// newDataDir returns an empty folder for a PostgreSQL cluster, removed when
// the test ends. As root, pgembed hands it to the postgres user, who must
// be able to enter its parent.
func newDataDir(t *testing.T) string {
	t.Helper()
	parent, err := os.MkdirTemp(dataDirParent(), fmt.Sprintf("%s%d-", dataDirPrefix, os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(parent, "data")
}

// appRole is the role of fewer rights than the superuser that a test may
// create in its cluster and run ipam serve as (TestConnectionLimit).
const appRole = "ipam_app"

// cluster is a PostgreSQL server of the test's own, which it may stop,
// restart or reconfigure without disturbing other tests.
type cluster struct {
	t   *testing.T
	dir string
	pg  *pgembed.Cluster
	// standbyOf is pgembed's Options.StandbyOf.
	standbyOf string
}

// pgLogger passes on what PostgreSQL's supervisor says of trouble only.
var pgLogger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

// startCluster starts a new cluster with a database ipam and stops it when
// the test ends.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	c := &cluster{t: t, dir: newDataDir(t)}
	c.start()
	t.Cleanup(func() {
		if c.pg != nil {
			c.pg.Stop()
		}
	})
	c.exec("postgres", "CREATE DATABASE ipam")
	return c
}

// startStandby starts a streaming-replication standby of primary, with
// its databases, and stops it when the test ends.
func startStandby(t *testing.T, primary *cluster) *cluster {
	t.Helper()
	c := &cluster{t: t, dir: newDataDir(t), standbyOf: primary.dir}
	c.start()
	t.Cleanup(func() {
		if c.pg != nil {
			c.pg.Stop()
		}
	})
	return c
}

// start starts the cluster (again).
func (c *cluster) start() {
	c.t.Helper()
	// Not Fast: synchronous_commit off would lose confirmed commits in a
	// crash, which is what the tests look for. The test's user may log in
	// as appRole too.
	pg, err := pgembed.Start(context.Background(), pgembed.Options{DataDir: c.dir, Logger: pgLogger, StandbyOf: c.standbyOf, Roles: []string{appRole}})
	if err != nil {
		c.t.Fatal(err)
	}
	c.pg = pg
}

// stop stops the cluster with a fast shutdown: PostgreSQL ends every
// session (57P01) and refuses connections until it is started again.
func (c *cluster) stop() {
	c.t.Helper()
	if err := c.pg.Stop(); err != nil {
		c.t.Fatal(err)
	}
	c.pg = nil
}

// crash stops the cluster with an immediate shutdown, as a crash does: no
// checkpoint, so the next start recovers from the write-ahead log.
func (c *cluster) crash() {
	c.t.Helper()
	pid := c.postmasterPID()
	if err := syscall.Kill(pid, syscall.SIGQUIT); err != nil {
		c.t.Fatal(err)
	}
	// Stop waits for the postmaster, which exits with a status of its own
	// after an immediate shutdown.
	c.pg.Stop()
	c.pg = nil
}

// postmasterPID reads the PID of the running postmaster.
func (c *cluster) postmasterPID() int {
	c.t.Helper()
	files, err := filepath.Glob(filepath.Join(c.dir, "pg*", "postmaster.pid"))
	if err != nil || len(files) != 1 {
		c.t.Fatalf("no postmaster.pid in %s/pg*: %v", c.dir, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		c.t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		c.t.Fatalf("%s starts with %q, want a PID", files[0], first)
	}
	return pid
}

// url returns the URL of database as user (the superuser postgres when
// empty).
func (c *cluster) url(database, user string) string {
	u := c.pg.URL(database)
	if user != "" {
		u = strings.Replace(u, "postgres://postgres@", "postgres://"+user+"@", 1)
	}
	return u
}

// exec runs statements in database as the superuser.
func (c *cluster) exec(database string, statements ...string) {
	c.t.Helper()
	db := openDB(c.t, c.url(database, ""))
	defer db.Close()
	for _, s := range statements {
		if _, err := db.ExecContext(c.t.Context(), s); err != nil {
			c.t.Fatalf("%s: %v", s, err)
		}
	}
}

// openDB opens a pool of a few connections to url.
func openDB(t *testing.T, url string) *store.DB {
	t.Helper()
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(4)
	return db
}
