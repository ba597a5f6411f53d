package numbers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/store"
)

// channel is where the database tells every process of numbers freed and
// of pools changed or deleted (migration 0006).
const channel = "ipam_numbers"

// foldEvery is how often a service that follows the other processes folds
// the marks of every pool's divisions (store.FoldDivisionUsage), so that
// they do not pile up where no pool's page is read.
const foldEvery = time.Minute

// maxFolds bounds the folds one service runs at once: a fold holds one
// connection of the pool (store.MaxOpenConns) while it waits for another
// to read the labels, so folds of many pools at once must leave
// connections for their labels.
const maxFolds = 4

// Config is what the service needs.
type Config struct {
	DB *store.DB
	// URL is the database's URL, for the connections that follow the
	// other processes: their releases and changes of pools, and (for the
	// branch service) their changes of schemas and branches. Without it the
	// service assumes it is the only one on the database (tests of a single
	// process).
	URL    string
	Logger *slog.Logger
	// Branch configures the service of branches and objects that New
	// starts (its DB, URL and Logger are the service's): its Guard, if any,
	// is asked first, then the pools'; its Recorder is the pools'.
	Branch branch.Config
}

// Service is the domain of number pools over one database, with the
// service of branches and objects it keeps its records of (Branches).
// Several services, in one process or in many, may share the database.
type Service struct {
	db       *store.DB
	log      *slog.Logger
	branches *branch.Service
	views    *views
	// folds holds a place for each fold in progress (fold): each holds a
	// connection for its transaction and takes another to label.
	folds chan struct{}

	// stop ends the goroutines New started; running waits for them.
	stop    context.CancelFunc
	running sync.WaitGroup
}

// New starts the service on a migrated database, and the service of
// branches and objects, built from cfg.Branch with the pools' schema guard
// (Guard) after cfg.Branch.Guard and the pools' recorder, so that every
// change of objects and of the schema of kinds keeps the pools' records
// right. With cfg.URL both follow the other processes until Close, and
// the views of divisions are read afresh every claim.RefreshEvery; New
// fails when they cannot listen before ctx ends.
func New(ctx context.Context, cfg Config) (*Service, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Service{db: cfg.DB, log: log, stop: func() {}, folds: make(chan struct{}, maxFolds)}
	s.views = newViews(s)
	bcfg := cfg.Branch
	bcfg.DB, bcfg.URL, bcfg.Logger = cfg.DB, cfg.URL, log
	bcfg.Guard = branch.Guards(bcfg.Guard, s.guard)
	bcfg.Recorder, bcfg.Freed = s.record, s.views.freed
	branches, err := branch.New(ctx, bcfg)
	if err != nil {
		return nil, err
	}
	s.branches = branches
	if cfg.URL == "" {
		return s, nil
	}
	l, err := store.Listen(ctx, cfg.URL, []string{channel}, func(ev store.ListenerEvent, err error) {
		switch ev {
		case store.ListenerConnected, store.ListenerReconnected:
			// What was loaded before this moment may have missed releases.
			s.views.forgetAll()
		case store.ListenerDisconnected, store.ListenerConnectionAttemptFailed:
			log.Warn("The connection that follows number pools failed; their views will be reloaded on reconnection", slog.Any("error", err))
		}
	})
	if err != nil {
		branches.Close()
		return nil, fmt.Errorf("numbers: unable to follow the number pools: %w", err)
	}
	lctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop = stop
	s.running.Go(func() { l.Run(lctx, s.views.notified) })
	s.running.Go(func() { s.views.divisions.Refresh(lctx) })
	s.running.Go(func() { s.foldPeriodically(lctx, foldEvery) })
	return s, nil
}

// foldPeriodically folds the marks of every pool's divisions each period, until
// ctx ends.
func (s *Service) foldPeriodically(ctx context.Context, period time.Duration) {
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := s.foldAll(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("Counting the divisions of number pools failed; the next round or page read counts them", slog.Any("error", err))
		}
	}
}

// foldAll folds the marks of every pool that has some.
func (s *Service) foldAll(ctx context.Context) error {
	ids, err := store.MarkedNumberPools(ctx, s.db)
	if err != nil {
		return err
	}
	for _, id := range ids {
		row, err := store.NumberPool(ctx, s.db, id)
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted meanwhile, with its marks
		}
		if err == nil {
			err = s.fold(ctx, row)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Branches returns the service of branches and objects that New started:
// write objects through it (or through CreateObject and UpdateObject, for
// from_pool), and the pools' records follow.
func (s *Service) Branches() *branch.Service { return s.branches }

// Close stops following the other processes, and closes the branch
// service.
func (s *Service) Close() {
	s.stop()
	s.running.Wait()
	s.branches.Close()
}
