// Command ipambench measures PiVirt IPAM's claims against the floor (a bare
// single-row INSERT commit) and against github.com/metal-stack/go-ipam on
// one PostgreSQL, together with the in-browser preview, the console's
// pool page and number pools' allocations (against the same creates with a
// number given, and against a pool locked for each allocation), and prints
// a Markdown table of the figures and their ratios.
//
//	cd cmd/ipambench && go run . [--quick | --smoke] [--json] [--database-url URL]
//
// --smoke runs every measurement at toy sizes, in seconds each: its
// figures say nothing about speed and are not judged against the targets,
// but it must reach its report, and a measurement's correctness check (an
// address or a number handed out twice, an answer of the wrong size)
// fails it as it fails a full run. make test runs it (make test-bench).
//
// It lives in a module of its own so that the product's go.mod never
// carries go-ipam's dependencies. Without --database-url it starts its own
// PostgreSQL (durable settings) in a folder under /var/tmp and removes it
// afterwards; with one, it creates a scratch database on that server and
// drops it afterwards. Progress goes to stderr; stdout holds the report
// and, with --json, one JSON object as its last line.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/store"
)

// config holds the flags and the counts of a run.
type config struct {
	quick, smoke, json, keep, check bool
	databaseURL, cpuprofile         string
	only                            map[string]bool

	runs         int // repetitions of every measurement
	floorN       int // inserts per run, one client
	floor16N     int // inserts per run, 16 clients
	seqN         int // claims per run and fill level (a 99 % full /16 has 655 free)
	concN        int // claims per run, 16 clients
	twoProcN     int // claims per run, all the processes together
	churnN       int // release+claim pairs per run
	goipamSeqN   int // go-ipam claims per run, empty /16
	goipam20kN   int // go-ipam claims per run, 20 000 taken
	goipamWindow time.Duration
	previewCalls int // per run
	pageN        int // pages per run
	gqlN         int // GraphQL requests per run and kind, and as many direct calls

	numbersSeqN     int // VLANs per run and fill level, from the pool and as many given
	numbers16N      int // VLANs per run, 16 clients, for each of the three measurements
	numbersTwoProcN int // VLANs per run, both processes together

	// What the measurements fill before they time anything.
	seqSpan       int    // the sequential claims' fill levels take addresses of offsets 2 to seqSpan-1 of the /16
	pageTaken     [2]int // allocations of the two pools whose page is timed
	vpcReadSizes  [2]int // allocations of the /10 subnet of each VPC read: the reference and the large one
	searchSize    int    // allocations the search runs on
	searchObjects int    // objects of kinds the search runs on, besides
	goipamTaken   int    // addresses taken in go-ipam's /16 of its second sequential measurement
	previewTaken  int    // addresses taken, in fragments, in the /16 of the WASM preview
	numbersTaken  int    // numbers taken, in runs, in the division 1-4094 of the WASM next number

	// The IPv6 measurements' (v6.go).
	v6ViewSize       int // allocations, in fragments, of the /64 whose view is loaded and claimed in
	v6Subnets        int // subnets of the /48 where the next /64 is claimed
	v6PreviewTaken   int // addresses taken, in fragments, in the /64 of the WASM preview
	v6PreviewSubnets int // subnets of the /48 of the WASM subnet preview
}

var scenarios = []string{"floor", "seq", "conc16", "history", "twoproc", "churn", "pgbouncer", "page", "graphql", "vpcread", "search", "numbers", "v6", "goipam", "preview"}

