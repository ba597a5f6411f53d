package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

// The measurements of number pools (docs/benchmarks.md), through the domain layer
// (numbers.Service), as ours.go measures IP claims through ipam.Service:
// VLANs of a site with their vlan_id from a pool scoped by site, against
// the same creates with the number given, and against a pool whose
// allocations are serialised on a lock of its row.

// numbersSchema is the example schema of sites and VLANs (IpamVLAN with a
// required site of cardinality one, docs/numbers.md), without its
// uniqueness constraint on site and vlan_id: that constraint is the user's
// choice, and without it a number handed out twice in a site is stored,
// where the bench counts it, rather than refused by the constraint.
const numbersSchema = `version: "1.0"
generics:
  - name: Endpoint
    namespace: Dcim
    attributes:
      - {name: name, kind: Text}
nodes:
  - name: Site
    namespace: Location
    display_label: "{{ name__value }}"
    attributes:
      - {name: name, kind: Text, unique: true}
  - name: VLAN
    namespace: Ipam
    display_label: "{{ name__value }}"
    attributes:
      - {name: name, kind: Text}
      - {name: vlan_id, kind: Number}
      - {name: role, kind: Dropdown, optional: true, choices: [{name: user}, {name: voice}]}
      - {name: tags, kind: List, optional: true}
    relationships:
      - {name: site, peer: LocationSite, cardinality: one, optional: false}
      - {name: endpoints, peer: DcimEndpoint, cardinality: many}
`

// vlanRange is the pool's one range: every VLAN id.
var vlanRange = numbers.Range{Start: 1, End: 4094, Weight: 1}

// numberFills are the fill levels of the division of the from_pool
// measurement, and for each the modulus m: numbers divisible by m stay
// free, spread across the range (0: none taken).
var numberFills = []struct{ pct, m int }{{0, 0}, {50, 2}, {99, 100}}

