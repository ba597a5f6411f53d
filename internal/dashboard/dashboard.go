// Package dashboard composes what an operator or a tenant sees first from
// both halves of the domain: the IP pools', VPCs' and subnets' usage
// (ipam.Service.Dashboard) and the number pools' busiest divisions
// (numbers.Service.BusiestDivisions), in one list closest to exhaustion
// first, with the counts of what there is and the last changes.
package dashboard

import (
	"context"
	"slices"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/forecast"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/usage"
)

// Service reads the dashboard from both halves.
type Service struct {
	ipam    *ipam.Service
	numbers *numbers.Service
}

// New returns the dashboard over the IP half and the number pools.
func New(ip *ipam.Service, nums *numbers.Service) *Service {
	return &Service{ipam: ip, numbers: nums}
}

// A Row is the usage of a pool, a VPC, a subnet or a number pool's
// division, with its last week of hours ending with its usage now, and
// its forecast.
type Row struct {
	// Trend is an IP pool's, a VPC's (its private pool's, or its IPv6
	// prefix's in /64s) or a subnet's (of either family); nil for a
	// division.
	Trend *ipam.UsageTrend
	// Division is a number pool's division; nil for the others.
	Division *numbers.BusiestDivision
	// Usage is the row's figures now, exact at 128 bits.
	Usage usage.Figures
	// History is the last week of hours, ending with the usage now; of
	// the rows past those asked for (Dashboard's shown), the usage now
	// alone.
	History  []usage.Point
	Forecast forecast.Forecast
}

// A Dashboard is what an operator or a tenant sees first.
type Dashboard struct {
	// Rows are every pool, VPC and subnet the actor sees, and for an
	// operator the busiest divisions of the number pools, ordered by
	// forecast.CompareUrgency; Shown is how many of them to list.
	Rows  []Row
	Shown int
	// Pools, IPv6Pools, VPCs, Subnets and Allocations count what
	// ipam.Dashboard counts; NumberPools the number pools (none for
	// tenants).
	Pools, IPv6Pools, NumberPools, VPCs, Subnets, Allocations int
	// ChangesToday counts the changes since midnight (UTC), up to
	// ipam.MaxChangesCounted.
	ChangesToday int
	Recent       []ipam.AuditEntry
}

// Dashboard returns the dashboard of the actor as of now, its first shown
// rows (all when negative) with their last week. A handful of statements
// for the IP half whatever its number of pools (ipam.Service.Dashboard);
// for an operator (tenants see no number pool), a statement that counts
// the number pools and, when there are some, those of their busiest divisions (at most shown, or
// numbers.BusiestDivisions' bound when all) and one per division for its
// week.
func (s *Service) Dashboard(ctx context.Context, actor auth.Actor, now time.Time, shown int) (Dashboard, error) {
	ip, err := s.ipam.Dashboard(ctx, actor, now, shown)
	if err != nil {
		return Dashboard{}, err
	}
	d := Dashboard{Pools: ip.Pools, IPv6Pools: ip.IPv6Pools, VPCs: ip.VPCs, Subnets: ip.Subnets, Allocations: ip.Allocations, ChangesToday: ip.ChangesToday, Recent: ip.Recent}
	for i := range ip.Trends {
		t := &ip.Trends[i]
		d.Rows = append(d.Rows, Row{Trend: t, Usage: t.Usage, Forecast: t.Forecast,
			History: append(t.History, usage.PointOf(now, t.Usage))})
	}
	pools, err := s.numbers.Pools(ctx, actor, numbers.PoolFilter{}, 1, 0)
	if err != nil {
		return Dashboard{}, err
	}
	if d.NumberPools = pools.Count; d.NumberPools > 0 {
		divisions, err := s.busiestDivisions(ctx, actor, now, max(shown, 0))
		if err != nil {
			return Dashboard{}, err
		}
		d.Rows = append(d.Rows, divisions...)
	}
	slices.SortStableFunc(d.Rows, func(a, b Row) int {
		return forecast.CompareUrgency(a.Forecast, a.Usage.Utilization(), b.Forecast, b.Usage.Utilization())
	})
	d.Shown = len(d.Rows)
	if shown >= 0 {
		d.Shown = min(d.Shown, shown)
	}
	return d, nil
}

// busiestDivisions are the rows of the number pools' busiest divisions,
// at most limit (0: numbers.Service.BusiestDivisions' bound), each with
// its last week and its forecast.
func (s *Service) busiestDivisions(ctx context.Context, actor auth.Actor, now time.Time, limit int) ([]Row, error) {
	busy, err := s.numbers.BusiestDivisions(ctx, actor, limit)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, len(busy))
	for i := range busy {
		b := &busy[i]
		history, err := s.numbers.DivisionHistory(ctx, actor, b.Pool.ID, b.Division.Input(), usage.Hour, now.Add(-usage.ForecastWindow))
		if err != nil {
			return nil, err
		}
		f := b.Division.Figures
		current := usage.Figures{Used: int(f.Used), Size: int(f.Size), Free: int(f.Size - f.Used)}
		rows[i] = Row{Division: b, Usage: current, Forecast: usage.ForecastOf(history, current, now),
			History: append(history, usage.PointOf(now, current))}
	}
	return rows, nil
}
