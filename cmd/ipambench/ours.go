package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/store"
)

// operator is the actor of every claim the bench makes.
var operator = auth.Actor{Name: "bench", Role: auth.Operator}

// benchCIDR is the /16 of every VPC the bench makes (VPCs of different
// namespaces may overlap).
const benchCIDR = "10.42.0.0/16"

// A subnet is a VPC "net" of a namespace with one subnet "all" covering
// its whole /16: 65 533 candidates (less the network, the broadcast and
// the subnet's gateway); or, in a dual-stack VPC, the subnet's IPv6
// prefix, from the first address of the VPC's (benchV6), where the bench
// claims IPv6 addresses: a /112 has 65 534 candidates (less the
// subnet-router anycast address and the gateway).
type subnet struct {
	ns        string
	poolUID   string
	subnetUID string
	base      netip.Addr  // the first address of the prefix claimed in, the pool's too
	family    ipam.Family // of the claims: zero (IPv4, as before the dual stack) or ipam.IPv6
	space     candidates.Space
}

// createSubnet makes the IPv4 subnet of the namespace ns.
func createSubnet(ctx context.Context, svc *ipam.Service, ns string) (subnet, error) {
	return createSubnetIn(ctx, svc, ns, netip.MustParsePrefix(benchCIDR), netip.Prefix{})
}

// v4Subnets returns createSubnet, for a measurement that makes its own.
func v4Subnets(ctx context.Context, svc *ipam.Service) func(ns string) (subnet, error) {
	return func(ns string) (subnet, error) { return createSubnet(ctx, svc, ns) }
}

// createSubnetIn makes a VPC "net" of the namespace ns whose IPv4 prefix
// is v4, with one subnet "all" covering it, and returns the subnet where
// the bench claims: its IPv4 prefix; or, when v6 is valid, the VPC has the
// /48 of v6 (benchV6) and the subnet v6 too, where the bench claims IPv6
// addresses.
func createSubnetIn(ctx context.Context, svc *ipam.Service, ns string, v4, v6 netip.Prefix) (subnet, error) {
	vpcIn := ipam.CreateVPCInput{Namespace: ns, Name: "net", CIDR: v4.String()}
	subIn := ipam.CreateSubnetInput{Namespace: ns, VPC: "net", Name: "all", CIDR: v4.String()}
	if v6.IsValid() {
		vpcIn.IPv6CIDR, subIn.IPv6CIDR = benchV6.String(), v6.String()
	}
	vpc, err := svc.CreateVPC(ctx, operator, vpcIn)
	if err != nil {
		return subnet{}, err
	}
	sub, err := svc.CreateSubnet(ctx, operator, subIn)
	if err != nil {
		return subnet{}, err
	}
	poolName, poolPrefix, prefix, gateway, family := vpc.PoolName(), vpc.CIDR, v4, sub.Gateway, ipam.Family("")
	if v6.IsValid() {
		poolName, poolPrefix, prefix, gateway, family = vpc.IPv6PoolName(), vpc.IPv6CIDR, v6, sub.IPv6Gateway, ipam.IPv6
	}
	p, err := svc.Pool(ctx, operator, ns, poolName)
	if err != nil {
		return subnet{}, err
	}
	pool, err := candidates.ParsePool(candidates.PoolSpec{CIDR: poolPrefix.String()})
	if err != nil {
		return subnet{}, err
	}
	req, err := pool.ParseRequest(candidates.RequestSpec{Within: prefix.String(), Reserved: []string{gateway.String()}})
	if err != nil {
		return subnet{}, err
	}
	return subnet{ns: ns, poolUID: p.UID, subnetUID: sub.UID, base: prefix.Addr(), family: family, space: pool.Space(req)}, nil
}

// floor returns the first address of the floor's inserts of the
// subnet's family.
func (s subnet) floor() netip.Addr {
	if s.base.Is6() {
		return floorV6
	}
	return floorV4
}

// addr returns the address offset after the subnet's network address.
func (s subnet) addr(offset int) netip.Addr { return offsetAddr(s.base, offset) }

