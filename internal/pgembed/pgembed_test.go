package pgembed

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/lib/pq"
)

// childDataDirEnv makes the test binary act as a parent process that starts a
// cluster, prints the postmaster PID and waits to be killed.
const childDataDirEnv = "PGEMBED_TEST_CHILD_DATA_DIR"

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
const prSetChildSubreaper = 36

func TestMain(m *testing.M) {
	if dataDir := os.Getenv(childDataDirEnv); dataDir != "" {
		runChild(dataDir)
		return
	}
	os.Exit(m.Run())
}

func runChild(dataDir string) {
	c, err := Start(context.Background(), Options{DataDir: dataDir, Fast: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(c.cmd.Process.Pid)
	time.Sleep(time.Hour)
}

// newDataDir returns an empty folder that the postgres user can reach when
// the tests run as root (t.TempDir's parent folder is private to root).
func newDataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func startCluster(t *testing.T, dataDir string) *Cluster {
	t.Helper()
	c, err := Start(t.Context(), Options{DataDir: dataDir, Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Error(err)
		}
	})
	return c
}

func openDB(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestStartQueryStop(t *testing.T) {
	c := startCluster(t, newDataDir(t))
	pid := c.cmd.Process.Pid

	db := openDB(t, c.URL("postgres"))
	var one int
	if err := db.QueryRowContext(t.Context(), "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
	if one != 1 {
		t.Fatalf("SELECT 1 returned %d", one)
	}
	db.Close()

	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}

	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("postmaster (PID %d) is still running: kill returned %v", pid, err)
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("processes of the postmaster group %d are still running: kill returned %v", pid, err)
	}
}

func TestRestartReusesCluster(t *testing.T) {
	dataDir := newDataDir(t)

	first := startCluster(t, dataDir)
	db := openDB(t, first.URL("postgres"))
	if _, err := db.ExecContext(t.Context(), "CREATE DATABASE marker"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}

	versionFile := filepath.Join(first.pgData, "PG_VERSION")
	before, err := os.Stat(versionFile)
	if err != nil {
		t.Fatal(err)
	}

	second := startCluster(t, dataDir)
	after, err := os.Stat(versionFile)
	if err != nil {
		t.Fatal(err)
	}
	if !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("the second Start ran initdb again")
	}

	db = openDB(t, second.URL("marker"))
	if err := db.PingContext(t.Context()); err != nil {
		t.Fatalf("the database created before the restart is gone: %v", err)
	}
}

func TestStartRefusesClusterInUse(t *testing.T) {
	dataDir := newDataDir(t)
	running := startCluster(t, dataDir)

	_, err := Start(t.Context(), Options{DataDir: dataDir, Fast: true})
	if err == nil || !strings.Contains(err.Error(), "in use by another postmaster") {
		t.Fatalf("Start on a data directory in use returned %v", err)
	}

	db := openDB(t, running.URL("postgres"))
	if err := db.PingContext(t.Context()); err != nil {
		t.Fatalf("the running cluster was disturbed: %v", err)
	}
}

func TestStartRejectsLongSocketPath(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), strings.Repeat("d", 100))
	_, err := Start(t.Context(), Options{DataDir: dataDir})
	if err == nil || !strings.Contains(err.Error(), "unix socket path") {
		t.Fatalf("Start with a long data directory returned %v", err)
	}
	if _, err := os.Stat(dataDir); err == nil {
		t.Fatal("Start created the data directory before rejecting it")
	}
}

func TestStartReportsUnreachableDataDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root hands the data directory over to the postgres user")
	}
	dataDir := filepath.Join(t.TempDir(), "data")
	_, err := Start(t.Context(), Options{DataDir: dataDir})
	if err == nil || !strings.Contains(err.Error(), "--data-dir") {
		t.Fatalf("Start with an unreachable data directory returned %v", err)
	}
}

func TestClusterDiesWithParent(t *testing.T) {
	dataDir := newDataDir(t)

	// Adopt the postmaster once its parent dies so that this test can reap it
	// instead of leaving a zombie to an init process that may not reap.
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		t.Fatal(errno)
	}

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childDataDirEnv+"="+dataDir)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}

	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the child did not report the postmaster PID: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	exited := make(chan error, 1)
	go func() {
		var status syscall.WaitStatus
		_, err := syscall.Wait4(pid, &status, 0, nil)
		exited <- err
	}()

	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("unable to wait for the orphaned postmaster (PID %d): %v", pid, err)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("the postmaster (PID %d) outlived its parent", pid)
	}
}

