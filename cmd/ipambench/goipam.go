package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	goipam "github.com/metal-stack/go-ipam"

	"pivirt.hu/ipam/internal/store"
)

// The peer: github.com/metal-stack/go-ipam v1.14.14 with its PostgreSQL
// storage, used as its README shows, on the same server and database.

// goipamStorage opens go-ipam's PostgreSQL storage on dsn, a lib/pq URL
// such as pgembed's (whose host is a unix socket folder, given as a query
// parameter): go-ipam builds its own URL from host, port, user, password,
// database and an SSL mode, so the remaining parameters ride on the SSL
// mode's, which it appends after "?".
func goipamStorage(dsn string) (goipam.Storage, error) {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return nil, fmt.Errorf("go-ipam needs a postgres:// URL, not %s", store.RedactURL(dsn))
	}
	q := u.Query()
	sslmode := q.Get("sslmode")
	if sslmode == "" {
		sslmode = "prefer"
	}
	q.Del("sslmode")
	mode := sslmode
	if len(q) > 0 {
		mode += "&" + q.Encode()
	}
	password, _ := u.User.Password()
	return goipam.NewPostgresStorage(u.Hostname(), u.Port(), u.User.Username(), password, strings.TrimPrefix(u.Path, "/"), goipam.SSLMode(mode))
}

type goipamResult struct {
	taken                    int // the addresses taken before seq20k (20 000; config.goipamTaken)
	seqEmpty, seq20k, conc16 figure
	errors, stalls           int // over every 16-client run
	inFlight                 int // claims still running when a 16-client run ended
	maxStall                 time.Duration
	duplicates               int
}

// stallAfter is how long a claim may take before it counts as stalled.
const stallAfter = time.Second

func goipamSequential(ctx context.Context, cfg config, st goipam.Storage, out *goipamResult) error {
	ip := goipam.NewWithStorage(st)
	// On an empty /16: a namespace (a table of its own) and a prefix for
	// each run.
	var runs []run
	for r := range cfg.runs {
		ns := fmt.Sprintf("seq%d", r)
		if err := ip.CreateNamespace(ctx, ns); err != nil {
			return err
		}
		nctx := goipam.NewContextWithNamespace(ctx, ns)
		p, err := ip.NewPrefix(nctx, "10.42.0.0/16")
		if err != nil {
			return err
		}
		seen := map[netip.Addr]bool{}
		rr, err := concurrently(cfg.goipamSeqN, 1, func() (time.Duration, error) {
			start := time.Now()
			a, err := ip.AcquireIP(nctx, p.Cidr)
			d := time.Since(start)
			if err == nil {
				if seen[a.IP] {
					out.duplicates++
				}
				seen[a.IP] = true
			}
			return d, err
		})
		if err != nil {
			return fmt.Errorf("go-ipam: %w", err)
		}
		runs = append(runs, rr)
		progress("  run %d: %.0f claims/s, p50 %.1f ms", r+1, rr.stats().perSec, rr.stats().p50)
	}
	out.seqEmpty = figureOf(runs)

	// At 20 000 taken: a /16 whose lowest 20 000 addresses are taken,
	// loaded through go-ipam's own dump format (Load takes the root
	// namespace).
	out.taken = cfg.goipamTaken
	progress("go-ipam, sequential at %d taken", out.taken)
	p, err := ip.NewPrefix(ctx, "10.42.0.0/16")
	if err != nil {
		return err
	}
	dump, err := ip.Dump(ctx)
	if err != nil {
		return err
	}
	var prefixes []map[string]any
	if err := json.Unmarshal([]byte(dump), &prefixes); err != nil || len(prefixes) != 1 {
		return fmt.Errorf("go-ipam: unexpected dump: %.200s (%v)", dump, err)
	}
	ips, _ := prefixes[0]["IPs"].(map[string]any)
	if ips == nil {
		ips = map[string]any{}
	}
	for a := netip.MustParseAddr("10.42.0.0"); len(ips) < out.taken; a = a.Next() {
		ips[a.String()] = true
	}
	prefixes[0]["IPs"] = ips
	b, err := json.Marshal(prefixes)
	if err != nil {
		return err
	}
	if _, err := ip.DeletePrefix(ctx, p.Cidr); err != nil {
		return err
	}
	if err := ip.Load(ctx, string(b)); err != nil {
		return err
	}
	runs = nil
	seen := map[netip.Addr]bool{}
	for r := range cfg.runs {
		rr, err := concurrently(cfg.goipam20kN, 1, func() (time.Duration, error) {
			start := time.Now()
			a, err := ip.AcquireIP(ctx, p.Cidr)
			d := time.Since(start)
			if err == nil {
				if seen[a.IP] {
					out.duplicates++
				}
				seen[a.IP] = true
			}
			return d, err
		})
		if err != nil {
			return fmt.Errorf("go-ipam: %w", err)
		}
		runs = append(runs, rr)
		progress("  run %d: %.1f claims/s, p50 %.1f ms", r+1, rr.stats().perSec, rr.stats().p50)
	}
	out.seq20k = figureOf(runs)
	return nil
}