// fillSQL inserts, in one statement, an allocation for each offset of the
// pool's prefix, held by owners fill-<offset> that are not the bench's
// clients, named as the product names them (candidates.AllocationName:
// the pool, then the address with its dots or colons written "-";
// PostgreSQL writes an IPv6 address in RFC 5952 form, as netip does).
const fillSQL = `INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, subnet_uid, created_by)
	SELECT p.namespace, p.name || '-' || translate(host(a), '.:', '--'), p.uid, a, $3, 'fill-' || i, 'fill-' || i || $4, $5, $6::uuid, 'bench'
	FROM pools p, unnest($2::int[]) i, LATERAL (SELECT host(p.cidr)::inet + i AS a) x
	WHERE p.uid = $1`

// fill takes the offsets of the subnet, as VM interfaces.
func (s subnet) fill(ctx context.Context, db *store.DB, offsets []int) error {
	return fillPool(ctx, db, s.poolUID, offsets, ipam.OwnerVirtualMachine, "/0", s.ns, s.subnetUID)
}

// fillPool inserts allocations of owners of kind, named fill-<offset> and
// a suffix, at the offsets of the pool's prefix, then vacuums and
// analyses the table as autovacuum would have done while a real pool
// filled up.
func fillPool(ctx context.Context, db *store.DB, poolUID string, offsets []int, kind ipam.OwnerKind, suffix, ownerNS string, subnetUID any) error {
	if len(offsets) == 0 {
		return nil
	}
	if _, err := db.ExecContext(ctx, fillSQL, poolUID, pq.Array(offsets), string(kind), suffix, ownerNS, subnetUID); err != nil {
		return fmt.Errorf("filling pool %s: %w", poolUID, err)
	}
	return vacuum(ctx, db)
}

func vacuum(ctx context.Context, db *store.DB) error {
	_, err := db.ExecContext(ctx, `VACUUM (ANALYZE) allocations`)
	return err
}

// taken returns the set of the offsets.
func (s subnet) taken(offsets []int) candidates.Set {
	var b candidates.SetBuilder
	for _, o := range offsets {
		b.Add(s.addr(o))
	}
	return b.Set()
}

// attach claims an address for VM id's NIC 0 in the subnet.
func (s subnet) attach(ctx context.Context, svc *ipam.Service, id string) (netip.Addr, time.Duration, error) {
	start := time.Now()
	a, err := svc.AttachInterface(ctx, operator, ipam.AttachInterfaceInput{
		Namespace: s.ns, VPC: "net", Subnet: "all", VM: ipam.VMRef{UID: id, Hostname: id}, NIC: 0, Family: s.family,
	})
	return a.Address, time.Since(start), err
}

// detach releases the address of VM id's NIC 0.
func (s subnet) detach(ctx context.Context, svc *ipam.Service, id string) (time.Duration, error) {
	start := time.Now()
	released, err := svc.DetachInterface(ctx, operator, ipam.DetachInterfaceInput{
		Namespace: s.ns, VPC: "net", VM: ipam.VMRef{UID: id, Hostname: id}, NIC: 0,
	})
	if err == nil && !released {
		err = fmt.Errorf("%s held nothing to release", id)
	}
	return time.Since(start), err
}

// A ledger records what every claim told its owner, to be checked against
// the database: an address told to two owners, or an owner told an
// address it does not hold, is a duplicate.
type ledger struct {
	mu   sync.Mutex
	told map[string]netip.Addr // owner uid → address
}

func newLedger() *ledger { return &ledger{told: map[string]netip.Addr{}} }

func (l *ledger) add(owner string, a netip.Addr) {
	l.mu.Lock()
	l.told[owner] = a
	l.mu.Unlock()
}

// duplicates counts the addresses told to more than one owner, and the
// owners that do not hold, in the database, the address they were told.
func (l *ledger) duplicates(ctx context.Context, db *store.DB, s subnet) (int, error) {
	var rows []struct {
		Owner   string `db:"owner_uid"`
		Address string `db:"address"`
	}
	if err := db.SelectContext(ctx, &rows, `SELECT owner_uid, host(address) AS address FROM allocations WHERE subnet_uid = $1`, s.subnetUID); err != nil {
		return 0, err
	}
	held := make(map[string]netip.Addr, len(rows))
	for _, r := range rows {
		a, err := netip.ParseAddr(r.Address)
		if err != nil {
			return 0, err
		}
		held[r.Owner] = a
	}
	dup := 0
	seen := map[netip.Addr]bool{}
	for owner, a := range l.told {
		if seen[a] {
			dup++
		}
		seen[a] = true
		if held[owner] != a {
			dup++
		}
	}
	return dup, nil
}

