package reliability

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestPostgresRestart stops PostgreSQL under a load of claims through two
// ipam serve processes and starts it again: with a fast shutdown, and with
// an immediate one, as in a crash. Claims in flight and during the outage
// are answered UNAVAILABLE (retryable) or lose their connection, never
// anything else and never after a hang; /healthz answers 503 while the
// database is away and 200 again without help; and, once the claimers
// retried, every confirmed claim is stored exactly once, at the address
// confirmed, with its one audit entry. After the restart, a release in one
// process reaches the other's view: its listener reconnected.
func TestPostgresRestart(t *testing.T) {
	for _, tt := range []struct {
		name string
		down func(c *cluster)
	}{
		{"fast shutdown", (*cluster).stop},
		{"immediate shutdown", (*cluster).crash},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := startCluster(t)
			url := c.url("ipam", "")
			token := tenant(t, url, "a tenant's long password")
			_, a := serve(t, url)
			_, b := serve(t, url)
			bases := []string{a, b}
			client := newHTTPClient()
			setupVPC(t, client, a, token, "10.42.0.0/20")

			load := startClaims(client, token, 8, 400, func(c, attempt int) string { return bases[(c+attempt)%2] })
			health := watchHealth(client, a, b)
			defer health.close()
			if !waitUntil(20*time.Second, func() bool { return load.count() >= 50 }) {
				t.Fatalf("the claimers got %d confirmations in 20 s before the restart", load.count())
			}
			before := load.count()
			tt.down(c)
			down := time.Now()
			if !waitUntil(10*time.Second, func() bool { return health.count(http.StatusServiceUnavailable) >= 2 }) {
				t.Errorf("/healthz never answered 503 while PostgreSQL was down")
			}
			time.Sleep(time.Second - time.Since(down))
			c.start()
			if !waitUntil(30*time.Second, func() bool { return health.healthy(a, b) }) {
				t.Fatalf("/healthz did not answer 200 on both processes within 30 s of the restart")
			}
			t.Logf("PostgreSQL was down %v; /healthz healthy again after %v", time.Second, time.Since(down).Round(time.Millisecond))
			after := load.count()
			if !waitUntil(30*time.Second, func() bool { return load.count() >= after+50 }) {
				t.Errorf("the claimers got %d confirmations in 30 s after the restart", load.count()-after)
			}
			load.finish()
			load.report(t, 20*time.Second)
			if load.outcomes[unavailable]+load.outcomes[dropped] == 0 {
				t.Errorf("no claim failed while PostgreSQL was down: the test did not test")
			}
			t.Logf("%d claims confirmed before the restart, %d in all", before, load.count())

			load.retryAll(t, b, 30*time.Second)
			db := openDB(t, url)
			defer db.Close()
			load.checkStored(t, db)
			checkListenerFollows(t, client, token, a, b)
		})
	}
}

// checkListenerFollows checks that a release in process a reaches the view
// of process b: b claims the address a freed, the lowest free one, although
// b's view had it taken.
func checkListenerFollows(t *testing.T, client *http.Client, token, a, b string) {
	t.Helper()
	var first struct{ Address string }
	// b's view holds first as taken: b made this claim or learnt it since.
	must(t, client, b, token, attachInterface, map[string]any{"vm": "listener-1"}, "attachInterface", &first)
	var freed bool
	must(t, client, a, token, detachInterface, map[string]any{"vm": "listener-1"}, "detachInterface", &freed)
	if !freed {
		t.Fatalf("detaching listener-1 freed nothing")
	}
	// The notification takes milliseconds; a claim before it arrives gets
	// another address, which is released to keep the lowest free.
	var got string
	ok := waitUntil(10*time.Second, func() bool {
		var second struct{ Address string }
		must(t, client, b, token, attachInterface, map[string]any{"vm": "listener-2"}, "attachInterface", &second)
		got = second.Address
		if got == first.Address {
			return true
		}
		must(t, client, b, token, detachInterface, map[string]any{"vm": "listener-2"}, "detachInterface", nil)
		return false
	})
	if !ok {
		t.Errorf("process b hands out %s, not %s which process a freed: its listener did not reconnect after the restart", got, first.Address)
	}
	if !strings.HasPrefix(got, "10.42.") {
		t.Errorf("listener-2 got %q", got)
	}
}
