package ipam

import (
	"context"
	"log/slog"
	"maps"
	"net/netip"
	"strings"
	"sync"
	"time"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/store"
)

// The database announces freed addresses on store.ReleasedChannel (trigger
// allocations_released, and the processes' releaseNotifier) and deleted
// pools and subnets on changedChannel (triggers pools_deleted,
// subnets_deleted).
const changedChannel = "ipam_changed"

// views holds this process's view of the taken addresses of each pool it
// serves. A view only speeds up the search for the lowest free candidate:
// the database's unique index decides every claim, so a stale view costs a
// retry, never a duplicate.
//
// A view learns of claims made here at once, of claims made elsewhere from
// the conflicts they cause, and of releases made elsewhere from the
// database's notifications; when the notifications may have been missed
// (the listener reconnected), every view is loaded afresh.
type views struct {
	db  *store.DB
	log *slog.Logger
	// self names this process as the sender of its release notifications
	// (releaseNotifier), which its views ignore: they freed the address
	// at once, and may have claimed it again since.
	self string

	mu    sync.Mutex
	pools map[string]*poolView // by pool uid
	obs   Observer
}

// poolView is the taken set of one pool. Addresses being claimed right now
// by this process count as taken, so that concurrent requests try
// different candidates.
type poolView struct {
	obs    Observer // told of each read of the view from the database
	mu     sync.Mutex
	loaded bool
	taken  candidates.SetBuilder
	// changes records, while a refresh reads the database outside the
	// lock, what the view learnt meanwhile (claims, releases), to apply on
	// top of what the refresh read: nil when no refresh runs.
	changes []change
}

// A change is an address marked taken or free.
type change struct {
	addr  netip.Addr
	taken bool
}

func newViews(db *store.DB, log *slog.Logger, self string, obs Observer) *views {
	return &views{db: db, log: log, self: self, obs: obs, pools: map[string]*poolView{}}
}

// pool returns the view of the pool uid, loading it on first use.
func (v *views) pool(ctx context.Context, uid string) (*poolView, error) {
	v.mu.Lock()
	pv, ok := v.pools[uid]
	if !ok {
		pv = &poolView{obs: v.obs}
		v.pools[uid] = pv
	}
	v.mu.Unlock()
	pv.mu.Lock()
	if pv.loaded {
		pv.mu.Unlock()
		return pv, nil
	}
	err := pv.loadLocked(ctx, v.db, uid)
	pv.mu.Unlock()
	return pv, err
}

// ifLoaded returns the view of the pool uid if it is loaded, else nil.
func (v *views) ifLoaded(uid string) *poolView {
	v.mu.Lock()
	pv := v.pools[uid]
	v.mu.Unlock()
	if pv == nil {
		return nil
	}
	pv.mu.Lock()
	defer pv.mu.Unlock()
	if !pv.loaded {
		return nil
	}
	return pv
}

// reload reads the pool's taken set from the database afresh.
func (pv *poolView) reload(ctx context.Context, db *store.DB, uid string) error {
	pv.mu.Lock()
	defer pv.mu.Unlock()
	return pv.loadLocked(ctx, db, uid)
}

func (pv *poolView) loadLocked(ctx context.Context, db *store.DB, uid string) error {
	pv.obs.ViewLoaded()
	b, err := loadTaken(ctx, db, uid)
	if err != nil {
		return err
	}
	pv.taken, pv.loaded = b, true
	return nil
}

// loadTaken reads the taken addresses of the pool uid.
func loadTaken(ctx context.Context, db *store.DB, uid string) (candidates.SetBuilder, error) {
	var b candidates.SetBuilder
	addrs, err := store.TakenAddresses(ctx, db, uid)
	if err != nil {
		return b, err
	}
	for _, a := range addrs {
		b.Add(a)
	}
	return b, nil
}

// reserve returns the lowest candidate of space this view holds free and
// marks it taken.
func (pv *poolView) reserve(space candidates.Space) (netip.Addr, bool) {
	pv.mu.Lock()
	defer pv.mu.Unlock()
	it := space.Iter(pv.taken.View())
	a, ok := it.Next()
	if ok {
		pv.taken.Add(a)
		pv.record(a, true)
	}
	return a, ok
}

// take marks a taken (claimed by another process).
func (pv *poolView) take(a netip.Addr) {
	pv.mu.Lock()
	defer pv.mu.Unlock()
	pv.taken.Add(a)
	pv.record(a, true)
}

// free marks a free.
func (pv *poolView) free(a netip.Addr) {
	pv.mu.Lock()
	defer pv.mu.Unlock()
	pv.taken.Remove(a)
	pv.record(a, false)
}

