package reliability

import (
	"sync/atomic"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
)

// TestKillServe kills one of two ipam serve processes with SIGKILL while
// claimers attach VM interfaces through both. Claims in flight on the
// killed process lose their connection; their owners ask the other
// process, and every owner ends with one address: the one confirmed to it,
// if any. No address is held twice, no confirmed claim is lost, and each
// allocation has its one audit entry.
func TestKillServe(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	token := tenant(t, url, "a tenant's long password")
	victim, a := serve(t, url)
	_, b := serve(t, url)
	client := newHTTPClient()
	setupVPC(t, client, a, token, "10.42.0.0/20")

	var killed atomic.Bool
	load := startClaims(client, token, 8, 400, func(c, attempt int) string {
		if (c+attempt)%2 == 0 && !killed.Load() {
			return a
		}
		return b
	})
	if !waitUntil(20*time.Second, func() bool { return load.count() >= 100 }) {
		t.Fatalf("the claimers got %d confirmations in 20 s", load.count())
	}
	if err := victim.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-victim.exited
	killedAt := load.count()
	// Claimers that were told their connection dropped switch to b at their
	// next attempt.
	killed.Store(true)
	if !waitUntil(20*time.Second, func() bool { return load.count() >= killedAt+100 }) {
		t.Errorf("the claimers got %d confirmations in 20 s after the kill", load.count()-killedAt)
	}
	load.finish()
	load.report(t, 20*time.Second)
	t.Logf("killed ipam serve after %d confirmed claims", killedAt)

	load.retryAll(t, b, 30*time.Second)
	db := openDB(t, url)
	defer db.Close()
	load.checkStored(t, db)
}
