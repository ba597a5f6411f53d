package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/store"
)

// childEnv, when set, makes this binary a claiming process of a
// two-process measurement: it holds a childTask as JSON.
const childEnv = "IPAMBENCH_CHILD"

type childTask struct {
	URL string `json:"url"`
	// Namespace is the namespace of the VPC whose subnet the process
	// claims addresses in; or, when Pool is set, the process creates VLANs
	// of the site Site with their number from the pool Pool.
	Namespace string `json:"namespace,omitempty"`
	Pool      string `json:"pool,omitempty"`
	Site      string `json:"site,omitempty"`
	First     int    `json:"first"`
	Count     int    `json:"count"`
	Workers   int    `json:"workers"`
}

type childResult struct {
	LatencyNs []int64 `json:"latency_ns"`
	// Owners are the claims' owners (the VLANs' ids for numbers), Values
	// what each got: an address, or a number in decimal.
	Owners     []string `json:"owners"`
	Values     []string `json:"values"`
	Statements int64    `json:"statements"`
	Error      string   `json:"error,omitempty"`
}

// A childClaim makes one claim for id and returns its owner, what it got
// and how long it took.
type childClaim func(id string) (owner, value string, d time.Duration, err error)

// runChild is a process of its own, like a second ipam serve: its own
// connection pool, its own views, its own release notifications, its own
// route listener. It says "ready" once its view is loaded, claims when
// told "go" on stdin, writes a childResult and keeps serving (the other
// processes may forward their claims to it) until stdin is closed.
func runChild(spec string) int {
	var t childTask
	if err := json.Unmarshal([]byte(spec), &t); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := child(t, bufio.NewReader(os.Stdin)); err != nil {
		json.NewEncoder(os.Stdout).Encode(childResult{Error: err.Error()})
		return 1
	}
	return 0
}

func child(t childTask, stdin *bufio.Reader) error {
	ctx := context.Background()
	db, err := openDB(ctx, t.URL)
	if err != nil {
		return err
	}
	defer db.Close()
	claim, stop, err := childClaims(ctx, t, db)
	if err != nil {
		return err
	}
	defer stop()
	warmPool(ctx, db, t.Workers)
	fmt.Println("ready")
	if _, err := stdin.ReadString('\n'); err != nil {
		return err
	}
	res := childResult{LatencyNs: make([]int64, t.Count), Owners: make([]string, t.Count), Values: make([]string, t.Count)}
	stmts0 := statements.Load()
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range t.Workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= t.Count {
					return
				}
				owner, v, d, err := claim(fmt.Sprintf("p-%d", t.First+i))
				if err != nil {
					once.Do(func() { firstErr = err })
					next.Store(int64(t.Count))
					return
				}
				res.LatencyNs[i], res.Owners[i], res.Values[i] = int64(d), owner, v
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		return err
	}
	// The process goes on making the claims the others forward to it
	// until all are done: its statements are reported then.
	io.Copy(io.Discard, stdin)
	return json.NewEncoder(os.Stdout).Encode(childResult{Statements: statements.Load() - stmts0})
}

