package ipam

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/store"
)

// TestBatchFailureClaimsAlone: when the statement of a batch fails (here a
// claim in a subnet that is gone), each claim of the batch is made alone
// and gets its own answer.
func TestBatchFailureClaimsAlone(t *testing.T) {
	svc, db, _ := newService(t)
	setupSubnet(t, svc, "10.42.0.0/24")
	var pool, subnet string
	if err := db.Get(&pool, `SELECT uid FROM pools WHERE name = 'vpc-main'`); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&subnet, `SELECT uid FROM subnets WHERE name = 'web'`); err != nil {
		t.Fatal(err)
	}
	row := func(addr, uid, subnet string) store.AllocationRow {
		return store.AllocationRow{Namespace: "acme/prod", Name: "vpc-main-" + addr, PoolUID: pool, Address: netip.MustParseAddr(addr),
			OwnerKind: OwnerVirtualMachine, OwnerUID: uid, OwnerName: uid + "/0", OwnerNamespace: "acme/prod", SubnetUID: subnet, CreatedBy: "test"}
	}
	c := svc.inserts
	c.running = insertsInFlight // every slot taken: the two claims queue
	type answer struct {
		row store.AllocationRow
		err error
	}
	good, gone := make(chan answer, 1), make(chan answer, 1)
	ctx := context.Background()
	go func() {
		r, err := c.insert(ctx, row("10.42.0.10", "vm-good", subnet), "vpc-main")
		good <- answer{r, err}
	}()
	waitFor(t, "the first claim to queue", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return len(c.queue) == 1 })
	go func() {
		r, err := c.insert(ctx, row("10.42.0.11", "vm-gone", "6d1f8a52-3c1e-4d7b-9a0e-1f2e3d4c5b6a"), "vpc-main")
		gone <- answer{r, err}
	}()
	waitFor(t, "the second claim to queue", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return len(c.queue) == 2 })
	c.next() // an insert finished: the queue goes in one statement
	select {
	case a := <-good:
		if a.err != nil || a.row.Address != netip.MustParseAddr("10.42.0.10") {
			t.Errorf("the claim in the subnet got %+v, %v; want its address", a.row, a.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the claim in the subnet got no answer")
	}
	if a := <-gone; !errors.Is(a.err, store.ErrNotFound) {
		t.Errorf("the claim in a subnet that is gone got %+v, %v; want ErrNotFound", a.row, a.err)
	}
	if c.batches.Load() != 0 {
		t.Errorf("%d batches counted, want 0: the only one failed", c.batches.Load())
	}
}

// queueClaims queues rows as claims in c, every slot of which is taken, in
// their order, and returns their answers' channels; c.next() then hands the
// queue to its first claim, which inserts them in one statement.
func queueClaims(t *testing.T, ctx context.Context, c *claimInserts, rows []store.AllocationRow) []chan error {
	t.Helper()
	answers := make([]chan error, len(rows))
	for i, r := range rows {
		answers[i] = make(chan error, 1)
		go func() {
			_, err := c.insert(ctx, r, "vpc-main")
			answers[i] <- err
		}()
		waitFor(t, fmt.Sprintf("claim %d to queue", i+1), func() bool { c.mu.Lock(); defer c.mu.Unlock(); return len(c.queue) == i+1 })
	}
	return answers
}

// TestBatchOfOneAddressAuditsOnce: claims of one statement that propose
// the same address (two pairs here, and one alone) store one allocation
// each and write one allocate entry each: 3 allocations, 3 entries, and the
// usage history counts 3 claims.
func TestBatchOfOneAddressAuditsOnce(t *testing.T) {
	svc, db, _ := newService(t)
	setupSubnet(t, svc, "10.42.0.0/24")
	var pool, subnet string
	if err := db.Get(&pool, `SELECT uid FROM pools WHERE name = 'vpc-main'`); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&subnet, `SELECT uid FROM subnets WHERE name = 'web'`); err != nil {
		t.Fatal(err)
	}
	row := func(addr, uid string) store.AllocationRow {
		return store.AllocationRow{Namespace: "acme/prod", Name: "vpc-main-" + strings.ReplaceAll(addr, ".", "-"), PoolUID: pool, Address: netip.MustParseAddr(addr),
			OwnerKind: OwnerVirtualMachine, OwnerUID: uid, OwnerName: uid + "/0", OwnerNamespace: "acme/prod", SubnetUID: subnet, CreatedBy: "test"}
	}
	c := svc.inserts
	c.running = insertsInFlight
	answers := queueClaims(t, t.Context(), c, []store.AllocationRow{
		row("10.42.0.10", "vm-1"), row("10.42.0.10", "vm-2"),
		row("10.42.0.11", "vm-3"), row("10.42.0.11", "vm-4"),
		row("10.42.0.12", "vm-5"),
	})
	c.next()
	won := 0
	for i, a := range answers {
		switch err := <-a; {
		case err == nil:
			won++
		case !errors.Is(err, store.ErrObjectExists):
			t.Errorf("claim %d: %v", i+1, err)
		}
	}
	if c.batches.Load() != 1 {
		t.Fatalf("%d batches, want the 5 claims in one statement", c.batches.Load())
	}
	var allocations, entries int
	if err := db.Get(&allocations, `SELECT count(*) FROM allocations WHERE pool_uid = $1`, pool); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&entries, `SELECT count(*) FROM audit_log WHERE action = 'allocate' AND object_kind = 'IPAllocation'`); err != nil {
		t.Fatal(err)
	}
	if won != 3 || allocations != 3 || entries != 3 {
		t.Errorf("5 claims of 3 addresses in one statement: %d won, %d allocations, %d allocate entries; want 3, 3, 3", won, allocations, entries)
	}
	now := time.Now()
	if err := svc.RecordUsage(t.Context(), now, time.Time{}); err != nil {
		t.Fatal(err)
	}
	points, err := svc.UsageHistory(t.Context(), acme, "acme/prod", subnet, HistoryHour, now.Truncate(time.Hour))
	if err != nil || len(points) != 1 || points[0].Claims != 3 {
		t.Errorf("the subnet's hour: %+v, %v; want 3 claims", points, err)
	}
}
