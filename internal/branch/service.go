package branch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"

	"pivirt.hu/ipam/internal/store"
)

// schemaChannel is where the database announces that a branch's schema or
// branch point changed, or that it was deleted (trigger
// branches_schema_changed): the payload is the branch's id.
const schemaChannel = "ipam_schema"

// Config is what the service needs.
type Config struct {
	DB *store.DB
	// URL is the database's URL, for the connection that follows the
	// other processes' schema loads, rebases, merges and deletions of
	// branches. Without it the service assumes it is the only one on the
	// database (tests of a single process).
	URL    string
	Logger *slog.Logger
	// Guard, when set, is asked about every schema load and every merge
	// that changes main's schema, in its transaction, before anything is
	// stored: an error refuses the change (number pools refuse the
	// removal of the elements they divide their numbers by). See Guard.
	Guard Guard
	// Recorder, when set, is told of every change of objects' versions in
	// its transaction (see Recorder): number pools keep the numbers
	// objects hold on each branch.
	Recorder Recorder
	// Freed, with Recorder, says that Recorder's records are those a write
	// of an object made in one statement makes (store.WriteObject records
	// the numbers objects hold in number pools, and releases those they no
	// longer hold, as numbers' recorder does), and is told, once such a
	// write is committed, of the numbers whose holdings it deleted. A
	// service with a Recorder and no Freed makes every write in a
	// transaction.
	Freed func([]store.NumberKey)
	// InTransactions makes every write of an object in a transaction of a
	// few statements, as writes that are not the common case are (see
	// CreateObject): tests hold those statements to force the
	// interleavings of concurrent writes.
	InTransactions bool
}

// Service is the domain of branches, of the schema of kinds and of the
// objects of those kinds, over one database. Several services, in one
// process or in many, may share the database.
type Service struct {
	db       *store.DB
	log      *slog.Logger
	guard    Guard
	recorder Recorder
	freed    func([]store.NumberKey)
	// inTransactions is Config.InTransactions.
	inTransactions bool

	// stop ends the listener's goroutine; running waits for it.
	stop    context.CancelFunc
	running sync.WaitGroup

	// prepared is set once the statements that transactions use are
	// prepared (see inTx).
	prepared atomic.Bool

	mu sync.Mutex
	// branches caches each branch served: its row and its schema, by name.
	branches map[string]*branchState
	// generation counts the drops of the cache, so that a load that read
	// the database before a drop does not cache what it read.
	generation uint64
}

// branchState is a branch as the service caches it: its row (branch point,
// own schema) and its schema compiled. It is immutable: a change makes
// another.
type branchState struct {
	row    store.BranchRow
	schema *compiled
}

// New starts the service on a migrated database; it needs no answer from
// the database (a process starts while it is away, and serves once it is
// back), as the statements are prepared by the first transaction. With
// cfg.URL it follows the other processes' changes of
// schemas and branches until Close; it fails when it cannot listen before
// ctx ends.
func New(ctx context.Context, cfg Config) (*Service, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Service{db: cfg.DB, log: log, guard: cfg.Guard, recorder: cfg.Recorder, freed: cfg.Freed, inTransactions: cfg.InTransactions, stop: func() {}, branches: map[string]*branchState{}}
	if cfg.URL == "" {
		return s, nil
	}
	l, err := store.Listen(ctx, cfg.URL, []string{schemaChannel}, func(ev store.ListenerEvent, err error) {
		if err != nil {
			log.Warn("The connection that follows schema changes failed", slog.Any("error", err))
		}
	})
	if err != nil {
		return nil, fmt.Errorf("branch: unable to follow schema changes: %w", err)
	}
	lctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop = stop
	s.running.Go(func() { l.Run(lctx, s.notified) })
	return s, nil
}

// Close stops following schema changes and returns once the listener's
// connection is closed.
func (s *Service) Close() {
	s.stop()
	s.running.Wait()
}

// notified drops what a notification says changed: the branch of the id it
// names, or, when notifications may have been lost, every branch.
func (s *Service) notified(n store.Notification) {
	if n.Reconnected {
		s.forgetAll()
		return
	}
	id, err := strconv.ParseInt(n.Payload, 10, 64)
	if err != nil {
		s.log.Warn("An ipam_schema notification names no branch", slog.String("payload", n.Payload))
		s.forgetAll()
		return
	}
	s.forget(id)
}

// forget drops the cached state of the branch id.
func (s *Service) forget(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.generation++
	for name, st := range s.branches {
		if st.row.ID == id {
			delete(s.branches, name)
		}
	}
}

// forgetAll drops every cached branch.
func (s *Service) forgetAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.generation++
	clear(s.branches)
}

