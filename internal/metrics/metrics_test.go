package metrics

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var acme = auth.Actor{Name: "acme", Role: auth.Tenant, Namespaces: []string{"acme/*"}}

// scrape serves GET /metrics through h and parses it with Prometheus' own
// text parser.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics = %d: %s", rec.Code, rec.Body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return families
}

// value returns the value of the family's series whose labels are labels
// (all of them), and whether there is one.
func value(families map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	f, ok := families[name]
	if !ok {
		return 0, false
	}
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		match := true
		for _, l := range m.GetLabel() {
			match = match && labels[l.GetName()] == l.GetValue()
		}
		if !match {
			continue
		}
		switch {
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// TestScrape: the usage of every pool and subnet matches the database, and
// the claims, releases, lost races and views read are counted by result.
func TestScrape(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewURL(t)
	db, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m := New()
	svc, err := ipam.New(ctx, ipam.Config{DB: db, URL: url, Observer: m})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	m.Watch(svc, db.DB.DB)
	if _, err := svc.CreatePublicPool(ctx, auth.System, ipam.CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVPC(ctx, acme, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []ipam.CreateSubnetInput{{Name: "web", CIDR: "10.42.1.0/24"}, {Name: "tiny", CIDR: "10.42.2.0/30"}} {
		s.Namespace, s.VPC = "acme/prod", "main"
		if _, err := svc.CreateSubnet(ctx, acme, s); err != nil {
			t.Fatal(err)
		}
	}
	attach := func(subnet string, i int) error {
		_, err := svc.AttachInterface(ctx, acme, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: subnet,
			VM: ipam.VMRef{UID: fmt.Sprintf("vm-%d", i), Hostname: fmt.Sprintf("vm-%d", i)}})
		return err
	}
	for i := range 5 {
		if err := attach("web", i); err != nil {
			t.Fatal(err)
		}
	}
	if err := attach("tiny", 10); err != nil {
		t.Fatal(err)
	}
	if err := attach("tiny", 11); !errors.Is(err, refusal.ErrPoolExhausted) {
		t.Fatalf("the second claim of a /30 = %v, want exhausted", err)
	}
	// Another process took the next address of web: this one loses a race.
	if _, err := db.Exec(`INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, subnet_uid, created_by)
		SELECT 'acme/prod', 'vpc-main-10-42-1-7', p.uid, '10.42.1.7', 'VirtualMachine', 'elsewhere', 'elsewhere/0', 'acme/prod', s.uid, 'test'
		FROM pools p, subnets s WHERE p.name = 'vpc-main' AND s.name = 'web'`); err != nil {
		t.Fatal(err)
	}
	if err := attach("web", 5); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.DetachInterface(ctx, acme, ipam.DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: ipam.VMRef{UID: "vm-0", Hostname: "vm-0"}}); err != nil {
		t.Fatal(err)
	}

	// A week of web's history, half an address a day: 248 free, full in
	// about 496 days.
	var web string
	if err := db.Get(&web, `SELECT uid FROM subnets WHERE name = 'web'`); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for h := 7 * 24; h >= 1; h-- {
		if err := store.RecordUsage(ctx, db, []store.UsageRecord{{ObjectUID: web, ObjectKind: "subnet", Used: max(0, 5-int64(h/48)), Size: 253}}, now.Add(-time.Duration(h)*time.Hour), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}

	families := scrape(t, m.Handler())
	for subnet, want := range map[string]float64{"web": 496, "tiny": 0} {
		l := map[string]string{"pool": "vpc-main", "namespace": "acme/prod", "kind": "private", "subnet": subnet}
		if got, ok := value(families, "ipam_pool_full_in_days", l); !ok || got < want*0.9 || got > want*1.1 {
			t.Errorf("ipam_pool_full_in_days%v = %v (found %v), want about %v", l, got, ok, want)
		}
	}
	if _, ok := value(families, "ipam_pool_full_in_days", map[string]string{"pool": "public-zone-a", "namespace": "", "kind": "public", "subnet": ""}); ok {
		t.Error("ipam_pool_full_in_days of a pool without history, which is not filling up")
	}
	type usage struct{ pool, ns, kind, subnet, where string }
	for _, u := range []usage{
		{"public-zone-a", "", "public", "", "p.name = 'public-zone-a'"},
		{"vpc-main", "acme/prod", "private", "", "p.name = 'vpc-main'"},
		{"vpc-main", "acme/prod", "private", "web", "s.name = 'web'"},
		{"vpc-main", "acme/prod", "private", "tiny", "s.name = 'tiny'"},
	} {
		var want int
		if err := db.Get(&want, `SELECT count(*) FROM allocations a JOIN pools p ON p.uid = a.pool_uid LEFT JOIN subnets s ON s.uid = a.subnet_uid WHERE `+u.where); err != nil {
			t.Fatal(err)
		}
		labels := map[string]string{"pool": u.pool, "namespace": u.ns, "kind": u.kind, "subnet": u.subnet}
		if got, ok := value(families, "ipam_pool_used", labels); !ok || got != float64(want) {
			t.Errorf("ipam_pool_used%v = %v (found %v), want %d as the database holds", labels, got, ok, want)
		}
	}
	for labels, want := range map[string]float64{"web": 253, "tiny": 1, "": 65536 - 2} {
		l := map[string]string{"pool": "vpc-main", "namespace": "acme/prod", "kind": "private", "subnet": labels}
		if got, ok := value(families, "ipam_pool_size", l); !ok || got != want {
			t.Errorf("ipam_pool_size%v = %v (found %v), want %v", l, got, ok, want)
		}
	}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"ipam_claims_total", map[string]string{"result": "ok"}, 7}, // 6 interfaces and the VPC's uplink
		{"ipam_claims_total", map[string]string{"result": "conflict_retry"}, 1},
		{"ipam_claims_total", map[string]string{"result": "exhausted"}, 1},
		{"ipam_claims_total", map[string]string{"result": "error"}, 0},
		{"ipam_releases_total", map[string]string{"result": "ok"}, 1},
		{"ipam_claim_lost_races_total", nil, 1},
		{"ipam_claim_duration_seconds", nil, 9},
	} {
		if got, ok := value(families, c.name, c.labels); !ok || got != c.want {
			t.Errorf("%s%v = %v (found %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	for _, name := range []string{"ipam_view_loads_total", "ipam_notifications_received_total", "ipam_usage_scrape_error",
		"go_sql_max_open_connections", "go_sql_open_connections", "go_goroutines", "process_resident_memory_bytes"} {
		if _, ok := families[name]; !ok {
			t.Errorf("no %s in the metrics", name)
		}
	}
	if got, _ := value(families, "ipam_view_loads_total", nil); got < 2 {
		t.Errorf("ipam_view_loads_total = %v, want the two pools' views at least", got)
	}
	checkDashboard(t, families)
}

// TestScrapeIPv6Pools: an IPv6 pool's size passes int64 and is exported
// as near as a float64 holds it, not capped; a delegation pool's counts
// its prefixes, and says their length.
func TestScrapeIPv6Pools(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewURL(t)
	db, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m := New()
	svc, err := ipam.New(ctx, ipam.Config{DB: db, URL: url, Observer: m})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	m.Watch(svc, db.DB.DB)
	for _, in := range []ipam.CreatePublicPoolInput{
		{Name: "v6", CIDR: "2001:db8::/48"},
		{Name: "v6-delegated", CIDR: "2001:db8:100::/40", DelegatedPrefixLength: 56},
	} {
		if _, err := svc.CreatePublicPool(ctx, auth.System, in); err != nil {
			t.Fatal(err)
		}
	}
	families := scrape(t, m.Handler())
	for _, c := range []struct {
		name, pool string
		want       float64
	}{
		{"ipam_pool_size", "v6", 1<<80 - 1},
		{"ipam_pool_size", "v6-delegated", 65536},
		{"ipam_pool_used", "v6-delegated", 0},
		{"ipam_pool_delegated_prefix_length", "v6-delegated", 56},
	} {
		l := map[string]string{"pool": c.pool, "namespace": "", "kind": "public", "subnet": ""}
		if got, ok := value(families, c.name, l); !ok || got != c.want {
			t.Errorf("%s%v = %v (found %v), want %v", c.name, l, got, ok, c.want)
		}
	}
	if _, ok := value(families, "ipam_pool_delegated_prefix_length", map[string]string{"pool": "v6", "namespace": "", "kind": "public", "subnet": ""}); ok {
		t.Error("ipam_pool_delegated_prefix_length of a pool that hands out addresses")
	}

	// A dual-stack VPC: its subnet's IPv6 side is a subnet of its IPv6
	// pool, apart from the IPv4 side.
	if _, err := svc.CreateVPC(ctx, auth.System, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", IPv6CIDR: "fd12:3456:789a::/48"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateSubnet(ctx, auth.System, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AttachNic(ctx, auth.System, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: ipam.VMRef{UID: "vm-1", Hostname: "web-01"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.reg.Gather(); err != nil {
		t.Errorf("gathering the metrics with a dual-stack VPC: %v", err)
	}
	families = scrape(t, m.Handler())
	if got, ok := value(families, "ipam_usage_scrape_error", nil); !ok || got != 0 {
		t.Errorf("ipam_usage_scrape_error = %v (found %v) with a dual-stack VPC, want 0", got, ok)
	}
	for _, c := range []struct {
		name, pool, subnet string
		want               float64
	}{
		{"ipam_pool_size", "vpc-main", "web", 253},
		{"ipam_pool_size", "vpc-main-v6", "web", 1<<64 - 2},
		{"ipam_pool_used", "vpc-main-v6", "web", 1},
		{"ipam_pool_size", "vpc-main-v6", "", 1<<80 - 1},
	} {
		l := map[string]string{"pool": c.pool, "namespace": "acme/prod", "kind": "private", "subnet": c.subnet}
		if got, ok := value(families, c.name, l); !ok || got != c.want {
			t.Errorf("%s%v = %v (found %v), want %v", c.name, l, got, ok, c.want)
		}
	}
}
