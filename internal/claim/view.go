package claim

import (
	"context"
	"log/slog"
	"maps"
	"sync"
	"time"
)

// A Set is the mutable taken set of a view: *candidates.SetBuilder for
// addresses, *candidates.NumberSetBuilder for numbers. View returns the set
// without copying it, valid until the next change.
type Set[V, R any] interface {
	Add(V)
	Remove(V)
	View() R
}

// A Loader reads the taken values of a space from the database.
type Loader[V any] func(context.Context) ([]V, error)

// A View is this process's view of the values taken in one space (a pool,
// a division of a number pool). It only speeds up the search for the
// lowest free candidate: the database's unique index decides every claim,
// so a stale view costs a retry, never a duplicate. Values being claimed
// right now by this process count as taken, so that concurrent claims try
// different candidates.
type View[V comparable, R any] struct {
	loaded func() // told of each read of the view from the database

	mu    sync.Mutex
	ready bool
	taken Set[V, R]
	// changes records, while refreshes read the database outside the
	// lock, what the view learnt meanwhile (claims, releases), to apply on
	// top of what each read: nil when no refresh runs.
	changes    []change[V]
	refreshing int
	newSet     func() Set[V, R]
}

// A change is a value marked taken or free.
type change[V any] struct {
	v     V
	taken bool
}

// Reserve returns the first candidate (first's answer) the view holds
// free, and marks it taken.
func (vw *View[V, R]) Reserve(first func(taken R) (V, bool)) (V, bool) {
	vw.mu.Lock()
	defer vw.mu.Unlock()
	v, ok := first(vw.taken.View())
	if ok {
		vw.mark(v, true)
	}
	return v, ok
}

// Take marks v taken (claimed by another process, or held already).
func (vw *View[V, R]) Take(v V) {
	vw.mu.Lock()
	defer vw.mu.Unlock()
	vw.mark(v, true)
}

// Free marks v free.
func (vw *View[V, R]) Free(v V) {
	vw.mu.Lock()
	defer vw.mu.Unlock()
	vw.mark(v, false)
}

// mark marks v, and keeps the change for the refresh in progress, if any.
func (vw *View[V, R]) mark(v V, taken bool) {
	if taken {
		vw.taken.Add(v)
	} else {
		vw.taken.Remove(v)
	}
	if vw.changes != nil {
		vw.changes = append(vw.changes, change[V]{v, taken})
	}
}

// Read calls fn with the taken set, under the view's lock: fn computes
// what it needs from it and keeps nothing, so nothing is copied.
func (vw *View[V, R]) Read(fn func(taken R)) {
	vw.mu.Lock()
	defer vw.mu.Unlock()
	fn(vw.taken.View())
}

// loadLocked reads the view from the database; the caller holds its lock,
// so that nobody uses the view before it is read.
func (vw *View[V, R]) loadLocked(ctx context.Context, load Loader[V]) error {
	vw.loaded()
	values, err := load(ctx)
	if err != nil {
		return err
	}
	vw.taken, vw.ready = vw.build(values), true
	return nil
}

// build returns the taken set of values.
func (vw *View[V, R]) build(values []V) Set[V, R] {
	s := vw.newSet()
	for _, v := range values {
		s.Add(v)
	}
	return s
}

// Refresh reads the view afresh through load without holding its lock
// through the query, so that claims go on meanwhile; what the view learns
// during the query is applied on top of what was read, so that a claim or
// a release meanwhile is not lost.
func (vw *View[V, R]) Refresh(ctx context.Context, load Loader[V]) error {
	vw.mu.Lock()
	if vw.refreshing == 0 {
		vw.changes = make([]change[V], 0, 8)
	}
	vw.refreshing++
	since := len(vw.changes)
	vw.mu.Unlock()
	vw.loaded()
	values, err := load(ctx)
	s := vw.build(values)
	vw.mu.Lock()
	defer vw.mu.Unlock()
	changes := vw.changes[since:]
	if vw.refreshing--; vw.refreshing == 0 {
		vw.changes = nil
	}
	if err != nil {
		return err
	}
	for _, c := range changes {
		if c.taken {
			s.Add(c.v)
		} else {
			s.Remove(c.v)
		}
	}
	vw.taken, vw.ready = s, true
	return nil
}

// A Views is this process's views of every space of one kind it claims
// in, by key K (a pool's uid; a pool and a division), loaded on first use
// and read afresh every RefreshEvery (Refresh): the refresh policy of
// docs/allocation.md, "How the views stay fresh".
type Views[K comparable, V comparable, R any] struct {
	cfg ViewsConfig[K, V, R]

	mu    sync.Mutex
	views map[K]*View[V, R]
}

// ViewsConfig says how the views of a kind of space are made.
type ViewsConfig[K comparable, V comparable, R any] struct {
	// New returns an empty taken set.
	New func() Set[V, R]
	// Load reads the taken values of the space k from the database.
	Load func(ctx context.Context, k K) ([]V, error)
	// Loaded, if set, is told of each read of a view from the database.
	Loaded func()
	// Log receives the failures of refreshes (at level Debug: the next
	// one tries again); nil for slog.Default.
	Log *slog.Logger
}

