package claim

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/candidates"
)

// TestRefreshFindsWhatWasFreedUnseen is the refresh policy of
// docs/allocation.md ("How the views stay fresh") for each kind of space:
// a value freed behind the process's back, with no notification, is no
// candidate until the next refresh, and the first candidate after it.
func TestRefreshFindsWhatWasFreedUnseen(t *testing.T) {
	forEachKind(t, func(t *testing.T, a kind[netip.Addr, candidates.Set], n kind[int64, candidates.NumberSet]) {
		testRefreshFinds(t, a)
		testRefreshFinds(t, n)
	})
}

func testRefreshFinds[V comparable, R any](t *testing.T, k kind[V, R]) {
	db := &database[V]{held: map[V]string{}}
	for _, v := range k.values[:3] {
		db.set(v, "other")
	}
	first := newTestClaim(k, db, "first")
	views := first.views
	if got, err := Run(t.Context(), first); err != nil || got != k.values[3] {
		t.Fatalf("%s: Run = %v, %v; want %v", k.name, got, err, k.values[3])
	}
	// Freed without a notification: the view still holds it taken.
	db.set(k.values[1], "")
	second := newTestClaim(k, db, "second")
	second.views = views
	if got, err := Run(t.Context(), second); err != nil || got != k.values[4] {
		t.Fatalf("%s: Run before the refresh = %v, %v; want %v", k.name, got, err, k.values[4])
	}
	ctx, stop := context.WithCancel(t.Context())
	tick := make(chan time.Time)
	done := make(chan struct{})
	go func() {
		views.refreshOn(ctx, tick)
		close(done)
	}()
	// The second tick is taken once the first refresh is over.
	tick <- time.Now()
	tick <- time.Now()
	stop()
	<-done
	third := newTestClaim(k, db, "third")
	third.views = views
	if got, err := Run(t.Context(), third); err != nil || got != k.values[1] || third.inserts != 1 {
		t.Fatalf("%s: Run after the refresh = %v, %v after %d inserts; want %v at once", k.name, got, err, third.inserts, k.values[1])
	}
}

// TestRefreshKeepsWhatItLearnsMeanwhile: what a view learns while a
// refresh reads the database (a claim, a release) is applied on top of
// what the refresh read, for each kind of space.
func TestRefreshKeepsWhatItLearnsMeanwhile(t *testing.T) {
	forEachKind(t, func(t *testing.T, a kind[netip.Addr, candidates.Set], n kind[int64, candidates.NumberSet]) {
		testRefreshKeeps(t, a)
		testRefreshKeeps(t, n)
	})
}

func testRefreshKeeps[V comparable, R any](t *testing.T, k kind[V, R]) {
	db := &database[V]{held: map[V]string{k.values[1]: "other"}}
	c := newTestClaim(k, db, "c")
	vw, err := c.views.Get(t.Context(), "space")
	if err != nil {
		t.Fatal(err)
	}
	reading, read := make(chan struct{}), make(chan struct{})
	refreshed := make(chan error)
	go func() {
		refreshed <- vw.Refresh(t.Context(), func(ctx context.Context) ([]V, error) {
			taken, err := db.taken(ctx)
			close(reading)
			<-read
			return taken, err
		})
	}()
	<-reading
	// Meanwhile this process claims values[0] and frees values[1].
	if v, ok := vw.Reserve(k.first); !ok || v != k.values[0] {
		t.Fatalf("%s: Reserve = %v %v, want %v", k.name, v, ok, k.values[0])
	}
	vw.Free(k.values[1])
	close(read)
	if err := <-refreshed; err != nil {
		t.Fatal(err)
	}
	vw.Read(func(taken R) {
		if v, _ := k.first(taken); v != k.values[1] {
			t.Errorf("%s: after the refresh the first free value is %v, want %v", k.name, v, k.values[1])
		}
	})
	if v, _ := vw.Reserve(k.first); v != k.values[1] {
		t.Fatalf("%s: Reserve = %v, want %v", k.name, v, k.values[1])
	}
	if v, _ := vw.Reserve(k.first); v != k.values[2] {
		t.Errorf("%s: Reserve = %v, want %v: %v is taken since before the refresh", k.name, v, k.values[2], k.values[0])
	}
}