// lowest reports whether the subnet's taken addresses are exactly the
// lowest n candidates of an empty subnet.
func lowest(ctx context.Context, db *store.DB, s subnet, n int) (bool, error) {
	var got []string
	if err := db.SelectContext(ctx, &got, `SELECT host(address) FROM allocations WHERE subnet_uid = $1 ORDER BY address`, s.subnetUID); err != nil {
		return false, err
	}
	want := s.space.NextN(candidates.Set{}, n)
	if len(got) != len(want) {
		return false, nil
	}
	for i, a := range want {
		if g, err := netip.ParseAddr(got[i]); err != nil || g != a {
			return false, err
		}
	}
	return true, nil
}

// oursResult is what the product's measurements found.
type oursResult struct {
	seq       []seqResult // by level, in their order
	seqMisses int         // claims that did not get the lowest free candidate

	conc16       figure
	conc16Floor  figure  // the floor with 16 clients, alternating with the claims
	conc16Ratio  float64 // throughput over the floor's: the median of the runs' ratios
	conc16Stmts  float64
	conc16Lowest bool

	// procs2x8 and procs4x4 are 2 processes × 8 clients and 4 × 4.
	procs2x8, procs4x4 procsResult

	churnClaim, churnRelease figure
	churnPairs               float64 // release+claim pairs per second
	churnMisses              int     // claims that did not get the address just released
	churn16                  figure  // claims (each after a release) by 16 clients

	duplicates int
}

// A seqLevel is a subnet the sequential claims are measured in.
type seqLevel struct {
	key  string // of the JSON keys: seq_<key>_p50_ms
	name string // of the report's rows: "a /16 50 % full"
	// prepare creates the subnet and fills it, and returns it with the
	// offsets it took.
	prepare func() (subnet, []int, error)
}

// seqResult is what the sequential claims at one level found.
type seqResult struct {
	key, name string
	f, floor  figure // the claims, and the floor alternating with them
	ratio     float64
	stmts     float64 // per claim
}

// fillLevels are the sequential measurements' fill levels, and for each
// the modulus m: offsets divisible by m stay free, spread across the /16.
var fillLevels = []struct{ pct, m int }{{0, 0}, {50, 2}, {90, 10}, {99, 100}}

// fillLevelsIn returns the levels of fillLevels, each a subnet made by
// create in the namespace <ns>-<percent>, filled at offsets 2 to
// cfg.seqSpan-1 but the free ones.
func fillLevelsIn(ctx context.Context, cfg config, db *store.DB, ns, prefix string, create func(ns string) (subnet, error)) []seqLevel {
	var levels []seqLevel
	for _, lvl := range fillLevels {
		levels = append(levels, seqLevel{
			key:  strconv.Itoa(lvl.pct),
			name: fmt.Sprintf("a %s %d %% full", prefix, lvl.pct),
			prepare: func() (subnet, []int, error) {
				s, err := create(fmt.Sprintf("%s-%d", ns, lvl.pct))
				if err != nil {
					return s, nil, err
				}
				var offsets []int
				if lvl.m > 0 {
					for o := 2; o < cfg.seqSpan; o++ {
						if o%lvl.m != 0 {
							offsets = append(offsets, o)
						}
					}
				}
				progress("ours, sequential at %d %% full (%d taken, free addresses spread across offsets 2 to %d of the %s)", lvl.pct, len(offsets), cfg.seqSpan-1, prefix)
				return s, offsets, s.fill(ctx, db, offsets)
			},
		})
	}
	return levels
}

