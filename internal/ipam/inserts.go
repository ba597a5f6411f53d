package ipam

import (
	"context"
	"slices"
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
// statement with other claims' inserts. A claim whose ctx ends while it is
// queued leaves the queue and answers ctx's error; once its statement is
// sent, it waits for the statement's answer (a statement timeout bounds
// it), so that what was stored for it is never answered as a failure.
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
		c.lead(ctx, batch)
	case <-q.done:
	case <-ctx.Done():
		if c.leave(q) {
			return store.AllocationRow{}, ctx.Err()
		}
		// next handed the claim to a batch meanwhile: its first claim
		// runs it, ctx's claim left out when it is the first (run).
		select {
		case batch := <-q.lead:
			c.lead(ctx, batch)
		case <-q.done:
		}
	}
	if q.alone {
		return store.InsertAllocation(ctx, c.db, row, pool)
	}
	return q.got, q.err
}

// leave takes q out of the queue, and says whether it was still there.
func (c *claimInserts) leave(q *queuedInsert) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.Index(c.queue, q)
	if i < 0 {
		return false
	}
	c.queue = slices.Delete(c.queue, i, i+1)
	return true
}

// lead runs the batch handed to ctx's claim, then hands on the queue.
func (c *claimInserts) lead(ctx context.Context, batch []*queuedInsert) {
	c.run(ctx, batch)
	c.next()
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

// run inserts a batch, ctx's claim first, in one statement. When ctx has
// ended, ctx's claim leaves the batch with ctx's error and the others are
// inserted without it. The others' inserts do not end with ctx (a
// statement timeout bounds them).
func (c *claimInserts) run(ctx context.Context, batch []*queuedInsert) {
	defer func() {
		for _, q := range batch {
			close(q.done)
		}
	}()
	// own are the claims inserted, and octx their statement's context: an
	// insert of ctx's claim alone ends with ctx, as any claim alone does.
	own, octx := batch, context.WithoutCancel(ctx)
	switch {
	case ctx.Err() != nil:
		batch[0].err = ctx.Err()
		own = batch[1:]
	case len(batch) == 1:
		octx = ctx
	}
	switch len(own) {
	case 0:
		return
	case 1:
		own[0].got, own[0].err = store.InsertAllocation(octx, c.db, own[0].row, own[0].pool)
		return
	}
	rows, pools := make([]store.AllocationRow, len(own)), make([]string, len(own))
	for i, q := range own {
		rows[i], pools[i] = q.row, q.pool
	}
	got, errs, err := store.InsertAllocations(octx, c.db, rows, pools)
	if err != nil {
		for _, q := range own {
			q.alone = true
		}
		return
	}
	c.batches.Add(1)
	c.batched.Add(int64(len(own)))
	for i, q := range own {
		q.got, q.err = got[i], errs[i]
	}
}