func (c config) want(s string) bool { return c.only == nil || c.only[s] }

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("ipambench", flag.ContinueOnError)
	fs.BoolVar(&c.quick, "quick", false, "smaller counts: finishes in a few minutes on 2 cores")
	fs.BoolVar(&c.smoke, "smoke", false, "every measurement at toy sizes, once, its figures not judged: checks that the bench runs to its report (make test runs it)")
	fs.BoolVar(&c.json, "json", false, "print one JSON object with the figures as the last line")
	fs.StringVar(&c.databaseURL, "database-url", "", "PostgreSQL server to run on (a scratch database is created there and dropped); default: a PostgreSQL of its own")
	fs.IntVar(&c.runs, "runs", 0, "repetitions of every measurement (default 3 with --quick, else 5)")
	only := fs.String("only", "", "comma-separated measurements to run, of "+strings.Join(scenarios, ","))
	fs.StringVar(&c.cpuprofile, "cpuprofile", "", "write a CPU profile of this process (the product's side of every claim) to this file")
	fs.BoolVar(&c.keep, "keep", false, "keep the database until Ctrl-C after the run, and print its URL (for EXPLAIN)")
	fs.BoolVar(&c.check, "check", false, "exit with status 3 when a target does not hold")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *only != "" {
		c.only = map[string]bool{}
		for s := range strings.SplitSeq(*only, ",") {
			if !slices.Contains(scenarios, s) {
				return c, fmt.Errorf("--only: unknown measurement %q (have %s)", s, strings.Join(scenarios, ","))
			}
			c.only[s] = true
		}
	}
	if c.quick && c.smoke {
		return c, errors.New("--quick and --smoke: choose one")
	}
	if c.smoke && c.check {
		return c, errors.New("--check and --smoke: a smoke run's figures are not judged against the targets")
	}
	c.seqSpan, c.pageTaken, c.vpcReadSizes, c.searchSize, c.goipamTaken = 65535, [2]int{100, 60_000}, [2]int{1_000, 1_000_000}, 1_000_000, 20_000
	c.previewTaken, c.numbersTaken, c.searchObjects = 60_000, 4_000, 100_000
	c.v6ViewSize, c.v6Subnets, c.v6PreviewTaken, c.v6PreviewSubnets = 1_000_000, 10_000, 100_000, 10_000
	switch {
	case c.smoke:
		c.runs = cmp(c.runs, 1)
		c.floorN, c.floor16N, c.seqN, c.concN, c.twoProcN, c.churnN = 20, 64, 10, 64, 64, 20
		c.goipamSeqN, c.goipam20kN, c.goipamWindow = 5, 3, time.Second
		c.previewCalls, c.pageN, c.gqlN = 5, 5, 10
		c.numbersSeqN, c.numbers16N, c.numbersTwoProcN = 5, 64, 32
		// vpcReadSizes' large VPC and the search's overlap (10.0.0.2 up in
		// both), as in a full run.
		c.seqSpan, c.pageTaken, c.vpcReadSizes, c.searchSize, c.goipamTaken = 2000, [2]int{100, 2000}, [2]int{100, 2000}, 3000, 1000
		c.previewTaken, c.numbersTaken, c.searchObjects = 2000, 400, 1000
		c.v6ViewSize, c.v6Subnets, c.v6PreviewTaken, c.v6PreviewSubnets = 2000, 100, 2000, 100
	case c.quick:
		c.runs = cmp(c.runs, 3)
		c.floorN, c.floor16N, c.seqN, c.concN, c.twoProcN, c.churnN = 300, 1600, 100, 1600, 1600, 300
		c.goipamSeqN, c.goipam20kN, c.goipamWindow = 30, 10, 3*time.Second
		c.previewCalls, c.pageN, c.gqlN = 20, 20, 200
		c.numbersSeqN, c.numbers16N, c.numbersTwoProcN = 50, 480, 480
	default:
		c.runs = cmp(c.runs, 5)
		c.floorN, c.floor16N, c.seqN, c.concN, c.twoProcN, c.churnN = 1000, 8000, 120, 8000, 8000, 1500
		c.goipamSeqN, c.goipam20kN, c.goipamWindow = 100, 30, 10*time.Second
		c.previewCalls, c.pageN, c.gqlN = 50, 50, 500
		c.numbersSeqN, c.numbers16N, c.numbersTwoProcN = 120, 1600, 1600
	}
	if c.runs < 1 || c.runs*c.seqN >= 655 {
		return c, fmt.Errorf("--runs %d: between 1 and %d (a 99 %% full /16 has 655 free addresses)", c.runs, 654/c.seqN)
	}
	return c, nil
}

// cmp returns v, or def when v is 0.
func cmp(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

var started = time.Now()

// progress tells on stderr what the bench is doing.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%5.1fs] "+format+"\n", append([]any{time.Since(started).Seconds()}, args...)...)
}

func main() {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(runChild(spec))
	}
	cfg, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ipambench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	rep, err := bench(ctx, cfg)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ipambench:", err)
		os.Exit(1)
	}
	rep.print(os.Stdout, cfg)
	switch {
	case rep.broken():
		fmt.Fprintln(os.Stderr, "ipambench: an address or a number was handed out twice, or a claim did not get the lowest free one")
		os.Exit(4)
	case cfg.check && !rep.targetsHold():
		os.Exit(3)
	}
}

