package ipam

import (
	"context"
	"log/slog"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/forecast"
	"pivirt.hu/ipam/internal/store"
)

// An ObjectUsage is the usage of a pool (Subnet's UID empty) or of a
// subnet of a VPC's pool; VPC names the VPC of a private pool and of a
// subnet.
type ObjectUsage struct {
	Pool   Pool
	Subnet Subnet
	VPC    string
	Usage  Usage
}

// Usages returns the usage of every pool and subnet the actor may read,
// from this process's views (see PoolUsage): each pool, then its subnets.
func (s *Service) Usages(ctx context.Context, actor auth.Actor) ([]ObjectUsage, error) {
	pools, err := s.PoolSummaries(ctx, actor)
	if err != nil {
		return nil, err
	}
	vpcs, err := s.VPCSummaries(ctx, actor, "")
	if err != nil {
		return nil, err
	}
	byUID := map[string]VPCSummary{}
	for _, v := range vpcs {
		byUID[v.VPC.UID] = v
	}
	var out []ObjectUsage
	for _, p := range pools {
		vpc := byUID[p.Pool.VPCUID]
		out = append(out, ObjectUsage{Pool: p.Pool, VPC: vpc.VPC.Name, Usage: p.Usage})
		if p.Pool.VPCUID == "" {
			continue
		}
		for _, sub := range vpc.Subnets {
			u, err := s.SubnetUsage(ctx, actor, sub)
			if err != nil {
				return nil, err
			}
			out = append(out, ObjectUsage{Pool: p.Pool, Subnet: sub, VPC: vpc.VPC.Name, Usage: u})
		}
	}
	return out, nil
}

// RecordUsage writes the usage of every pool and subnet into the history
// (store.RecordUsage) as of now: one row an hour and one a day per object,
// whatever the number of writes and of processes; and counts their claims
// and releases in the hours from since's (the previous write; zero: now's
// hour alone) to now's, and in those of the claims and releases committed
// since the last count (store.CountChanges); then reads the forecasts'
// sums afresh (usageFits).
func (s *Service) RecordUsage(ctx context.Context, now, since time.Time) error {
	usages, err := s.Usages(ctx, auth.System)
	if err != nil {
		return err
	}
	records := make([]store.UsageRecord, len(usages))
	for i, u := range usages {
		records[i] = store.UsageRecord{ObjectUID: u.Pool.UID, ObjectKind: "pool", Used: int64(u.Usage.Used), Size: int64(u.Usage.Size)}
		if u.Subnet.UID != "" {
			records[i].ObjectUID, records[i].ObjectKind = u.Subnet.UID, "subnet"
		}
	}
	if err := store.RecordUsage(ctx, s.db, records, now, since); err != nil {
		return err
	}
	return s.fits.refresh(ctx, s.db, now)
}

// How often ipam serve writes the usage history, and prunes it.
const (
	RecordUsageEvery = 15 * time.Minute
	PruneUsageEvery  = 24 * time.Hour
)

// A HistoryWriter writes a usage history for WriteHistory: What names it
// in the log, Record writes the rows of now and counts the changes since
// a time, Prune drops what is past its keeping.
type HistoryWriter struct {
	What   string
	Record func(ctx context.Context, now, since time.Time) error
	Prune  func(ctx context.Context, now time.Time) error
}