// record keeps a change for the refresh in progress, if any.
func (pv *poolView) record(a netip.Addr, taken bool) {
	if pv.changes != nil {
		pv.changes = append(pv.changes, change{a, taken})
	}
}

// refresh reads the view afresh from the database without holding its
// lock through the query, so that claims go on meanwhile; what the view
// learns during the query is applied on top of what was read, so that a
// release announced meanwhile is not lost.
func (pv *poolView) refresh(ctx context.Context, db *store.DB, uid string) error {
	pv.mu.Lock()
	pv.changes = make([]change, 0, 8)
	pv.mu.Unlock()
	pv.obs.ViewLoaded()
	b, err := loadTaken(ctx, db, uid)
	pv.mu.Lock()
	defer pv.mu.Unlock()
	changes := pv.changes
	pv.changes = nil
	if err != nil {
		return err
	}
	for _, c := range changes {
		if c.taken {
			b.Add(c.addr)
		} else {
			b.Remove(c.addr)
		}
	}
	pv.taken, pv.loaded = b, true
	return nil
}

// refreshEvery is how often each loaded view is read afresh from the
// database, so that claims made by other processes, which send no
// notification, show in its figures within that time.
const refreshEvery = 30 * time.Second

// refreshLoop reads every loaded view afresh every refreshEvery until ctx
// ends (see poolView.refresh).
func (v *views) refreshLoop(ctx context.Context) {
	t := time.NewTicker(refreshEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		v.refreshAll(ctx)
	}
}

// refreshAll reads every view afresh.
func (v *views) refreshAll(ctx context.Context) {
	v.mu.Lock()
	pools := make(map[string]*poolView, len(v.pools))
	maps.Copy(pools, v.pools)
	v.mu.Unlock()
	for uid, pv := range pools {
		if err := pv.refresh(ctx, v.db, uid); err != nil {
			v.log.Debug("refreshing a pool's view", "pool", uid, "err", err)
		}
	}
}

// read calls fn with the taken set, under the view's lock: fn computes
// what it needs from it and keeps nothing, so nothing is copied.
func (pv *poolView) read(fn func(taken candidates.Set)) {
	pv.mu.Lock()
	defer pv.mu.Unlock()
	fn(pv.taken.View())
}

// forget drops the view of the pool uid; it is loaded again on next use.
func (v *views) forget(uid string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.pools, uid)
}

// forgetAll drops every view.
func (v *views) forgetAll() {
	v.mu.Lock()
	defer v.mu.Unlock()
	clear(v.pools)
}

// released applies a notification: "<pool uid> <address>", "<pool uid>
// <address> <sender>" or "<pool uid>" (store.ReleasedChannel).
func (v *views) released(payload string) {
	fields := strings.Fields(payload)
	if len(fields) == 0 {
		return
	}
	uid := fields[0]
	if len(fields) == 1 {
		v.forget(uid)
		return
	}
	if len(fields) == 3 && fields[2] == v.self {
		return
	}
	a, err := netip.ParseAddr(fields[1])
	if err != nil {
		v.forget(uid)
		return
	}
	v.mu.Lock()
	pv, ok := v.pools[uid]
	v.mu.Unlock()
	if ok {
		pv.free(a)
	}
}

// listen returns the listener of the database's notifications, whose Run
// applies them with notified; its connection events drop the views and
// call changed. It returns once it listens, or fails when ctx ends first.
func (v *views) listen(ctx context.Context, url string, changed func()) (*store.Listener, error) {
	return store.Listen(ctx, url, []string{store.ReleasedChannel, changedChannel}, func(ev store.ListenerEvent, err error) {
		switch ev {
		case store.ListenerConnected, store.ListenerReconnected:
			// What was loaded before this moment may have missed changes.
			v.forgetAll()
			changed()
		case store.ListenerDisconnected:
			v.log.Warn("release notifications lost; pools' views will be reloaded on reconnection", "err", err)
		case store.ListenerConnectionAttemptFailed:
			v.log.Warn("release notifications: connection attempt failed", "err", err)
		}
	})
}

// notified applies a notification: a release frees its address in the
// view; a deletion of a pool or a subnet, or a reconnection, calls changed.
func (v *views) notified(n store.Notification, changed func()) {
	if !n.Reconnected {
		v.obs.Notified()
	}
	switch {
	case n.Reconnected:
		// Whatever was sent meanwhile is lost.
		v.forgetAll()
		changed()
	case n.Channel == changedChannel:
		changed()
	default:
		v.released(n.Payload)
	}
}
