package ipam

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/routing"
	"pivirt.hu/ipam/internal/store"
)

// Config is what the service needs.
type Config struct {
	DB *store.DB
	// URL is the database's URL, for the connection that follows other
	// processes' releases and deletions. Without it the service assumes it
	// is the only one on the database (tests of a single process).
	URL string
	// RouteListen, with URL, makes the service route each pool's claims to
	// one process (internal/routing): it listens there, host:port, for the
	// claims other processes forward to it. Empty: every claim is made
	// here.
	RouteListen string
	// Observer, if set, is told of claims, releases, views read and
	// notifications (internal/metrics).
	Observer Observer
	Logger   *slog.Logger
}

// Service is the IPAM domain over one database. Several services, in one
// process or in many, may share the database.
type Service struct {
	db    *store.DB
	log   *slog.Logger
	obs   Observer
	views *views
	// notifier tells the other processes of this one's releases.
	notifier *releaseNotifier
	// inserts runs the inserts of claims made outside transactions.
	inserts *claimInserts
	// router sends claims to their pool's owner process; nil without
	// Config.RouteListen.
	router *routing.Router
	// stop ends the goroutines the service started (following
	// notifications, refreshing the views); running waits for them.
	stop    context.CancelFunc
	running sync.WaitGroup

	poolsMu sync.Mutex
	pools   map[string]*cachedPool   // by "namespace/name"
	subnets map[string]*cachedSubnet // by subnetKey
	// layouts is this process's view of each VPC's subnets (subnets.go,
	// vpcSubnets), by subnetKey with no subnet; layoutsGen counts the
	// times views were dropped.
	layouts    map[string]*vpcSubnets
	layoutsGen uint64

	inflightMu sync.Mutex
	inflight   map[string]*claimCall // by pool and owner

	// quotaBound holds the namespaces whose last claim here was bound by a
	// quota of addresses: their claims go under their quota lock at once,
	// rather than first trying the statement a quota turns away (which
	// would cost three statements and, for that moment, hide its
	// candidate from concurrent claims). It is a hint: the claim checks
	// the quotas in the database either way.
	quotaBound sync.Map // namespace → struct{}

	// fits holds the forecasts' sums of the usage history (dashboard.go).
	fits usageFits
}

// cachedPool is a pool with its parsed spec. The cache can be stale about
// a pool deleted (and maybe made again) elsewhere: a claim then fails on
// the foreign key and the entry is dropped. And about a public pool whose
// gateway, excludes or zone changed (UpdatePublicPool): a claim's insert
// then stores nothing, and the claim reads the pool afresh (respecify). A
// private pool's spec never changes.
type cachedPool struct {
	row  store.PoolRow
	pool Pool
	spec candidates.Pool
}

// New starts the service. With cfg.URL it follows the other processes'
// releases and deletions until Close, and reads its views afresh every
// claim.RefreshEvery; it fails when it cannot listen before ctx ends.
func New(ctx context.Context, cfg Config) (*Service, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	self := rand.Text()
	obs := cfg.Observer
	if obs == nil {
		obs = noObserver{}
	}
	s := &Service{db: cfg.DB, log: log, obs: obs, views: newViews(cfg.DB, log, self, obs), notifier: newReleaseNotifier(cfg.DB, log, self), stop: func() {},
		pools: map[string]*cachedPool{}, subnets: map[string]*cachedSubnet{}, layouts: map[string]*vpcSubnets{}, inflight: map[string]*claimCall{}}
	s.inserts = &claimInserts{db: cfg.DB}
	if cfg.URL == "" {
		return s, nil
	}
	l, err := s.views.listen(ctx, cfg.URL, s.forgetCaches)
	if err != nil {
		s.notifier.close()
		return nil, fmt.Errorf("ipam: unable to follow release notifications: %w", err)
	}
	lctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop = stop
	s.running.Go(func() { l.Run(lctx, func(n store.Notification) { s.views.notified(n, s.forgetCaches) }) })
	s.running.Go(func() { s.views.taken.Refresh(lctx) })
	if cfg.RouteListen != "" {
		s.router, err = routing.Start(ctx, routing.Config{DB: cfg.DB, URL: cfg.URL, Listen: cfg.RouteListen, Process: self,
			Handle: s.serveForwarded, Logger: log})
		if err != nil {
			s.Close()
			return nil, err
		}
		s.router.Serve()
	}
	return s, nil
}