// goipamConcurrent16 runs 16 clients claiming on an empty /16 for a fixed
// window. go-ipam retries optimistic-lock failures with a growing delay,
// so a claim may take tens of seconds: the window ends the run, the claims
// still running are counted (and stopped through their context) instead
// of waited for.
func goipamConcurrent16(ctx context.Context, cfg config, st goipam.Storage, out *goipamResult) error {
	ip := goipam.NewWithStorage(st)
	var runs []run
	for r := range cfg.runs {
		ns := fmt.Sprintf("conc%d", r)
		if err := ip.CreateNamespace(ctx, ns); err != nil {
			return err
		}
		nctx := goipam.NewContextWithNamespace(ctx, ns)
		p, err := ip.NewPrefix(nctx, "10.42.0.0/16")
		if err != nil {
			return err
		}
		wctx, cancel := context.WithCancel(nctx)
		var mu sync.Mutex
		var lat []time.Duration
		seen := map[netip.Addr]bool{}
		running := map[int]time.Time{}
		errs, stalls := 0, 0
		closed := false // the window has ended: nothing more is counted
		var firstErr error
		start := time.Now()
		deadline := start.Add(cfg.goipamWindow)
		for c := range 16 {
			go func() {
				for k := 0; ; k++ {
					id := c<<20 | k
					t0 := time.Now()
					if !t0.Before(deadline) {
						return
					}
					mu.Lock()
					if closed {
						mu.Unlock()
						return
					}
					running[id] = t0
					mu.Unlock()
					a, err := ip.AcquireIP(wctx, p.Cidr)
					d := time.Since(t0)
					mu.Lock()
					if closed {
						// Counted at the end of the window already.
						mu.Unlock()
						return
					}
					delete(running, id)
					switch {
					case err != nil:
						errs++
						if firstErr == nil {
							firstErr = err
						}
					default:
						lat = append(lat, d)
						if seen[a.IP] {
							out.duplicates++
						}
						seen[a.IP] = true
					}
					if d >= stallAfter {
						stalls++
						out.maxStall = max(out.maxStall, d)
					}
					mu.Unlock()
				}
			}()
		}
		select {
		case <-time.After(time.Until(deadline)):
		case <-ctx.Done():
		}
		end := time.Now()
		mu.Lock()
		closed = true
		rr := run{lat: lat, elapsed: end.Sub(start), ops: len(lat)}
		inFlight := len(running)
		for _, t0 := range running {
			if d := end.Sub(t0); d >= stallAfter {
				stalls++
				out.maxStall = max(out.maxStall, d)
			}
		}
		out.errors += errs
		out.stalls += stalls
		out.inFlight += inFlight
		mu.Unlock()
		cancel()
		runs = append(runs, rr)
		msg := ""
		if firstErr != nil {
			msg = ", first error: " + firstErr.Error()
			if errors.Is(firstErr, goipam.ErrOptimisticLockError) {
				msg = ", first error: optimistic lock failed 10 times"
			}
		}
		progress("  run %d: %.0f claims/s, p50 %.1f ms, p99 %.1f ms, %d errors, %d stalls of 1 s or more, %d still running at the end%s",
			r+1, rr.stats().perSec, rr.stats().p50, rr.stats().p99, errs, stalls, inFlight, msg)
	}
	out.conc16 = figureOf(runs)
	return nil
}
