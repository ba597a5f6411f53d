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

// childEnv, when set, makes this binary a claiming process of the
// two-process measurement: it holds a childTask as JSON.
const childEnv = "IPAMBENCH_CHILD"

type childTask struct {
	URL       string `json:"url"`
	Namespace string `json:"namespace"`
	First     int    `json:"first"`
	Count     int    `json:"count"`
	Workers   int    `json:"workers"`
}

type childResult struct {
	LatencyNs  []int64  `json:"latency_ns"`
	Owners     []string `json:"owners"`
	Addresses  []string `json:"addresses"`
	Statements int64    `json:"statements"`
	Error      string   `json:"error,omitempty"`
}

// runChild is a process of its own, like a second ipam serve: its own
// connection pool, its own views, its own release notifications. It says
// "ready" once its view is loaded, claims when told "go" on stdin and
// writes a childResult.
func runChild(spec string) int {
	var t childTask
	if err := json.Unmarshal([]byte(spec), &t); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	res, err := child(t)
	if err != nil {
		res.Error = err.Error()
	}
	json.NewEncoder(os.Stdout).Encode(res)
	if err != nil {
		return 1
	}
	return 0
}

func child(t childTask) (childResult, error) {
	ctx := context.Background()
	db, err := openDB(ctx, t.URL)
	if err != nil {
		return childResult{}, err
	}
	defer db.Close()
	svc, err := ipam.New(ctx, ipam.Config{DB: db, URL: t.URL, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return childResult{}, err
	}
	defer svc.Close()
	s := subnet{ns: t.Namespace}
	// A serving process has its view loaded and its connections open.
	if _, err := svc.Preview(ctx, operator, t.Namespace, "vpc-net", benchCIDR, nil, 1); err != nil {
		return childResult{}, err
	}
	warmPool(ctx, db, t.Workers)
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return childResult{}, err
	}
	res := childResult{LatencyNs: make([]int64, t.Count), Owners: make([]string, t.Count), Addresses: make([]string, t.Count)}
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
				id := fmt.Sprintf("p-%d", t.First+i)
				a, d, err := s.attach(ctx, svc, id)
				if err != nil {
					once.Do(func() { firstErr = err })
					next.Store(int64(t.Count))
					return
				}
				res.LatencyNs[i], res.Owners[i], res.Addresses[i] = int64(d), id, a.String()
			}
		})
	}
	wg.Wait()
	res.Statements = statements.Load() - stmts0
	return res, firstErr
}

// twoProcesses measures two processes of eight clients each, claiming on
// one fresh subnet at once, and checks the subnet holds exactly the lowest
// candidates afterwards.
func twoProcesses(ctx context.Context, cfg config, url string, svc *ipam.Service, db *store.DB, out *oursResult) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var runs []run
	var stmts int64
	out.twoProcLowest = true
	per := cfg.twoProcN / 2
	for r := range cfg.runs {
		s, err := createSubnet(ctx, svc, fmt.Sprintf("bench/p2-%d", r))
		if err != nil {
			return err
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
		for p := range 2 {
			spec, _ := json.Marshal(childTask{URL: url, Namespace: s.ns, First: p * per, Count: per, Workers: 8})
			cmd := exec.CommandContext(ctx, self)
			cmd.Env = append(os.Environ(), childEnv+"="+string(spec))
			cmd.Stderr = os.Stderr
			stdin, err := cmd.StdinPipe()
			if err != nil {
				kill()
				return err
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				kill()
				return err
			}
			if err := cmd.Start(); err != nil {
				kill()
				return err
			}
			procs = append(procs, proc{cmd, stdin, bufio.NewReader(stdout)})
		}
		for _, p := range procs {
			line, err := p.stdout.ReadString('\n')
			if err != nil || line != "ready\n" {
				kill()
				return fmt.Errorf("a claiming process did not start: %q %v", line, err)
			}
		}
		start := time.Now()
		for _, p := range procs {
			io.WriteString(p.stdin, "go\n")
		}
		results := make([]childResult, len(procs))
		errs := make([]error, len(procs))
		var wg sync.WaitGroup
		for i, p := range procs {
			wg.Go(func() {
				errs[i] = json.NewDecoder(p.stdout).Decode(&results[i])
				if errs[i] == nil && results[i].Error != "" {
					errs[i] = errors.New(results[i].Error)
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		for _, p := range procs {
			p.stdin.Close()
			if err := p.cmd.Wait(); err != nil && errors.Join(errs...) == nil {
				errs = append(errs, fmt.Errorf("a claiming process: %w", err))
			}
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
		l := newLedger()
		rr := run{elapsed: elapsed}
		for _, res := range results {
			stmts += res.Statements
			for i, ns := range res.LatencyNs {
				rr.lat = append(rr.lat, time.Duration(ns))
				l.add(res.Owners[i], netip.MustParseAddr(res.Addresses[i]))
			}
		}
		rr.ops = len(rr.lat)
		runs = append(runs, rr)
		ok, err := lowest(ctx, db, s, 2*per)
		if err != nil {
			return err
		}
		out.twoProcLowest = out.twoProcLowest && ok
		dup, err := l.duplicates(ctx, db, s)
		if err != nil {
			return err
		}
		out.duplicates += dup
		st := rr.stats()
		progress("  run %d: %.0f claims/s, p50 %.3f ms, p99 %.3f ms, lowest candidates: %v, duplicates: %d", r+1, st.perSec, st.p50, st.p99, ok, dup)
	}
	out.twoProc = figureOf(runs)
	out.twoProcStmts = float64(stmts) / float64(cfg.runs*2*per)
	return nil
}