// sequential measures claims by one client at each level, alternating
// one by one with the floor's inserts of the subnet's family.
func sequential(ctx context.Context, cfg config, svc *ipam.Service, db *store.DB, levels []seqLevel, out *oursResult) error {
	for _, lvl := range levels {
		s, offsets, err := lvl.prepare()
		if err != nil {
			return err
		}
		l := newLedger()
		want := s.space.NextN(s.taken(offsets), cfg.runs*cfg.seqN+1)
		var got []netip.Addr
		claim := func(id string) (time.Duration, error) {
			a, d, err := s.attach(ctx, svc, id)
			if err == nil {
				l.add(id, a)
				got = append(got, a)
			}
			return d, err
		}
		if _, err := claim("warm"); err != nil { // loads the view, as a serving process has it
			return err
		}
		// Claims alternate with inserts of the floor, one by one, so that
		// the ratio compares operations that saw the machine in the same
		// state.
		var k atomic.Int64
		fop, err := floorOp(ctx, db, s.floor())
		if err != nil {
			return err
		}
		alt, err := alternateRuns(cfg, fop, func() (time.Duration, error) {
			return claim(fmt.Sprintf("seq-%d", k.Add(1)))
		})
		if err != nil {
			return err
		}
		out.seq = append(out.seq, seqResult{key: lvl.key, name: lvl.name, f: figureOf(alt.runs), floor: figureOf(alt.floors),
			ratio: median(alt.ratios), stmts: alt.stmtsPerOp})
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				out.seqMisses++
			}
		}
		dup, err := l.duplicates(ctx, db, s)
		if err != nil {
			return err
		}
		out.duplicates += dup
	}
	return nil
}

// seqWorst is the worst of the levels' ratios and its level.
func (o *oursResult) seqWorst() (worst float64, name string, ok bool) {
	for _, q := range o.seq {
		if q.ratio >= worst {
			worst, name, ok = q.ratio, q.name, true
		}
	}
	return worst, name, ok
}

// concurrent16 measures 16 clients' claims in one process (measure16),
// each run in a subnet made by create in the namespace bench/<name>-<run>.
func concurrent16(ctx context.Context, cfg config, svc *ipam.Service, db *store.DB, name string, create func(ns string) (subnet, error), out *oursResult) error {
	m, err := measure16(ctx, cfg, svc, db, name, create)
	if err != nil {
		return err
	}
	out.conc16, out.conc16Floor, out.conc16Ratio = figureOf(m.runs), figureOf(m.floors), median(m.ratios)
	out.conc16Stmts = float64(m.stmts) / float64(cfg.runs*cfg.concN)
	out.conc16Lowest, out.duplicates = m.lowest, out.duplicates+m.duplicates
	return nil
}

// A measured16 is what measure16 found, run by run.
type measured16 struct {
	runs, floors []run
	ratios       []float64
	stmts        int64
	lowest       bool
	duplicates   int
}

// measure16 runs cfg.runs times 16 clients' claims on a fresh subnet
// made by create in the namespace bench/<name>-<run>, in slices
// alternating with the floor's inserts of its family, and checks each
// subnet: the lowest candidates, no address twice.
func measure16(ctx context.Context, cfg config, svc *ipam.Service, db *store.DB, name string, create func(ns string) (subnet, error)) (measured16, error) {
	m := measured16{lowest: true}
	for r := range cfg.runs {
		s, err := create(fmt.Sprintf("bench/%s-%d", name, r))
		if err != nil {
			return m, err
		}
		fop, err := floorOp(ctx, db, s.floor())
		if err != nil {
			return m, err
		}
		l := newLedger()
		claim := func(id string) (time.Duration, error) {
			a, d, err := s.attach(ctx, svc, id)
			if err == nil {
				l.add(id, a)
			}
			return d, err
		}
		if _, err := claim("warm"); err != nil {
			return m, err
		}
		var k atomic.Int64
		stmts0 := statements.Load()
		// Slices of claims alternate with slices of the floor's inserts,
		// so that both see the machine in the same state.
		fr, rr, err := alternate(cfg.concN, 16, 4, fop, func() (time.Duration, error) {
			return claim(fmt.Sprintf("c-%d", k.Add(1)))
		})
		if err != nil {
			return m, err
		}
		m.stmts += statements.Load() - stmts0 - int64(fr.ops)
		m.runs, m.floors = append(m.runs, rr), append(m.floors, fr)
		m.ratios = append(m.ratios, ratio(rr.stats().perSec, fr.stats().perSec))
		ok, err := lowest(ctx, db, s, cfg.concN+1)
		if err != nil {
			return m, err
		}
		m.lowest = m.lowest && ok
		dup, err := l.duplicates(ctx, db, s)
		if err != nil {
			return m, err
		}
		m.duplicates += dup
		st := rr.stats()
		progress("  run %d: %.0f claims/s, p50 %.3f ms, p99 %.3f ms, lowest candidates: %v, duplicates: %d ; the floor, alternating: %.0f inserts/s; ratio %.2f", r+1, st.perSec, st.p50, st.p99, ok, dup, fr.stats().perSec, m.ratios[r])
	}
	return m, nil
}