// NewViews returns the views of a kind of space, none loaded.
func NewViews[K comparable, V comparable, R any](cfg ViewsConfig[K, V, R]) *Views[K, V, R] {
	if cfg.Loaded == nil {
		cfg.Loaded = func() {}
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Views[K, V, R]{cfg: cfg, views: map[K]*View[V, R]{}}
}

// Get returns the view of k, loaded from the database on first use.
func (vs *Views[K, V, R]) Get(ctx context.Context, k K) (*View[V, R], error) {
	return vs.GetThrough(ctx, k, vs.loader(k))
}

// GetThrough returns the view of k, loaded through load on first use (a
// claim's transaction, so that a claim needs no second connection).
func (vs *Views[K, V, R]) GetThrough(ctx context.Context, k K, load Loader[V]) (*View[V, R], error) {
	vs.mu.Lock()
	vw, ok := vs.views[k]
	if !ok {
		vw = &View[V, R]{loaded: vs.cfg.Loaded, newSet: vs.cfg.New, taken: vs.cfg.New()}
		vs.views[k] = vw
	}
	vs.mu.Unlock()
	vw.mu.Lock()
	defer vw.mu.Unlock()
	if vw.ready {
		return vw, nil
	}
	return vw, vw.loadLocked(ctx, load)
}

// loader reads the view of k from the database.
func (vs *Views[K, V, R]) loader(k K) Loader[V] {
	return func(ctx context.Context) ([]V, error) { return vs.cfg.Load(ctx, k) }
}

// IfLoaded returns the view of k if it is loaded, else nil.
func (vs *Views[K, V, R]) IfLoaded(k K) *View[V, R] {
	vs.mu.Lock()
	vw := vs.views[k]
	vs.mu.Unlock()
	if vw == nil {
		return nil
	}
	vw.mu.Lock()
	defer vw.mu.Unlock()
	if !vw.ready {
		return nil
	}
	return vw
}

// Free marks v free in the view of k, if there is one: a release this
// process made or was told of.
func (vs *Views[K, V, R]) Free(k K, v V) {
	vs.mu.Lock()
	vw := vs.views[k]
	vs.mu.Unlock()
	if vw != nil {
		vw.Free(v)
	}
}

// Forget drops the view of k; it is loaded again on next use.
func (vs *Views[K, V, R]) Forget(k K) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	delete(vs.views, k)
}

// ForgetIf drops the views whose keys match.
func (vs *Views[K, V, R]) ForgetIf(match func(K) bool) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	maps.DeleteFunc(vs.views, func(k K, _ *View[V, R]) bool { return match(k) })
}

// ForgetAll drops every view: what was loaded may have missed changes
// (the notifications' connection was lost).
func (vs *Views[K, V, R]) ForgetAll() {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	clear(vs.views)
}

// RefreshEvery is how often every loaded view is read afresh from the
// database (Refresh), so that what no notification tells (claims made by
// other processes; a release whose notification was lost) shows within
// that time.
const RefreshEvery = 30 * time.Second

// Refresh reads every loaded view afresh every RefreshEvery until ctx ends.
func (vs *Views[K, V, R]) Refresh(ctx context.Context) {
	t := time.NewTicker(RefreshEvery)
	defer t.Stop()
	vs.refreshOn(ctx, t.C)
}

// refreshOn reads every loaded view afresh at each tick until ctx ends.
func (vs *Views[K, V, R]) refreshOn(ctx context.Context, tick <-chan time.Time) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
		vs.RefreshAll(ctx)
	}
}

// RefreshAll reads every loaded view afresh (View.Refresh), one after the
// other; a view that fails is logged and read again at the next refresh.
func (vs *Views[K, V, R]) RefreshAll(ctx context.Context) {
	vs.mu.Lock()
	views := maps.Clone(vs.views)
	vs.mu.Unlock()
	for k, vw := range views {
		if err := vs.refresh(ctx, k, vw); err != nil {
			vs.cfg.Log.Debug("refreshing a view of what is taken", "space", k, "err", err)
		}
	}
}

// Reload reads the view of k afresh, if it is loaded.
func (vs *Views[K, V, R]) Reload(ctx context.Context, k K) error {
	vs.mu.Lock()
	vw := vs.views[k]
	vs.mu.Unlock()
	return vs.refresh(ctx, k, vw)
}

// refresh reads vw, the view of k, afresh if it is loaded.
func (vs *Views[K, V, R]) refresh(ctx context.Context, k K, vw *View[V, R]) error {
	if vw == nil {
		return nil
	}
	vw.mu.Lock()
	ready := vw.ready
	vw.mu.Unlock()
	if !ready {
		return nil
	}
	return vw.Refresh(ctx, vs.loader(k))
}