// fillNumbers returns the numbers of the range that the fill level of
// modulus m takes.
func fillNumbers(m int) []int64 {
	var out []int64
	if m == 0 {
		return out
	}
	for n := vlanRange.Start; n <= vlanRange.End; n++ {
		if n%int64(m) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// numbersResult is what the number pools' measurements found.
type numbersResult struct {
	fromPool, given map[int]figure  // by fill level, alternating
	fromPoolRatio   map[int]float64 // from_pool p50 over given p50: the median of the runs' ratios
	fromPoolStmts   map[int]float64 // statements per create
	givenStmts      map[int]float64
	taken           map[int]int // numbers taken in the division
	misses          int         // from_pool creates not given the lowest free number

	divisions16, poolLock16, oneDivision16 figure
	// lockRatio is the throughput of 16 clients in 16 divisions over the
	// pool-lock reference's, oneRatio of 16 in one division over 16 in 16:
	// the medians of the runs' ratios.
	lockRatio, oneRatio float64
	// lowest says whether every division of the concurrent measurements
	// holds exactly its lowest numbers.
	lowest bool

	twoProc      figure
	twoProcStmts float64

	// duplicates counts the numbers two objects hold in one division, and
	// the VLANs that do not hold the number they were given.
	duplicates int
}

// numberBench is a service of number pools on the bench's database, with
// numbersSchema loaded and one pool of VLAN ids scoped by site.
type numberBench struct {
	svc  *numbers.Service
	db   *store.DB
	pool numbers.Pool
	// made counts the VLANs the bench creates, for their names.
	made atomic.Int64
	// lock and lowestFree are the reference's statements, prepared once
	// per connection (as the product's claim is).
	lock, lowestFree *sqlx.Stmt
}

// measureNumbers runs every measurement of number pools.
func measureNumbers(ctx context.Context, cfg config, db *store.DB, url string, log *slog.Logger, out *numbersResult) error {
	b, fills, err := newNumberBench(ctx, db, url, log)
	if err != nil {
		return err
	}
	defer b.close()
	if err := b.fromPoolVsGiven(ctx, cfg, fills, out); err != nil {
		return fmt.Errorf("from_pool against a given number: %w", err)
	}
	warmPool(ctx, db, 16)
	if err := b.concurrent16(ctx, cfg, out); err != nil {
		return fmt.Errorf("16 clients: %w", err)
	}
	if err := b.twoProcesses(ctx, cfg, url, out); err != nil {
		return fmt.Errorf("2 processes: %w", err)
	}
	dup, err := b.heldTwice(ctx)
	if err != nil {
		return err
	}
	out.duplicates += dup
	return nil
}

// newNumberBench starts a service of number pools on db, loads the
// schema, fills a site's division to each of numberFills' levels (their
// sites' ids by percent) and creates the pool.
func newNumberBench(ctx context.Context, db *store.DB, url string, log *slog.Logger) (*numberBench, map[int]string, error) {
	svc, err := numbers.New(ctx, numbers.Config{DB: db, URL: url, Logger: log})
	if err != nil {
		return nil, nil, err
	}
	b := &numberBench{svc: svc, db: db}
	fills, err := b.setUp(ctx)
	if err != nil {
		b.close()
		return nil, nil, err
	}
	return b, fills, nil
}

// setUp loads the schema, fills the divisions, creates the pool and
// prepares the reference's statements.
func (b *numberBench) setUp(ctx context.Context) (map[int]string, error) {
	f, err := schema.Parse("vlans.yaml", []byte(numbersSchema))
	if err != nil {
		return nil, err
	}
	if _, err := b.svc.Branches().LoadSchema(ctx, operator, branch.Main, f); err != nil {
		return nil, err
	}
	// The divisions of the from_pool measurement are filled before the
	// pool exists, so that the pool records what their VLANs hold, as it
	// does for a kind that has objects already.
	fills := map[int]string{}
	for _, lvl := range numberFills {
		site, err := b.site(ctx, fmt.Sprintf("fill-%d", lvl.pct))
		if err != nil {
			return nil, err
		}
		if err := b.fill(ctx, site, fillNumbers(lvl.m)); err != nil {
			return nil, err
		}
		fills[lvl.pct] = site
	}
	if _, err := b.db.ExecContext(ctx, `VACUUM (ANALYZE) object_versions`); err != nil {
		return nil, err
	}
	b.pool, err = b.svc.CreatePool(ctx, operator, numbers.PoolInput{Name: "VLAN IDs per site", Node: "IpamVLAN", NodeAttribute: "vlan_id",
		Ranges: []numbers.Range{vlanRange}, AllocationScope: []string{"site"}})
	if err != nil {
		return nil, err
	}
	if _, err := b.db.ExecContext(ctx, `VACUUM (ANALYZE) number_holdings`); err != nil {
		return nil, err
	}
	if b.lock, err = b.db.PreparexContext(ctx, poolLockSQL); err != nil {
		return nil, err
	}
	if b.lowestFree, err = b.db.PreparexContext(ctx, lowestFreeSQL); err != nil {
		return nil, err
	}
	return fills, nil
}

// close closes the reference's statements and the service.
func (b *numberBench) close() {
	for _, st := range []*sqlx.Stmt{b.lock, b.lowestFree} {
		if st != nil {
			st.Close()
		}
	}
	b.svc.Close()
}

// site creates a site called name on main and returns its id.
func (b *numberBench) site(ctx context.Context, name string) (string, error) {
	o, err := b.svc.Branches().CreateObject(ctx, operator, branch.Main, "LocationSite", branch.ObjectInput{Attributes: map[string]any{"name": name}})
	return o.ID, err
}

// vlan is a new VLAN of the site, its vlan_id given when n is not 0.
func (b *numberBench) vlan(site string, n int64) branch.ObjectInput {
	attrs := map[string]any{"name": fmt.Sprintf("vlan-%d", b.made.Add(1))}
	if n != 0 {
		attrs["vlan_id"] = n
	}
	return branch.ObjectInput{Attributes: attrs, Relationships: map[string][]string{"site": {site}}}
}

// fromPool creates a VLAN of the site with its vlan_id from the pool, and
// returns it and its number.
func (b *numberBench) fromPool(ctx context.Context, site string) (branch.Object, int64, error) {
	o, err := b.svc.CreateObject(ctx, operator, branch.Main, "IpamVLAN", b.vlan(site, 0),
		[]numbers.FromPool{{Attribute: "vlan_id", Pool: b.pool.ID}})
	if err != nil {
		return o, 0, err
	}
	n, ok := o.Attributes["vlan_id"].(int64)
	if !ok {
		return o, 0, fmt.Errorf("the VLAN %s created from the pool holds vlan_id %v", o.ID, o.Attributes["vlan_id"])
	}
	return o, n, nil
}

// given creates a VLAN of the site holding the number n.
func (b *numberBench) given(ctx context.Context, site string, n int64) (branch.Object, error) {
	return b.svc.Branches().CreateObject(ctx, operator, branch.Main, "IpamVLAN", b.vlan(site, n))
}

// fill makes VLANs of the site holding the numbers: the first through the
// service, the others copied from it by SQL with their own id, name and
// number, as a migration would write them (4 000 creates through the
// service would take longer than the measurements).
func (b *numberBench) fill(ctx context.Context, site string, ns []int64) error {
	if len(ns) == 0 {
		return nil
	}
	first, err := b.given(ctx, site, ns[0])
	if err != nil {
		return err
	}
	s, err := b.svc.Branches().Schema(ctx, branch.Main)
	if err != nil {
		return err
	}
	name, _ := s.Attribute("IpamVLAN", "name")
	vlanID, _ := s.Attribute("IpamVLAN", "vlan_id")
	_, err = b.db.ExecContext(ctx, `INSERT INTO object_versions (branch_id, object_id, kind, data, from_seq)
		SELECT 1, gen_random_uuid(), t.kind, t.data || jsonb_build_object($2::text, 'fill-' || n, $3::text, n), nextval('changes_seq')
		FROM object_versions t, unnest($4::bigint[]) n
		WHERE t.branch_id = 1 AND t.object_id = $1 AND t.to_seq IS NULL`,
		first.ID, name.ID, vlanID.ID, pq.Array(ns[1:]))
	return err
}

// used returns the numbers the pool counts as held in the site's division.
func (b *numberBench) used(ctx context.Context, site string) (int64, error) {
	u, err := b.svc.Utilization(ctx, operator, b.pool.ID, []numbers.EntryInput{{Path: "site", Value: site}})
	return u.Figures.Used, err
}

// fromPoolVsGiven times, at each fill level, VLANs created with their
// number from the pool alternating one by one with the same creates with
// the number given: the lowest free number of the division, which the
// from_pool create must get. Each VLAN is deleted after it is timed, so
// that the division stays as full as it was.
func (b *numberBench) fromPoolVsGiven(ctx context.Context, cfg config, fills map[int]string, out *numbersResult) error {
	out.fromPool, out.given, out.fromPoolRatio = map[int]figure{}, map[int]figure{}, map[int]float64{}
	out.fromPoolStmts, out.givenStmts, out.taken = map[int]float64{}, map[int]float64{}, map[int]int{}
	for _, lvl := range numberFills {
		site, taken := fills[lvl.pct], fillNumbers(lvl.m)
		want := vlanRange.Start
		if lvl.m > 0 {
			want = int64(lvl.m)
		}
		used, err := b.used(ctx, site)
		if err != nil {
			return err
		}
		if used != int64(len(taken)) {
			return fmt.Errorf("the pool counts %d numbers held in the division %d %% full, want %d", used, lvl.pct, len(taken))
		}
		out.taken[lvl.pct] = len(taken)
		progress("numbers, a VLAN from the pool against one with its number given, a division %d %% full (%d of %d taken)", lvl.pct, len(taken), vlanRange.End-vlanRange.Start+1)
		var fromStmts, givenStmts atomic.Int64
		timed := func(create func() (branch.Object, error), stmts *atomic.Int64) func() (time.Duration, error) {
			return func() (time.Duration, error) {
				s0 := statements.Load()
				start := time.Now()
				o, err := create()
				d := time.Since(start)
				stmts.Add(statements.Load() - s0)
				if err != nil {
					return d, err
				}
				_, err = b.svc.Branches().DeleteObject(ctx, operator, branch.Main, o.ID)
				return d, err
			}
		}
		given := timed(func() (branch.Object, error) { return b.given(ctx, site, want) }, &givenStmts)
		fromPool := timed(func() (branch.Object, error) {
			o, n, err := b.fromPool(ctx, site)
			if err == nil && n != want {
				out.misses++
			}
			return o, err
		}, &fromStmts)
		// A serving process has the division's view loaded and its
		// statements prepared.
		for _, op := range []func() (time.Duration, error){given, fromPool} {
			if _, err := op(); err != nil {
				return err
			}
		}
		fromStmts.Store(0)
		givenStmts.Store(0)
		var froms, givens []run
		var ratios []float64
		for r := range cfg.runs {
			gr, fr, err := alternate(cfg.numbersSeqN, 1, cfg.numbersSeqN, given, fromPool)
			if err != nil {
				return err
			}
			froms, givens = append(froms, fr), append(givens, gr)
			ratios = append(ratios, ratio(fr.stats().p50, gr.stats().p50))
			progress("  run %d: from_pool p50 %.3f ms, p99 %.3f ms; given, alternating: p50 %.3f ms; ratio %.2f", r+1, fr.stats().p50, fr.stats().p99, gr.stats().p50, ratios[r])
		}
		out.fromPoolRatio[lvl.pct] = median(ratios)
		out.fromPool[lvl.pct], out.given[lvl.pct] = figureOf(froms), figureOf(givens)
		n := float64(cfg.runs * cfg.numbersSeqN)
		out.fromPoolStmts[lvl.pct], out.givenStmts[lvl.pct] = float64(fromStmts.Load())/n, float64(givenStmts.Load())/n
	}
	return nil
}

// poolLockSQL and lowestFreeSQL are the reference's allocation, Infrahub's
// and NetBox's way: the pool's row locked until the transaction ends, so
// that the pool's allocations run one at a time, then the lowest number of
// the range ($3 to $4) that no object holds in the division, read in a
// statement of its own (its snapshot taken once the lock is held), through
// the index of what holds a number in a division.
const (
	poolLockSQL   = `SELECT id FROM number_pools WHERE id = $1 FOR UPDATE`
	lowestFreeSQL = `SELECT c.n FROM (
			SELECT $3::bigint AS n
			UNION ALL
			SELECT h.number + 1 FROM number_holdings h
			WHERE h.pool_id = $1 AND h.division = $2::jsonb AND h.number IS NOT NULL AND h.number >= $3 AND h.number < $4
		) c
		WHERE NOT EXISTS (SELECT 1 FROM number_holdings h
			WHERE h.pool_id = $1 AND h.division = $2::jsonb AND h.number IS NOT NULL AND h.number = c.n)
		ORDER BY c.n LIMIT 1`
)

// locked creates a VLAN of the site as the reference allocates: in the
// write's transaction, the pool's row locked, the lowest free number read,
// then the VLAN written with it.
func (b *numberBench) locked(ctx context.Context, site string) (branch.Object, int64, error) {
	division, _ := json.Marshal([]string{site})
	var n int64
	in := b.vlan(site, 0)
	in.Hook = func(ctx context.Context, w *branch.Write) error {
		if _, err := w.Tx.StmtxContext(ctx, b.lock).ExecContext(ctx, b.pool.ID); err != nil {
			return err
		}
		err := w.Tx.StmtxContext(ctx, b.lowestFree).GetContext(ctx, &n, b.pool.ID, string(division), vlanRange.Start, vlanRange.End)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("the reference found no free number in site %s", site)
		}
		if err != nil {
			return err
		}
		return w.SetAttribute("vlan_id", n)
	}
	o, err := b.svc.Branches().CreateObject(ctx, operator, branch.Main, "IpamVLAN", in)
	return o, n, err
}

// A numberLedger records the number each VLAN was given, to be checked
// against what the pool records it holds.
type numberLedger struct {
	mu   sync.Mutex
	told map[string]int64 // VLAN id → number
}

func newNumberLedger() *numberLedger { return &numberLedger{told: map[string]int64{}} }

func (l *numberLedger) add(id string, n int64) {
	l.mu.Lock()
	l.told[id] = n
	l.mu.Unlock()
}

// notHeld counts the VLANs that do not hold, in the pool's records of
// main, the number they were given.
func (b *numberBench) notHeld(ctx context.Context, l *numberLedger) (int, error) {
	ids := make([]string, 0, len(l.told))
	for id := range l.told {
		ids = append(ids, id)
	}
	var rows []struct {
		Object string `db:"object_id"`
		Number int64  `db:"number"`
	}
	err := b.db.SelectContext(ctx, &rows, `SELECT object_id::text AS object_id, number FROM number_holdings
		WHERE pool_id = $1 AND branch_id = 1 AND to_seq IS NULL AND number IS NOT NULL AND object_id = ANY($2::uuid[])`,
		b.pool.ID, pq.Array(ids))
	if err != nil {
		return 0, err
	}
	held := make(map[string]int64, len(rows))
	for _, r := range rows {
		held[r.Object] = r.Number
	}
	bad := 0
	for id, n := range l.told {
		if h, ok := held[id]; !ok || h != n {
			bad++
		}
	}
	return bad, nil
}

// heldTwice counts, over every division of the pool, the holders of a
// number beyond the first: 0 unless two objects hold one number in one
// division.
func (b *numberBench) heldTwice(ctx context.Context) (int, error) {
	var n int
	err := b.db.GetContext(ctx, &n, `SELECT coalesce(sum(holders - 1), 0) FROM (
			SELECT count(DISTINCT object_id) AS holders FROM number_holdings
			WHERE pool_id = $1 AND number IS NOT NULL AND to_seq IS NULL
			GROUP BY division, number
		) h WHERE holders > 1`, b.pool.ID)
	return n, err
}

// notLowest counts the divisions of the sites whose numbers are not
// exactly 1 to how many they hold, each once.
func (b *numberBench) notLowest(ctx context.Context, sites []string) (int, error) {
	divisions := make([]string, len(sites))
	for i, s := range sites {
		d, _ := json.Marshal([]string{s})
		divisions[i] = string(d)
	}
	var held int
	err := b.db.GetContext(ctx, &held, `SELECT count(*) FROM (
			SELECT division FROM number_holdings
			WHERE pool_id = $1 AND number IS NOT NULL AND to_seq IS NULL AND division IN (SELECT unnest($2::text[])::jsonb)
			GROUP BY division
			HAVING min(number) = $3 AND max(number) = $3 + count(*) - 1 AND count(DISTINCT number) = count(*)
		) d`, b.pool.ID, pq.Array(divisions), vlanRange.Start)
	return len(sites) - held, err
}

// concurrent16 measures, in slices that alternate, 16 clients each
// creating VLANs in a site of its own through the pool-lock reference,
// then through the pool, then 16 clients creating VLANs in one site; each
// run on fresh sites, checked afterwards.
func (b *numberBench) concurrent16(ctx context.Context, cfg config, out *numbersResult) error {
	progress("numbers, 16 clients: each in its own division, against the pool-lock reference, and all in one division")
	var refs, divs, ones []run
	var lockRatios, oneRatios []float64
	out.lowest = true
	for r := range cfg.runs {
		var lockSites, divSites []string
		for c := range 16 {
			ls, err := b.site(ctx, fmt.Sprintf("lock-%d-%d", r, c))
			if err != nil {
				return err
			}
			ds, err := b.site(ctx, fmt.Sprintf("div-%d-%d", r, c))
			if err != nil {
				return err
			}
			lockSites, divSites = append(lockSites, ls), append(divSites, ds)
		}
		oneSite, err := b.site(ctx, fmt.Sprintf("one-%d", r))
		if err != nil {
			return err
		}
		l := newNumberLedger()
		op := func(create func(context.Context, string) (branch.Object, int64, error), site func(client int) string) func(int) (time.Duration, error) {
			return func(c int) (time.Duration, error) {
				start := time.Now()
				o, n, err := create(ctx, site(c))
				d := time.Since(start)
				if err == nil {
					l.add(o.ID, n)
				}
				return d, err
			}
		}
		ref := op(b.locked, func(c int) string { return lockSites[c] })
		div := op(b.fromPool, func(c int) string { return divSites[c] })
		one := op(b.fromPool, func(int) string { return oneSite })
		// Each division's first claim loads this process's view of it, as
		// a serving process has.
		for c := range 16 {
			for _, o := range []func(int) (time.Duration, error){ref, div, one} {
				if _, err := o(c); err != nil {
					return err
				}
			}
		}
		runs, err := alternateClients(cfg.numbers16N, 16, 4, ref, div, one)
		if err != nil {
			return err
		}
		refs, divs, ones = append(refs, runs[0]), append(divs, runs[1]), append(ones, runs[2])
		rs, ds, os := runs[0].stats(), runs[1].stats(), runs[2].stats()
		lockRatios, oneRatios = append(lockRatios, ratio(ds.perSec, rs.perSec)), append(oneRatios, ratio(os.perSec, ds.perSec))
		bad, err := b.notLowest(ctx, append(append([]string{oneSite}, lockSites...), divSites...))
		if err != nil {
			return err
		}
		out.lowest = out.lowest && bad == 0
		dup, err := b.notHeld(ctx, l)
		if err != nil {
			return err
		}
		out.duplicates += dup
		progress("  run %d: 16 divisions %.0f VLANs/s (p50 %.3f ms), pool lock %.0f/s (p50 %.3f ms), one division %.0f/s (p50 %.3f ms); ratios %.2f and %.2f; divisions not exactly their lowest numbers: %d, VLANs not holding their number: %d",
			r+1, ds.perSec, ds.p50, rs.perSec, rs.p50, os.perSec, os.p50, lockRatios[r], oneRatios[r], bad, dup)
	}
	out.divisions16, out.poolLock16, out.oneDivision16 = figureOf(divs), figureOf(refs), figureOf(ones)
	out.lockRatio, out.oneRatio = median(lockRatios), median(oneRatios)
	return nil
}

// twoProcesses measures two processes of eight clients each creating
// VLANs of one fresh site from the pool at once, each process with its
// own view, and checks the site holds exactly its lowest numbers.
func (b *numberBench) twoProcesses(ctx context.Context, cfg config, url string, out *numbersResult) error {
	progress("numbers, 2 processes of 8 clients in one division")
	var runs []run
	var stmts int64
	per := cfg.numbersTwoProcN / 2
	for r := range cfg.runs {
		site, err := b.site(ctx, fmt.Sprintf("p2-%d", r))
		if err != nil {
			return err
		}
		var tasks []childTask
		for p := range 2 {
			tasks = append(tasks, childTask{URL: url, Pool: b.pool.ID, Site: site, First: p * per, Count: per, Workers: 8})
		}
		results, elapsed, err := runChildren(ctx, tasks)
		if err != nil {
			return err
		}
		l := newNumberLedger()
		rr := run{elapsed: elapsed}
		for _, res := range results {
			stmts += res.Statements
			for i, ns := range res.LatencyNs {
				rr.lat = append(rr.lat, time.Duration(ns))
				n, err := strconv.ParseInt(res.Values[i], 10, 64)
				if err != nil {
					return err
				}
				l.add(res.Owners[i], n)
			}
		}
		rr.ops = len(rr.lat)
		runs = append(runs, rr)
		bad, err := b.notLowest(ctx, []string{site})
		if err != nil {
			return err
		}
		out.lowest = out.lowest && bad == 0
		dup, err := b.notHeld(ctx, l)
		if err != nil {
			return err
		}
		out.duplicates += dup
		st := rr.stats()
		progress("  run %d: %.0f VLANs/s, p50 %.3f ms, p99 %.3f ms, lowest numbers: %v, VLANs not holding their number: %d", r+1, st.perSec, st.p50, st.p99, bad == 0, dup)
	}
	out.twoProc = figureOf(runs)
	out.twoProcStmts = float64(stmts) / float64(cfg.runs*2*per)
	return nil
}

// numberChildClaims starts a service of number pools for a child process,
// with the view of the site's division loaded by one VLAN created from the
// pool, and returns its claim: a VLAN of the site from the pool.
func numberChildClaims(ctx context.Context, t childTask, db *store.DB) (childClaim, func(), error) {
	svc, err := numbers.New(ctx, numbers.Config{DB: db, URL: t.URL, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, nil, err
	}
	b := &numberBench{svc: svc, db: db, pool: numbers.Pool{ID: t.Pool}}
	if _, _, err := b.fromPool(ctx, t.Site); err != nil {
		svc.Close()
		return nil, nil, err
	}
	return func(string) (string, string, time.Duration, error) {
		start := time.Now()
		o, n, err := b.fromPool(ctx, t.Site)
		return o.ID, strconv.FormatInt(n, 10), time.Since(start), err
	}, svc.Close, nil
}