// WriteHistory runs w at once and every RecordUsageEvery, and prunes
// every PruneUsageEvery, until ctx ends (pools' and subnets' history here,
// divisions' in internal/numbers). Failures are logged: the next write
// fills the hour. The first write counts the changes of the hour before
// too, which the last write of a process that stopped may have left short.
func WriteHistory(ctx context.Context, log *slog.Logger, w HistoryWriter) {
	var pruned time.Time
	written := time.Now().Add(-time.Hour)
	t := time.NewTicker(RecordUsageEvery)
	defer t.Stop()
	for {
		now := time.Now()
		if err := w.Record(ctx, now, written); err != nil && ctx.Err() == nil {
			log.Warn("Recording "+w.What+" failed; the next round, in 15 minutes, writes the hour", "err", err)
		} else {
			written = now
		}
		if now.Sub(pruned) >= PruneUsageEvery {
			if err := w.Prune(ctx, now); err != nil && ctx.Err() == nil {
				log.Warn("Pruning "+w.What+" failed; the next round tries again", "err", err)
			} else {
				pruned = now
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// A UsagePoint is the usage of a pool or subnet in an hour or a day (the
// last written in it), and the claims and releases made in it.
type UsagePoint struct {
	At               time.Time
	Used, Size       int64
	Claims, Releases int64
}

// The steps of the usage history.
const (
	HistoryHour = "hour"
	HistoryDay  = "day"
)

// readableUsage refuses the history of an object of namespace (a
// tenant's; "" for a public pool, which every actor reads) to an actor
// who may not see it.
func readableUsage(actor auth.Actor, namespace, uid string) error {
	if namespace != "" && !actor.CanAccess(namespace) {
		return notFound("pool or subnet", namespace, uid)
	}
	return nil
}

// UsageHistory returns the history of the pool or subnet uid, of namespace
// ("" for a public pool), at step (HistoryHour or HistoryDay) since since,
// oldest first.
func (s *Service) UsageHistory(ctx context.Context, actor auth.Actor, namespace, uid, step string, since time.Time) ([]UsagePoint, error) {
	if err := readableUsage(actor, namespace, uid); err != nil {
		return nil, err
	}
	rows, err := store.UsageHistory(ctx, s.db, uid, step, since)
	if err != nil {
		return nil, err
	}
	return usagePoints(rows), nil
}

// usagePoints converts the store's rows of the history.
func usagePoints(rows []store.UsagePoint) []UsagePoint {
	points := make([]UsagePoint, len(rows))
	for i, r := range rows {
		points[i] = UsagePoint{At: r.At, Used: r.Used, Size: r.Size, Claims: r.Claims, Releases: r.Releases}
	}
	return points
}

// ForecastWindow is the span of history a forecast rests on: the last 7
// days.
const ForecastWindow = 7 * 24 * time.Hour

// UsageForecast says when the pool or subnet uid of namespace (as for
// UsageHistory), whose usage is now current, will be full at the rate of
// its last 7 days of hourly history (internal/forecast,
// docs/operations.md).
func (s *Service) UsageForecast(ctx context.Context, actor auth.Actor, namespace, uid string, current Usage, now time.Time) (forecast.Forecast, error) {
	if err := readableUsage(actor, namespace, uid); err != nil {
		return forecast.Forecast{}, err
	}
	history, err := s.UsageHistory(ctx, actor, namespace, uid, HistoryHour, now.Add(-ForecastWindow))
	if err != nil {
		return forecast.Forecast{}, err
	}
	return ForecastOf(history, current, now), nil
}

// A UsageChart is what a page draws of a pool's or a subnet's usage over
// a span ending now: the usage (a point an hour, or a day over more than
// the hours kept), the claims and releases of each day, the usage now and
// the forecast.
type UsageChart struct {
	Span time.Duration
	// Step is the step of Points: HistoryHour or HistoryDay.
	Step     string
	Points   []UsagePoint
	Days     []UsagePoint
	Now      time.Time
	Current  Usage
	Forecast forecast.Forecast
}

// UsageChart returns the chart of the pool or subnet uid of namespace (as
// for UsageHistory), whose usage is now current, over span: three range
// reads of the object's rows (ChartOf).
func (s *Service) UsageChart(ctx context.Context, actor auth.Actor, namespace, uid string, current Usage, span time.Duration, now time.Time) (UsageChart, error) {
	return ChartOf(span, now, current, func(step string, since time.Time) ([]UsagePoint, error) {
		return s.UsageHistory(ctx, actor, namespace, uid, step, since)
	})
}

// ChartOf builds the chart over span ending now of an object (a pool, a
// subnet, a number pool's division) whose usage is now current and whose
// history read returns at a step since a time: hours over a span the hours
// are kept for, else days; the days' claims and releases; the forecast of
// the last 7 days' hours (ForecastOf).
func ChartOf(span time.Duration, now time.Time, current Usage, read func(step string, since time.Time) ([]UsagePoint, error)) (UsageChart, error) {
	c := UsageChart{Span: span, Step: HistoryHour, Now: now, Current: current}
	if span > store.HourlyUsageKept-24*time.Hour {
		c.Step = HistoryDay
	}
	var err error
	since := now.Add(-span)
	if c.Points, err = read(c.Step, since); err != nil {
		return UsageChart{}, err
	}
	if c.Days, err = read(HistoryDay, since.Truncate(24*time.Hour)); err != nil {
		return UsageChart{}, err
	}
	week, err := read(HistoryHour, now.Add(-ForecastWindow))
	if err != nil {
		return UsageChart{}, err
	}
	c.Forecast = ForecastOf(week, current, now)
	return c, nil
}

// ImportUsageHistory writes points as the history of the pool or subnet
// of o (store.ImportUsage): a history kept elsewhere before, or the demo's.
// The next forecast reads the history's sums afresh. Operators only.
func (s *Service) ImportUsageHistory(ctx context.Context, actor auth.Actor, o ObjectUsage, points []UsagePoint) error {
	if !actor.IsOperator() {
		return forbidden("%s may not write the usage history", actor.Name)
	}
	rows := make([]store.UsagePoint, len(points))
	for i, p := range points {
		rows[i] = store.UsagePoint{At: p.At, Used: p.Used, Size: p.Size, Claims: p.Claims, Releases: p.Releases}
	}
	kind := "pool"
	if o.Subnet.UID != "" {
		kind = "subnet"
	}
	if err := store.ImportUsage(ctx, s.db, o.uid(), kind, rows); err != nil {
		return err
	}
	s.fits.forget()
	return nil
}
