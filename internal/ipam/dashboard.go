package ipam

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/forecast"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/internal/usage"
)

// A UsageTrend is a pool's or a subnet's usage with its last week: the
// forecast made from its hourly history, and that history when asked for.
type UsageTrend struct {
	ObjectUsage
	History  []usage.Point
	Forecast forecast.Forecast
}

// A Dashboard is what an operator or a tenant sees first: every pool and
// subnet they may see, closest to exhaustion first, the counts of what
// there is and the last changes.
type Dashboard struct {
	Trends []UsageTrend
	// Pools, VPCs and Subnets count what the actor sees, IPv6Pools the
	// pools of IPv6 among Pools; Allocations the addresses held in those
	// pools, of both families.
	Pools, IPv6Pools, VPCs, Subnets, Allocations int
	// ChangesToday counts the changes since midnight (UTC), up to
	// MaxChangesCounted.
	ChangesToday int
	Recent       []AuditEntry
}

// MaxChangesCounted is the most changes of a day the dashboard counts.
const MaxChangesCounted = 100_000

// recentChanges is how many changes the dashboard lists.
const recentChanges = 10

// Dashboard returns the IP half of the actor's dashboard as of now
// (internal/dashboard composes it with the number pools'): the pools and
// subnets of Usages (an operator's every one; a tenant's VPCs, as their
// private pools, and subnets) and the IPv6 sides of dual-stack VPCs and
// subnets, with their forecasts (UsageTrends), ordered by
// forecast.CompareUrgency, the first histories of them (all when
// negative) with their last 7 days of hours; the changes of the actor's
// namespaces (every one for an operator). A dual-stack VPC's IPv6 pool is
// counted, and its prefix listed in /64s, not in addresses. A handful of
// statements, whatever the number of pools.
func (s *Service) Dashboard(ctx context.Context, actor auth.Actor, now time.Time, histories int) (Dashboard, error) {
	trends, err := s.UsageTrends(ctx, actor, now)
	if err != nil {
		return Dashboard{}, err
	}
	var d Dashboard
	for _, t := range trends {
		switch {
		case t.Subnet.UID != "":
			if !t.IPv6 {
				d.Subnets++
			}
		case t.IPv6:
			// The VPC's IPv6 prefix in /64s, which stands for its pool.
		default:
			d.Pools++
			if t.Pool.Family() == IPv6 {
				d.IPv6Pools++
			}
			if t.Usage.Unit == "" {
				d.Allocations += t.Usage.Used
			}
			if t.Pool.Kind == Private {
				if t.Pool.Family() == IPv6 {
					continue
				}
				// Every VPC has one private IPv4 pool, and whoever sees
				// the one sees the other.
				d.VPCs++
			}
		}
		d.Trends = append(d.Trends, t)
	}
	slices.SortStableFunc(d.Trends, func(a, b UsageTrend) int {
		return forecast.CompareUrgency(a.Forecast, a.Usage.Utilization(), b.Forecast, b.Usage.Utilization())
	})
	if histories < 0 || histories > len(d.Trends) {
		histories = len(d.Trends)
	}
	uids := make([]string, histories)
	for i, t := range d.Trends[:histories] {
		uids[i] = t.HistoryUID()
	}
	weeks, err := store.UsageHistories(ctx, s.db, uids, usage.Hour, now.Add(-usage.ForecastWindow))
	if err != nil {
		return Dashboard{}, err
	}
	for i := range d.Trends[:histories] {
		d.Trends[i].History = weeks[d.Trends[i].HistoryUID()]
	}
	var namespaces []string
	if !actor.IsOperator() {
		namespaces = s.actorNamespaces(ctx, actor)
	}
	midnight := now.UTC().Truncate(24 * time.Hour)
	if d.ChangesToday, err = store.CountAuditEntries(ctx, s.db, namespaces, midnight, MaxChangesCounted); err != nil {
		return Dashboard{}, err
	}
	rows, err := store.RecentAuditEntries(ctx, s.db, namespaces, recentChanges)
	if err != nil {
		return Dashboard{}, err
	}
	d.Recent = auditEntries(rows)
	return d, nil
}

// UsageTrends returns the trend of every pool and subnet of Usages as of
// now, in Usages' order: its forecast, from the sums of its last week of
// hours (usageFits: read at most every 15 minutes, a row per object, and
// shifted to now) and its usage now, without the history itself.
func (s *Service) UsageTrends(ctx context.Context, actor auth.Actor, now time.Time) ([]UsageTrend, error) {
	usages, err := s.Usages(ctx, actor)
	if err != nil {
		return nil, err
	}
	fits, err := s.fits.read(ctx, s.db, now)
	if err != nil {
		return nil, err
	}
	trends := make([]UsageTrend, len(usages))
	for i, u := range usages {
		sums := fits.of(u.HistoryUID(), now)
		current := forecast.Point{At: now, Used: u.Usage.Used, Size: u.Usage.Size}
		sums.Add(current, now)
		trends[i] = UsageTrend{ObjectUsage: u, Forecast: forecast.OfSums(sums, current)}
	}
	return trends, nil
}

// usageFits holds every object's sums of its last week of hours, read
// after each of this process's writes of the history (so that no request
// waits for them in ipam serve), or by a request when older than
// usage.RecordEvery: a dashboard of a thousand subnets reads nothing of
// the history, its forecasts a thousand sums shifted to now.
type usageFits struct {
	mu sync.Mutex
	// at is when the sums were read, x counted in days before it.
	at   time.Time
	sums map[string]store.UsageFit
}

// fitted is a reading of the sums.
type fitted struct {
	at   time.Time
	sums map[string]store.UsageFit
}

// read returns the sums, read afresh when older than usage.RecordEvery.
func (c *usageFits) read(ctx context.Context, db *store.DB, now time.Time) (fitted, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sums != nil && now.Sub(c.at) < usage.RecordEvery && !now.Before(c.at) {
		return fitted{c.at, c.sums}, nil
	}
	return c.refreshLocked(ctx, db, now)
}

// refresh reads the sums afresh as of now: the history was just written.
func (c *usageFits) refresh(ctx context.Context, db *store.DB, now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.refreshLocked(ctx, db, now)
	return err
}

// forget makes the next read read the sums afresh: the history was
// written outside the record loop (ImportUsageHistory).
func (c *usageFits) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sums = nil
}

// refreshLocked reads the sums as of now, c.mu held.
func (c *usageFits) refreshLocked(ctx context.Context, db *store.DB, now time.Time) (fitted, error) {
	sums, err := store.UsageFits(ctx, db, now.Add(-usage.ForecastWindow), now)
	if err != nil {
		return fitted{}, err
	}
	c.at, c.sums = now, sums
	return fitted{now, sums}, nil
}

// of returns the sums of uid with x counted before now. The hours summed
// are those of the week before the reading, at most usage.RecordEvery
// older than the week before now.
func (f fitted) of(uid string, now time.Time) forecast.Sums {
	u, ok := f.sums[uid]
	if !ok {
		return forecast.Sums{}
	}
	return forecast.Sums{N: u.N, X: u.X, Y: u.Y, XX: u.XX, XY: u.XY, First: u.First}.Shift(now.Sub(f.at).Hours() / 24)
}

// actorNamespaces lists the namespaces of a tenant's changes: those of its
// VPCs and floating IPs, and those its patterns name exactly.
func (s *Service) actorNamespaces(ctx context.Context, actor auth.Actor) []string {
	out := s.ownerNamespaces(ctx, actor)
	for _, p := range actor.Namespaces {
		if !strings.HasSuffix(p, "/*") {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
