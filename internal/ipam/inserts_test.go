package ipam

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/internal/usage"
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
			OwnerKind: string(OwnerVirtualMachine), OwnerUID: uid, OwnerName: uid + "/0", OwnerNamespace: "acme/prod", SubnetUID: subnet, CreatedBy: "test"}
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
		t.Errorf("the claim in a subnet that is gone got %+v, %v; want refusal.ErrNotFound", a.row, a.err)
	}
	if c.batches.Load() != 0 {
		t.Errorf("%d batches counted, want 0: the only one failed", c.batches.Load())
	}
}

// queueClaims queues rows as claims in c, every slot of which is taken, in
// their order, behind those queued already, and returns their answers' channels; c.next() then hands the
// queue to its first claim, which inserts them in one statement.
func queueClaims(t *testing.T, ctx context.Context, c *claimInserts, rows []store.AllocationRow) []chan error {
	t.Helper()
	answers := make([]chan error, len(rows))
	c.mu.Lock()
	queued := len(c.queue)
	c.mu.Unlock()
	for i, r := range rows {
		answers[i] = make(chan error, 1)
		go func() {
			_, err := c.insert(ctx, r, "vpc-main")
			answers[i] <- err
		}()
		waitFor(t, fmt.Sprintf("claim %d to queue", i+1), func() bool { c.mu.Lock(); defer c.mu.Unlock(); return len(c.queue) == queued+i+1 })
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
			OwnerKind: string(OwnerVirtualMachine), OwnerUID: uid, OwnerName: uid + "/0", OwnerNamespace: "acme/prod", SubnetUID: subnet, CreatedBy: "test"}
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
	points, err := svc.UsageHistory(t.Context(), acme, "acme/prod", subnet, usage.Hour, now.Truncate(time.Hour))
	if err != nil || len(points) != 1 || points[0].Claims != 3 {
		t.Errorf("the subnet's hour: %+v, %v; want 3 claims", points, err)
	}
}

// TestQueuedClaimGivesUp: a claim queued behind a statement in flight
// leaves the queue when its request ends, answering the context's error,
// and the others' claims, queued with it and in flight, are each stored
// once; the first claim of a batch whose request ended leaves it, and the
// batch is inserted without it.
func TestQueuedClaimGivesUp(t *testing.T) {
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
			OwnerKind: string(OwnerVirtualMachine), OwnerUID: uid, OwnerName: uid + "/0", OwnerNamespace: "acme/prod", SubnetUID: subnet, CreatedBy: "test"}
	}
	// Another session holds 10.42.0.10, uncommitted: the batch of vm-a
	// and vm-b waits for it.
	tx, err := db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, subnet_uid, created_by)
		VALUES ('acme/prod', 'vpc-main-10-42-0-10', $1, '10.42.0.10', 'VirtualMachine', 'other', 'other/0', 'acme/prod', $2, 'test')`, pool, subnet); err != nil {
		t.Fatal(err)
	}
	c := svc.inserts
	c.running = insertsInFlight
	inFlight := queueClaims(t, t.Context(), c, []store.AllocationRow{row("10.42.0.10", "vm-a"), row("10.42.0.20", "vm-b")})
	c.next()
	pgtest.WaitForLock(t, db, "the batch of vm-a and vm-b", pgtest.LockWait{})

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	gives := queueClaims(t, ctx, c, []store.AllocationRow{row("10.42.0.21", "vm-c")})[0]
	queued := queueClaims(t, t.Context(), c, []store.AllocationRow{row("10.42.0.22", "vm-d"), row("10.42.0.23", "vm-e")})
	cancel()
	select {
	case err := <-gives:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the claim whose request ended answered %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the claim whose request ended is still queued behind the statement in flight")
	}
	c.mu.Lock()
	left := len(c.queue)
	c.mu.Unlock()
	if left != 2 {
		t.Errorf("%d claims queued after one left, want 2", left)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for i, want := range []error{store.ErrObjectExists, nil} {
		if err := <-inFlight[i]; !errors.Is(err, want) {
			t.Errorf("claim %d of the statement in flight: %v, want %v", i+1, err, want)
		}
	}
	for i, a := range queued {
		if err := <-a; err != nil {
			t.Errorf("queued claim %d: %v", i+1, err)
		}
	}

	// The first claim of a batch, whose request ended before it ran it.
	ended, stop := context.WithCancel(t.Context())
	stop()
	batch := []*queuedInsert{}
	for _, r := range []store.AllocationRow{row("10.42.0.30", "vm-f"), row("10.42.0.31", "vm-g"), row("10.42.0.32", "vm-h")} {
		batch = append(batch, &queuedInsert{row: r, pool: "vpc-main", lead: make(chan []*queuedInsert, 1), done: make(chan struct{})})
	}
	c.run(ended, batch)
	if !errors.Is(batch[0].err, context.Canceled) {
		t.Errorf("the first claim of the batch answered %v, want context.Canceled", batch[0].err)
	}
	for _, q := range batch[1:] {
		if q.err != nil || q.got.Address != q.row.Address {
			t.Errorf("the batch's claim of %s got %+v, %v", q.row.Address, q.got, q.err)
		}
	}

	var held []string
	if err := db.Select(&held, `SELECT owner_uid FROM allocations WHERE pool_uid = $1 ORDER BY address`, pool); err != nil {
		t.Fatal(err)
	}
	var entries []string
	if err := db.Select(&entries, `SELECT object_name FROM audit_log WHERE action = 'allocate' AND object_kind = 'IPAllocation' ORDER BY object_name`); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(held) != "[other vm-b vm-d vm-e vm-g vm-h]" {
		t.Errorf("held %v, want other vm-b vm-d vm-e vm-g vm-h: no claim of a request that ended, every other once", held)
	}
	if fmt.Sprint(entries) != "[vpc-main-10-42-0-20 vpc-main-10-42-0-22 vpc-main-10-42-0-23 vpc-main-10-42-0-31 vpc-main-10-42-0-32]" {
		t.Errorf("allocate entries %v, want one for each claim stored", entries)
	}
}
