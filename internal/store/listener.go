package store

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"
)

// A Listener follows the notifications of some channels (PostgreSQL's
// LISTEN) on a connection of its own, made again whenever it is lost.
type Listener struct {
	pq      *pq.Listener
	pinging atomic.Bool
	pings   sync.WaitGroup
}

// A Notification is a message sent on a channel a Listener follows, or,
// with Reconnected, news that its connection was lost and made again:
// whatever was sent meanwhile is lost.
type Notification struct {
	Channel, Payload string
	Reconnected      bool
}

// A ListenerEvent is what happened to a Listener's connection.
type ListenerEvent int

// The events of a Listener's connection.
const (
	// ListenerConnected: the first connection is made.
	ListenerConnected ListenerEvent = iota
	// ListenerReconnected: a lost connection is made again.
	ListenerReconnected
	// ListenerDisconnected: the connection is lost (with the error).
	ListenerDisconnected
	// ListenerConnectionAttemptFailed: connecting failed (with the error);
	// the Listener tries again, waiting longer each time, up to 10 s.
	ListenerConnectionAttemptFailed
)

// listenerPing is how long a Listener waits for a notification before it
// pings the server, so that a connection that died silently is noticed and
// made again.
const listenerPing = 90 * time.Second

// Listen connects to the database at url on a connection of its own and
// follows channels. It returns once it listens, or fails when ctx ends
// first. event, when not nil, is called on every event of the connection,
// from a goroutine of the Listener's. Run delivers the notifications.
func Listen(ctx context.Context, url string, channels []string, event func(ListenerEvent, error)) (*Listener, error) {
	// lib/pq's listener would retry a URL it cannot read for ever, its
	// events quoting the URL with its password.
	if _, err := ParseURL(url); err != nil {
		return nil, err
	}
	events := map[pq.ListenerEventType]ListenerEvent{
		pq.ListenerEventConnected:               ListenerConnected,
		pq.ListenerEventReconnected:             ListenerReconnected,
		pq.ListenerEventDisconnected:            ListenerDisconnected,
		pq.ListenerEventConnectionAttemptFailed: ListenerConnectionAttemptFailed,
	}
	l := &Listener{pq: pq.NewDialListener(newDialer(), url, 100*time.Millisecond, 10*time.Second, func(ev pq.ListenerEventType, err error) {
		if event != nil {
			event(events[ev], err)
		}
	})}
	// pq.Listener.Listen waits for a connection as long as it takes:
	// closing the listener ends the wait.
	closed := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		l.pq.Close()
		close(closed)
	})
	for _, channel := range channels {
		if err := l.pq.Listen(channel); err != nil {
			if !stop() {
				<-closed
				return nil, fmt.Errorf("store: unable to listen on %s: %w", channel, classify(context.Cause(ctx)))
			}
			l.pq.Close()
			return nil, fmt.Errorf("store: unable to listen on %s: %w", channel, classify(err))
		}
	}
	if !stop() {
		<-closed
		return nil, fmt.Errorf("store: unable to listen: %w", classify(context.Cause(ctx)))
	}
	return l, nil
}

// Run calls handle with each notification, in order, until ctx ends; it
// then closes the listener and returns once its pings are done.
func (l *Listener) Run(ctx context.Context, handle func(Notification)) {
	defer l.pings.Wait()
	defer l.pq.Close()
	idle := time.NewTimer(listenerPing)
	defer idle.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case n, ok := <-l.pq.Notify:
			switch {
			case !ok:
				return
			case n == nil:
				handle(Notification{Reconnected: true})
			default:
				handle(Notification{Channel: n.Channel, Payload: n.Extra})
			}
		case <-idle.C:
			l.ping()
		}
		idle.Reset(listenerPing)
	}
}

// ping pings the server unless a ping is under way: not from Run, as the
// answer waits behind the notifications Run has not taken yet.
func (l *Listener) ping() {
	if !l.pinging.CompareAndSwap(false, true) {
		return
	}
	l.pings.Go(func() {
		defer l.pinging.Store(false)
		l.pq.Ping()
	})
}

// ErrNotificationLost means that a notification sent on the database did not
// reach a connection listening for it.
var ErrNotificationLost = errors.New("store: notifications sent on the database do not reach the listening connection")

// notificationCheckWait is how long CheckNotifications waits for its
// notification.
const notificationCheckWait = 5 * time.Second

// probeChannel is the channel CheckNotifications sends on.
const probeChannel = "ipam_probe"

// CheckNotifications listens at url, sends a notification through db and
// waits for it, up to notificationCheckWait: it fails with
// ErrNotificationLost when url or db goes through a connection pooler in
// transaction mode (a LISTEN there ends with its transaction's server
// connection), or when they reach different servers.
func CheckNotifications(ctx context.Context, db *DB, url string) error {
	l, err := Listen(ctx, url, []string{probeChannel}, nil)
	if err != nil {
		return err
	}
	defer l.pq.Close()
	payload := rand.Text()
	if _, err := db.ExecContext(ctx, `SELECT pg_notify($1, $2)`, probeChannel, payload); err != nil {
		return fmt.Errorf("store: unable to send a notification: %w", classify(err))
	}
	wait := time.NewTimer(notificationCheckWait)
	defer wait.Stop()
	for {
		select {
		case n := <-l.pq.Notify:
			if n != nil && n.Extra == payload {
				return nil
			}
		case <-wait.C:
			return fmt.Errorf("%w (waited %s)", ErrNotificationLost, notificationCheckWait)
		case <-ctx.Done():
			return fmt.Errorf("store: unable to check the notifications: %w", classify(context.Cause(ctx)))
		}
	}
}
