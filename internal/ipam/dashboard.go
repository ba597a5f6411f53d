package ipam

import (
	"context"
	"slices"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/forecast"
	"pivirt.hu/ipam/internal/store"
)

// A UsageTrend is a pool's or a subnet's usage with its last week: the
// hourly history, and the forecast made from it.
type UsageTrend struct {
	ObjectUsage
	// VPC names the VPC of a private pool or a subnet.
	VPC      string
	History  []UsagePoint
	Forecast forecast.Forecast
}

// Utilization is the trend's usage in percent.
func (t UsageTrend) Utilization() float64 { return t.Usage.Utilization() }

// A Dashboard is what an operator or a tenant sees first: every pool and
// subnet they may see, closest to exhaustion first, the counts of what
// there is and the last changes.
type Dashboard struct {
	Trends []UsageTrend
	// Pools, VPCs and Subnets count what the actor sees; Allocations the
	// addresses held in those pools.
	Pools, VPCs, Subnets, Allocations int
	// ChangesToday counts the changes since midnight (UTC), up to
	// MaxChangesCounted.
	ChangesToday int
	Recent       []AuditEntry
}

// MaxChangesCounted is the most changes of a day the dashboard counts.
const MaxChangesCounted = 100_000

// recentChanges is how many changes the dashboard lists.
const recentChanges = 10

// Dashboard returns the dashboard of the actor as of now: the pools and
// subnets of Usages (an operator's every one; a tenant's VPCs, as their
// private pools, and subnets) with their last 7 days, ordered by
// forecast.CompareUrgency; the changes of the actor's namespaces (every
// one for an operator). A handful of statements, whatever the number of
// pools: the histories are read in one.
func (s *Service) Dashboard(ctx context.Context, actor auth.Actor, now time.Time) (Dashboard, error) {
	trends, vpcs, err := s.usageTrends(ctx, actor, now)
	if err != nil {
		return Dashboard{}, err
	}
	d := Dashboard{Trends: trends, VPCs: vpcs}
	for _, t := range trends {
		if t.Subnet.UID != "" {
			d.Subnets++
		} else {
			d.Pools++
			d.Allocations += t.Usage.Used
		}
	}
	slices.SortStableFunc(d.Trends, func(a, b UsageTrend) int {
		return forecast.CompareUrgency(a.Forecast, a.Utilization(), b.Forecast, b.Utilization())
	})
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
// now, in Usages' order: its last 7 days of hours (read in one statement)
// and its forecast.
func (s *Service) UsageTrends(ctx context.Context, actor auth.Actor, now time.Time) ([]UsageTrend, error) {
	trends, _, err := s.usageTrends(ctx, actor, now)
	return trends, err
}

// usageTrends is UsageTrends, with the number of the actor's VPCs.
func (s *Service) usageTrends(ctx context.Context, actor auth.Actor, now time.Time) ([]UsageTrend, int, error) {
	usages, err := s.Usages(ctx, actor)
	if err != nil {
		return nil, 0, err
	}
	vpcs, err := s.VPCSummaries(ctx, actor, "")
	if err != nil {
		return nil, 0, err
	}
	vpcNames := make(map[string]string, len(vpcs))
	for _, v := range vpcs {
		vpcNames[v.VPC.UID] = v.VPC.Name
	}
	uids := make([]string, len(usages))
	for i, u := range usages {
		uids[i] = u.uid()
	}
	histories, err := store.UsageHistories(ctx, s.db, uids, HistoryHour, now.Add(-ForecastWindow))
	if err != nil {
		return nil, 0, err
	}
	trends := make([]UsageTrend, len(usages))
	for i, u := range usages {
		trends[i] = UsageTrend{ObjectUsage: u, VPC: vpcNames[u.Pool.VPCUID], History: usagePoints(histories[u.uid()])}
		trends[i].Forecast = ForecastOf(trends[i].History, u.Usage, now)
	}
	return trends, len(vpcs), nil
}

// uid is the history's name of the usage: its subnet's, or its pool's.
func (u ObjectUsage) uid() string {
	if u.Subnet.UID != "" {
		return u.Subnet.UID
	}
	return u.Pool.UID
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

// ForecastOf is the forecast of a history of hours and the usage now
// (internal/forecast, over the last 7 days): of a pool, a subnet or a
// number pool's division.
func ForecastOf(history []UsagePoint, current Usage, now time.Time) forecast.Forecast {
	points := make([]forecast.Point, 0, len(history)+1)
	for _, r := range history {
		points = append(points, forecast.Point{At: r.At, Used: int(r.Used), Size: int(r.Size)})
	}
	points = append(points, forecast.Point{At: now, Used: current.Used, Size: current.Size})
	return forecast.Of(points, ForecastWindow)
}
