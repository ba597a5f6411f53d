package ipam

import (
	"context"
	"sync"
	"sync/atomic"

	"pivirt.hu/ipam/internal/store"
)

// How claims share statements: a claim's insert runs alone while fewer
// than insertsInFlight inserts run; past that, claims queue, and the next
// insert to finish hands the queue, up to insertsPerBatch of them, to its
// first claim, which inserts them all in one statement (group commit, as
// PostgreSQL's for the WAL). So one client's claims wait for nothing, and
// many clients' claims cost the database fewer statements and commits.
const (
	insertsInFlight = 4
	insertsPerBatch = 32
)

// claimInserts runs the inserts of claims made outside transactions.
type claimInserts struct {
	db *store.DB

	mu      sync.Mutex
	running int
	queue   []*queuedInsert

	// batches and batched count the statements of more than one insert
	// and the inserts they made.
	batches, batched atomic.Int64
}

// A queuedInsert is a claim's insert waiting for a statement.
type queuedInsert struct {
	row  store.AllocationRow
	pool string
	// lead hands the claim a batch to insert, itself first; done is closed
	// once its insert ran in a batch.
	lead chan []*queuedInsert
	done chan struct{}
	got  store.AllocationRow
	err  error
	// alone says that the batch's statement failed: the claim inserts
	// alone, so that it gets its own answer.
	alone bool
}

// insert is store.InsertAllocation(ctx, db, row, pool), maybe made in one
// statement with other claims' inserts.
func (c *claimInserts) insert(ctx context.Context, row store.AllocationRow, pool string) (store.AllocationRow, error) {
	c.mu.Lock()
	if c.running < insertsInFlight {
		c.running++
		c.mu.Unlock()
		got, err := store.InsertAllocation(ctx, c.db, row, pool)
		c.next()
		return got, err
	}
	q := &queuedInsert{row: row, pool: pool, lead: make(chan []*queuedInsert, 1), done: make(chan struct{})}
	c.queue = append(c.queue, q)
	c.mu.Unlock()
	select {
	case batch := <-q.lead:
		c.run(ctx, batch)
		c.next()
	case <-q.done:
	}
	if q.alone {
		return store.InsertAllocation(ctx, c.db, row, pool)
	}
	return q.got, q.err
}

// next is called when an insert finished: it hands the queued inserts to
// the first of them, or frees the slot.
func (c *claimInserts) next() {
	c.mu.Lock()
	if len(c.queue) == 0 {
		c.running--
		c.mu.Unlock()
		return
	}
	n := min(len(c.queue), insertsPerBatch)
	batch := append([]*queuedInsert(nil), c.queue[:n]...)
	c.queue = append(c.queue[:0], c.queue[n:]...)
	c.mu.Unlock()
	batch[0].lead <- batch
}

// run inserts a batch, ctx's claim first, in one statement. A batch of
// several does not end with ctx: it makes the inserts of several claims (a
// statement timeout bounds it).
func (c *claimInserts) run(ctx context.Context, batch []*queuedInsert) {
	defer func() {
		for _, q := range batch {
			close(q.done)
		}
	}()
	if len(batch) == 1 {
		batch[0].got, batch[0].err = store.InsertAllocation(ctx, c.db, batch[0].row, batch[0].pool)
		return
	}
	rows, pools := make([]store.AllocationRow, len(batch)), make([]string, len(batch))
	for i, q := range batch {
		rows[i], pools[i] = q.row, q.pool
	}
	got, errs, err := store.InsertAllocations(context.Background(), c.db, rows, pools)
	if err != nil {
		for _, q := range batch {
			q.alone = true
		}
		return
	}
	c.batches.Add(1)
	c.batched.Add(int64(len(batch)))
	for i, q := range batch {
		q.got, q.err = got[i], errs[i]
	}
}
