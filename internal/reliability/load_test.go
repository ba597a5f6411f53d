package reliability

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

const (
	// shortLoad is how long TestLoad runs in make test: the minute of
	// mixed traffic the reliability suite promises.
	shortLoad = 60 * time.Second
	// soakEnv names the variable that makes TestLoad a soak of that
	// duration (make soak sets 10m).
	soakEnv = "IPAM_SOAK"
	// minSoak is the shortest soak whose flatness check means something:
	// its second and last tenths are 18 s apart at least.
	minSoak = 3 * time.Minute

	loadWorkers  = 12
	vmsPerWorker = 16 // 192 VMs at most in subnet web, a /24
	fipsPerWork  = 4  // 48 floating IPs at most in public-a, a /24
	// maxRequests bounds each worker's requests, whatever the duration.
	maxRequests = 2_000_000
	// flatTolerance is how much more memory or connections the last tenth
	// of a soak may hold than its second tenth (the first is warm-up).
	flatTolerance = 0.20
)

// loadDuration returns how long TestLoad runs and whether it is a soak.
func loadDuration(t *testing.T) (time.Duration, bool) {
	t.Helper()
	v := os.Getenv(soakEnv)
	if v == "" {
		return shortLoad, false
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < minSoak {
		t.Fatalf("%s=%q: want a duration of %v or more, such as 10m", soakEnv, v, minSoak)
	}
	return d, true
}

// The kinds of requests of the load, for the figures.
const (
	kindClaim   = "claim"   // attachInterface, claimFloatingIp
	kindRelease = "release" // detachInterface, releaseFloatingIp
	kindRead    = "graphql read"
	kindPage    = "console page"
)

// consolePages are the pages the load views, signed in as acme.
var consolePages = []string{"/vpcs/acme/prod/main", "/vpcs", "/pools", "/"}

// loadStats collects what the workers saw.
type loadStats struct {
	mu        sync.Mutex
	latencies map[string][]time.Duration
	statuses  map[int]int // 0: the request failed before an answer
	wrong     []string
	wrongN    int
}

// add records a request, and what was wrong with its answer if anything.
func (s *loadStats) add(kind string, status int, took time.Duration, wrong string) {
	s.mu.Lock()
	s.latencies[kind] = append(s.latencies[kind], took)
	s.statuses[status]++
	s.mu.Unlock()
	if wrong != "" {
		s.mistake(wrong)
	}
}

// mistake records a wrong answer.
func (s *loadStats) mistake(wrong string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wrongN++
	if len(s.wrong) < 10 {
		s.wrong = append(s.wrong, wrong)
	}
}

// loadWorker is one client of the load: it owns its VMs and floating IPs,
// so it knows what each holds and checks every answer against it.
type loadWorker struct {
	id      int
	token   string
	bases   []string
	api     *http.Client
	console *http.Client
	stats   *loadStats
	rng     *rand.Rand

	vms  map[string]string // VM → address held
	fips map[string]string // floating IP → address held
}

func (w *loadWorker) run(ctx context.Context, deadline time.Time) {
	for i := 0; i < maxRequests && time.Now().Before(deadline) && ctx.Err() == nil; i++ {
		base := w.bases[(w.id+i)%len(w.bases)]
		switch n := w.rng.IntN(100); {
		case n < 35:
			w.vm(ctx, base, fmt.Sprintf("load-%d-vm-%d", w.id, w.rng.IntN(vmsPerWorker)))
		case n < 45:
			w.fip(ctx, base, fmt.Sprintf("load-%d-fip-%d", w.id, w.rng.IntN(fipsPerWork)))
		case n < 70:
			w.read(ctx, base, n%2 == 0)
		default:
			w.page(ctx, base, consolePages[n%len(consolePages)])
		}
	}
}

// vm attaches a VM that holds nothing; one that holds an address is
// detached or, half of the time, attached again, which must answer the
// same address.
func (w *loadWorker) vm(ctx context.Context, base, vm string) {
	held, ok := w.vms[vm]
	vars := map[string]any{"vm": vm}
	if ok && w.rng.IntN(2) == 0 {
		r := graphql(ctx, w.api, base, w.token, detachInterface, vars)
		w.check(kindRelease, "detachInterface "+vm, r)
		if r.outcome == confirmed {
			delete(w.vms, vm)
		}
		return
	}
	r := graphql(ctx, w.api, base, w.token, attachInterface, vars)
	if w.check(kindClaim, "attachInterface "+vm, r) {
		return
	}
	if a := r.address("attachInterface"); ok && a != held {
		w.stats.mistake(fmt.Sprintf("%s holds %s and was attached again to %s", vm, held, a))
	} else {
		w.vms[vm] = a
	}
}

// fip claims a floating IP that does not exist; one that exists is
// released or, a third of the time, claimed again, which must answer the
// same address.
func (w *loadWorker) fip(ctx context.Context, base, name string) {
	held, ok := w.fips[name]
	vars := map[string]any{"name": name}
	if ok && w.rng.IntN(3) > 0 {
		r := graphql(ctx, w.api, base, w.token, releaseFloatingIP, vars)
		w.check(kindRelease, "releaseFloatingIp "+name, r)
		if r.outcome == confirmed {
			delete(w.fips, name)
		}
		return
	}
	r := graphql(ctx, w.api, base, w.token, claimFloatingIP, vars)
	if w.check(kindClaim, "claimFloatingIp "+name, r) {
		return
	}
	if a := r.address("claimFloatingIp"); ok && a != held {
		w.stats.mistake(fmt.Sprintf("floating IP %s holds %s and was claimed again with %s", name, held, a))
	} else {
		w.fips[name] = a
	}
}

func (w *loadWorker) read(ctx context.Context, base string, vpc bool) {
	q := readFloatingIPs
	if vpc {
		q = readVPC
	}
	w.check(kindRead, "read", graphql(ctx, w.api, base, w.token, q, nil))
}

func (w *loadWorker) page(ctx context.Context, base, path string) {
	began := time.Now()
	status, body, err := get(ctx, w.console, base+path)
	wrong := ""
	switch {
	case err != nil:
		wrong = fmt.Sprintf("GET %s: %v", path, err)
	case status != http.StatusOK:
		wrong = fmt.Sprintf("GET %s = %d: %.200s", path, status, body)
	case !strings.Contains(body, `data-testid="user-name">acme<`):
		wrong = fmt.Sprintf("GET %s is not acme's page: %.200s", path, body)
	}
	w.stats.add(kindPage, status, time.Since(began), wrong)
}

// check records a GraphQL answer, which must be confirmed, and reports
// whether it was wrong.
func (w *loadWorker) check(kind, what string, r gqlResult) bool {
	wrong := ""
	if r.outcome != confirmed {
		wrong = fmt.Sprintf("%s: %v", what, r)
	}
	w.stats.add(kind, r.status, r.took, wrong)
	return wrong != ""
}

// sample is what the sampler read at one moment of the load.
type sample struct {
	at    time.Duration // since the load began
	rss   []int64       // kB, per ipam serve
	conns int           // sessions of the database
}

// sampler reads the RSS of each ipam serve and the sessions of the
// database every interval until ctx ends.
func sampler(ctx context.Context, t *testing.T, db *store.DB, procs []*process, interval time.Duration) <-chan []sample {
	out := make(chan []sample, 1)
	began := time.Now()
	go func() {
		var samples []sample
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				out <- samples
				return
			case <-tick.C:
			}
			s := sample{at: time.Since(began)}
			for _, p := range procs {
				s.rss = append(s.rss, rssKB(p.cmd.Process.Pid))
			}
			if err := db.GetContext(ctx, &s.conns, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND pid <> pg_backend_pid()`); err != nil {
				if ctx.Err() == nil {
					t.Errorf("counting the database's sessions: %v", err)
				}
				continue
			}
			samples = append(samples, s)
		}
	}()
	return out
}

// rssKB reads the resident set size of a process from /proc, in kB; 0 when
// it cannot.
func rssKB(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}

// TestLoad runs mixed traffic through three ipam serve processes on one
// database: twelve workers claim and release VM interfaces and floating
// IPs, read through GraphQL and view console pages, signed in. No answer
// may be a 5xx, an error or a wrong address; afterwards the database holds
// exactly what the workers were told, no address twice, one per owner, and
// an audit entry for every claim and release. The figures are logged. With
// IPAM_SOAK it runs that long and checks that the memory of each process
// and the database's sessions stay flat.
func TestLoad(t *testing.T) {
	duration, soak := loadDuration(t)
	const password = "a tenant's long password"
	dbURL := pgtest.NewURL(t)
	token := tenant(t, dbURL, password)
	opToken := operator(t, dbURL)
	var procs []*process
	var bases []string
	for range 3 {
		p, base := serve(t, dbURL)
		procs, bases = append(procs, p), append(bases, base)
	}
	api := newHTTPClient()
	setupTenancy(t, api, bases[0], opToken, token)
	console := signIn(t, bases[1], "acme", password)

	db := openDB(t, dbURL)
	defer db.Close()
	db.SetMaxOpenConns(1)
	interval := time.Second
	if soak {
		interval = 5 * time.Second
	}
	ctx, stopSampling := context.WithCancel(t.Context())
	samplesc := sampler(ctx, t, db, procs, interval)

	stats := &loadStats{latencies: map[string][]time.Duration{}, statuses: map[int]int{}}
	workers := make([]*loadWorker, loadWorkers)
	began := time.Now()
	deadline := began.Add(duration)
	var wg sync.WaitGroup
	for i := range workers {
		w := &loadWorker{id: i, token: token, bases: bases, api: api, console: console, stats: stats,
			rng: rand.New(rand.NewPCG(uint64(i), 1)), vms: map[string]string{}, fips: map[string]string{}}
		workers[i] = w
		wg.Go(func() { w.run(t.Context(), deadline) })
	}
	if soak {
		progress(t, stats, began, deadline)
	}
	wg.Wait()
	elapsed := time.Since(began)
	stopSampling()
	samples := <-samplesc

	logFigures(t, stats, elapsed)
	checkLoadStored(t, db, workers)
	logSamples(t, samples)
	if soak {
		checkFlat(t, samples, duration)
	}
}

// progress logs the requests served every minute until deadline.
func progress(t *testing.T, stats *loadStats, began, deadline time.Time) {
	for time.Until(deadline) > time.Minute {
		time.Sleep(time.Minute)
		stats.mu.Lock()
		n := 0
		for _, l := range stats.latencies {
			n += len(l)
		}
		stats.mu.Unlock()
		t.Logf("%v: %d requests served", time.Since(began).Round(time.Second), n)
	}
}

// percentile returns the p-th percentile of sorted durations.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)*p/100, len(sorted)-1)]
}

// logFigures logs the requests served, their latencies, and fails the test
// on any 5xx or wrong answer.
func logFigures(t *testing.T, stats *loadStats, elapsed time.Duration) {
	t.Helper()
	stats.mu.Lock()
	defer stats.mu.Unlock()
	var all []time.Duration
	for _, kind := range []string{kindClaim, kindRelease, kindRead, kindPage} {
		l := slices.Clone(stats.latencies[kind])
		slices.Sort(l)
		all = append(all, l...)
		t.Logf("%-13s %7d requests, p50 %v, p99 %v, max %v", kind, len(l),
			percentile(l, 50).Round(10*time.Microsecond), percentile(l, 99).Round(10*time.Microsecond), percentile(l, 100).Round(time.Millisecond))
	}
	slices.Sort(all)
	t.Logf("all           %7d requests in %v (%.0f/s) through 3 processes, p50 %v, p99 %v; statuses %v",
		len(all), elapsed.Round(time.Millisecond), float64(len(all))/elapsed.Seconds(),
		percentile(all, 50).Round(10*time.Microsecond), percentile(all, 99).Round(10*time.Microsecond), stats.statuses)
	fivexx := 0
	for status, n := range stats.statuses {
		if status >= 500 {
			fivexx += n
		}
	}
	if fivexx > 0 {
		t.Errorf("%d answers were 5xx", fivexx)
	}
	for _, w := range stats.wrong {
		t.Errorf("wrong answer: %s", w)
	}
	if stats.wrongN > len(stats.wrong) {
		t.Errorf("and %d more wrong answers", stats.wrongN-len(stats.wrong))
	}
}

// checkLoadStored compares the database with what the workers hold: the
// same VM interfaces and floating IPs at the same addresses, no address
// twice, one address per owner, and as many allocations as claims audited
// less releases audited.
func checkLoadStored(t *testing.T, db *store.DB, workers []*loadWorker) {
	t.Helper()
	want := map[string]string{}
	for _, w := range workers {
		for vm, a := range w.vms {
			want["VirtualMachine "+vm] = a
		}
		for name, a := range w.fips {
			want["FloatingIP "+name] = a
		}
	}
	var rows []struct {
		Pool    string `db:"pool_uid"`
		Owner   string `db:"owner"`
		Address string `db:"address"`
	}
	// A floating IP's allocation is owned by the floating IP's uid; its name
	// is the owner's name.
	if err := db.SelectContext(t.Context(), &rows, `SELECT pool_uid, owner_kind || ' ' ||
			CASE owner_kind WHEN 'VirtualMachine' THEN owner_uid ELSE owner_name END AS owner, host(address) AS address
		FROM allocations ORDER BY pool_uid, address`); err != nil {
		t.Fatal(err)
	}
	got, addresses := map[string]string{}, map[string]string{}
	duplicates := 0
	for _, r := range rows {
		key := r.Pool + " " + r.Address
		if other, dup := addresses[key]; dup {
			duplicates++
			t.Errorf("DUPLICATE: %s is held by %s and %s", r.Address, other, r.Owner)
		}
		addresses[key] = r.Owner
		if other, dup := got[r.Owner]; dup {
			t.Errorf("%s holds %s and %s", r.Owner, other, r.Address)
		}
		got[r.Owner] = r.Address
	}
	lost := 0
	for owner, a := range want {
		if got[owner] != a {
			lost++
			t.Errorf("LOST: %s was told %s, the database says %q", owner, a, got[owner])
		}
	}
	for owner, a := range got {
		if _, ok := want[owner]; !ok {
			t.Errorf("the database holds %s for %s, which no worker holds", a, owner)
		}
	}
	var fips []struct {
		Name    string `db:"name"`
		Address string `db:"address"`
	}
	if err := db.SelectContext(t.Context(), &fips, `SELECT name, host(address) AS address FROM floating_ips`); err != nil {
		t.Fatal(err)
	}
	for _, f := range fips {
		if want["FloatingIP "+f.Name] != f.Address {
			t.Errorf("floating IP %s is stored with %s, its worker holds %q", f.Name, f.Address, want["FloatingIP "+f.Name])
		}
	}
	var claims, releases int
	if err := db.GetContext(t.Context(), &claims, `SELECT count(*) FROM audit_log WHERE object_kind = 'IPAllocation' AND action = 'allocate'`); err != nil {
		t.Fatal(err)
	}
	if err := db.GetContext(t.Context(), &releases, `SELECT count(*) FROM audit_log WHERE object_kind = 'IPAllocation' AND action = 'release'`); err != nil {
		t.Fatal(err)
	}
	if claims-releases != len(rows) {
		t.Errorf("the audit log has %d claims and %d releases, for %d allocations: a change is half stored", claims, releases, len(rows))
	}
	t.Logf("database: %d allocations (%d floating IPs), %d claims and %d releases audited, %d duplicates, %d lost",
		len(rows), len(fips), claims, releases, duplicates, lost)
}

// logSamples logs the range of each sampled series.
func logSamples(t *testing.T, samples []sample) {
	t.Helper()
	if len(samples) == 0 {
		t.Errorf("the sampler read nothing")
		return
	}
	for i := range samples[0].rss {
		series := make([]int64, len(samples))
		for j, s := range samples {
			series[j] = s.rss[i]
		}
		t.Logf("ipam serve %d: RSS %d to %d kB over %d samples", i+1, slices.Min(series), slices.Max(series), len(samples))
	}
	conns := make([]int, len(samples))
	for j, s := range samples {
		conns[j] = s.conns
	}
	t.Logf("database sessions: %d to %d", slices.Min(conns), slices.Max(conns))
}

// checkFlat wants the mean of each series in the last tenth of the soak to
// exceed its mean in the second tenth by flatTolerance at most: memory or
// connections that leak grow.
func checkFlat(t *testing.T, samples []sample, duration time.Duration) {
	t.Helper()
	window := func(from, to time.Duration, value func(sample) float64) (float64, int) {
		sum, n := 0.0, 0
		for _, s := range samples {
			if s.at >= from && s.at < to {
				sum += value(s)
				n++
			}
		}
		if n == 0 {
			return 0, 0
		}
		return sum / float64(n), n
	}
	tenth := duration / 10
	series := map[string]func(sample) float64{
		"database sessions": func(s sample) float64 { return float64(s.conns) },
	}
	for i := range samples[0].rss {
		series[fmt.Sprintf("RSS of ipam serve %d (kB)", i+1)] = func(s sample) float64 { return float64(s.rss[i]) }
	}
	for _, name := range slices.Sorted(maps.Keys(series)) {
		base, n1 := window(tenth, 2*tenth, series[name])
		last, n2 := window(duration-tenth, duration+time.Minute, series[name])
		if n1 == 0 || n2 == 0 {
			t.Errorf("%s: no samples in the second or the last tenth", name)
			continue
		}
		growth := last/base - 1
		t.Logf("%s: %.1f in the second tenth (%d samples), %.1f in the last (%d samples): %+.1f %%", name, base, n1, last, n2, 100*growth)
		if growth > flatTolerance {
			t.Errorf("%s grew by %.1f %% from the second tenth of the soak to the last, more than %.0f %%", name, 100*growth, 100*flatTolerance)
		}
	}
}
