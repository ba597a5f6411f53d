// Package pgtest gives tests fresh, migrated PostgreSQL databases.
//
// Call Main from TestMain. It connects to the server named by DATABASE_URL,
// which must allow CREATE DATABASE, or else starts one private cluster for
// the test binary. It migrates a template database once; every NewDB or
// NewURL then copies the template, which takes milliseconds.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgembed"
	"pivirt.hu/ipam/internal/store"
)

const (
	setupTimeout = 2 * time.Minute

	clusterDirPrefix = "ipam-pgtest-"

	shmDir     = "/dev/shm"
	tmpfsMagic = 0x01021994
	minShmFree = 1 << 30
)

// server is set up by Main and shared by the tests of the binary.
var server struct {
	baseURL  string
	admin    *store.DB
	template string
	prefix   string
	counter  atomic.Int64
}

// Main sets up the database server, runs the tests, tears the server down and
// exits. Use it as: func TestMain(m *testing.M) { pgtest.Main(m) }
func Main(m *testing.M) {
	os.Exit(Run(m.Run))
}

// Run sets up the database server, calls tests and tears the server down,
// returning the exit code of tests. Packages that need more set-up around
// their tests (a browser, a built binary) call it from TestMain.
func Run(tests func() int) int {
	teardown, err := setup()
	if err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
		fmt.Fprintln(os.Stderr, "pgtest: the tests need PostgreSQL: install the server (apt-get install postgresql-15) or set DATABASE_URL to a server that allows CREATE DATABASE")
		return 1
	}
	defer teardown()
	return tests()
}

// setup connects to or starts the server and creates the migrated template.
// The returned function undoes it.
func setup() (func(), error) {
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()

	id := fmt.Sprintf("%d_%08x", os.Getpid(), rand.Uint32())
	server.template = "ipam_tmpl_" + id
	server.prefix = "ipam_test_" + id

	var cleanups []func()
	teardown := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}

	server.baseURL = os.Getenv("DATABASE_URL")
	external := server.baseURL != ""
	if !external {
		cluster, dir, err := startCluster(ctx)
		if err != nil {
			return nil, err
		}
		cleanups = append(cleanups, func() {
			if err := cluster.Stop(); err != nil {
				fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
			}
			os.RemoveAll(dir)
		})
		server.baseURL = cluster.URL("postgres")
	}

	admin, err := store.Open(ctx, server.baseURL)
	if err != nil {
		teardown()
		return nil, err
	}
	server.admin = admin
	cleanups = append(cleanups, func() { admin.Close() })

	if err := createTemplate(ctx); err != nil {
		teardown()
		return nil, err
	}
	if external {
		cleanups = append(cleanups, func() {
			if err := dropDatabase(server.template); err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
		})
	}

	return teardown, nil
}

func startCluster(ctx context.Context) (*pgembed.Cluster, string, error) {
	// os.MkdirTemp's folder is private but its parent (/tmp or /dev/shm) is
	// reachable by the postgres user, to whom pgembed hands the folder when
	// running as root.
	parent := clusterParentDir()
	removeStaleClusters(parent)

	// The PID in the name tells removeStaleClusters when the folder is stale.
	dir, err := os.MkdirTemp(parent, fmt.Sprintf("%s%d-", clusterDirPrefix, os.Getpid()))
	if err != nil {
		return nil, "", fmt.Errorf("unable to create a data directory: %w", err)
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cluster, err := pgembed.Start(ctx, pgembed.Options{DataDir: dir, Fast: true, Logger: logger})
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", err
	}
	return cluster, dir, nil
}

// clusterParentDir returns where to put the throwaway cluster: $TMPDIR when
// set, else /dev/shm when it is a roomy tmpfs, since copying the template
// database there is about ten times faster than on a disk, else the default
// temporary folder.
func clusterParentDir() string {
	if os.Getenv("TMPDIR") != "" {
		return os.TempDir()
	}
	var stat syscall.Statfs_t
	if err := syscall.Statfs(shmDir, &stat); err == nil && stat.Type == tmpfsMagic && stat.Bavail*uint64(stat.Bsize) >= minShmFree {
		return shmDir
	}
	return os.TempDir()
}

// removeStaleClusters removes the clusters of test binaries that were killed,
// by the go test timeout for instance, before they could clean up. Their
// postmasters shut down when they died but their folders stay, which matters
// on a tmpfs.
func removeStaleClusters(parent string) {
	dirs, err := filepath.Glob(filepath.Join(parent, clusterDirPrefix+"*"))
	if err != nil {
		return
	}
	for _, dir := range dirs {
		var pid int
		if _, err := fmt.Sscanf(filepath.Base(dir), clusterDirPrefix+"%d-", &pid); err != nil {
			continue
		}
		if processAlive(pid) || postmasterAlive(dir) {
			continue
		}
		os.RemoveAll(dir)
	}
}

// postmasterAlive reports whether a postmaster still runs in the cluster.
func postmasterAlive(dir string) bool {
	pidFiles, err := filepath.Glob(filepath.Join(dir, "pg*", "postmaster.pid"))
	if err != nil {
		return false
	}
	for _, pidFile := range pidFiles {
		data, err := os.ReadFile(pidFile)
		if err != nil {
			continue
		}
		firstLine, _, _ := strings.Cut(string(data), "\n")
		if pid, err := strconv.Atoi(strings.TrimSpace(firstLine)); err == nil && processAlive(pid) {
			return true
		}
	}
	return false
}

func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func createTemplate(ctx context.Context) error {
	if err := store.CreateDatabase(ctx, server.admin, server.template, ""); err != nil {
		return err
	}

	db, err := store.Open(ctx, databaseURL(server.template))
	if err != nil {
		return err
	}
	// CREATE DATABASE ... TEMPLATE refuses a template with open connections.
	defer db.Close()

	if _, err := store.Migrate(ctx, db); err != nil {
		return err
	}
	return nil
}

// NewDB returns a connection pool to a fresh, migrated database that is
// dropped when the test ends.
func NewDB(t testing.TB) *store.DB {
	t.Helper()

	db, err := store.Open(t.Context(), NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// NewURL returns the URL of a fresh, migrated database that is dropped when
// the test ends, for tests that connect from other processes.
func NewURL(t testing.TB) string {
	t.Helper()

	if server.admin == nil {
		t.Fatal("pgtest: no database server: call pgtest.Main(m) from TestMain")
	}

	name := server.prefix + "_" + strconv.FormatInt(server.counter.Add(1), 10)
	if err := store.CreateDatabase(t.Context(), server.admin, name, server.template); err != nil {
		t.Fatalf("pgtest: unable to create a test database: %v", err)
	}
	t.Cleanup(func() {
		if err := dropDatabase(name); err != nil {
			t.Error(err)
		}
	})

	return databaseURL(name)
}

func dropDatabase(name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	return store.DropDatabase(ctx, server.admin, name)
}

// databaseURL returns server.baseURL pointed at another database. The base
// may be a URL or a key=value DSN, as lib/pq accepts both; the generated
// database names need no quoting.
func databaseURL(name string) string {
	if u, err := url.Parse(server.baseURL); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + name
		u.RawPath = ""
		return u.String()
	}
	return strings.TrimSpace(server.baseURL) + " dbname=" + name
}
