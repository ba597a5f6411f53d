// Package metrics is what ipam serve tells Prometheus (docs/operations.md): how full
// each pool and subnet is, what the claims and releases did, and the
// state of the process and its database connections, in Prometheus' text
// format through the official client. The series are bounded: one per
// pool and per subnet, none per allocation; a number pool's divisions, its
// most used alone.
package metrics

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/forecast"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/refusal"
)

// Metrics holds the process's metrics. It is the ipam.Observer of the
// service it measures.
type Metrics struct {
	reg           *prometheus.Registry
	claims        *prometheus.CounterVec
	releases      *prometheus.CounterVec
	claimDuration prometheus.Histogram
	lostRaces     prometheus.Counter
	viewLoads     prometheus.Counter
	notifications prometheus.Counter
}

var _ ipam.Observer = (*Metrics)(nil)

// New returns the metrics, with Go's runtime and the process's own.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		claims: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ipam_claims_total",
			Help: "Claims of addresses this process made, by result: ok, conflict_retry (ok after losing a race for a candidate), exhausted, quota_exceeded, error.",
		}, []string{"result"}),
		releases: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ipam_releases_total",
			Help: "Releases of addresses this process made, by result: ok (also when nothing was held), error.",
		}, []string{"result"}),
		claimDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "ipam_claim_duration_seconds",
			Help:    "How long this process's claims took, from the first candidate to the answer.",
			Buckets: []float64{.0002, .0005, .001, .002, .005, .01, .02, .05, .1, .25, .5, 1, 2.5},
		}),
		lostRaces: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ipam_claim_lost_races_total",
			Help: "Candidates this process's claims found taken when inserting them (each tried the next).",
		}),
		viewLoads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ipam_view_loads_total",
			Help: "Reads of a pool's taken addresses from the database into this process's view: first use, reload, periodic refresh.",
		}),
		notifications: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ipam_notifications_received_total",
			Help: "Notifications of other processes' releases and deletions this process received.",
		}),
	}
	m.reg.MustRegister(m.claims, m.releases, m.claimDuration, m.lostRaces, m.viewLoads, m.notifications,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, r := range []string{ipam.ClaimOK, ipam.ClaimConflictRetry, ipam.ClaimExhausted, ipam.ClaimQuotaExceeded, ipam.ClaimError} {
		m.claims.WithLabelValues(r)
	}
	for _, r := range []string{ipam.ReleaseOK, ipam.ClaimError} {
		m.releases.WithLabelValues(r)
	}
	return m
}

// Claimed counts a claim (ipam.Observer).
func (m *Metrics) Claimed(result string, took time.Duration) {
	m.claims.WithLabelValues(result).Inc()
	m.claimDuration.Observe(took.Seconds())
}

// LostRace counts a lost race (ipam.Observer).
func (m *Metrics) LostRace() { m.lostRaces.Inc() }

// Released counts a release (ipam.Observer).
func (m *Metrics) Released(result string) { m.releases.WithLabelValues(result).Inc() }

// ViewLoaded counts a view read (ipam.Observer).
func (m *Metrics) ViewLoaded() { m.viewLoads.Inc() }

// Notified counts a notification (ipam.Observer).
func (m *Metrics) Notified() { m.notifications.Inc() }

// Watch adds the usage of svc's pools and subnets and the use of its
// quotas, read at each scrape, how svc's claims were made (shared
// statements, routing), and the statistics of the connection pool db.
func (m *Metrics) Watch(svc *ipam.Service, db *sql.DB) {
	m.reg.MustRegister(usageCollector{svc}, quotaCollector{svc}, claimsCollector{svc}, collectors.NewDBStatsCollector(db, "ipam"))
}

// DivisionsPerPool bounds the divisions of a number pool whose usage is
// exported: its most used.
const DivisionsPerPool = 20

// WatchNumbers adds the usage of the divisions of svc's number pools, read
// at each scrape: the perPool most used of each pool, and how many it has.
func (m *Metrics) WatchNumbers(svc *numbers.Service, perPool int) {
	m.reg.MustRegister(divisionCollector{svc, perPool})
}

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// scraper is the actor the usage is read as: every pool and subnet.
var scraper = auth.Actor{Name: "metrics", Role: auth.Operator}

// scrapeTimeout bounds the reading of the usage at a scrape.
const scrapeTimeout = 10 * time.Second

