package pgembed

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