// Close stops following notifications and refreshing the views, and
// returns once the listener's connection is closed.
func (s *Service) Close() {
	if s.router != nil {
		s.router.Close()
	}
	s.stop()
	s.running.Wait()
	s.notifier.close()
}

// freed frees a, released in the pool uid and committed, in this process's
// view, and tells the other processes.
func (s *Service) freed(ctx context.Context, uid string, a netip.Addr) {
	if pv, err := s.views.pool(ctx, uid); err == nil {
		pv.Free(a)
	}
	s.notifier.released(uid, a)
}

// cachedPool returns the pool namespace/name with its parsed spec.
func (s *Service) cachedPool(ctx context.Context, namespace, name string) (*cachedPool, error) {
	if !storable(namespace, name) {
		return nil, notFound("pool", namespace, name)
	}
	key := namespace + "/" + name
	s.poolsMu.Lock()
	cp, ok := s.pools[key]
	s.poolsMu.Unlock()
	if ok {
		return cp, nil
	}
	row, err := store.Pool(ctx, s.db, namespace, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("pool", namespace, name)
	}
	if err != nil {
		return nil, err
	}
	cp, err = newCachedPool(row)
	if err != nil {
		return nil, err
	}
	s.poolsMu.Lock()
	s.pools[key] = cp
	s.poolsMu.Unlock()
	return cp, nil
}

// remember caches cp, unless the cache holds a newer spec of its pool.
func (s *Service) remember(cp *cachedPool) {
	key := cp.row.Namespace + "/" + cp.row.Name
	s.poolsMu.Lock()
	defer s.poolsMu.Unlock()
	if old, ok := s.pools[key]; !ok || old.row.UID != cp.row.UID || old.row.SpecVersion < cp.row.SpecVersion {
		s.pools[key] = cp
	}
}

// forgetCaches drops every cached pool and subnet: one was deleted
// somewhere.
func (s *Service) forgetCaches() {
	s.poolsMu.Lock()
	defer s.poolsMu.Unlock()
	clear(s.pools)
	clear(s.subnets)
	clear(s.layouts)
	s.layoutsGen++
}

// forgetPool drops a pool from the caches.
func (s *Service) forgetPool(cp *cachedPool) {
	s.poolsMu.Lock()
	delete(s.pools, cp.row.Namespace+"/"+cp.row.Name)
	s.poolsMu.Unlock()
	s.views.forget(cp.row.UID)
}

func newCachedPool(row store.PoolRow) (*cachedPool, error) {
	p := poolFromRow(row)
	spec := candidates.PoolSpec{CIDR: p.CIDR.String(), Exclude: p.Exclude}
	if p.Gateway.IsValid() {
		spec.Gateway = p.Gateway.String()
	}
	parsed, err := candidates.ParsePool(spec)
	if err != nil {
		return nil, fmt.Errorf("ipam: the stored pool %s is invalid: %w", row.Name, err)
	}
	return &cachedPool{row: row, pool: p, spec: parsed}, nil
}

// undoList collects what to undo in this process when a transaction that
// claimed addresses rolls back.
type undoList []func()

// inTx runs fn in one transaction: a refused request stores nothing, and
// the views forget the claims it made.
func (s *Service) inTx(ctx context.Context, fn func(tx *store.Tx, undo *undoList) error) error {
	var undo undoList
	err := store.InTx(ctx, s.db, func(tx *store.Tx) error { return fn(tx, &undo) })
	if err != nil {
		for _, f := range undo {
			f()
		}
	}
	return err
}
