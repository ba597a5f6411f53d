package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/pgbouncer"
	"pivirt.hu/ipam/internal/store"
)

// pgbouncerResult is 16 clients' claims through PgBouncer in transaction
// mode against the same claims straight to PostgreSQL, alternating.
type pgbouncerResult struct {
	pooled, direct figure
	// ratio is the median of the runs' throughput ratios, pooled to direct.
	ratio      float64
	lowest     bool
	duplicates int
}

// throughPgBouncer starts Debian's PgBouncer (transaction mode, 20 server
// connections) in front of the bench's server, opens a second service
// through it (store.OpenPooled; notifications straight from the server)
// and measures 16 clients claiming through it, alternating with 16 clients
// claiming through the bench's own service, each on a fresh subnet a run.
func throughPgBouncer(ctx context.Context, cfg config, dsn string, svc *ipam.Service, db *store.DB) (pgbouncerResult, error) {
	out := pgbouncerResult{lowest: true}
	pc, err := store.ParseURL(dsn)
	if err != nil {
		return out, err
	}
	dir, err := os.MkdirTemp("/var/tmp", "ipambench-pgbouncer-")
	if err != nil {
		return out, err
	}
	defer os.RemoveAll(dir)
	b, err := pgbouncer.Start(ctx, pgbouncer.Options{Dir: dir, Host: pc.Host, Port: int(pc.Port), User: pc.User, Password: pc.Password})
	if err != nil {
		return out, err
	}
	defer b.Stop()
	pooledDB, err := store.OpenPooled(ctx, b.URL(pc.Database))
	if err != nil {
		return out, err
	}
	defer pooledDB.Close()
	pooledSvc, err := ipam.New(ctx, ipam.Config{DB: pooledDB, URL: dsn, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return out, err
	}
	defer pooledSvc.Close()

	var pooledRuns, directRuns []run
	var ratios []float64
	for r := range cfg.runs {
		var subnets [2]subnet
		var ledgers [2]*ledger
		var claims [2]func() (time.Duration, error)
		for i, s := range []*ipam.Service{pooledSvc, svc} {
			sub, err := createSubnet(ctx, svc, fmt.Sprintf("bench/pgbouncer-%d-%d", r, i))
			if err != nil {
				return out, err
			}
			subnets[i], ledgers[i] = sub, newLedger()
			var k atomic.Int64
			claims[i] = func() (time.Duration, error) {
				id := fmt.Sprintf("c-%d", k.Add(1))
				a, d, err := sub.attach(ctx, s, id)
				if err == nil {
					ledgers[i].add(id, a)
				}
				return d, err
			}
			if _, err := claims[i](); err != nil {
				return out, err
			}
		}
		pr, dr, err := alternate(cfg.concN, 16, 4, claims[0], claims[1])
		if err != nil {
			return out, err
		}
		pooledRuns, directRuns = append(pooledRuns, pr), append(directRuns, dr)
		ratios = append(ratios, ratio(pr.stats().perSec, dr.stats().perSec))
		for i, sub := range subnets {
			ok, err := lowest(ctx, db, sub, cfg.concN+1)
			if err != nil {
				return out, err
			}
			dup, err := ledgers[i].duplicates(ctx, db, sub)
			if err != nil {
				return out, err
			}
			out.lowest, out.duplicates = out.lowest && ok, out.duplicates+dup
		}
		progress("  run %d: %.0f claims/s through PgBouncer, %.0f direct, alternating; ratio %.2f", r+1, pr.stats().perSec, dr.stats().perSec, ratios[r])
	}
	out.pooled, out.direct, out.ratio = figureOf(pooledRuns), figureOf(directRuns), median(ratios)
	return out, nil
}