// childClaims starts the service the process claims through, as ipam
// serve would, with what its claims need loaded (a serving process has
// its views loaded and its connections open), and returns the claim and
// what stops the service.
func childClaims(ctx context.Context, t childTask, db *store.DB) (childClaim, func(), error) {
	if t.Pool != "" {
		return numberChildClaims(ctx, t, db)
	}
	svc, err := ipam.New(ctx, ipam.Config{DB: db, URL: t.URL, RouteListen: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, nil, err
	}
	s := subnet{ns: t.Namespace}
	if _, err := svc.Preview(ctx, operator, t.Namespace, "vpc-net", benchCIDR, nil, 1); err != nil {
		svc.Close()
		return nil, nil, err
	}
	if err := warmClaims(ctx, svc, s, t); err != nil {
		svc.Close()
		return nil, nil, err
	}
	return func(id string) (string, string, time.Duration, error) {
		a, d, err := s.attach(ctx, svc, id)
		return id, a.String(), d, err
	}, svc.Close, nil
}

// warmClaims has each client of the process claim an address of the
// subnet s and release it, before the measurement: the connections that
// make the claims (this process's, or its pool's owner's) have then run
// the claim's statements once, as a serving process's have. Without it the
// first claims of a process took 100 to 300 ms (statements prepared and the
// server's caches filled on each new connection), a third of a quick run.
// The subnet holds nothing afterwards.
func warmClaims(ctx context.Context, svc *ipam.Service, s subnet, t childTask) error {
	var wg sync.WaitGroup
	errs := make([]error, t.Workers)
	for i := range t.Workers {
		wg.Go(func() {
			id := fmt.Sprintf("warm-%d", t.First+i)
			if _, _, err := s.attach(ctx, svc, id); err != nil {
				errs[i] = err
				return
			}
			_, errs[i] = s.detach(ctx, svc, id)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// runChildren starts a process of this binary for each task, waits until
// each is ready, tells them all to go at once and returns their results
// and the wall time from the signal to the last result. A process's
// statements are counted until every process is done, with those of the
// claims others forwarded to it.
func runChildren(ctx context.Context, tasks []childTask) ([]childResult, time.Duration, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, 0, err
	}
	type proc struct {
		cmd    *exec.Cmd
		stdin  io.WriteCloser
		stdout *bufio.Reader
	}
	var procs []proc
	kill := func() {
		for _, p := range procs {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	}
	for _, t := range tasks {
		spec, _ := json.Marshal(t)
		cmd := exec.CommandContext(ctx, self)
		cmd.Env = append(os.Environ(), childEnv+"="+string(spec))
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			kill()
			return nil, 0, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			kill()
			return nil, 0, err
		}
		if err := cmd.Start(); err != nil {
			kill()
			return nil, 0, err
		}
		procs = append(procs, proc{cmd, stdin, bufio.NewReader(stdout)})
	}
	for _, p := range procs {
		line, err := p.stdout.ReadString('\n')
		if err != nil || line != "ready\n" {
			kill()
			return nil, 0, fmt.Errorf("a claiming process did not start: %q %v", line, err)
		}
	}
	start := time.Now()
	for _, p := range procs {
		io.WriteString(p.stdin, "go\n")
	}
	results := make([]childResult, len(procs))
	errs := make([]error, len(procs))
	decoders := make([]*json.Decoder, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		decoders[i] = json.NewDecoder(p.stdout)
		wg.Go(func() {
			errs[i] = decoders[i].Decode(&results[i])
			if errs[i] == nil && results[i].Error != "" {
				errs[i] = errors.New(results[i].Error)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	for _, p := range procs {
		p.stdin.Close()
	}
	for i, p := range procs {
		var last childResult
		if errs[i] == nil {
			if err := decoders[i].Decode(&last); err != nil {
				errs[i] = err
			}
			results[i].Statements = last.Statements
		}
		if err := p.cmd.Wait(); err != nil && errors.Join(errs...) == nil {
			errs = append(errs, fmt.Errorf("a claiming process: %w", err))
		}
	}
	return results, elapsed, errors.Join(errs...)
}

// procsResult is what several processes claiming on one fresh subnet
// made.
type procsResult struct {
	f      figure
	stmts  float64 // statements per claim
	lowest bool    // every run's taken set exactly the lowest candidates
}

// manyProcesses measures processes × workers clients, each process with
// its own pool of connections and its own views, claiming on one fresh
// subnet at once, all from its lowest address; twoProcN claims a run.
func manyProcesses(ctx context.Context, cfg config, url string, svc *ipam.Service, db *store.DB, processes, workers int, out *oursResult) (procsResult, error) {
	var res procsResult
	var runs []run
	var stmts int64
	res.lowest = true
	per := cfg.twoProcN / processes
	for r := range cfg.runs {
		s, err := createSubnet(ctx, svc, fmt.Sprintf("bench/p%dx%d-%d", processes, workers, r))
		if err != nil {
			return res, err
		}
		var tasks []childTask
		for p := range processes {
			tasks = append(tasks, childTask{URL: url, Namespace: s.ns, First: p * per, Count: per, Workers: workers})
		}
		results, elapsed, err := runChildren(ctx, tasks)
		if err != nil {
			return res, err
		}
		l := newLedger()
		rr := run{elapsed: elapsed}
		for _, cr := range results {
			stmts += cr.Statements
			for i, ns := range cr.LatencyNs {
				rr.lat = append(rr.lat, time.Duration(ns))
				l.add(cr.Owners[i], netip.MustParseAddr(cr.Values[i]))
			}
		}
		rr.ops = len(rr.lat)
		runs = append(runs, rr)
		ok, err := lowest(ctx, db, s, processes*per)
		if err != nil {
			return res, err
		}
		res.lowest = res.lowest && ok
		dup, err := l.duplicates(ctx, db, s)
		if err != nil {
			return res, err
		}
		out.duplicates += dup
		st := rr.stats()
		progress("  run %d: %.0f claims/s, p50 %.3f ms, p99 %.3f ms, %.2f statements a claim so far, lowest candidates: %v, duplicates: %d",
			r+1, st.perSec, st.p50, st.p99, float64(stmts)/float64((r+1)*processes*per), ok, dup)
	}
	res.f = figureOf(runs)
	res.stmts = float64(stmts) / float64(cfg.runs*processes*per)
	return res, nil
}
