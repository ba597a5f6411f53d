package ipam

import (
	"context"
	"errors"
	"net/netip"
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
