package metrics

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"pivirt.hu/ipam/internal/ipam"
)

// The series of quotas are per quota pattern (and kind), never per
// namespace: tenants make namespaces without bound, operators make
// patterns (docs/operations.md, "Quotas in Prometheus").
var (
	quotaLimit = prometheus.NewDesc("ipam_quota_limit", "The limit a quota sets for each namespace its pattern matches, by kind: vpcs, subnets, floating_ips, addresses.",
		[]string{"pattern", "kind"}, nil)
	quotaUsedMax = prometheus.NewDesc("ipam_quota_used_max", "The most any namespace a quota binds holds of a kind the quota limits.",
		[]string{"pattern", "kind"}, nil)
	quotaAtLimit = prometheus.NewDesc("ipam_quota_namespaces_at_limit", "Namespaces a quota binds that hold its limit of a kind or more: their claims of that kind are refused with QUOTA_EXCEEDED.",
		[]string{"pattern", "kind"}, nil)
	quotaNamespaces = prometheus.NewDesc("ipam_quota_namespaces", "Namespaces a quota's pattern matches that hold anything (a VPC, a floating IP or an address).",
		[]string{"pattern"}, nil)
	quotaScrapeErrors = prometheus.NewDesc("ipam_quota_scrape_error", "1 when the quotas' use could not be read at this scrape (the error is logged by the handler).", nil, nil)
)

// quotaCollector reads at each scrape how the namespaces of every quota
// use its limits (ipam.Service.QuotaUses: what each namespace under a
// quota holds, counted in the database).
type quotaCollector struct{ svc *ipam.Service }

func (c quotaCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{quotaLimit, quotaUsedMax, quotaAtLimit, quotaNamespaces, quotaScrapeErrors} {
		ch <- d
	}
}

func (c quotaCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	uses, err := c.svc.QuotaUses(ctx, scraper)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(quotaScrapeErrors, err)
		ch <- prometheus.MustNewConstMetric(quotaScrapeErrors, prometheus.GaugeValue, 1)
		return
	}
	counted := map[string]bool{}
	for _, u := range uses {
		labels := []string{u.Pattern, string(u.Kind)}
		ch <- prometheus.MustNewConstMetric(quotaLimit, prometheus.GaugeValue, float64(u.Limit), labels...)
		ch <- prometheus.MustNewConstMetric(quotaUsedMax, prometheus.GaugeValue, float64(u.MaxUsed), labels...)
		ch <- prometheus.MustNewConstMetric(quotaAtLimit, prometheus.GaugeValue, float64(u.AtLimit), labels...)
		if !counted[u.Pattern] {
			counted[u.Pattern] = true
			ch <- prometheus.MustNewConstMetric(quotaNamespaces, prometheus.GaugeValue, float64(u.Namespaces), u.Pattern)
		}
	}
	ch <- prometheus.MustNewConstMetric(quotaScrapeErrors, prometheus.GaugeValue, 0)
}
