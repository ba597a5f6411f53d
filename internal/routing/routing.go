// Package routing sends each pool's claims to one process, the pool's
// owner, when several ipam processes serve one database.
//
// Claims never need it to be correct: the database's unique indexes decide
// every claim. It makes them cheap: two processes claiming in one pool
// propose the same lowest candidates and lose races to each other (two
// statements more per lost race, docs/scaling.md), while one process hands
// out distinct candidates from its view of the pool. So the first process
// to claim in a pool takes a session advisory lock on it (store.OwnerLocks)
// and records where it listens (store.OwnerLocks.TryOwn); the others
// forward their claims in that pool to it over one connection each
// (net/rpc over TLS 1.3 with certificates pinned from the database,
// transport.go), and claim themselves whenever it cannot be reached. An
// owner gives a pool up after ownerIdle without claims, and every lock ends
// with its process's connection.
package routing

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/rpc"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"pivirt.hu/ipam/internal/store"
)

// A Claim is a claim forwarded to its pool's owner: what the owner needs to
// make it as the forwarding process would have. The forwarding process
// checked the actor's rights.
type Claim struct {
	PoolNamespace, Pool, PoolUID string
	// VPC and Subnet name the subnet of a VPC's claim (an interface or a
	// node attached); otherwise Within and Reserved are the request's.
	VPC, Subnet string
	Within      string
	Reserved    []string
	OwnerKind   string
	OwnerUID    string
	OwnerName   string
	// OwnerNamespace is the owner's tenant namespace.
	OwnerNamespace string
	Actor          string
	// Timeout is how long the forwarding process waits for the answer;
	// the owner gives the claim no longer, and never longer than
	// forwardTimeout.
	Timeout time.Duration
}

// An Answer is the owner's answer to a Claim: the allocation, or a refusal
// as refusal.Classify spells it (Code, Field, Message; Scope for an exhausted
// pool).
type Answer struct {
	Allocation store.AllocationRow
	Code       string
	Field      string
	Message    string
	Scope      string
	// Owner says whether the answering process owns the pool's claims; a
	// forwarding process that learns it does not looks the route up again.
	Owner bool
}

// A Handler makes a forwarded claim in this process.
type Handler func(ctx context.Context, c Claim) Answer

// Config is what a Router needs.
type Config struct {
	DB *store.DB
	// URL reaches the PostgreSQL server itself (not a connection pooler),
	// for the owner locks.
	URL string
	// Listen is the address the owner listens on for forwarded claims,
	// host:port; it is recorded as the pool's route, so other processes
	// must be able to reach it. A port 0 picks a free one.
	Listen string
	// Process identifies this process in the routes.
	Process string
	Handle  Handler
	Logger  *slog.Logger
}

// How long a route is trusted, and how often ownership is reconsidered.
const (
	// ownerIdle is how long an owner keeps a pool nobody claims in.
	ownerIdle = time.Minute
	// routeFor is how long a forwarding process trusts a route it read.
	routeFor = 30 * time.Second
	// fallbackFor is how long a process claims itself after its pool's
	// owner could not be reached; each failure of that owner in a row
	// doubles it, up to maxFallbackFor.
	fallbackFor    = 5 * time.Second
	maxFallbackFor = time.Minute
	// routeWait is about how long a process waits for the route of a
	// pool whose lock another process holds; firstMiss is how soon it
	// looks again after waiting in vain (the owner's statement failed,
	// or a stale route names this process), each further miss doubling
	// it, up to fallbackFor.
	routeWait = 64 * time.Millisecond
	firstMiss = 20 * time.Millisecond
	// ownerLease is how long after a statement succeeded on the
	// connection holding the owner locks this process trusts that it
	// holds them (store.OwnerLocks); it checks them every lockCheckEvery,
	// giving each check lockCheckTimeout.
	ownerLease       = 5 * time.Second
	lockCheckEvery   = time.Second
	lockCheckTimeout = 2 * time.Second
	// janitorEvery is how often idle pools are given up, stale routes
	// dropped and this process's certificate published again.
	janitorEvery = 15 * time.Second
	// processUnseen is how long a process's certificate is kept after it
	// was last published: the process stopped without removing it.
	processUnseen = time.Hour
	// forwardTimeout bounds a forwarded claim, from the dial to the
	// answer: an owner that has not answered by then (stopped, paused,
	// cut off) is dropped and the claim made here. An owner gives a
	// forwarded claim no longer, whatever the claim asks.
	forwardTimeout = 2 * time.Second
)