// bench runs every measurement and returns the report.
func bench(ctx context.Context, cfg config) (*report, error) {
	mode := "full"
	switch {
	case cfg.quick:
		mode = "quick"
	case cfg.smoke:
		mode = "smoke"
	}
	progress("ipambench, %s run: %d runs of every measurement", mode, cfg.runs)
	if cfg.cpuprofile != "" {
		f, err := os.Create(cfg.cpuprofile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	rep := &report{mode: mode, machine: machine(), runs: cfg.runs, busyBefore: cpuBusy(time.Second)}
	if rep.busyBefore >= 25 {
		progress("warning: %.0f %% of the CPUs were busy before the run: other processes are running, and the figures will move with them", rep.busyBefore)
	}
	quiet := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	slog.SetDefault(quiet)

	var wasm *wasmModule
	if cfg.want("preview") || cfg.want("v6") {
		root, err := repoRoot()
		if err != nil {
			return nil, err
		}
		dir, err := os.MkdirTemp("", "ipambench-wasm-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		progress("building the WASM preview (GOOS=js GOARCH=wasm go build ./wasm in %s)", root)
		if wasm, err = buildWasm(ctx, root, dir); err != nil {
			return nil, err
		}
	}

	if !slices.ContainsFunc(scenarios, func(s string) bool { return s != "preview" && cfg.want(s) }) {
		// The preview alone needs no database.
		return rep, measurePreview(ctx, cfg, wasm, rep)
	}
	d, err := openDatabase(ctx, cfg.databaseURL, cfg.smoke, quiet)
	if err != nil {
		return nil, err
	}
	defer d.cleanup()
	rep.server = d.server
	progress("%s", d.server)
	if cfg.keep {
		defer func() {
			fmt.Fprintf(os.Stderr, "ipambench: the database is %s\nipambench: Ctrl-C ends the run\n", store.RedactURL(d.url))
			<-ctx.Done()
		}()
	}

	db, err := openDB(ctx, d.url)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	svc, err := ipam.New(ctx, ipam.Config{DB: db, URL: d.url, Logger: quiet})
	if err != nil {
		return nil, err
	}
	defer svc.Close()

	if cfg.want("floor") {
		if err := measureFloor(ctx, cfg, db, rep); err != nil {
			return nil, fmt.Errorf("floor: %w", err)
		}
	}
	ours := &oursResult{}
	rep.ours = ours
	if cfg.want("seq") {
		levels := fillLevelsIn(ctx, cfg, db, "bench/seq", "/16", v4Subnets(ctx, svc))
		if err := sequential(ctx, cfg, svc, db, levels, ours); err != nil {
			return nil, fmt.Errorf("sequential claims: %w", err)
		}
	}
	if cfg.want("conc16") {
		progress("ours, 16 clients in one process")
		warmPool(ctx, db, 16)
		if err := concurrent16(ctx, cfg, svc, db, "c16", v4Subnets(ctx, svc), ours); err != nil {
			return nil, fmt.Errorf("16 clients: %w", err)
		}
	}
	if cfg.want("history") {
		progress("ours, 16 clients in one process while the usage history is written every %s", historyEvery)
		warmPool(ctx, db, 16)
		h, err := historyUnderClaims(ctx, cfg, svc, db)
		if err != nil {
			return nil, fmt.Errorf("claims while the history is written: %w", err)
		}
		rep.history = &h
	}
	if cfg.want("twoproc") {
		for _, m := range []struct {
			processes, workers int
			into               *procsResult
		}{{2, 8, &ours.procs2x8}, {4, 4, &ours.procs4x4}} {
			progress("ours, %d processes of %d clients", m.processes, m.workers)
			res, err := manyProcesses(ctx, cfg, d.url, svc, db, m.processes, m.workers, ours)
			if err != nil {
				return nil, fmt.Errorf("%d processes: %w", m.processes, err)
			}
			*m.into = res
		}
	}
	if cfg.want("churn") {
		warmPool(ctx, db, 16)
		if err := churn(ctx, cfg, svc, db, ours); err != nil {
			return nil, fmt.Errorf("churn: %w", err)
		}
	}
	if cfg.want("pgbouncer") {
		progress("ours, 16 clients through PgBouncer in transaction mode, alternating with 16 straight to PostgreSQL")
		br, err := throughPgBouncer(ctx, cfg, d.url, svc, db)
		if err != nil {
			return nil, fmt.Errorf("PgBouncer: %w", err)
		}
		rep.pgbouncer = &br
	}
	if cfg.want("page") {
		pr, err := page(ctx, cfg, d.url)
		if err != nil {
			return nil, fmt.Errorf("pool page: %w", err)
		}
		rep.page = &pr
	}
	if cfg.want("graphql") {
		gr, err := measureGraphQL(ctx, cfg, db, svc)
		if err != nil {
			return nil, fmt.Errorf("graphql: %w", err)
		}
		rep.graphql = &gr
	}
	if cfg.want("vpcread") {
		vr, err := vpcRead(ctx, cfg, d.url)
		if err != nil {
			return nil, fmt.Errorf("VPC read: %w", err)
		}
		rep.vpcRead = &vr
	}
	if cfg.want("search") {
		sr, err := measureSearch(ctx, cfg, d.url)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		rep.search = &sr
	}
	if cfg.want("numbers") {
		nr := &numbersResult{}
		if err := measureNumbers(ctx, cfg, db, d.url, quiet, nr); err != nil {
			return nil, fmt.Errorf("number pools: %w", err)
		}
		rep.numbers = nr
	}
	if cfg.want("v6") {
		warmPool(ctx, db, 1)
		v6, err := measureV6(ctx, cfg, svc, db, wasm)
		if err != nil {
			return nil, fmt.Errorf("IPv6: %w", err)
		}
		rep.v6 = v6
	}
	var gi *goipamResult
	if cfg.want("goipam") {
		gi = &goipamResult{}
		rep.goipam = gi
		st, err := goipamStorage(d.url)
		if err != nil {
			return nil, fmt.Errorf("go-ipam: %w", err)
		}
		progress("go-ipam, sequential on an empty /16")
		if err := goipamSequential(ctx, cfg, st, gi); err != nil {
			return nil, fmt.Errorf("go-ipam: %w", err)
		}
	}
	if err := measurePreview(ctx, cfg, wasm, rep); err != nil {
		return nil, err
	}
	if gi != nil {
		// Last: claims of go-ipam still sleeping in its retry delay when a
		// run ends may wake up after it (they stop at once, but the
		// measurements after them would share the machine with them).
		st, err := goipamStorage(d.url)
		if err != nil {
			return nil, fmt.Errorf("go-ipam: %w", err)
		}
		progress("go-ipam, 16 clients on an empty /16, %s per run", cfg.goipamWindow)
		if err := goipamConcurrent16(ctx, cfg, st, gi); err != nil {
			return nil, fmt.Errorf("go-ipam: %w", err)
		}
	}
	progress("done")
	return rep, nil
}

func measurePreview(ctx context.Context, cfg config, wasm *wasmModule, rep *report) error {
	if wasm == nil || !cfg.want("preview") {
		return nil
	}
	progress("WASM preview in node: next 8 of a /16 with %d taken in fragments", cfg.previewTaken)
	pr, err := preview(ctx, cfg, wasm, v4PreviewPool(cfg))
	if err != nil {
		return fmt.Errorf("preview: %w", err)
	}
	rep.preview = &pr
	progress("WASM next number in node: a VLAN division with %d of 4 094 taken", cfg.numbersTaken)
	np, err := numbersPreview(ctx, cfg, wasm)
	if err != nil {
		return fmt.Errorf("next number: %w", err)
	}
	rep.numbersPreview = &np
	return nil
}

func measureFloor(ctx context.Context, cfg config, db *store.DB, rep *report) error {
	for _, clients := range []int{1, 16} {
		progress("floor: single-row INSERT autocommit, %d client(s)", clients)
		warmPool(ctx, db, clients)
		if _, err := floor(ctx, db, 4*clients, clients); err != nil {
			return err
		}
		n := cfg.floorN
		if clients > 1 {
			n = cfg.floor16N
		}
		var runs []run
		for r := range cfg.runs {
			rr, err := floor(ctx, db, n, clients)
			if err != nil {
				return err
			}
			runs = append(runs, rr)
			st := rr.stats()
			progress("  run %d: %.0f inserts/s, p50 %.3f ms, p99 %.3f ms", r+1, st.perSec, st.p50, st.p99)
		}
		if clients == 1 {
			f := figureOf(runs)
			rep.floor1 = &f
		} else {
			f := figureOf(runs)
			rep.floor16 = &f
		}
	}
	return nil
}

// warmPool opens n connections of db's pool, so that a measurement does
// not time their setup.
func warmPool(ctx context.Context, db *store.DB, n int) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []interface{ Close() error }
	for range n {
		wg.Go(func() {
			c, err := db.Connx(ctx)
			if err != nil {
				return
			}
			c.PingContext(ctx)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		})
	}
	wg.Wait()
	for _, c := range conns {
		c.Close()
	}
}
