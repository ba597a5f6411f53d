package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/web"
)

type pageResult struct {
	taken                  [2]int // the allocations of the two pools (100 and 60 000)
	small, large           figure // the pool page of each
	smallBytes, largeBytes int
	smallStmts, largeStmts float64 // statements per page
	viewLoad               figure  // a process's first use of the large pool: its view read from the database
}

// page times the console's pool page, server side: the whole handler
// (session, queries, rendering) called in process, signed in as an
// operator through the real sign-in form.
func page(ctx context.Context, cfg config, dsn string) (pageResult, error) {
	out := pageResult{taken: cfg.pageTaken}
	db, svc, closeService, err := openService(ctx, dsn)
	if err != nil {
		return out, err
	}
	defer closeService()
	pools := []struct {
		name, cidr string
		taken      int
	}{{"page-small", "10.100.0.0/16", out.taken[0]}, {"page-large", "10.101.0.0/16", out.taken[1]}}
	for _, p := range pools {
		created, err := svc.CreatePublicPool(ctx, auth.System, ipam.CreatePublicPoolInput{Name: p.name, CIDR: p.cidr})
		if err != nil {
			return out, err
		}
		if err := fillPool(ctx, db, created.UID, fragmented(p.taken), ipam.OwnerFloatingIP, "", "bench/page", nil); err != nil {
			return out, err
		}
	}
	// What a process pays to (re)load a view: after its start, a
	// reconnection of its listener, or a statement releasing more than 64.
	loads, err := viewLoads(ctx, cfg, db, func(fresh *ipam.Service) error {
		_, err := fresh.Preview(ctx, auth.System, "", "page-large", "", nil, 1)
		return err
	})
	if err != nil {
		return out, err
	}
	out.viewLoad = loads.f
	progress("  loading the view of a /16 with %d taken: %.1f ms", out.taken[1], out.viewLoad.P50)
	get, closeConsole, err := signedInConsole(ctx, db, svc, nil)
	if err != nil {
		return out, err
	}
	defer closeConsole()
	for i, p := range pools {
		path := "/pools/" + p.name
		progress("console, GET %s (%d allocations)", path, p.taken)
		var size int
		for range 3 { // loads the view and the caches, as a serving process has them
			if _, size, err = get(path); err != nil {
				return out, err
			}
		}
		var runs []run
		stmts0 := statements.Load()
		for r := range cfg.runs {
			rr, err := concurrently(cfg.pageN, 1, func() (time.Duration, error) {
				d, _, err := get(path)
				return d, err
			})
			if err != nil {
				return out, err
			}
			runs = append(runs, rr)
			progress("  run %d: p50 %.2f ms, p99 %.2f ms", r+1, rr.stats().p50, rr.stats().p99)
		}
		stmts := float64(statements.Load()-stmts0) / float64(cfg.runs*cfg.pageN)
		if i == 0 {
			out.small, out.smallBytes, out.smallStmts = figureOf(runs), size, stmts
		} else {
			out.large, out.largeBytes, out.largeStmts = figureOf(runs), size, stmts
		}
	}
	return out, nil
}

// signedInConsole returns a GET of the console's handler, called in
// process with the session of an operator signed in through the real
// sign-in form, which times the handler and returns the body's size, and
// what closes the console. With nums the console has number pools (and
// its search finds objects of kinds); without, it starts its own service
// of number pools.
func signedInConsole(ctx context.Context, db *store.DB, svc *ipam.Service, nums *numbers.Service) (get func(path string) (time.Duration, int, error), closeConsole func(), err error) {
	getBody, closeConsole, err := signedInConsoleBody(ctx, db, svc, nums)
	if err != nil {
		return nil, nil, err
	}
	return func(path string) (time.Duration, int, error) {
		d, body, err := getBody(path)
		return d, len(body), err
	}, closeConsole, nil
}

// signedInConsoleBody is signedInConsole returning the body.
func signedInConsoleBody(ctx context.Context, db *store.DB, svc *ipam.Service, nums *numbers.Service) (get func(path string) (time.Duration, string, error), closeConsole func(), err error) {
	quiet := slog.New(slog.DiscardHandler)
	users := auth.NewService(db)
	cfg := web.Config{IPAM: svc, Numbers: nums, Auth: users, Logger: quiet, Version: "ipambench"}
	closeBranches := func() {}
	if nums == nil {
		own, err := numbers.New(ctx, numbers.Config{DB: db, Logger: quiet})
		if err != nil {
			return nil, nil, err
		}
		cfg.Numbers, closeBranches = own, own.Close
	}
	h, err := web.New(cfg)
	if err != nil {
		closeBranches()
		return nil, nil, err
	}
	name, password := "bench-"+strings.ToLower(rand.Text()[:8]), rand.Text()
	if err := users.AddUser(ctx, auth.System, name, auth.Operator, nil, password); err != nil {
		closeBranches()
		return nil, nil, err
	}
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/login",
		strings.NewReader(url.Values{"username": {name}, "password": {password}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	cookies := rec.Result().Cookies()
	if rec.Code != http.StatusSeeOther || len(cookies) == 0 {
		closeBranches()
		return nil, nil, fmt.Errorf("signing in to the console: POST /login = %d: %.300s", rec.Code, rec.Body.String())
	}
	get = func(path string) (time.Duration, string, error) {
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, path, nil)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		rec := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(rec, req)
		d := time.Since(start)
		if rec.Code != http.StatusOK {
			return d, "", fmt.Errorf("GET %s = %d: %.300s", path, rec.Code, rec.Body.String())
		}
		return d, rec.Body.String(), nil
	}
	return get, closeBranches, nil
}

// openService opens a pool of connections to dsn, counting its statements,
// and an ipam.Service on it that follows the other processes.
func openService(ctx context.Context, dsn string) (*store.DB, *ipam.Service, func(), error) {
	db, err := openDB(ctx, dsn)
	if err != nil {
		return nil, nil, nil, err
	}
	svc, err := ipam.New(ctx, ipam.Config{DB: db, URL: dsn, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	return db, svc, func() {
		svc.Close()
		db.Close()
	}, nil
}

// A viewLoad is what a process's first use of a pool cost: the time, and
// the heap it keeps afterwards (bytes; the median of the runs').
type viewLoad struct {
	f    figure
	heap float64
}

// viewLoads times, in cfg.runs fresh services on db, the first use of a
// pool (use): its view read from the database. It measures the live heap
// after a collection before the use and after it, the fresh service still
// held: what the view, and what else the use keeps, takes.
func viewLoads(ctx context.Context, cfg config, db *store.DB, use func(*ipam.Service) error) (viewLoad, error) {
	var loads []run
	var heaps []float64
	for range cfg.runs {
		fresh, err := ipam.New(ctx, ipam.Config{DB: db, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			return viewLoad{}, err
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		err = use(fresh)
		d := time.Since(start)
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(fresh)
		fresh.Close()
		if err != nil {
			return viewLoad{}, err
		}
		loads = append(loads, run{lat: []time.Duration{d}, ops: 1})
		heaps = append(heaps, float64(after.HeapAlloc)-float64(before.HeapAlloc))
	}
	return viewLoad{f: figureOf(loads), heap: median(heaps)}, nil
}