// A Router routes this process's claims and serves the claims others
// forward to it.
type Router struct {
	cfg  Config
	log  *slog.Logger
	self store.Route
	// cert is this process's identity on the route link, published with
	// its route.
	cert   tls.Certificate
	locks  *store.OwnerLocks
	ln     net.Listener
	server *rpc.Server

	mu    sync.Mutex
	pools map[string]*route // by pool uid
	// elsewhere holds the pools whose claims this process forwarded since
	// it last claimed in them itself (see ClaimedElsewhere).
	elsewhere map[string]bool
	// failures counts, by process, the forwarded claims in a row that an
	// owner did not answer.
	failures map[string]failures

	// peers holds the connections to other processes, by process; a
	// connection is dialled outside peersMu, once however many claims
	// wait for it.
	peersMu sync.Mutex
	peers   map[string]*peerConn // nil once closed
	dials   sync.WaitGroup

	connsMu sync.Mutex
	conns   map[net.Conn]struct{} // served
	closed  bool

	// ctx ends with Close, which calls stop.
	ctx     context.Context
	stop    context.CancelFunc
	running sync.WaitGroup

	// handshakes holds a token for each connection being authenticated.
	handshakes chan struct{}
	// refusals logs the refused connections, at a bounded rate.
	refusals rateLog

	forwarded, served, fallbacks, timeouts, refused, acceptErrors atomic.Int64
}

// failures are the forwarded claims in a row an owner did not answer.
type failures struct {
	n    int
	last time.Time
}

// A route is what this process knows of a pool's owner.
type route struct {
	// decided is closed once the route is known; until then the first
	// claim in the pool finds it out and the others wait.
	decided chan struct{}
	owned   bool
	gen     uint64      // the generation of the owner locks it is owned in
	peer    store.Route // the owner; its Process "" to claim here
	until   time.Time   // when a route not owned is looked up again
	misses  int         // lookups in a row that found no route recorded
	used    time.Time   // the last claim in an owned pool
}

// Start listens on cfg.Listen and returns the router, which serves the
// claims of other processes once Serve is called.
func Start(ctx context.Context, cfg Config) (*Router, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if host, _, err := net.SplitHostPort(cfg.Listen); err != nil || host == "" || net.ParseIP(host).IsUnspecified() {
		return nil, fmt.Errorf("routing: listen address %q: give host:port with an address the other ipam processes reach (it is what they dial), not an unspecified one", cfg.Listen)
	}
	cert, err := newIdentity(cfg.Process)
	if err != nil {
		return nil, fmt.Errorf("routing: unable to make a key pair for the route link: %w", err)
	}
	locks, err := store.OpenOwnerLocks(ctx, cfg.URL, ownerLease)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		locks.Close()
		return nil, fmt.Errorf("routing: unable to listen on %s for the claims of other processes: %w", cfg.Listen, err)
	}
	host, _ := os.Hostname()
	r := &Router{cfg: cfg, log: log, cert: cert, locks: locks, ln: ln, server: rpc.NewServer(),
		self:  store.Route{Address: ln.Addr().String(), Host: host, Process: cfg.Process},
		pools: map[string]*route{}, elsewhere: map[string]bool{}, failures: map[string]failures{}, peers: map[string]*peerConn{}, conns: map[net.Conn]struct{}{},
		handshakes: make(chan struct{}, maxHandshakes), refusals: rateLog{every: refusalsLogEvery}}
	if err := r.server.RegisterName("Claims", &claims{r}); err != nil {
		ln.Close()
		locks.Close()
		return nil, err
	}
	if err := store.PublishProcess(ctx, cfg.DB, cfg.Process, cert.Certificate[0]); err != nil {
		ln.Close()
		locks.Close()
		return nil, err
	}
	jctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	r.ctx, r.stop = jctx, stop
	r.running.Go(func() { r.janitor(jctx) })
	return r, nil
}

// Serve starts serving the claims other processes forward to this one.
func (r *Router) Serve() {
	r.running.Go(r.accept)
}

// Address is where the router listens.
func (r *Router) Address() string { return r.self.Address }

