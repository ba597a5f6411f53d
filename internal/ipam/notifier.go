package ipam

import (
	"context"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"pivirt.hu/ipam/internal/store"
)

// The notifier's bounds: releases queued before a release waits for room,
// and notifications sent in one transaction.
const (
	maxQueuedReleases = 4096
	maxNotifyBatch    = 1024
)

// releaseNotifier tells the other processes of the releases this process
// makes, once they committed: a release does not notify inside its own
// transaction (store.ReleaseAllocation), as PostgreSQL lets the
// transactions that notify commit only one at a time. One goroutine sends
// what is queued, all of it in one transaction, and again while releases
// come: the releases commit together, and their notifications follow
// within one round trip.
//
// A notification carries this process's name as its sender, so that its
// own views, which freed the address at once, ignore it when it comes
// back. A process that dies between a release's commit and its
// notification leaves the others' views holding the address taken until
// their next refresh (claim.RefreshEvery): the address is not the lowest free
// one they propose meanwhile, and never handed out twice.
type releaseNotifier struct {
	db     *store.DB
	log    *slog.Logger
	sender string

	mu     sync.RWMutex // held to queue, and to close the queue
	closed bool
	queue  chan string
	done   chan struct{}
}

func newReleaseNotifier(db *store.DB, log *slog.Logger, sender string) *releaseNotifier {
	n := &releaseNotifier{db: db, log: log, sender: sender, queue: make(chan string, maxQueuedReleases), done: make(chan struct{})}
	go n.run()
	return n
}

// released queues the notification of a release of a, committed, in the
// pool uid.
func (n *releaseNotifier) released(uid string, a netip.Addr) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	if n.closed {
		n.log.Warn("a release after the service closed is not notified", "pool", uid, "address", a)
		return
	}
	n.queue <- uid + " " + a.String() + " " + n.sender
}

func (n *releaseNotifier) run() {
	defer close(n.done)
	for p := range n.queue {
		batch := []string{p}
	drain:
		for len(batch) < maxNotifyBatch {
			select {
			case p, ok := <-n.queue:
				if !ok {
					break drain
				}
				batch = append(batch, p)
			default:
				break drain
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := store.NotifyReleased(ctx, n.db, batch); err != nil {
			n.log.Warn("releases not notified: other processes see these addresses taken until they read their views afresh", "releases", len(batch), "err", err)
		}
		cancel()
	}
}

// close sends what is queued, and returns once it is sent.
func (n *releaseNotifier) close() {
	n.mu.Lock()
	if !n.closed {
		n.closed = true
		close(n.queue)
	}
	n.mu.Unlock()
	<-n.done
}