// churn measures releases interleaved with claims on a subnet whose
// lowest addresses are taken: one client releases a random holder and
// claims, and must get the address just released (the lowest free one);
// then 16 clients do the same at once.
func churn(ctx context.Context, cfg config, svc *ipam.Service, db *store.DB, out *oursResult) error {
	for _, clients := range []int{1, 16} {
		s, err := createSubnet(ctx, svc, fmt.Sprintf("bench/churn-%d", clients))
		if err != nil {
			return err
		}
		held := cfg.runs*cfg.churnN + 1000
		offsets := make([]int, held)
		for i := range offsets {
			offsets[i] = 2 + i
		}
		progress("ours, churn with %d client(s): %d held, each claim after a release", clients, held)
		if err := s.fill(ctx, db, offsets); err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(1, uint64(clients)))
		rng.Shuffle(len(offsets), func(i, j int) { offsets[i], offsets[j] = offsets[j], offsets[i] })
		l := newLedger()
		if _, _, err := s.attach(ctx, svc, "warm"); err != nil {
			return err
		}
		var claims, releases []run
		var misses atomic.Int64
		var pairs []float64
		var next atomic.Int64
		for r := range cfg.runs {
			var mu sync.Mutex
			var relLat []time.Duration
			cr, err := concurrently(cfg.churnN, clients, func() (time.Duration, error) {
				i := int(next.Add(1)) - 1
				o := offsets[i]
				rd, err := s.detach(ctx, svc, fmt.Sprintf("fill-%d", o))
				if err != nil {
					return 0, err
				}
				mu.Lock()
				relLat = append(relLat, rd)
				mu.Unlock()
				id := fmt.Sprintf("churn-%d", i)
				a, d, err := s.attach(ctx, svc, id)
				if err != nil {
					return 0, err
				}
				l.add(id, a)
				if clients == 1 && a != s.addr(o) {
					misses.Add(1)
				}
				return d, nil
			})
			if err != nil {
				return err
			}
			claims = append(claims, cr)
			releases = append(releases, run{lat: relLat, elapsed: cr.elapsed, ops: len(relLat)})
			pairs = append(pairs, float64(cfg.churnN)/cr.elapsed.Seconds())
			progress("  run %d: %.0f release+claim pairs/s, claim p50 %.3f ms", r+1, pairs[len(pairs)-1], cr.stats().p50)
		}
		dup, err := l.duplicates(ctx, db, s)
		if err != nil {
			return err
		}
		out.duplicates += dup
		if clients == 1 {
			out.churnClaim, out.churnRelease, out.churnPairs = figureOf(claims), figureOf(releases), median(pairs)
			out.churnMisses = int(misses.Load())
		} else {
			out.churn16 = figureOf(claims)
		}
	}
	return nil
}

// alternatedRuns are cfg.runs runs of cfg.seqN operations, each alternating
// one by one with an insert of the floor, so that the ratio compares
// operations that saw the machine in the same state.
type alternatedRuns struct {
	runs, floors []run
	ratios       []float64 // each run's p50 ÷ its floor's
	stmtsPerOp   float64   // statements an operation, the floor's taken away
}

// alternateRuns times op against the floor's fop, cfg.runs times, and
// prints each run's figures.
func alternateRuns(cfg config, fop, op func() (time.Duration, error)) (alternatedRuns, error) {
	var out alternatedRuns
	var stmts int64
	for r := range cfg.runs {
		stmts0 := statements.Load()
		fr, rr, err := alternate(cfg.seqN, 1, cfg.seqN, fop, op)
		if err != nil {
			return out, err
		}
		stmts += statements.Load() - stmts0 - int64(fr.ops) // one statement a floor insert
		out.runs, out.floors = append(out.runs, rr), append(out.floors, fr)
		out.ratios = append(out.ratios, ratio(rr.stats().p50, fr.stats().p50))
		progress("  run %d: p50 %.3f ms, p99 %.3f ms; the floor, alternating: p50 %.3f ms; ratio %.2f", r+1, rr.stats().p50, rr.stats().p99, fr.stats().p50, out.ratios[r])
	}
	out.stmtsPerOp = float64(stmts) / float64(cfg.runs*cfg.seqN)
	return out, nil
}
