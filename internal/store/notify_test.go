package store_test

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// TestReleaseNotifiedByItsCaller: ReleaseAllocation sends no notification
// (its transaction would commit only when no other notifying one does);
// NotifyReleased sends its caller's, all in one transaction; any other
// delete of allocations is still announced by the trigger.
func TestReleaseNotifiedByItsCaller(t *testing.T) {
	url := pgtest.NewURL(t)
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l, err := store.Listen(t.Context(), url, []string{store.ReleasedChannel}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 16)
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.Run(ctx, func(n store.Notification) { got <- n.Payload })
	}()
	defer func() {
		stop()
		<-done
	}()
	next := func(wait time.Duration) string {
		select {
		case p := <-got:
			return p
		case <-time.After(wait):
			return ""
		}
	}

	pool := privatePool(t, db)
	for _, a := range []string{"10.42.1.2", "10.42.1.3"} {
		addr := netip.MustParseAddr(a)
		if _, err := store.InsertAllocation(t.Context(), db, store.AllocationRow{Namespace: "acme/prod", Name: "vpc-main-" + a, PoolUID: pool, Address: addr,
			OwnerKind: "VirtualMachine", OwnerUID: "vm-" + a, OwnerName: "vm/0", OwnerNamespace: "acme/prod", CreatedBy: "test"}, "vpc-main"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.ReleaseAllocation(t.Context(), db, pool, "vpc-main", netip.MustParseAddr("10.42.1.2"), store.OwnerKey{}, "test"); err != nil {
		t.Fatal(err)
	}
	// Notifications arrive in the order their transactions commit: one of
	// ReleaseAllocation would come before NotifyReleased's.
	if err := store.NotifyReleased(t.Context(), db, []string{pool + " 10.42.1.2 me", pool + " 10.42.1.9 me"}); err != nil {
		t.Fatal(err)
	}
	if p, want := next(5*time.Second), pool+" 10.42.1.2 me"; p != want {
		t.Errorf("after ReleaseAllocation then NotifyReleased: %q first, want %q (ReleaseAllocation notifies nothing itself)", p, want)
	}
	if p, want := next(5*time.Second), pool+" 10.42.1.9 me"; p != want {
		t.Errorf("after NotifyReleased's first: %q, want %q", p, want)
	}
	if _, err := db.Exec(`DELETE FROM allocations WHERE address = '10.42.1.3'`); err != nil {
		t.Fatal(err)
	}
	if p, want := next(5*time.Second), pool+" 10.42.1.3"; p != want {
		t.Errorf("a delete by hand notified %q, want %q", p, want)
	}
}
