package numbers

import (
	"cmp"
	"context"
	"slices"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/forecast"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/store"
)

// The usage history of the pools' divisions (docs/operations.md):
// kept beside the history of IP pools and subnets in usage_history, one row
// an hour and one a day per division, written from number_division_usage
// once the pools' marks are folded, outside any claim.

// RecordUsage writes the usage of every division of every pool into the
// history as of now: the pools' marks folded first (fold), so that each
// division's figures are exact as of the fold, then one statement for all
// the divisions (store.RecordDivisionUsage): one row an hour and one a day
// per division, whatever the number of writes and of processes. It counts
// the numbers claimed from the pools and released in the hours from
// since's (the previous write; zero: now's hour alone) to now's.
func (s *Service) RecordUsage(ctx context.Context, now, since time.Time) error {
	if err := s.foldAll(ctx); err != nil {
		return err
	}
	return store.RecordDivisionUsage(ctx, s.db, now, since)
}

// Input names d as the methods that take a division do (Utilization,
// DivisionHistory, DivisionForecast): its entries' paths and values.
func (d Division) Input() []EntryInput {
	out := make([]EntryInput, len(d.Entries))
	for i, e := range d.Entries {
		out[i] = EntryInput{Path: e.Path, Value: e.Value}
	}
	return out
}

// DivisionHistory returns the usage history of one division of the pool
// id (given as for Utilization: a value for every scope element, none on
// a pool without a scope) at step (ipam.HistoryHour or ipam.HistoryDay)
// since since, oldest first: used the numbers of the ranges it holds, size
// the numbers in the ranges, claims and releases those allocated from the
// pool and released in the hour or day. Operators only, as every query of
// pools: tenants get ErrNotFound.
func (s *Service) DivisionHistory(ctx context.Context, actor auth.Actor, poolID string, division []EntryInput, step string, since time.Time) ([]ipam.UsagePoint, error) {
	row, key, err := s.divisionOf(ctx, actor, poolID, division)
	if err != nil {
		return nil, err
	}
	if step != ipam.HistoryHour && step != ipam.HistoryDay {
		return nil, invalid("step", "step must be %s or %s, not %q", ipam.HistoryHour, ipam.HistoryDay, step)
	}
	rows, err := store.DivisionHistory(ctx, s.db, row.ID, key, step, since)
	if err != nil {
		return nil, err
	}
	points := make([]ipam.UsagePoint, len(rows))
	for i, r := range rows {
		points[i] = ipam.UsagePoint{At: r.At, Used: r.Used, Size: r.Size, Claims: r.Claims, Releases: r.Releases}
	}
	return points, nil
}

// DivisionForecast says when one division of the pool id (as for
// DivisionHistory), whose figures are now current, will be full at the
// rate of its last 7 days of hourly history (internal/forecast,
// docs/operations.md), as ipam.Service.UsageForecast says it of IP pools.
func (s *Service) DivisionForecast(ctx context.Context, actor auth.Actor, poolID string, division []EntryInput, current Figures, now time.Time) (forecast.Forecast, error) {
	history, err := s.DivisionHistory(ctx, actor, poolID, division, ipam.HistoryHour, now.Add(-ipam.ForecastWindow))
	if err != nil {
		return forecast.Forecast{}, err
	}
	return ipam.ForecastOf(history, ipam.Usage{Used: int(current.Used), Size: int(current.Size), Free: int(current.Size - current.Used)}, now), nil
}

// A BusiestDivision is a division of a pool among the most used of all
// pools: Division.Input() names it to DivisionHistory and
// DivisionForecast.
type BusiestDivision struct {
	Pool Pool
	// Division is the division with its entries, display label and
	// figures, as Divisions lists it.
	Division Division
}

// BusiestDivisions returns the most used divisions of all the pools, by
// utilization, then numbers used, most first (ties by pool name, then
// division), at most limit (branch.MaxPage when 0): a pool's divisions by
// its most used; a division that holds numbers outside the ranges alone
// has a utilization of 0. The pools' marks are folded first, so that the
// figures are exact; each pool's divisions are read through its index of
// usage, limit of them at most. Tenants see none, as for Pools.
func (s *Service) BusiestDivisions(ctx context.Context, actor auth.Actor, limit int) ([]BusiestDivision, error) {
	if !actor.IsOperator() {
		return nil, nil
	}
	limit, err := page(limit, 0)
	if err != nil {
		return nil, err
	}
	if err := s.foldAll(ctx); err != nil {
		return nil, err
	}
	rows, _, err := store.NumberPools(ctx, s.db, store.NumberPoolFilter{})
	if err != nil {
		return nil, err
	}
	pools := make(map[string]store.NumberPoolRow, len(rows))
	sizes := make(map[string]int64, len(rows))
	for _, r := range rows {
		st, err := newPoolState(r)
		if err != nil {
			return nil, err
		}
		pools[r.ID], sizes[r.ID] = r, st.space.Size()
	}
	busy, err := store.BusiestDivisions(ctx, s.db, limit)
	if err != nil {
		return nil, err
	}
	type ranked struct {
		store.PoolDivisionUsage
		figures Figures
	}
	var all []ranked
	for _, b := range busy {
		if _, ok := pools[b.Pool]; ok { // else created after the pools were read
			all = append(all, ranked{b, figuresOf(sizes[b.Pool], b.Used)})
		}
	}
	slices.SortFunc(all, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(b.figures.Utilization, a.figures.Utilization), cmp.Compare(b.figures.Used, a.figures.Used),
			cmp.Compare(pools[a.Pool].Name, pools[b.Pool].Name), cmp.Compare(string(a.Division), string(b.Division)))
	})
	all = all[:min(len(all), limit)]
	main, err := s.branches.Schema(ctx, branch.Main)
	if err != nil {
		return nil, err
	}
	labelers := map[string]*labeler{}
	for _, b := range all {
		l, ok := labelers[b.Pool]
		if !ok {
			l = s.newLabeler(ctx, actor, main, pools[b.Pool])
			labelers[b.Pool] = l
		}
		l.want(b.Division)
	}
	for _, l := range labelers {
		if err := l.resolve(); err != nil {
			return nil, err
		}
	}
	out := make([]BusiestDivision, len(all))
	for i, b := range all {
		out[i] = BusiestDivision{Pool: poolOf(main, pools[b.Pool]), Division: labelers[b.Pool].division(b.Division)}
		out[i].Division.Figures = b.figures
	}
	return out, nil
}
