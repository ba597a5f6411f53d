package metrics

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/schema/schematest"
	"pivirt.hu/ipam/internal/store"
)

// watched opens a service on url with its metrics, routing its claims
// when route.
func watched(t *testing.T, url string, route bool) (*ipam.Service, *store.DB, *Metrics) {
	t.Helper()
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	m := New()
	cfg := ipam.Config{DB: db, URL: url, Observer: m}
	if route {
		cfg.RouteListen = "127.0.0.1:0"
	}
	svc, err := ipam.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		svc.Close()
		db.Close()
	})
	m.Watch(svc, db.DB.DB)
	return svc, db, m
}

// webSubnet makes VPC main of acme/prod with a subnet web of cidr.
func webSubnet(t *testing.T, svc *ipam.Service, cidr string) {
	t.Helper()
	if _, err := svc.CreateVPC(t.Context(), acme, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateSubnet(t.Context(), acme, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: cidr}); err != nil {
		t.Fatal(err)
	}
}

// attach attaches VMs first … first+n-1 to subnet web, all at once.
func attach(t *testing.T, svc *ipam.Service, first, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for i := first; i < first+n; i++ {
		wg.Go(func() {
			if _, err := svc.AttachInterface(context.Background(), acme, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web",
				VM: ipam.VMRef{UID: fmt.Sprintf("vm-%d", i), Hostname: fmt.Sprintf("vm-%d", i)}}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// checkCounters compares the counters of a scrape with want.
func checkCounters(t *testing.T, who string, families map[string]*dto.MetricFamily, want map[string]int64) {
	t.Helper()
	for name, v := range want {
		if got, ok := value(families, name, nil); !ok || got != float64(v) {
			t.Errorf("%s: %s = %v (found %v), want %d", who, name, got, ok, v)
		}
	}
}

// TestScrapeRouting: the claims a process forwarded to its pool's owner,
// those the owner served, and those made locally once the owner stopped
// answering, as routing counts them.
func TestScrapeRouting(t *testing.T) {
	url := pgtest.NewURL(t)
	a, db, ma := watched(t, url, true)
	b, _, mb := watched(t, url, true)
	webSubnet(t, a, "10.42.1.0/24")
	attach(t, a, 0, 2) // a owns the pool
	for i := range 3 {
		attach(t, b, 10+i, 1)
	}
	checkCounters(t, "the owner", scrape(t, ma.Handler()), map[string]int64{"ipam_claims_forwarded_total": 0, "ipam_claims_served_total": 3, "ipam_claim_forward_fallbacks_total": 0})
	checkCounters(t, "the other", scrape(t, mb.Handler()), map[string]int64{"ipam_claims_forwarded_total": 3, "ipam_claims_served_total": 0, "ipam_claim_forward_fallbacks_total": 0})

	a.Close()
	waitUntil(t, "the owner's lock to end", func() bool {
		var locks int
		return db.Get(&locks, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'`) == nil && locks == 0
	})
	attach(t, b, 20, 1)
	s := b.ClaimStats()
	if s.Routing.Fallbacks == 0 {
		t.Errorf("b's claim after the owner stopped: %+v, want a fallback", s)
	}
	checkCounters(t, "the other, its owner gone", scrape(t, mb.Handler()), map[string]int64{"ipam_claims_forwarded_total": 3,
		"ipam_claims_served_total": s.Routing.Served, "ipam_claim_forward_fallbacks_total": s.Routing.Fallbacks,
		"ipam_claim_forward_timeouts_total": s.Routing.Timeouts, "ipam_route_link_refused_total": s.Routing.Refused,
		"ipam_route_link_accept_errors_total": s.Routing.AcceptErrors})
}

// TestScrapeSharedStatements: claims that queue behind the inserts in
// flight (here every insert waits for a lock on their subnet's row, seen
// waiting in pg_stat_activity) share statements, which the metrics count
// as the service does.
func TestScrapeSharedStatements(t *testing.T) {
	svc, db, m := watched(t, pgtest.NewURL(t), false)
	webSubnet(t, svc, "10.42.0.0/22")
	for round := 0; svc.ClaimStats().SharedStatements == 0; round++ {
		if round == 5 {
			t.Fatalf("no statement shared in %d rounds of 12 claims behind a lock: %+v", round, svc.ClaimStats())
		}
		tx, err := db.Beginx()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(`SELECT FROM subnets WHERE name = 'web' FOR UPDATE`); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			attach(t, svc, 12*round, 12)
			close(done)
		}()
		pgtest.WaitForLock(t, db, "the inserts behind the subnet's row", pgtest.LockWait{Sessions: 4}, done)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		<-done
	}
	s := svc.ClaimStats()
	if s.SharedInserts < 2*s.SharedStatements {
		t.Errorf("%+v: a shared statement inserts two claims' rows at least", s)
	}
	checkCounters(t, "the service", scrape(t, m.Handler()), map[string]int64{"ipam_claim_shared_statements_total": s.SharedStatements, "ipam_claim_shared_inserts_total": s.SharedInserts})
}

// waitUntil polls done until it holds, for 10 seconds at most.
func waitUntil(t *testing.T, what string, done func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !done(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// TestScrapeDivisions: each number pool's most used divisions, as many as
// the bound, with their size and used, and how many divisions it has.
func TestScrapeDivisions(t *testing.T) {
	ctx := t.Context()
	_, db, m := watched(t, pgtest.NewURL(t), false)
	n, err := numbers.New(ctx, numbers.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	m.WatchNumbers(n, 2)
	op := auth.System
	f, err := schema.Parse("sites.yaml", []byte(schematest.SitesAndVLANs))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Branches().LoadSchema(ctx, op, branch.Main, f); err != nil {
		t.Fatal(err)
	}
	pool, err := n.CreatePool(ctx, op, numbers.PoolInput{Name: "VLAN IDs", Node: "IpamVLAN", NodeAttribute: "vlan_id",
		Ranges: []numbers.Range{{Start: 100, End: 199, Weight: 1}}, AllocationScope: []string{"site"}})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for name, vlans := range map[string]int{"site-a": 3, "site-b": 2, "site-c": 1} {
		site, err := n.Branches().CreateObject(ctx, op, branch.Main, "LocationSite", branch.ObjectInput{Attributes: map[string]any{"name": name}})
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = site.ID
		for i := range vlans {
			if _, err := n.CreateObject(ctx, op, branch.Main, "IpamVLAN", branch.ObjectInput{Attributes: map[string]any{"name": fmt.Sprint(name, "-", i)},
				Relationships: map[string][]string{"site": {site.ID}}}, []numbers.FromPool{{Attribute: "vlan_id", Pool: pool.ID}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	families := scrape(t, m.Handler())
	if got, ok := value(families, "ipam_number_pool_divisions", map[string]string{"pool": "VLAN IDs"}); !ok || got != 3 {
		t.Errorf("ipam_number_pool_divisions = %v (found %v), want 3", got, ok)
	}
	for site, used := range map[string]float64{"site-a": 3, "site-b": 2} {
		l := map[string]string{"pool": "VLAN IDs", "division": site, "division_id": ids[site]}
		if got, ok := value(families, "ipam_number_pool_division_used", l); !ok || got != used {
			t.Errorf("ipam_number_pool_division_used%v = %v (found %v), want %v", l, got, ok, used)
		}
		if got, ok := value(families, "ipam_number_pool_division_size", l); !ok || got != 100 {
			t.Errorf("ipam_number_pool_division_size%v = %v (found %v), want 100", l, got, ok)
		}
	}
	if f := families["ipam_number_pool_division_used"]; f == nil || len(f.GetMetric()) != 2 {
		t.Errorf("ipam_number_pool_division_used: %v, want the 2 most used divisions alone", f)
	}
	if got, ok := value(families, "ipam_number_pool_usage_scrape_error", nil); !ok || got != 0 {
		t.Errorf("ipam_number_pool_usage_scrape_error = %v (found %v), want 0", got, ok)
	}
}
