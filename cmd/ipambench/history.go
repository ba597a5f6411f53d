package main

import (
	"context"
	"fmt"
	"time"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/store"
)

// historyEvery is how often the history is written during the
// measurement: 900 times as often as ipam serve writes it (every 15
// minutes), so that every slice of claims meets writes.
const historyEvery = time.Second

// historyResult is the measurement of 16 clients' claims while the
// usage history is written.
type historyResult struct {
	conc16, floor figure
	ratio         float64 // median of the runs' claims/s over the floor's
	lowest        bool
	duplicates    int
	writes        int
	// write is the writes' p50 and their longest, in ms.
	write figure
	// rows of the history after the runs, of objects over hours: one an
	// hour and one a day per object at most, whatever the claims.
	rows, objects, hours int
}

// historyUnderClaims measures 16 clients' claims, alternating with the
// floor as the 16-client measurement does, while a goroutine writes the
// usage history (ipam.Service.RecordUsage: every pool's and subnet's row
// of the hour and the day, and the claims counted from the audit log)
// every historyEvery: claims stay within the targets of docs/benchmarks.md
// while the history is written.
func historyUnderClaims(ctx context.Context, cfg config, svc *ipam.Service, db *store.DB) (historyResult, error) {
	var res historyResult
	wctx, stop := context.WithCancel(ctx)
	werr := make(chan error, 1)
	go func() {
		var last time.Time
		var took run
		defer func() { res.write = figureOf([]run{took}) }()
		t := time.NewTicker(historyEvery)
		defer t.Stop()
		for {
			now := time.Now()
			if err := svc.RecordUsage(wctx, now, last); err != nil {
				if wctx.Err() != nil {
					err = nil
				}
				werr <- err
				return
			}
			took.lat, took.ops = append(took.lat, time.Since(now)), took.ops+1
			res.writes++
			last = now
			select {
			case <-wctx.Done():
				werr <- nil
				return
			case <-t.C:
			}
		}
	}()
	m, err := measure16(ctx, cfg, svc, db, "history", v4Subnets(ctx, svc))
	stop()
	if err := <-werr; err != nil {
		return res, fmt.Errorf("writing the history: %w", err)
	}
	if err != nil {
		return res, err
	}
	res.conc16, res.floor, res.ratio = figureOf(m.runs), figureOf(m.floors), median(m.ratios)
	res.lowest, res.duplicates = m.lowest, m.duplicates
	err = db.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT object_uid), count(DISTINCT at) FILTER (WHERE step = 'hour') FROM usage_history`).
		Scan(&res.rows, &res.objects, &res.hours)
	progress("  %d writes of the history during the runs (p50 %s, longest %s); %d rows of %d objects over %d hours", res.writes, msf(res.write.P50), msf(res.write.Max), res.rows, res.objects, res.hours)
	return res, err
}

// rowsBounded reports whether the history holds one row an hour and one a
// day per object at most (a day for each hour, at worst).
func (h historyResult) rowsBounded() bool { return h.rows <= 2*h.objects*h.hours }
