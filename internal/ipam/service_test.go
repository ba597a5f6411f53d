package ipam

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// ownGoroutines are the functions of the goroutines a Service starts.
var ownGoroutines = []string{"claim.(*Views[...]).Refresh", "store.(*Listener).Run", "store.(*Listener).ping"}

// runningOwn returns the stacks of the goroutines a Service started that
// still run.
func runningOwn() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var running []string
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		for _, f := range ownGoroutines {
			if strings.Contains(g, f) {
				running = append(running, g)
			}
		}
	}
	return running
}

// TestCloseWaitsForItsGoroutines checks that Close returns only once the
// goroutines New started have ended. The test runs alone: another test's
// service would start the same goroutines.
func TestCloseWaitsForItsGoroutines(t *testing.T) {
	url := pgtest.NewURL(t)
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc, err := New(t.Context(), Config{DB: db, URL: url})
	if err != nil {
		t.Fatal(err)
	}
	// The goroutines New started may not have reached their functions
	// yet.
	for deadline := time.Now().Add(5 * time.Second); len(runningOwn()) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			svc.Close()
			t.Fatalf("no goroutine of %v runs after New", ownGoroutines)
		}
	}
	svc.Close()
	if running := runningOwn(); len(running) > 0 {
		t.Errorf("after Close, these goroutines still run:\n%s", strings.Join(running, "\n\n"))
	}
}

// TestNewGivesUpWhenItsContextEnds checks that New, which waits for the
// listener's connection, returns when its context ends on a database that
// refuses connections, leaving nothing running.
func TestNewGivesUpWhenItsContextEnds(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	// Nothing listens on port 1.
	svc, err := New(ctx, Config{DB: pgtest.NewDB(t), URL: "postgres://nobody@127.0.0.1:1/none?sslmode=disable", Logger: slog.New(slog.DiscardHandler)})
	if err == nil {
		svc.Close()
		t.Fatal("New on an unreachable database succeeded")
	}
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("New on an unreachable database: %v, want it to wrap store.ErrUnavailable", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("New took %v after its context's deadline of 300ms", took)
	}
	if running := runningOwn(); len(running) > 0 {
		t.Errorf("after New failed, these goroutines still run:\n%s", strings.Join(running, "\n\n"))
	}
}