var (
	poolSize = prometheus.NewDesc("ipam_pool_size", "Candidates of a pool (subnet=\"\") or of a subnet of a VPC's pool: the addresses that can be handed out (a delegation pool's: its prefixes of ipam_pool_delegated_prefix_length).",
		[]string{"pool", "namespace", "kind", "subnet"}, nil)
	poolUsed = prometheus.NewDesc("ipam_pool_used", "Candidates of a pool (subnet=\"\") or of a subnet of a VPC's pool that are allocated (a delegation pool's: its prefixes delegated).",
		[]string{"pool", "namespace", "kind", "subnet"}, nil)
	poolDelegated = prometheus.NewDesc("ipam_pool_delegated_prefix_length", "The length of the prefixes a public IPv6 pool delegates to VPCs, which its size and use count; absent for a pool that hands out addresses.",
		[]string{"pool", "namespace", "kind", "subnet"}, nil)
	poolFullIn = prometheus.NewDesc("ipam_pool_full_in_days", "Days until a pool (subnet=\"\") or a subnet of a VPC's pool is full at the rate of its last 7 days (docs/operations.md); absent unless it fills up; 0 when full.",
		[]string{"pool", "namespace", "kind", "subnet"}, nil)
	scrapeErrors = prometheus.NewDesc("ipam_usage_scrape_error", "1 when the pools' usage could not be read at this scrape (the error is logged by the handler).", nil, nil)
)

// usageCollector reads the usage of every pool and subnet at each scrape,
// from the process's views (docs/allocation.md: exact for this process's
// claims and for releases anywhere, other processes' claims within 30 s),
// with their forecasts (ipam.Service.UsageTrends: the history's sums, read
// after each write of the history, and the usage now).
type usageCollector struct{ svc *ipam.Service }

func (c usageCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- poolSize
	ch <- poolUsed
	ch <- poolDelegated
	ch <- poolFullIn
	ch <- scrapeErrors
}

func (c usageCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	failed := 0.0
	if err := c.collect(ctx, ch); err != nil {
		failed = 1
		ch <- prometheus.NewInvalidMetric(scrapeErrors, err)
	}
	ch <- prometheus.MustNewConstMetric(scrapeErrors, prometheus.GaugeValue, failed)
}

func (c usageCollector) collect(ctx context.Context, ch chan<- prometheus.Metric) error {
	trends, err := c.svc.UsageTrends(ctx, scraper, time.Now())
	if err != nil {
		return err
	}
	for _, t := range trends {
		if t.IPv6 && t.Subnet.UID == "" {
			// A VPC's IPv6 prefix in /64s: its pool's series is the one
			// of addresses.
			continue
		}
		labels := []string{t.Pool.Name, t.Pool.Namespace, string(t.Pool.Kind), t.Subnet.Name}
		// The figures exact at 128 bits, as near as a float64 holds them.
		size, used, _ := t.Usage.Counts()
		ch <- prometheus.MustNewConstMetric(poolSize, prometheus.GaugeValue, size.Float64(), labels...)
		ch <- prometheus.MustNewConstMetric(poolUsed, prometheus.GaugeValue, used.Float64(), labels...)
		if bits := t.Pool.DelegatedPrefixLength; bits != 0 && t.Subnet.Name == "" {
			ch <- prometheus.MustNewConstMetric(poolDelegated, prometheus.GaugeValue, float64(bits), labels...)
		}
		switch t.Forecast.State {
		case forecast.Filling:
			ch <- prometheus.MustNewConstMetric(poolFullIn, prometheus.GaugeValue, t.Forecast.DaysLeft, labels...)
		case forecast.Full:
			ch <- prometheus.MustNewConstMetric(poolFullIn, prometheus.GaugeValue, 0, labels...)
		}
	}
	return nil
}

var (
	sharedStatements = prometheus.NewDesc("ipam_claim_shared_statements_total",
		"Statements that inserted the rows of several of this process's claims at once (docs/allocation.md, claims share statements under load).", nil, nil)
	sharedInserts = prometheus.NewDesc("ipam_claim_shared_inserts_total",
		"Claims' rows inserted by statements shared with other claims (ipam_claim_shared_statements_total).", nil, nil)
	claimsForwarded = prometheus.NewDesc("ipam_claims_forwarded_total",
		"Claims this process sent to the process that owns their pool, which made them.", nil, nil)
	claimsServed = prometheus.NewDesc("ipam_claims_served_total",
		"Claims other processes sent to this one, the owner of their pool, which it made.", nil, nil)
	claimFallbacks = prometheus.NewDesc("ipam_claim_forward_fallbacks_total",
		"Claims this process made itself because the process that owns their pool could not be reached.", nil, nil)
	claimForwardTimeouts = prometheus.NewDesc("ipam_claim_forward_timeouts_total",
		"Forwarded claims whose owner did not answer within the forwarded call's deadline; each is also a fallback (docs/scaling.md).", nil, nil)
	routeLinkRefused = prometheus.NewDesc("ipam_route_link_refused_total",
		"Connections to this process's route link closed unauthenticated: a certificate or proof that did not match, or too many handshakes at once.", nil, nil)
	routeLinkAcceptErrors = prometheus.NewDesc("ipam_route_link_accept_errors_total",
		"Errors accepting connections on the route link (too many open files, say), each retried after a pause.", nil, nil)
)

