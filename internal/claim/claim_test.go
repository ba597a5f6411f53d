package claim

import (
	"context"
	"errors"
	"maps"
	"net/netip"
	"slices"
	"sync"
	"testing"

	"pivirt.hu/ipam/internal/candidates"
)

// A kind is a kind of space as the tests use it: its taken sets and the
// candidates of a small space, in the order they are handed out.
type kind[V comparable, R any] struct {
	name   string
	newSet func() Set[V, R]
	first  func(taken R) (V, bool)
	values []V
}

// addresses is the pool cidr with its gateway at 10.0.0.1: a /29 has the
// candidates 10.0.0.2 to 10.0.0.6.
func addresses(t *testing.T, cidr string) kind[netip.Addr, candidates.Set] {
	pool, err := candidates.ParsePool(candidates.PoolSpec{CIDR: cidr, Gateway: "10.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	space := pool.Candidates()
	return kind[netip.Addr, candidates.Set]{
		name:   "addresses",
		newSet: func() Set[netip.Addr, candidates.Set] { return &candidates.SetBuilder{} },
		first: func(taken candidates.Set) (netip.Addr, bool) {
			it := space.Iter(taken)
			return it.Next()
		},
		values: space.NextN(candidates.Set{}, space.Size()),
	}
}

// numbers is a pool of two ranges, 1-end and (end+10)-(end+11), the second
// tried first.
func numbers(t *testing.T, end int64) kind[int64, candidates.NumberSet] {
	pool, err := candidates.ParseNumberPool([]candidates.NumberRange{{Start: 1, End: end, Weight: 1}, {Start: end + 10, End: end + 11, Weight: 2}})
	if err != nil {
		t.Fatal(err)
	}
	return kind[int64, candidates.NumberSet]{
		name:   "numbers",
		newSet: func() Set[int64, candidates.NumberSet] { return &candidates.NumberSetBuilder{} },
		first:  pool.First,
		values: pool.NextN(candidates.NumberSet{}, int(pool.Size())),
	}
}

// A database is the unique index the claims write under: who holds each
// value.
type database[V comparable] struct {
	mu   sync.Mutex
	held map[V]string
}

func (db *database[V]) holder(v V) (string, bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	h, ok := db.held[v]
	return h, ok
}

func (db *database[V]) set(v V, holder string) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if holder == "" {
		delete(db.held, v)
	} else {
		db.held[v] = holder
	}
}

func (db *database[V]) taken(context.Context) ([]V, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	return slices.Collect(maps.Keys(db.held)), nil
}

// A testClaim is a claim of a value for holder, one value a holder, as the
// domains make theirs: its insert stores nothing when the value or the
// holder is taken; its conflict query reads who holds what.
type testClaim[V comparable, R any] struct {
	k      kind[V, R]
	views  *Views[string, V, R]
	db     *database[V]
	holder string

	// insert, if set, is called before each insert (a race, a
	// cancellation); verdict, if set, overrides the conflict query.
	insert  func(v V)
	verdict func(v V) (Verdict, bool)

	inserts, lost, spaces, reloads int
	stored                         []V
}

func newTestClaim[V comparable, R any](k kind[V, R], db *database[V], holder string) *testClaim[V, R] {
	c := &testClaim[V, R]{k: k, db: db, holder: holder}
	c.views = NewViews(ViewsConfig[string, V, R]{New: k.newSet, Load: func(ctx context.Context, _ string) ([]V, error) { return db.taken(ctx) }})
	return c
}

func (c *testClaim[V, R]) Space(ctx context.Context) (*View[V, R], func(R) (V, bool), error) {
	c.spaces++
	vw, err := c.views.Get(ctx, "space")
	return vw, c.k.first, err
}

func (c *testClaim[V, R]) Insert(_ context.Context, v V) (V, error) {
	c.inserts++
	if c.insert != nil {
		c.insert(v)
	}
	var zero V
	if _, taken := c.db.holder(v); taken || c.holds() != nil {
		return zero, ErrNotStored
	}
	c.db.set(v, c.holder)
	return v, nil
}

// holds returns the value the holder holds, if any.
func (c *testClaim[V, R]) holds() *V {
	c.db.mu.Lock()
	defer c.db.mu.Unlock()
	for v, h := range c.db.held {
		if h == c.holder {
			return &v
		}
	}
	return nil
}

func (c *testClaim[V, R]) Stored(_ *View[V, R], v V) { c.stored = append(c.stored, v) }

func (c *testClaim[V, R]) Conflict(_ context.Context, v V) (Conflict[V], error) {
	if c.verdict != nil {
		if verdict, ok := c.verdict(v); ok {
			return Conflict[V]{Verdict: verdict}, nil
		}
	}
	_, taken := c.db.holder(v)
	if held := c.holds(); held != nil {
		return Conflict[V]{Verdict: Answered, Free: !taken, Answer: func(context.Context) (V, error) { return *held, nil }}, nil
	}
	if taken {
		return Conflict[V]{Verdict: Taken}, nil
	}
	return Conflict[V]{Verdict: Free}, nil
}

func (c *testClaim[V, R]) Lost(V) { c.lost++ }

func (c *testClaim[V, R]) Held(context.Context) (V, bool, error) {
	if held := c.holds(); held != nil {
		return *held, true, nil
	}
	var zero V
	return zero, false, nil
}

func (c *testClaim[V, R]) Respecify(context.Context) (bool, error) { return false, nil }

func (c *testClaim[V, R]) Taken(ctx context.Context) ([]V, error) {
	c.reloads++
	return c.db.taken(ctx)
}

// forEachKind runs test for addresses and for numbers, in a space of 5
// values and in one of 510.
func forEachKind(t *testing.T, test func(t *testing.T, addrs kind[netip.Addr, candidates.Set], nums kind[int64, candidates.NumberSet])) {
	test(t, addresses(t, "10.0.0.0/29"), numbers(t, 3))
	test(t, addresses(t, "10.0.0.0/23"), numbers(t, 508))
}

func TestClaimsAreLowestFirstAndKnowTheirHolders(t *testing.T) {
	forEachKind(t, func(t *testing.T, a kind[netip.Addr, candidates.Set], n kind[int64, candidates.NumberSet]) {
		testLowestFirst(t, a)
		testLowestFirst(t, n)
	})
}

func testLowestFirst[V comparable, R any](t *testing.T, k kind[V, R]) {
	db := &database[V]{held: map[V]string{}}
	c := newTestClaim(k, db, "a")
	if _, err := c.views.Get(t.Context(), "space"); err != nil {
		t.Fatal(err)
	}
	// Another process claims the first candidate after the view was read:
	// the claim loses it and takes the second.
	db.set(k.values[0], "elsewhere")
	got, err := Run(t.Context(), c)
	if err != nil || got != k.values[1] || c.lost != 1 || !slices.Equal(c.stored, []V{k.values[1]}) {
		t.Fatalf("%s: Run = %v, %v (lost %d, stored %v); want %v after one race lost", k.name, got, err, c.lost, c.stored, k.values[1])
	}
	// Asking again answers what the holder holds, without storing.
	again := newTestClaim(k, db, "a")
	again.views = c.views
	if got, err := Run(t.Context(), again); err != nil || got != k.values[1] || len(again.stored) != 0 {
		t.Fatalf("%s: Run again = %v, %v, stored %v; want %v held", k.name, got, err, again.stored, k.values[1])
	}
	// The next holder's claim skips what the view holds taken.
	b := newTestClaim(k, db, "b")
	b.views = c.views
	if got, err := Run(t.Context(), b); err != nil || got != k.values[2] || b.inserts != 1 {
		t.Fatalf("%s: Run for b = %v, %v after %d inserts; want %v at once", k.name, got, err, b.inserts, k.values[2])
	}
}

func TestExhaustedOnlyAfterOneReload(t *testing.T) {
	forEachKind(t, func(t *testing.T, a kind[netip.Addr, candidates.Set], n kind[int64, candidates.NumberSet]) {
		testExhausted(t, a)
		testExhausted(t, n)
	})
}

func testExhausted[V comparable, R any](t *testing.T, k kind[V, R]) {
	db := &database[V]{held: map[V]string{}}
	for i, v := range k.values {
		db.set(v, "x"+string(rune('a'+i)))
	}
	c := newTestClaim(k, db, "new")
	if _, err := c.views.Get(t.Context(), "space"); err != nil {
		t.Fatal(err)
	}
	// Freed behind the view's back: the claim finds it after reading the
	// view afresh, once.
	db.set(k.values[len(k.values)-1], "")
	got, err := Run(t.Context(), c)
	if err != nil || got != k.values[len(k.values)-1] || c.reloads != 1 {
		t.Fatalf("%s: Run = %v, %v after %d reloads; want %v after 1", k.name, got, err, c.reloads, k.values[len(k.values)-1])
	}
	full := newTestClaim(k, db, "late")
	full.views = c.views
	if _, err := Run(t.Context(), full); !errors.Is(err, ErrExhausted) || full.reloads != 1 || full.inserts != 0 {
		t.Fatalf("%s: Run in a full space = %v after %d reloads and %d inserts; want ErrExhausted after 1 reload", k.name, err, full.reloads, full.inserts)
	}
}

func TestRetriesAreBounded(t *testing.T) {
	forEachKind(t, func(t *testing.T, a kind[netip.Addr, candidates.Set], n kind[int64, candidates.NumberSet]) {
		testFreeTriedAgain(t, a)
		testFreeTriedAgain(t, n)
		testContended(t, a)
		testContended(t, n)
	})
}

// testFreeTriedAgain: a candidate whose insert stores nothing though
// nobody holds it by the time the claim asks is tried again, maxFreeTries
// times, and then counts as taken.
func testFreeTriedAgain[V comparable, R any](t *testing.T, k kind[V, R]) {
	db := &database[V]{held: map[V]string{}}
	c := newTestClaim(k, db, "a")
	c.insert = func(v V) {
		if v == k.values[0] {
			db.set(v, "released meanwhile")
		}
	}
	c.verdict = func(v V) (Verdict, bool) { return Free, v == k.values[0] }
	got, err := Run(t.Context(), c)
	if err != nil || got != k.values[1] || c.inserts != maxFreeTries+2 || c.lost != maxFreeTries+1 {
		t.Fatalf("%s: Run = %v, %v after %d inserts, %d lost; want %v after %d inserts", k.name, got, err, c.inserts, c.lost, k.values[1], maxFreeTries+2)
	}
}

// testContended: a claim whose candidates other claims take meanwhile, one
// after the other, reads its view afresh once after staleAfter of them and
// gives up after maxAttempts; in a small space, it finds the space
// exhausted first.
func testContended[V comparable, R any](t *testing.T, k kind[V, R]) {
	db := &database[V]{held: map[V]string{}}
	c := newTestClaim(k, db, "a")
	c.insert = func(v V) { db.set(v, "racer") }
	_, err := Run(t.Context(), c)
	var contended *ContendedError
	switch {
	case len(k.values) > maxAttempts:
		if !errors.As(err, &contended) || c.inserts != maxAttempts || c.reloads != 1 || c.lost != maxAttempts {
			t.Fatalf("%s: Run = %v after %d inserts, %d lost, %d reloads; want a ContendedError after %d inserts and 1 reload", k.name, err, c.inserts, c.lost, c.reloads, maxAttempts)
		}
	case !errors.Is(err, ErrExhausted) || c.inserts != len(k.values) || c.reloads != 1:
		t.Fatalf("%s: Run = %v after %d inserts, %d reloads; want ErrExhausted after %d inserts and 1 reload", k.name, err, c.inserts, c.reloads, len(k.values))
	}
}

func TestContextCheckedAtEveryAttempt(t *testing.T) {
	forEachKind(t, func(t *testing.T, a kind[netip.Addr, candidates.Set], n kind[int64, candidates.NumberSet]) {
		testCancelled(t, a)
		testCancelled(t, n)
	})
}

func testCancelled[V comparable, R any](t *testing.T, k kind[V, R]) {
	db := &database[V]{held: map[V]string{}}
	c := newTestClaim(k, db, "a")
	ctx, cancel := context.WithCancel(t.Context())
	// The claim's first insert loses a race, and its context ends
	// meanwhile.
	c.insert = func(v V) {
		db.set(v, "racer")
		cancel()
	}
	if _, err := Run(ctx, c); !errors.Is(err, context.Canceled) || c.inserts != 1 {
		t.Fatalf("%s: Run = %v after %d inserts; want context.Canceled after 1", k.name, err, c.inserts)
	}
	vw := c.views.IfLoaded("space")
	vw.Read(func(taken R) {
		if v, _ := k.first(taken); v != k.values[1] {
			t.Errorf("%s: the view holds %v free first, want %v: the lost candidate stays taken", k.name, v, k.values[1])
		}
	})
}
