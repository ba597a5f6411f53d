package reliability

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
)

// TestGracefulShutdown sends SIGTERM to ipam serve, on its embedded
// PostgreSQL, while a claim waits for a lock: the server stops taking
// connections, the claim finishes with 200 and its address once the lock
// is gone, the process exits 0 and its PostgreSQL stops with it, leaving no
// process behind. Started again, the database holds the claim.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	c := &cluster{t: t, dir: newDataDir(t)}
	p := start(t, nil, "", "serve", "--listen", "127.0.0.1:0", "--data-dir", c.dir)
	base := p.waitServing(t)
	dbURL := fmt.Sprintf("postgres://postgres@/ipam?host=%s&port=5432&sslmode=disable", url.QueryEscape(c.dir))
	token := tenant(t, dbURL, "a tenant's long password")
	client := newHTTPClient()
	setupVPC(t, client, base, token, "10.42.0.0/24")
	postmaster := c.postmasterPID()

	admin := openDB(t, dbURL)
	defer admin.Close()
	lock, err := admin.BeginTxx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	if _, err := lock.ExecContext(t.Context(), `LOCK TABLE allocations IN SHARE MODE`); err != nil {
		t.Fatal(err)
	}
	answer := make(chan gqlResult, 1)
	go func() {
		answer <- graphql(t.Context(), client, base, token, attachInterface, map[string]any{"vm": "vm-1"})
	}()
	pgtest.WaitForLock(t, admin, "the claim", pgtest.LockWait{})

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	fresh := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	refusing := waitUntil(5*time.Second, func() bool {
		_, _, err := get(t.Context(), fresh, base+"/healthz")
		return err != nil
	})
	if !refusing {
		t.Errorf("ipam serve still took connections 5 s after SIGTERM")
	}
	select {
	case r := <-answer:
		t.Fatalf("the claim was answered before the lock was gone: %v", r)
	case <-p.exited:
		t.Fatalf("ipam serve exited with a request in flight\nstderr:\n%s", p.stderr)
	default:
	}
	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}
	admin.Close()

	select {
	case r := <-answer:
		if r.outcome != confirmed || r.address("attachInterface") != "10.42.0.2" {
			t.Errorf("the claim in flight at SIGTERM was answered %v, want 200 with 10.42.0.2", r)
		}
	case <-time.After(stopTimeout):
		t.Fatalf("the claim in flight at SIGTERM was not answered within %v", stopTimeout)
	}
	if code := p.wait(t, stopTimeout); code != 0 {
		t.Fatalf("ipam serve exited %d after SIGTERM, want 0\nstderr:\n%s", code, p.stderr)
	}
	if err := syscall.Kill(-postmaster, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("processes of the postmaster's group %d outlive ipam serve: kill returned %v", postmaster, err)
	}
	if left := processesNaming(t, c.dir); len(left) > 0 {
		t.Errorf("processes naming %s outlive ipam serve:\n%s", c.dir, strings.Join(left, "\n"))
	}

	c.start()
	defer c.stop()
	db := openDB(t, c.url("ipam", ""))
	defer db.Close()
	var held string
	if err := db.GetContext(t.Context(), &held, `SELECT host(address) FROM allocations WHERE owner_uid = 'vm-1'`); err != nil || held != "10.42.0.2" {
		t.Errorf("after the restart, vm-1 holds %q (%v), want 10.42.0.2", held, err)
	}
	checkAudited(t, db)
}

// processesNaming lists the processes whose command line contains s.
func processesNaming(t *testing.T, s string) []string {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, file := range cmdlines {
		data, err := os.ReadFile(file)
		if err != nil {
			continue // the process has gone
		}
		if cmdline := strings.ReplaceAll(string(data), "\x00", " "); strings.Contains(cmdline, s) {
			found = append(found, filepath.Base(filepath.Dir(file))+": "+cmdline)
		}
	}
	return found
}