// Stats counts this process's claims forwarded to owners, the claims it
// served for others, and the claims it made itself because an owner could
// not be reached (Fallbacks), of which Timeouts because the owner did not
// answer within forwardTimeout; the connections to its route listener it
// refused (they did not authenticate, or came while maxHandshakes were
// being authenticated), and the errors its listener returned instead of a
// connection.
type Stats struct{ Forwarded, Served, Fallbacks, Timeouts, Refused, AcceptErrors int64 }

// Stats returns the counts so far.
func (r *Router) Stats() Stats {
	return Stats{Forwarded: r.forwarded.Load(), Served: r.served.Load(), Fallbacks: r.fallbacks.Load(), Timeouts: r.timeouts.Load(),
		Refused: r.refused.Load(), AcceptErrors: r.acceptErrors.Load()}
}

// Forward sends c to the owner of the pool uid. It returns false when the
// claim is to be made in this process: this process owns the pool, or the
// owner is unknown or did not answer within forwardTimeout. An error is
// the end of ctx.
func (r *Router) Forward(ctx context.Context, uid string, c Claim) (Answer, bool, error) {
	peer, err := r.owner(ctx, uid)
	if err != nil || peer.Process == "" {
		return Answer{}, false, err
	}
	cctx, cancel := context.WithTimeout(ctx, forwardTimeout)
	defer cancel()
	if d, ok := cctx.Deadline(); ok {
		c.Timeout = time.Until(d)
	}
	a, err := r.call(cctx, peer, c)
	if err != nil {
		if ctx.Err() != nil {
			return Answer{}, false, ctx.Err()
		}
		if cctx.Err() != nil {
			r.timeouts.Add(1)
		}
		r.unreachable(ctx, uid, peer, err)
		return Answer{}, false, nil
	}
	r.forwarded.Add(1)
	r.mu.Lock()
	delete(r.failures, peer.Process)
	r.elsewhere[uid] = true
	if rt := r.pools[uid]; !a.Owner && rt != nil && rt.peer.Process == peer.Process {
		delete(r.pools, uid)
	}
	r.mu.Unlock()
	return a, true, nil
}

// ClaimedElsewhere reports whether this process forwarded claims of the
// pool uid since it last asked, and forgets them: when it claims there
// itself again (it owns the pool now, or its owner is gone), its view of
// the pool misses what the owner claimed meanwhile, and should be read
// again first.
func (r *Router) ClaimedElsewhere(uid string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	was := r.elsewhere[uid]
	delete(r.elsewhere, uid)
	return was
}

// owner returns the route of the pool's owner, whose Process is "" when
// the claim is to be made here. The first claim in a pool, and the first
// after its route expired, finds the owner out: it takes the pool's lock
// if nobody holds it, or reads the route the holder recorded.
func (r *Router) owner(ctx context.Context, uid string) (store.Route, error) {
	now := time.Now()
	r.mu.Lock()
	rt := r.pools[uid]
	if rt != nil {
		select {
		case <-rt.decided:
			if rt.owned && !r.locks.Holds(rt.gen) {
				// Its lock was not known held for ownerLease.
				r.mu.Unlock()
				r.checkLocks()
				return r.owner(ctx, uid)
			}
			if rt.owned || now.Before(rt.until) {
				if rt.owned {
					rt.used = now
				}
				r.mu.Unlock()
				return rt.peer, nil
			}
		default:
			r.mu.Unlock()
			select {
			case <-rt.decided:
			case <-ctx.Done():
				return store.Route{}, ctx.Err()
			}
			return r.owner(ctx, uid)
		}
	}
	next := &route{decided: make(chan struct{})}
	if rt != nil {
		next.misses = rt.misses
	}
	r.pools[uid] = next
	r.mu.Unlock()
	r.decide(ctx, uid, next)
	close(next.decided)
	return next.peer, nil
}