// claimsCollector reads, at each scrape, how the service's claims were
// made: in statements shared with other claims, forwarded to their pool's
// owner or served for other processes (ipam.Service.ClaimStats).
type claimsCollector struct{ svc *ipam.Service }

func (c claimsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{sharedStatements, sharedInserts, claimsForwarded, claimsServed, claimFallbacks,
		claimForwardTimeouts, routeLinkRefused, routeLinkAcceptErrors} {
		ch <- d
	}
}

func (c claimsCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.svc.ClaimStats()
	for d, v := range map[*prometheus.Desc]int64{sharedStatements: s.SharedStatements, sharedInserts: s.SharedInserts,
		claimsForwarded: s.Routing.Forwarded, claimsServed: s.Routing.Served, claimFallbacks: s.Routing.Fallbacks,
		claimForwardTimeouts: s.Routing.Timeouts, routeLinkRefused: s.Routing.Refused, routeLinkAcceptErrors: s.Routing.AcceptErrors} {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v))
	}
}

var (
	divisionSize = prometheus.NewDesc("ipam_number_pool_division_size",
		"Numbers of a number pool's ranges that a division (of the pool's most used) may hold: the numbers in the ranges.",
		[]string{"pool", "division", "division_id"}, nil)
	divisionUsed = prometheus.NewDesc("ipam_number_pool_division_used",
		"Numbers of a number pool's ranges that a division (of the pool's most used) holds.",
		[]string{"pool", "division", "division_id"}, nil)
	poolDivisions = prometheus.NewDesc("ipam_number_pool_divisions",
		"Divisions of a number pool that hold a number, all of them (ipam_number_pool_division_used has the most used alone).",
		[]string{"pool"}, nil)
	divisionScrapeErrors = prometheus.NewDesc("ipam_number_pool_usage_scrape_error",
		"1 when the number pools' divisions could not be read at this scrape (the error is logged by the handler).", nil, nil)
)

// divisionCollector reads, at each scrape, the usage of the perPool most
// used divisions of every number pool (numbers.Service.DivisionPage by
// usage: exact, the pool's marks folded first), labelled by the pool's
// name, the division's display label and its values (division_id: the
// scope elements' values, peers by id, which tell apart two divisions of
// one label), and how many divisions each pool has.
type divisionCollector struct {
	svc     *numbers.Service
	perPool int
}

func (c divisionCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- divisionSize
	ch <- divisionUsed
	ch <- poolDivisions
	ch <- divisionScrapeErrors
}

func (c divisionCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	failed := 0.0
	if err := c.collect(ctx, ch); err != nil {
		failed = 1
		ch <- prometheus.NewInvalidMetric(divisionScrapeErrors, err)
	}
	ch <- prometheus.MustNewConstMetric(divisionScrapeErrors, prometheus.GaugeValue, failed)
}

func (c divisionCollector) collect(ctx context.Context, ch chan<- prometheus.Metric) error {
	for offset := 0; ; {
		pools, err := c.svc.Pools(ctx, scraper, numbers.PoolFilter{}, 0, offset)
		if err != nil {
			return err
		}
		for _, p := range pools.Pools {
			list, err := c.svc.DivisionPage(ctx, scraper, p.ID, numbers.DivisionQuery{Sort: numbers.SortByUsage, Limit: c.perPool})
			switch {
			case err != nil && refusal.Classify(err).Code == refusal.CodeNotFound:
				continue // deleted since Pools read it
			case err != nil:
				return err
			}
			ch <- prometheus.MustNewConstMetric(poolDivisions, prometheus.GaugeValue, float64(list.Count), p.Name)
			for _, d := range list.Divisions {
				values := make([]string, len(d.Entries))
				for i, e := range d.Entries {
					values[i] = e.Value
				}
				labels := []string{p.Name, d.DisplayLabel, strings.Join(values, "/")}
				ch <- prometheus.MustNewConstMetric(divisionSize, prometheus.GaugeValue, float64(d.Figures.Size), labels...)
				ch <- prometheus.MustNewConstMetric(divisionUsed, prometheus.GaugeValue, float64(d.Figures.Used), labels...)
			}
		}
		if offset += len(pools.Pools); len(pools.Pools) == 0 || offset >= pools.Count {
			return nil
		}
	}
}
