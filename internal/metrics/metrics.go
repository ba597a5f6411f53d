// Package metrics is what ipam serve tells Prometheus (issue 15): how full
// each pool and subnet is, what the claims and releases did, and the
// state of the process and its database connections, in Prometheus' text
// format through the official client. The series are bounded: one per
// pool and per subnet, none per allocation.
package metrics

import (
	"context"
	"database/sql"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/forecast"
	"pivirt.hu/ipam/internal/ipam"
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
// quotas, read at each scrape, and the statistics of the connection pool
// db.
func (m *Metrics) Watch(svc *ipam.Service, db *sql.DB) {
	m.reg.MustRegister(usageCollector{svc}, quotaCollector{svc}, collectors.NewDBStatsCollector(db, "ipam"))
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
	poolSize = prometheus.NewDesc("ipam_pool_size", "Candidates of a pool (subnet=\"\") or of a subnet of a VPC's pool: the addresses that can be handed out.",
		[]string{"pool", "namespace", "kind", "subnet"}, nil)
	poolUsed = prometheus.NewDesc("ipam_pool_used", "Candidates of a pool (subnet=\"\") or of a subnet of a VPC's pool that are allocated.",
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
		labels := []string{t.Pool.Name, t.Pool.Namespace, string(t.Pool.Kind), t.Subnet.Name}
		ch <- prometheus.MustNewConstMetric(poolSize, prometheus.GaugeValue, float64(t.Usage.Size), labels...)
		ch <- prometheus.MustNewConstMetric(poolUsed, prometheus.GaugeValue, float64(t.Usage.Used), labels...)
		switch t.Forecast.State {
		case forecast.Filling:
			ch <- prometheus.MustNewConstMetric(poolFullIn, prometheus.GaugeValue, t.Forecast.DaysLeft, labels...)
		case forecast.Full:
			ch <- prometheus.MustNewConstMetric(poolFullIn, prometheus.GaugeValue, 0, labels...)
		}
	}
	return nil
}