// decide finds out the owner of the pool uid into rt. When another
// process holds the pool's lock but its route is not visible yet (the
// statement that took the lock has not committed), it looks again a few
// times before claiming here: claims made here meanwhile would race the
// owner's.
func (r *Router) decide(ctx context.Context, uid string, rt *route) {
	now := time.Now()
	rt.until = now.Add(fallbackFor)
	owned, gen, err := r.locks.TryOwn(ctx, uid, r.self)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return
	case err != nil:
		if errors.Is(err, store.ErrLocksLost) {
			r.lostLocks()
		}
		r.log.Warn("routing: unable to find the owner of a pool; claiming in this process", "pool", uid, "err", err)
		return
	case owned:
		rt.owned, rt.gen, rt.used = true, gen, now
		return
	}
	for wait := time.Millisecond; ; wait *= 2 {
		found, err := store.RouteOf(ctx, r.cfg.DB, uid)
		switch {
		case errors.Is(err, store.ErrNotFound) || err == nil && found.Process == r.self.Process:
			if wait < routeWait {
				select {
				case <-time.After(wait):
					continue
				case <-ctx.Done():
				}
			}
			rt.until = time.Now().Add(min(firstMiss<<min(rt.misses, 8), fallbackFor))
			rt.misses++
		case err != nil:
			r.log.Warn("routing: unable to read a pool's route; claiming in this process", "pool", uid, "err", err)
		case loopback(found.Address) && found.Host != r.self.Host:
			// The owner listens on a loopback address of another host:
			// its claims cannot be forwarded (give ipam serve
			// --route-listen an address the other hosts reach).
			rt.until = now.Add(routeFor)
		default:
			rt.peer, rt.until = found, now.Add(routeFor)
		}
		return
	}
}

// checkLocks checks that the connection holding the owner locks lives,
// and gives up the pools owned on one that does not.
func (r *Router) checkLocks() {
	ctx, cancel := context.WithTimeout(r.ctx, lockCheckTimeout)
	defer cancel()
	if err := r.locks.Check(ctx); err != nil && r.ctx.Err() == nil {
		r.log.Warn("routing: the connection holding the pool owner locks failed", "err", err)
	}
	r.lostLocks()
}

// lostLocks gives up the pools this process owned on a connection of the
// owner locks that is not the current one: that connection failed, and
// its locks with it, so other processes may own the pools now. A claim in
// a pool being given up waits until its route is removed, then finds the
// owner afresh: a route removed after it was recorded again would leave
// the pool owned with no route.
func (r *Router) lostLocks() {
	gen := r.locks.Generation()
	giving := map[string]*route{}
	r.mu.Lock()
	for uid, rt := range r.pools {
		select {
		case <-rt.decided:
		default:
			continue
		}
		if rt.owned && rt.gen != gen {
			placeholder := &route{decided: make(chan struct{})}
			r.pools[uid], giving[uid] = placeholder, placeholder
		}
	}
	r.mu.Unlock()
	if len(giving) == 0 {
		return
	}
	r.log.Warn("routing: gave up the pools owned on a failed connection", "pools", len(giving))
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), lockCheckTimeout)
	defer cancel()
	for uid, placeholder := range giving {
		if err := store.DeleteRoute(ctx, r.cfg.DB, uid, r.self.Process); err != nil {
			r.log.Warn("routing: unable to remove a pool's route", "pool", uid, "err", err)
		}
		r.mu.Lock()
		if r.pools[uid] == placeholder {
			delete(r.pools, uid)
		}
		r.mu.Unlock()
		close(placeholder.decided)
	}
}

// unreachable handles an owner that did not answer: most likely it
// stopped, and its lock with it, so this process tries to own the pool at
// once; if another process still holds it (it is paused, or cut off from
// this one), this process claims in the pool itself for fallbackFor,
// doubled for each failure of that owner in a row.
func (r *Router) unreachable(ctx context.Context, uid string, peer store.Route, err error) {
	r.fallbacks.Add(1)
	r.log.Warn("routing: the owner of a pool did not answer; claiming in this process", "pool", uid, "owner", peer.Address, "err", err)
	r.dropPeer(peer.Process)
	r.mu.Lock()
	f := r.failures[peer.Process]
	r.failures[peer.Process] = failures{n: f.n + 1, last: time.Now()}
	fallback := min(fallbackFor<<min(f.n, 8), maxFallbackFor)
	rt := r.pools[uid]
	if rt == nil || rt.peer.Process != peer.Process {
		r.mu.Unlock()
		return
	}
	delete(r.pools, uid)
	r.mu.Unlock()
	if _, err := r.owner(ctx, uid); err != nil {
		return
	}
	r.mu.Lock()
	if rt := r.pools[uid]; rt != nil && rt.peer.Process == peer.Process {
		rt.peer, rt.until = store.Route{}, time.Now().Add(fallback)
	}
	r.mu.Unlock()
}

