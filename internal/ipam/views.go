package ipam

import (
	"context"
	"log/slog"
	"net/netip"
	"strings"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/claim"
	"pivirt.hu/ipam/internal/store"
)

// The database announces freed addresses on store.ReleasedChannel (trigger
// allocations_released, and the processes' releaseNotifier) and deleted
// pools and subnets on changedChannel (triggers pools_deleted,
// subnets_deleted).
const changedChannel = "ipam_changed"

// views holds this process's view of the taken addresses of each pool it
// serves (claim.Views, by pool uid). A view only speeds up the search for
// the lowest free candidate: the database's unique index decides every
// claim, so a stale view costs a retry, never a duplicate.
//
// A view learns of claims made here at once, of claims made elsewhere from
// the conflicts they cause, and of releases made elsewhere from the
// database's notifications; when the notifications may have been missed
// (the listener reconnected), every view is loaded afresh; and every
// loaded view is read afresh every claim.RefreshEvery (docs/allocation.md,
// "How the views stay fresh").
type views struct {
	log *slog.Logger
	// self names this process as the sender of its release notifications
	// (releaseNotifier), which its views ignore: they freed the address
	// at once, and may have claimed it again since.
	self string
	obs  Observer

	taken *claim.Views[string, netip.Addr, candidates.Set]
}

// poolView is the taken set of one pool.
type poolView = claim.View[netip.Addr, candidates.Set]

func newViews(db *store.DB, log *slog.Logger, self string, obs Observer) *views {
	return &views{log: log, self: self, obs: obs, taken: claim.NewViews(claim.ViewsConfig[string, netip.Addr, candidates.Set]{
		New:    func() claim.Set[netip.Addr, candidates.Set] { return &candidates.SetBuilder{} },
		Load:   func(ctx context.Context, uid string) ([]netip.Addr, error) { return store.TakenAddresses(ctx, db, uid) },
		Loaded: obs.ViewLoaded,
		Log:    log,
	})}
}

// pool returns the view of the pool uid, loading it on first use.
func (v *views) pool(ctx context.Context, uid string) (*poolView, error) {
	return v.taken.Get(ctx, uid)
}

// ifLoaded returns the view of the pool uid if it is loaded, else nil.
func (v *views) ifLoaded(uid string) *poolView { return v.taken.IfLoaded(uid) }

// forget drops the view of the pool uid; it is loaded again on next use.
func (v *views) forget(uid string) { v.taken.Forget(uid) }

// forgetAll drops every view.
func (v *views) forgetAll() { v.taken.ForgetAll() }

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
	v.taken.Free(uid, a)
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