// Refresh drops the cached state of every branch whose row changed since
// it was read (its schema, its branch point) or that is gone, as the
// notifications of those changes will: once it returns, what the service
// reads uses schemas at least as new as the rows it read. One statement.
// A caller that must not act on a schema older than what it saw in the
// database calls it first (number pools labelling their divisions): a
// notification may arrive a moment after the commit.
func (s *Service) Refresh(ctx context.Context) error {
	rows, err := store.Branches(ctx, s.db)
	if err != nil {
		return err
	}
	now := make(map[string]store.BranchRow, len(rows))
	for _, r := range rows {
		now[r.Name] = r
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, st := range s.branches {
		if r, ok := now[name]; !ok || r.ID != st.row.ID || r.BranchedFrom != st.row.BranchedFrom || r.SchemaSeq != st.row.SchemaSeq {
			s.generation++
			delete(s.branches, name)
		}
	}
	return nil
}

// state returns the branch called name as cached, reading it when it is
// not: reads use it without a statement of their own.
func (s *Service) state(ctx context.Context, name string) (*branchState, error) {
	s.mu.Lock()
	st, gen := s.branches[name], s.generation
	s.mu.Unlock()
	if st != nil {
		return st, nil
	}
	row, err := store.Branch(ctx, s.db, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("branch %s", name)
	}
	if err != nil {
		return nil, err
	}
	return s.load(ctx, s.db, row, gen)
}

// stateOf returns the state of the branch of row, as a transaction that
// locked it read it: the cached one when it has the same branch point and
// schema, else one read through q and cached.
func (s *Service) stateOf(ctx context.Context, q store.Ext, row store.BranchRow) (*branchState, error) {
	s.mu.Lock()
	st, gen := s.branches[row.Name], s.generation
	s.mu.Unlock()
	if st != nil && st.row.ID == row.ID && st.row.BranchedFrom == row.BranchedFrom && st.row.SchemaSeq == row.SchemaSeq {
		return st, nil
	}
	return s.load(ctx, q, row, gen)
}

// load reads the schema of the branch of row and caches the state, unless
// the cache was dropped since gen.
func (s *Service) load(ctx context.Context, q store.Ext, row store.BranchRow, gen uint64) (*branchState, error) {
	sch, err := s.readSchema(ctx, q, row)
	if err != nil {
		return nil, err
	}
	st := &branchState{row: row, schema: sch}
	s.mu.Lock()
	if s.generation == gen {
		s.branches[row.Name] = st
	}
	s.mu.Unlock()
	return st, nil
}

// readSchema reads the schema of the branch of row: its own latest, else
// main's at its branch point; the empty schema when there is none.
func (s *Service) readSchema(ctx context.Context, q store.Ext, row store.BranchRow) (*compiled, error) {
	var v store.KindSchemaRow
	var err error
	switch {
	case row.SchemaSeq != 0:
		v, err = store.KindSchema(ctx, q, row.ID, row.SchemaSeq)
	case row.ID == store.MainBranchID:
		return compile(emptySchema()), nil
	default:
		v, err = store.KindSchema(ctx, q, store.MainBranchID, row.BranchedFrom)
	}
	if errors.Is(err, store.ErrNotFound) {
		return compile(emptySchema()), nil
	}
	if err != nil {
		return nil, err
	}
	sch, err := decodeSchema(v.Document)
	if err != nil {
		return nil, fmt.Errorf("branch: the stored schema of branch %s (change %d) cannot be read: %w", row.Name, v.Seq, err)
	}
	return compile(sch), nil
}

// inTx runs fn in a transaction, having prepared the statements that
// transactions use (store.PrepareStatements) once: a transaction cannot
// prepare them itself, as that needs a second connection of the pool.
func (s *Service) inTx(ctx context.Context, fn func(tx *store.Tx) error) error {
	if !s.prepared.Load() {
		if err := store.PrepareStatements(ctx, s.db); err != nil {
			return err
		}
		s.prepared.Store(true)
	}
	return store.InTx(ctx, s.db, fn)
}

// maxAttempts bounds how many times a change is tried when it meets
// another change made meanwhile.
const maxAttempts = 5

// change runs fn in a transaction, and again in a fresh one when fn meets
// another change made meanwhile (store.Retryable: an object written first,
// a pool deleted, a deadlock PostgreSQL broke by refusing this
// transaction), maxAttempts times in all. Every change of objects' versions
// goes through it (writes, schema loads, merges, rebases, branch
// deletions): the releases of numbers their records make lock allocations
// that another change may lock in the other order (docs/numbers.md,
// "Records"). fn starts afresh each time: what it read or set in a
// refused attempt is to be read or set again.
func (s *Service) change(ctx context.Context, fn func(tx *store.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := s.inTx(ctx, fn)
		if store.Retryable(err) && attempt < maxAttempts {
			continue
		}
		return err
	}
}

// write runs fn in a change (a transaction, tried again as change says)
// that holds the branch called name shared (with objects locked, see
// store.ObjectLocks), given the branch's state as the lock found it.
func (s *Service) write(ctx context.Context, name string, locks store.ObjectLocks, fn func(tx *store.Tx, st *branchState) error) error {
	return s.change(ctx, func(tx *store.Tx) error {
		row, err := store.LockBranch(ctx, tx, name, store.ShareBranch, locks)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("branch %s", name)
		}
		if err != nil {
			return err
		}
		st, err := s.stateOf(ctx, tx, row)
		if err != nil {
			return err
		}
		return fn(tx, st)
	})
}