// janitor checks the owner locks every lockCheckEvery, and gives up the
// pools nobody claimed in for ownerIdle and drops the expired routes every
// janitorEvery, until ctx ends.
func (r *Router) janitor(ctx context.Context) {
	checks, sweeps := time.NewTicker(lockCheckEvery), time.NewTicker(janitorEvery)
	defer checks.Stop()
	defer sweeps.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-checks.C:
			r.checkLocks()
		case <-sweeps.C:
			r.sweep(ctx, time.Now())
			r.publish(ctx)
		}
	}
}

// sweep gives up the pools idle at now and drops the expired routes. A
// claim in a pool being given up waits until it is, then finds its owner
// afresh: taking the lock again before it is given up would stack it (a
// session's advisory locks count), and the route deleted after it was
// recorded again would leave the pool owned with no route.
func (r *Router) sweep(ctx context.Context, now time.Time) {
	giving := map[string]*route{}
	r.mu.Lock()
	for uid, rt := range r.pools {
		select {
		case <-rt.decided:
		default:
			continue
		}
		switch {
		case rt.owned && now.Sub(rt.used) > ownerIdle:
			placeholder := &route{decided: make(chan struct{})}
			r.pools[uid], giving[uid] = placeholder, placeholder
		case !rt.owned && now.After(rt.until):
			delete(r.pools, uid)
		}
	}
	for process, f := range r.failures {
		if now.Sub(f.last) > 2*maxFallbackFor {
			delete(r.failures, process)
		}
	}
	r.mu.Unlock()
	for uid, placeholder := range giving {
		r.disown(ctx, uid)
		r.mu.Lock()
		if r.pools[uid] == placeholder {
			delete(r.pools, uid)
		}
		r.mu.Unlock()
		close(placeholder.decided)
	}
}

// publish says again that this process runs, with its certificate, and
// drops the certificates of the processes that stopped saying so.
func (r *Router) publish(ctx context.Context) {
	if err := store.PublishProcess(ctx, r.cfg.DB, r.self.Process, r.cert.Certificate[0]); err != nil {
		r.log.Warn("routing: unable to publish this process's certificate", "err", err)
	}
	if err := store.PruneProcesses(ctx, r.cfg.DB, processUnseen); err != nil {
		r.log.Warn("routing: unable to remove the certificates of stopped processes", "err", err)
	}
}

// disown gives the pool uid up: its route, then its lock.
func (r *Router) disown(ctx context.Context, uid string) {
	if err := store.DeleteRoute(ctx, r.cfg.DB, uid, r.self.Process); err != nil {
		r.log.Warn("routing: unable to remove a pool's route", "pool", uid, "err", err)
	}
	if err := r.locks.Disown(ctx, uid); err != nil {
		r.log.Warn("routing: unable to give a pool up", "pool", uid, "err", err)
	}
}

// Close stops serving, gives up every pool this process owns and closes
// the connections.
func (r *Router) Close() {
	r.stop()
	r.ln.Close()
	r.connsMu.Lock()
	r.closed = true
	for c := range r.conns {
		c.Close()
	}
	r.connsMu.Unlock()
	r.running.Wait()
	r.peersMu.Lock()
	for _, p := range r.peers {
		p.close()
	}
	r.peers = nil
	r.peersMu.Unlock()
	r.dials.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	r.mu.Lock()
	var owned []string
	for uid, rt := range r.pools {
		select {
		case <-rt.decided:
			if rt.owned {
				owned = append(owned, uid)
			}
		default:
		}
	}
	r.mu.Unlock()
	for _, uid := range owned {
		if err := store.DeleteRoute(ctx, r.cfg.DB, uid, r.self.Process); err != nil {
			break
		}
	}
	r.locks.Close()
	if err := store.UnpublishProcess(ctx, r.cfg.DB, r.self.Process); err != nil {
		r.log.Warn("routing: unable to remove this process's certificate", "err", err)
	}
}

// loopback reports whether address (host:port) is on a loopback address.
func loopback(address string) bool {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback() || host == "localhost"
}