// queryStrings returns the single text column of query's rows.
func queryStrings(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// syncBuffer is a log's output, written by the cluster's code and read by
// the test.
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

// TestStartMakesOpenDataDirPrivate starts a cluster in a data directory
// made beforehand with mode 0755, as systemd's StateDirectory= and
// install -d make them: Start makes it 0700, so that no other local user
// reaches the cluster's files or its socket, and logs that it did.
func TestStartMakesOpenDataDirPrivate(t *testing.T) {
	dataDir := newDataDir(t)
	if err := os.Chmod(dataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	c, err := Start(t.Context(), Options{DataDir: dataDir, Fast: true, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	info, err := os.Stat(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o700 {
		t.Errorf("the data directory made with mode 0755 is %04o after Start, want 0700", perm)
	}
	if !strings.Contains(log.String(), "made it 0700") || !strings.Contains(log.String(), "mode_was=0755") {
		t.Errorf("the log does not say the data directory was made 0700:\n%s", log.String())
	}
}

// TestStartRefusesDataDirOfAnotherUser starts a cluster in a data
// directory that belongs to a user who neither runs this process nor
// PostgreSQL (as root, nobody's; otherwise root's /): Start refuses it,
// naming its owner and what to do, and changes nothing in it.
func TestStartRefusesDataDirOfAnotherUser(t *testing.T) {
	dataDir, owner, runs := "/", "root", ""
	if os.Geteuid() == 0 {
		dataDir, owner, runs = newDataDir(t), "nobody", "postgres"
		nobody, err := user.Lookup("nobody")
		if err != nil {
			t.Fatal(err)
		}
		uid, _ := strconv.Atoi(nobody.Uid)
		if err := os.Chown(dataDir, uid, -1); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dataDir, 0o755); err != nil {
			t.Fatal(err)
		}
	} else {
		me, err := user.Current()
		if err != nil {
			t.Fatal(err)
		}
		runs = me.Username
	}
	before, err := os.Stat(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Start(t.Context(), Options{DataDir: dataDir, Fast: true})
	if err == nil {
		c.Stop()
		t.Fatalf("Start used the data directory %s of %s", dataDir, owner)
	}
	for _, want := range []string{"belongs to " + owner, "PostgreSQL runs as " + runs, "chown -R " + runs + " " + dataDir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Start's refusal does not say %q: %v", want, err)
		}
	}
	after, err := os.Stat(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if after.Mode() != before.Mode() || after.Sys().(*syscall.Stat_t).Uid != before.Sys().(*syscall.Stat_t).Uid {
		t.Errorf("Start changed the refused data directory: %v uid %d, was %v uid %d",
			after.Mode(), after.Sys().(*syscall.Stat_t).Uid, before.Mode(), before.Sys().(*syscall.Stat_t).Uid)
	}
}

// TestSocketAuthenticatesByPeer checks who the socket lets in: the user
// running this process as postgres and as the roles of Options.Roles, and
// no other role, even one that exists and may log in; the rules say so
// (peer, through the map, and nothing else), also after a start on a
// cluster whose pg_hba.conf trusted everyone. As root, another local user
// (nobody) is refused by the data directory's mode and, with that
// directory opened, by peer authentication.
func TestSocketAuthenticatesByPeer(t *testing.T) {
	dataDir := newDataDir(t)
	opts := Options{DataDir: dataDir, Fast: true, Roles: []string{"app"}}
	c, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	admin := openDB(t, c.URL("postgres"))
	for _, s := range []string{"CREATE ROLE app LOGIN", "CREATE ROLE intruder LOGIN SUPERUSER"} {
		if _, err := admin.ExecContext(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	roleURL := func(role string) string {
		return strings.Replace(c.URL("postgres"), "postgres://postgres@", "postgres://"+role+"@", 1)
	}
	checkRoles := func(when string) {
		t.Helper()
		if err := openDB(t, roleURL("app")).PingContext(t.Context()); err != nil {
			t.Errorf("%s: the role app of Options.Roles is refused: %v", when, err)
		}
		err := openDB(t, roleURL("intruder")).PingContext(t.Context())
		if err == nil || !strings.Contains(err.Error(), `Peer authentication failed for user "intruder"`) {
			t.Errorf("%s: a connection as intruder, a role the map does not give this process's user, returned %v; want peer authentication to refuse it", when, err)
		}
	}
	checkRoles("first start")

	rules := queryStrings(t, admin, `SELECT type || ' ' || array_to_string(database, ',') || ' ' || array_to_string(user_name, ',') || ' ' || auth_method || ' ' || coalesce(array_to_string(options, ','), '') || coalesce(' ' || error, '') FROM pg_hba_file_rules ORDER BY line_number`)
	if want := []string{"local all all peer map=ipam", "local replication all peer map=ipam"}; !slices.Equal(rules, want) {
		t.Errorf("pg_hba.conf's rules are %q, want %q", rules, want)
	}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	wantMap := []string{me.Username + " postgres", me.Username + " app"}
	if os.Geteuid() == 0 {
		wantMap = append(wantMap, "postgres postgres", "postgres app")
	}
	mapped := queryStrings(t, admin, `SELECT coalesce(sys_name || ' ' || pg_username, error) FROM pg_ident_file_mappings ORDER BY line_number`)
	if !slices.Equal(mapped, wantMap) {
		t.Errorf("pg_ident.conf maps %q, want %q", mapped, wantMap)
	}

	// A cluster made before, whose pg_hba.conf trusted every local user,
	// authenticates by peer from its next start.
	admin.Close()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.pgData, "pg_hba.conf"), []byte("local all all trust\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	checkRoles("a restart on a pg_hba.conf of trust")

	if os.Geteuid() != 0 {
		return
	}
	// Another local user: nobody, through psql.
	psql := func() string {
		t.Helper()
		nobody, err := user.Lookup("nobody")
		if err != nil {
			t.Fatal(err)
		}
		uid, _ := strconv.ParseUint(nobody.Uid, 10, 32)
		gid, _ := strconv.ParseUint(nobody.Gid, 10, 32)
		cmd := exec.CommandContext(t.Context(), filepath.Join(filepath.Dir(c.cmd.Path), "psql"),
			"-X", "-w", "-h", dataDir, "-p", "5432", "-U", "postgres", "-d", "postgres", "-c", "SELECT 1")
		cmd.Dir, cmd.Env = "/", []string{"HOME=/nonexistent", "PGCONNECT_TIMEOUT=10"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("nobody connected to the cluster as postgres through its socket:\n%s", out)
		}
		return string(out)
	}
	if out := psql(); !strings.Contains(out, "Permission denied") {
		t.Errorf("psql as nobody, the data directory 0700: want Permission denied, got:\n%s", out)
	}
	if err := os.Chmod(dataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out := psql(); !strings.Contains(out, `Peer authentication failed for user "postgres"`) {
		t.Errorf("psql as nobody, the data directory opened to 0755: want peer authentication to refuse it, got:\n%s", out)
	}
}
