package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// report gathers what the measurements found.
type report struct {
	mode, machine, server string
	busyBefore            float64 // percent of the CPUs busy in the second before the run, -1 if unknown
	runs                  int
	floor1, floor16       *figure
	ours                  *oursResult
	goipam                *goipamResult
	preview               *previewResult
	numbersPreview        *numbersPreviewResult
	page                  *pageResult
	graphql               *gqlResult
	vpcRead               *vpcReadResult
	search                *searchResult
	history               *historyResult
	pgbouncer             *pgbouncerResult
	numbers               *numbersResult
	v6                    *v6Result
}

// machine describes the machine in a few words.
func machine() string {
	cpu := ""
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %.0f GiB", float64(kb)/(1<<20))
		}
	}
	osName := runtime.GOOS
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
				osName = strings.Trim(v, `"`)
			}
		}
	}
	return fmt.Sprintf("%d cores (%s)%s, %s, %s", runtime.NumCPU(), cpu, mem, osName, runtime.Version())
}

// cpuBusy returns the percentage of the machine's CPU time spent busy
// during d, from /proc/stat, or -1.
func cpuBusy(d time.Duration) float64 {
	sample := func() (busy, total uint64, ok bool) {
		b, err := os.ReadFile("/proc/stat")
		if err != nil {
			return 0, 0, false
		}
		line, _, _ := strings.Cut(string(b), "\n")
		f := strings.Fields(line)
		if len(f) < 5 || f[0] != "cpu" {
			return 0, 0, false
		}
		for i, v := range f[1:] {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return 0, 0, false
			}
			total += n
			if i != 3 && i != 4 { // idle, iowait
				busy += n
			}
		}
		return busy, total, true
	}
	b0, t0, ok0 := sample()
	time.Sleep(d)
	b1, t1, ok1 := sample()
	if !ok0 || !ok1 || t1 == t0 {
		return -1
	}
	return 100 * float64(b1-b0) / float64(t1-t0)
}

// A target of docs/benchmarks.md and whether it holds.
type target struct {
	name, measured string
	holds          bool
}

// seqRatios is the worst, over the fill levels, of the product's
// sequential p50 over the floor's, measured alternating with it (the
// median of the runs' ratios), and its level.
func (r *report) seqRatios() (worst float64, level string, ok bool) {
	if r.ours == nil {
		return 0, "", false
	}
	return r.ours.seqWorst()
}

// conc16Ratio is the product's throughput with 16 clients over the
// floor's, measured alternating with it: the median of the runs' ratios.
func (r *report) conc16Ratio() (float64, bool) {
	if r.ours == nil || r.ours.conc16.Runs == 0 {
		return 0, false
	}
	return r.ours.conc16Ratio, true
}

// slowestSeq is the product's sequential throughput at its slowest fill
// level.
func (r *report) slowestSeq() (float64, bool) {
	if r.ours == nil || len(r.ours.seq) == 0 {
		return 0, false
	}
	slowest := 0.0
	for _, q := range r.ours.seq {
		if slowest == 0 || q.f.PerSec < slowest {
			slowest = q.f.PerSec
		}
	}
	return slowest, true
}

func (r *report) speedupSeq20k() (float64, bool) {
	s, ok := r.slowestSeq()
	if !ok || r.goipam == nil || r.goipam.seq20k.Runs == 0 {
		return 0, false
	}
	return ratio(s, r.goipam.seq20k.PerSec), true
}

func (r *report) speedupConc16() (float64, bool) {
	if r.ours == nil || r.ours.conc16.Runs == 0 || r.goipam == nil || r.goipam.conc16.Runs == 0 {
		return 0, false
	}
	return ratio(r.ours.conc16.PerSec, r.goipam.conc16.PerSec), true
}

// previewP50 is the preview's time per call in the form the page will
// use: the compact takenRanges when the tree has it.
func (r *report) previewP50() (float64, bool) {
	if r.preview == nil {
		return 0, false
	}
	return r.preview.page().f.P50, true
}

// numbersPreviewP50 is the module's next number per call, in the form
// numbers_preview_ms_p50 reports.
func (r *report) numbersPreviewP50() (float64, bool) {
	if r.numbersPreview == nil {
		return 0, false
	}
	return r.numbersPreview.keyForm().f.P50, true
}

func (r *report) pageRatio() (float64, bool) {
	if r.page == nil {
		return 0, false
	}
	return ratio(r.page.large.P50, r.page.small.P50), true
}

// fromPoolRatio is the worst, over the fill levels, of a from_pool
// create's p50 over the same create's with the number given.
func (r *report) fromPoolRatio() (worst float64, worstPct int, ok bool) {
	if r.numbers == nil {
		return 0, 0, false
	}
	for _, lvl := range numberFills {
		if q, found := r.numbers.fromPoolRatio[lvl.pct]; found && q >= worst {
			worst, worstPct, ok = q, lvl.pct, true
		}
	}
	return worst, worstPct, ok
}

func (r *report) broken() bool {
	if v := r.v6; v != nil && (v.duplicates() > 0 || v.misses() > 0) {
		return true
	}
	if n := r.numbers; n != nil && (n.duplicates > 0 || n.misses > 0 || !n.lowest) {
		return true
	}
	if b := r.pgbouncer; b != nil && (b.duplicates > 0 || !b.lowest) {
		return true
	}
	if h := r.history; h != nil && (h.duplicates > 0 || !h.lowest) {
		return true
	}
	o := r.ours
	if o == nil {
		return false
	}
	return o.duplicates > 0 || o.seqMisses > 0 || o.churnMisses > 0 ||
		o.conc16.Runs > 0 && !o.conc16Lowest || o.procs2x8.f.Runs > 0 && !o.procs2x8.lowest || o.procs4x4.f.Runs > 0 && !o.procs4x4.lowest
}

func (r *report) targets() []target {
	var ts []target
	if w, level, ok := r.seqRatios(); ok {
		ts = append(ts, target{"sequential claim p50 ≤ 1.3 × the floor's p50, at 0 %, 50 %, 90 % and 99 % full",
			fmt.Sprintf("%.2f × at worst (%s)", w, level), w <= 1.3})
	}
	if q, ok := r.conc16Ratio(); ok {
		ts = append(ts, target{"16 clients: throughput ≥ 0.7 × the floor's with 16 clients", fmt.Sprintf("%.2f ×", q), q >= 0.7})
	}
	if o := r.ours; o != nil && o.conc16.Runs > 0 {
		q := ratio(o.conc16.P99, o.conc16.P50)
		ts = append(ts, target{"16 clients: p99 ≤ 10 × p50", fmt.Sprintf("%.1f ×", q), q <= 10})
		ts = append(ts, target{"16 clients: 0 duplicates, the taken set exactly the lowest candidates",
			fmt.Sprintf("%d duplicates (all measurements), lowest candidates: %s; sequential claims not given the lowest free candidate: %d",
				o.duplicates, yes(o.conc16Lowest), o.seqMisses), o.duplicates == 0 && o.conc16Lowest})
	}
	if h := r.history; h != nil {
		ts = append(ts,
			target{fmt.Sprintf("16 clients while the usage history is written every %s: throughput ≥ 0.7 × the floor's with 16 clients (the 16 clients' target)", historyEvery),
				fmt.Sprintf("%.2f ×", h.ratio), h.ratio >= 0.7},
			target{"the same: p99 ≤ 10 × p50", fmt.Sprintf("%.1f ×", ratio(h.conc16.P99, h.conc16.P50)), ratio(h.conc16.P99, h.conc16.P50) <= 10},
			target{"the same: 0 duplicates, the lowest candidates, no history row per claim (one an hour and one a day per object)",
				fmt.Sprintf("%d duplicates, lowest candidates: %s; %d rows of %d objects over %d hours, %d writes", h.duplicates, yes(h.lowest), h.rows, h.objects, h.hours, h.writes),
				h.duplicates == 0 && h.lowest && h.rowsBounded()})
	}
	if q, ok := r.speedupSeq20k(); ok {
		ts = append(ts, target{"≥ 20 × go-ipam's sequential throughput at 20 000 taken", fmt.Sprintf("%.0f × (ours at its slowest fill level)", q), q >= 20})
	}
	if q, ok := r.speedupConc16(); ok {
		ts = append(ts, target{"≥ 10 × go-ipam's throughput with 16 clients", fmt.Sprintf("%.0f ×", q), q >= 10})
	}
	if p, ok := r.previewP50(); ok {
		form := r.preview.page().name
		ts = append(ts, target{"WASM preview ≤ 5 ms per call at p50", fmt.Sprintf("%.2f ms (%s)", p, form), p <= 5})
	}
	if p, ok := r.numbersPreviewP50(); ok {
		ts = append(ts, target{"WASM next number of a division with 4 000 of 4 094 taken ≤ 1 ms per call at p50",
			fmt.Sprintf("%.2f ms (%s)", p, r.numbersPreview.keyForm().name), p <= 1})
	}
	if q, ok := r.pageRatio(); ok {
		ts = append(ts, target{"pool page render at 60 000 allocations ≤ 2 × the render at 100", fmt.Sprintf("%.2f ×", q), q <= 2})
	}
	if o := r.ours; o != nil && r.floor16 != nil && o.procs2x8.f.Runs > 0 && o.procs4x4.f.Runs > 0 {
		q2, q4 := ratio(o.procs2x8.f.PerSec, r.floor16.PerSec), ratio(o.procs4x4.f.PerSec, r.floor16.PerSec)
		worst := max(o.procs2x8.stmts, o.procs4x4.stmts)
		ts = append(ts,
			target{"2 processes × 8 clients on one fresh subnet: throughput ≥ 0.6 × the floor's with 16 clients", fmt.Sprintf("%.2f ×", q2), q2 >= 0.6},
			target{"4 processes × 4 clients: throughput ≥ 0.5 × the floor's with 16 clients", fmt.Sprintf("%.2f ×", q4), q4 >= 0.5},
			target{"statements per claim in those runs ≤ 1.2", fmt.Sprintf("%.2f at worst", worst), worst <= 1.2})
	}
	if o := r.ours; o != nil && r.floor16 != nil && o.churn16.Runs > 0 {
		q := ratio(o.churn16.PerSec, r.floor16.PerSec)
		ts = append(ts, target{"release-then-claim pairs with 16 clients ≥ 0.35 × the floor's inserts with 16 clients", fmt.Sprintf("%.2f ×", q), q >= 0.35})
	}
	if v := r.vpcRead; v != nil {
		ts = append(ts,
			target{"reading a VPC with its subnets' usage (GraphQL and the console's VPC page, the worse) with 1 000 000 allocations in a /10 ≤ 2 × with 1 000",
				fmt.Sprintf("%.2f × (GraphQL %.2f ×, page %.2f ×)", v.ratio(), v.gqlRatio, v.pageRatio), v.ratio() <= 2},
			target{"a process's first use of the pool of 1 000 000 allocations (its view loaded) ≤ 500 ms",
				msf(v.viewLoad.P50), v.viewLoad.P50 <= 500},
			target{fmt.Sprintf("the subnet's page at the middle page of its allocation table (page %d of a /10 holding %d allocations) ≤ 2 × at page %d of one holding %d",
				v.tablePages[1], v.sizes[1], v.tablePages[0], v.sizes[0]), fmt.Sprintf("%.2f ×", v.tableRatio), v.tableRatio <= 2})
	}
	if sr := r.search; sr != nil {
		kind, worst := sr.slowest()
		ts = append(ts, target{fmt.Sprintf("search on %d allocations and %d objects of kinds (the console's search page): p50 ≤ 20 ms for each kind of query, addresses held and free, prefixes, hostnames, uids, a namespace, the start of an address, a VLAN number, a site's name, a display label, a Text value", sr.size, sr.objects),
			fmt.Sprintf("%s at worst (%s); the mix %s, p99 %s", msf(worst.P50), kind, msf(sr.page.P50), msf(sr.page.P99)), worst.P50 <= 20})
	}
	if b := r.pgbouncer; b != nil {
		ts = append(ts, target{"16 clients through PgBouncer in transaction mode: throughput ≥ 0.7 × the same claims straight to PostgreSQL",
			fmt.Sprintf("%.2f × (0 duplicates, lowest candidates: %s)", b.ratio, yes(b.lowest && b.duplicates == 0)), b.ratio >= 0.7 && b.lowest && b.duplicates == 0})
	}
	if n := r.numbers; n != nil {
		w, pct, _ := r.fromPoolRatio()
		ts = append(ts,
			target{"a VLAN created with from_pool: p50 ≤ 1.5 × the same create with the number given, in a division of 4 094 0 %, 50 % and 99 % full",
				fmt.Sprintf("%.2f × at worst (%d %% full)", w, pct), w <= 1.5},
			target{"16 clients, each in its own division of one pool: throughput ≥ 4 × a pool whose allocations wait for a lock of its row",
				fmt.Sprintf("%.2f ×", n.lockRatio), n.lockRatio >= 4},
			target{"16 clients in one division: throughput ≥ 0.5 × 16 clients in 16 divisions",
				fmt.Sprintf("%.2f ×", n.oneRatio), n.oneRatio >= 0.5},
			target{"number pools: 0 numbers held twice in a division, in every measurement and by 2 processes × 8 clients in one division",
				fmt.Sprintf("%d; every division exactly its lowest numbers: %s; from_pool creates not given the lowest free number: %d", n.duplicates, yes(n.lowest), n.misses),
				n.duplicates == 0 && n.lowest && n.misses == 0})
	}
	if v := r.v6; v != nil {
		ts = append(ts, v.targets()...)
	}
	return ts
}

func (r *report) targetsHold() bool {
	for _, t := range r.targets() {
		if !t.holds {
			return false
		}
	}
	return true
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// print writes the Markdown report and, with --json, the JSON line.
func (r *report) print(w io.Writer, cfg config) {
	fmt.Fprintf(w, "## ipambench, %s run\n\n", r.mode)
	busy := "unknown"
	if r.busyBefore >= 0 {
		busy = fmt.Sprintf("%.0f %%", r.busyBefore)
	}
	fmt.Fprintf(w, "Machine: %s. %s. CPUs busy in the second before the run: %s. Every figure is the median of %d runs.\n\n",
		r.machine, r.server, busy, cfg.runs)
	if cfg.smoke {
		fmt.Fprint(w, "A smoke run: every measurement at toy sizes, to show that each runs to the end and passes its checks. Its figures say nothing about speed, and the targets are not judged.\n\n")
	}
	fmt.Fprintln(w, "| measurement | clients | per second | p50 | p99 | statements | notes |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	row := func(name, clients string, f figure, stmts, notes string) {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", name, clients, rate(f.PerSec), msf(f.P50), msf(f.P99), stmts, notes)
	}
	stm := func(v float64) string { return fmt.Sprintf("%.2f", v) }
	if r.floor1 != nil {
		row("floor: single-row INSERT, autocommit", "1", *r.floor1, "1", fmt.Sprintf("%d inserts a run", r.floor1.Ops))
	}
	if r.floor16 != nil {
		row("floor", "16", *r.floor16, "1", fmt.Sprintf("%d inserts a run", r.floor16.Ops))
	}
	if o := r.ours; o != nil {
		o.seqRows(row)
		if o.conc16.Runs > 0 {
			note := fmt.Sprintf("p99 %.1f × p50; lowest candidates: %s; %d claims a run", ratio(o.conc16.P99, o.conc16.P50), yes(o.conc16Lowest), o.conc16.Ops)
			if q, ok := r.conc16Ratio(); ok {
				note = fmt.Sprintf("throughput **%.2f ×** the floor's (%s inserts/s, alternating with the claims); ", q, rate(o.conc16Floor.PerSec)) + note
			}
			row("ours: claims in one process", "16", o.conc16, stm(o.conc16Stmts), note)
		}
		if h := r.history; h != nil {
			row(fmt.Sprintf("ours: claims in one process while the usage history is written every %s", historyEvery), "16", h.conc16, "",
				fmt.Sprintf("throughput **%.2f ×** the floor's (%s inserts/s, alternating with the claims); p99 %.1f × p50; %d writes of the history, p50 %s, longest %s", h.ratio, rate(h.floor.PerSec), ratio(h.conc16.P99, h.conc16.P50), h.writes, msf(h.write.P50), msf(h.write.Max)))
		}
		for _, p := range []struct {
			name string
			res  procsResult
		}{{"2 processes × 8 clients", o.procs2x8}, {"4 processes × 4 clients", o.procs4x4}} {
			if p.res.f.Runs == 0 {
				continue
			}
			note := fmt.Sprintf("lowest candidates: %s; %d claims a run", yes(p.res.lowest), p.res.f.Ops)
			if r.floor16 != nil {
				note = fmt.Sprintf("throughput %.2f × the floor's; ", ratio(p.res.f.PerSec, r.floor16.PerSec)) + note
			}
			row("ours: "+p.name, "16", p.res.f, stm(p.res.stmts), note)
		}
		if o.churnClaim.Runs > 0 {
			row("ours: churn, release then claim", "1", figure{PerSec: o.churnPairs, P50: o.churnClaim.P50, P99: o.churnClaim.P99}, "",
				fmt.Sprintf("pairs per second; p50/p99 of the claim; release p50 %s; claims that did not get the address just released: %d", msf(o.churnRelease.P50), o.churnMisses))
			row("ours: churn, release then claim", "16", o.churn16, "", "pairs per second; p50/p99 of the claim")
		}
	}
	if g := r.goipam; g != nil {
		if g.seqEmpty.Runs > 0 {
			row("go-ipam v1.14.14 (PostgreSQL storage): empty /16", "1", g.seqEmpty, "", fmt.Sprintf("%d claims a run", g.seqEmpty.Ops))
			row(fmt.Sprintf("go-ipam: /16 with %d taken", g.taken), "1", g.seq20k, "", fmt.Sprintf("%d claims a run", g.seq20k.Ops))
		}
		if g.conc16.Runs > 0 {
			row("go-ipam: empty /16", "16", g.conc16, "", fmt.Sprintf("%s window a run; in all runs: %d errors, %d claims of 1 s or more (longest %.1f s), %d still running at a window's end; %d duplicates",
				cfg.goipamWindow, g.errors, g.stalls, g.maxStall.Seconds(), g.inFlight, g.duplicates))
		}
	}
	if p := r.preview; p != nil {
		for i, f := range p.forms {
			name := "WASM preview, the same with " + f.name
			if i == 0 {
				name = fmt.Sprintf("WASM preview in node: next 8 of a /16 with %d taken (%d ranges), %s", p.taken, p.rangeCount, f.name)
			}
			note := fmt.Sprintf("per call; first call %s; input %d bytes", msf(f.firstMs), f.bytes)
			if i == 0 {
				note += fmt.Sprintf("; module %d bytes", p.wasmBytes)
			}
			row(name, "1", f.f, "", note)
		}
	}
	if p := r.numbersPreview; p != nil {
		for i, f := range p.forms {
			name := "WASM next number, the same with " + f.name
			if i == 0 {
				name = fmt.Sprintf("WASM next number in node: a division 1-4094 with %d taken (%d runs), %s", p.taken, p.runCount, f.name)
			}
			row(name, "1", f.f, "", fmt.Sprintf("per call; first call %s; input %d bytes", msf(f.firstMs), f.bytes))
		}
	}
	if p := r.page; p != nil {
		row(fmt.Sprintf("console: pool page of a /16 with %d allocations", p.taken[0]), "1", p.small, stm(p.smallStmts), fmt.Sprintf("server time, whole handler; %d bytes", p.smallBytes))
		q, _ := r.pageRatio()
		row(fmt.Sprintf("console: pool page of a /16 with %d allocations", p.taken[1]), "1", p.large, stm(p.largeStmts), fmt.Sprintf("**%.2f ×** the page at %d; %d bytes", q, p.taken[0], p.largeBytes))
		row("a process loads the view of that pool (first use, reconnection)", "1", figure{P50: p.viewLoad.P50}, "", fmt.Sprintf("one read of its %d taken addresses", p.taken[1]))
	}
	if g := r.graphql; g != nil {
		row("GraphQL: a small query (a pool and its usage), server time", "1", g.query, "",
			fmt.Sprintf("p50 **%.2f ×** the same two calls without GraphQL (%s, alternating with the requests)", g.queryRatio, msf(g.queryDirect.P50)))
		row("GraphQL: a claim mutation (attachInterface), server time", "1", g.claim, "",
			fmt.Sprintf("p50 **%.2f ×** the same claim without GraphQL (%s, alternating with the requests)", g.claimRatio, msf(g.claimDirect.P50)))
	}
	if v := r.vpcRead; v != nil {
		for i, n := range v.sizes {
			note := "server time, the reference"
			if i == 1 {
				note = fmt.Sprintf("**%.2f ×** the reference (median of the runs' p50 ratios)", v.gqlRatio)
			}
			row(fmt.Sprintf("GraphQL: a VPC with its subnets' usage, a /10 holding %d allocations", n), "1", v.gql[i], "", note)
		}
		for i, n := range v.sizes {
			note := "server time, whole handler, the reference"
			if i == 1 {
				note = fmt.Sprintf("**%.2f ×** the reference", v.pageRatio)
			}
			row(fmt.Sprintf("console: the VPC's page, a /10 holding %d allocations", n), "1", v.page[i], "", note)
		}
		for i, n := range v.sizes {
			note := "server time, whole handler, the reference"
			if i == 1 {
				note = fmt.Sprintf("**%.2f ×** the reference", v.tableRatio)
			}
			row(fmt.Sprintf("console: the subnet's page with page %d of its allocation table, a /10 holding %d allocations", v.tablePages[i], n), "1", v.table[i], "", note)
		}
		row(fmt.Sprintf("a process's first read of the VPC of %d allocations (its view loaded)", v.sizes[1]), "1", figure{P50: v.viewLoad.P50}, "", "")
	}
	if sr := r.search; sr != nil {
		row(fmt.Sprintf("console: search page on %d allocations and %d objects of kinds, the mix of %s", sr.size, sr.objects, strings.Join(searchKinds, ", ")), "1", sr.page, "",
			fmt.Sprintf("server time, whole handler; %d queries a run; pages of up to %d bytes", sr.page.Ops, sr.bytes))
		for _, kind := range searchKinds {
			row("console: search page, "+kind, "1", sr.kinds[kind], "", "")
		}
		row("ipam.Service.Search alone, the same mix", "1", sr.domain, "", "the queries, without session and rendering")
		row("ipam.Service.Search as a tenant of another namespace (100 VMs of its own): host-1 … host-9, each the start of a ninth of the owners' names", "1", sr.tenant, "", "0 hits: the other namespaces' owners of those names read and dropped")
	}
	if b := r.pgbouncer; b != nil {
		row("claims through PgBouncer (Debian's, transaction mode, 20 server connections)", "16", b.pooled, "",
			fmt.Sprintf("throughput **%.2f ×** the same claims straight to PostgreSQL (%s/s, alternating)", b.ratio, rate(b.direct.PerSec)))
	}
	if n := r.numbers; n != nil {
		for _, lvl := range numberFills {
			f := n.fromPool[lvl.pct]
			note := fmt.Sprintf("p50 **%.2f ×** the same create with the number given (%s, %.2f statements, alternating with the creates); %d creates a run",
				n.fromPoolRatio[lvl.pct], msf(n.given[lvl.pct].P50), n.givenStmts[lvl.pct], f.Ops)
			row(fmt.Sprintf("numbers: a VLAN with `from_pool`, its site's division %d %% full (%d of 4 094)", lvl.pct, n.taken[lvl.pct]), "1", f, stm(n.fromPoolStmts[lvl.pct]), note)
		}
		row("numbers: VLANs from the pool, each client in its own division (site)", "16", n.divisions16, "",
			fmt.Sprintf("throughput **%.2f ×** the pool-lock reference's (alternating with it); %d creates a run", n.lockRatio, n.divisions16.Ops))
		row("reference: the pool's row locked (`SELECT … FOR UPDATE`), the lowest free number by SQL, the VLAN written, each client in its own division", "16", n.poolLock16, "",
			fmt.Sprintf("%d creates a run", n.poolLock16.Ops))
		row("numbers: VLANs from the pool, all clients in one division", "16", n.oneDivision16, "",
			fmt.Sprintf("throughput **%.2f ×** 16 clients in 16 divisions' (alternating with them); p99 %.1f × p50; %d creates a run", n.oneRatio, ratio(n.oneDivision16.P99, n.oneDivision16.P50), n.oneDivision16.Ops))
		row("numbers: 2 processes × 8 clients in one division", "16", n.twoProc, stm(n.twoProcStmts),
			fmt.Sprintf("every division exactly its lowest numbers: %s; numbers held twice: %d; %d creates a run", yes(n.lowest), n.duplicates, n.twoProc.Ops))
	}
	if v := r.v6; v != nil {
		v.rows(row)
	}
	if ts := r.targets(); len(ts) > 0 && !cfg.smoke {
		held := 0
		fmt.Fprintln(w, "\n| target | measured | holds |")
		fmt.Fprintln(w, "|---|---|---|")
		for _, t := range ts {
			fmt.Fprintf(w, "| %s | %s | %s |\n", t.name, t.measured, yes(t.holds))
			if t.holds {
				held++
			}
		}
		fmt.Fprintf(w, "\n%d of %d targets hold.\n", held, len(ts))
	}
	if cfg.json {
		b, _ := json.Marshal(r.json())
		fmt.Fprintf(w, "%s\n", b)
	}
}

// seqRows writes a row of the report for each level of the sequential
// claims.
func (o *oursResult) seqRows(row func(name, clients string, f figure, stmts, notes string)) {
	for _, q := range o.seq {
		note := fmt.Sprintf("p50 **%.2f ×** the floor's (%s, alternating with the claims); %d claims a run", q.ratio, msf(q.floor.P50), q.f.Ops)
		row("ours: claim on "+q.name, "1", q.f, fmt.Sprintf("%.2f", q.stmts), note)
	}
}

// seqJSON puts the figures of each level of the sequential claims in m,
// their keys starting with prefix.
func (o *oursResult) seqJSON(m map[string]any, prefix string) {
	for _, q := range o.seq {
		k := prefix + "seq_" + q.key + "_"
		m[k+"p50_ms"], m[k+"p99_ms"], m[k+"per_s"] = round(q.f.P50), round(q.f.P99), round(q.f.PerSec)
		m[k+"statements_per_claim"] = round(q.stmts)
		m[k+"p50_ratio_to_floor"], m[k+"floor_p50_ms"] = round(q.ratio), round(q.floor.P50)
	}
}

// json is the report as one flat object.
func (r *report) json() map[string]any {
	m := map[string]any{"mode": r.mode, "runs_per_figure": r.runs, "machine": r.machine, "server": r.server, "cpu_busy_before_percent": round(r.busyBefore)}
	put := func(key string, v float64, ok bool) {
		if ok {
			m[key] = round(v)
		} else {
			m[key] = nil
		}
	}
	w, _, ok := r.seqRatios()
	put("seq_p50_ratio_to_floor_max", w, ok)
	q, ok := r.conc16Ratio()
	put("conc16_throughput_ratio_to_floor", q, ok)
	q, ok = r.speedupSeq20k()
	put("speedup_vs_goipam_seq_at_20k", q, ok)
	q, ok = r.speedupConc16()
	put("speedup_vs_goipam_conc16", q, ok)
	q, ok = r.previewP50()
	put("preview_ms_p50", q, ok)
	q, ok = r.numbersPreviewP50()
	put("numbers_preview_ms_p50", q, ok)
	q, ok = r.pageRatio()
	put("page_render_ratio_60k_to_100", q, ok)
	m["duplicates"] = nil
	if r.floor1 != nil {
		m["floor_p50_ms"], m["floor_per_s"] = round(r.floor1.P50), round(r.floor1.PerSec)
	}
	if r.floor16 != nil {
		m["floor16_per_s"], m["floor16_p50_ms"], m["floor16_p99_ms"] = round(r.floor16.PerSec), round(r.floor16.P50), round(r.floor16.P99)
	}
	if o := r.ours; o != nil {
		m["duplicates"] = o.duplicates
		o.seqJSON(m, "")
		if len(o.seq) > 0 {
			m["seq_lowest_misses"] = o.seqMisses
		}
		if o.conc16.Runs > 0 {
			m["conc16_per_s"], m["conc16_p50_ms"], m["conc16_p99_ms"] = round(o.conc16.PerSec), round(o.conc16.P50), round(o.conc16.P99)
			m["conc16_p99_to_p50"], m["conc16_lowest"], m["conc16_statements_per_claim"] = round(ratio(o.conc16.P99, o.conc16.P50)), o.conc16Lowest, round(o.conc16Stmts)
			m["conc16_floor_per_s"] = round(o.conc16Floor.PerSec)
		}
		for k, p := range map[string]procsResult{"procs2x8": o.procs2x8, "procs4x4": o.procs4x4} {
			if p.f.Runs == 0 {
				continue
			}
			m[k+"_per_s"], m[k+"_p50_ms"], m[k+"_p99_ms"] = round(p.f.PerSec), round(p.f.P50), round(p.f.P99)
			m[k+"_lowest"], m[k+"_statements_per_claim"] = p.lowest, round(p.stmts)
			if r.floor16 != nil {
				m[k+"_throughput_ratio_to_floor"] = round(ratio(p.f.PerSec, r.floor16.PerSec))
			}
		}
		if o.procs2x8.f.Runs > 0 && o.procs4x4.f.Runs > 0 {
			m["procs_statements_per_claim_max"] = round(max(o.procs2x8.stmts, o.procs4x4.stmts))
		}
		if o.churn16.Runs > 0 && r.floor16 != nil {
			m["churn16_pairs_ratio_to_floor"] = round(ratio(o.churn16.PerSec, r.floor16.PerSec))
		}
		if o.churnClaim.Runs > 0 {
			m["churn_pairs_per_s"], m["churn_claim_p50_ms"], m["churn_release_p50_ms"], m["churn_misses"] = round(o.churnPairs), round(o.churnClaim.P50), round(o.churnRelease.P50), o.churnMisses
			m["churn16_pairs_per_s"], m["churn16_claim_p50_ms"], m["churn16_claim_p99_ms"] = round(o.churn16.PerSec), round(o.churn16.P50), round(o.churn16.P99)
		}
	}
	if g := r.goipam; g != nil {
		m["goipam_seq_empty_per_s"], m["goipam_seq_empty_p50_ms"] = round(g.seqEmpty.PerSec), round(g.seqEmpty.P50)
		m["goipam_seq_20k_per_s"], m["goipam_seq_20k_p50_ms"] = round(g.seq20k.PerSec), round(g.seq20k.P50)
		m["goipam_conc16_per_s"], m["goipam_conc16_p50_ms"], m["goipam_conc16_p99_ms"] = round(g.conc16.PerSec), round(g.conc16.P50), round(g.conc16.P99)
		m["goipam_errors"], m["goipam_stalls"], m["goipam_in_flight_at_end"], m["goipam_longest_stall_s"], m["goipam_duplicates"] = g.errors, g.stalls, g.inFlight, round(g.maxStall.Seconds()), g.duplicates
	}
	if p := r.preview; p != nil {
		m["preview_taken_ms_p50"], m["preview_taken_ranges_ms_p50"], m["preview_taken_ranges_apart_ms_p50"] = nil, nil, nil
		for _, f := range p.forms {
			key := map[string]string{"list": "preview_taken", "field": "preview_taken_ranges", "apart": "preview_taken_ranges_apart"}[f.key]
			m[key+"_ms_p50"], m[key+"_ms_p99"], m[key+"_first_call_ms"], m[key+"_input_bytes"] = round(f.f.P50), round(f.f.P99), round(f.firstMs), f.bytes
		}
		m["preview_form"] = p.page().key
	}
	if p := r.numbersPreview; p != nil {
		for _, f := range p.forms {
			key := "numbers_preview_" + map[string]string{"list": "taken", "field": "taken_ranges", "apart": "taken_ranges_apart"}[f.key]
			m[key+"_ms_p50"], m[key+"_ms_p99"], m[key+"_first_call_ms"], m[key+"_input_bytes"] = round(f.f.P50), round(f.f.P99), round(f.firstMs), f.bytes
		}
		m["numbers_preview_form"] = numbersPreviewKey
	}
	if p := r.page; p != nil {
		m["page_100_ms_p50"], m["page_100_ms_p99"], m["page_60k_ms_p50"], m["page_60k_ms_p99"] = round(p.small.P50), round(p.small.P99), round(p.large.P50), round(p.large.P99)
		m["page_100_statements"], m["page_60k_statements"] = round(p.smallStmts), round(p.largeStmts)
		m["view_load_60k_ms"] = round(p.viewLoad.P50)
	}
	if g := r.graphql; g != nil {
		m["graphql_query_ms_p50"], m["graphql_query_direct_ms_p50"], m["graphql_query_p50_ratio_to_direct"] = round(g.query.P50), round(g.queryDirect.P50), round(g.queryRatio)
		m["graphql_claim_ms_p50"], m["graphql_claim_direct_ms_p50"], m["graphql_claim_p50_ratio_to_direct"] = round(g.claim.P50), round(g.claimDirect.P50), round(g.claimRatio)
	}
	m["vpc_read_ratio_1m_to_1k"], m["view_load_ms_1m"], m["table_page_ratio_1m_to_1k"] = nil, nil, nil
	if v := r.vpcRead; v != nil {
		m["vpc_read_ratio_1m_to_1k"], m["view_load_ms_1m"] = round(v.ratio()), round(v.viewLoad.P50)
		m["vpc_read_graphql_1k_ms_p50"], m["vpc_read_graphql_1m_ms_p50"] = round(v.gql[0].P50), round(v.gql[1].P50)
		m["vpc_read_page_1k_ms_p50"], m["vpc_read_page_1m_ms_p50"] = round(v.page[0].P50), round(v.page[1].P50)
		m["table_page_ratio_1m_to_1k"], m["table_page_1k_ms_p50"], m["table_page_1m_ms_p50"] = round(v.tableRatio), round(v.table[0].P50), round(v.table[1].P50)
	}
	m["history_conc16_throughput_ratio_to_floor"] = nil
	if h := r.history; h != nil {
		m["history_conc16_throughput_ratio_to_floor"], m["history_conc16_per_s"] = round(h.ratio), round(h.conc16.PerSec)
		m["history_conc16_p50_ms"], m["history_conc16_p99_ms"] = round(h.conc16.P50), round(h.conc16.P99)
		m["history_writes"], m["history_rows_bounded"] = h.writes, h.rowsBounded()
		m["history_write_p50_ms"], m["history_write_max_ms"] = round(h.write.P50), round(h.write.Max)
	}
	m["search_p50_ms"], m["search_p99_ms"] = nil, nil
	if sr := r.search; sr != nil {
		m["search_p50_ms"], m["search_p99_ms"] = round(sr.page.P50), round(sr.page.P99)
		_, worst := sr.slowest()
		m["search_slowest_kind_p50_ms"] = round(worst.P50)
		m["search_domain_p50_ms"], m["search_domain_p99_ms"] = round(sr.domain.P50), round(sr.domain.P99)
		m["search_tenant_shared_name_p50_ms"] = round(sr.tenant.P50)
		for _, kind := range searchKinds {
			k := "search_" + strings.ReplaceAll(kind, " ", "_") + "_"
			m[k+"p50_ms"], m[k+"p99_ms"] = round(sr.kinds[kind].P50), round(sr.kinds[kind].P99)
		}
	}
	m["pgbouncer_claims_ratio_to_direct"] = nil
	if b := r.pgbouncer; b != nil {
		m["pgbouncer_claims_ratio_to_direct"], m["pgbouncer_claims_per_s"], m["pgbouncer_direct_claims_per_s"] = round(b.ratio), round(b.pooled.PerSec), round(b.direct.PerSec)
		m["pgbouncer_claims_p50_ms"], m["pgbouncer_claims_p99_ms"], m["pgbouncer_duplicates"], m["pgbouncer_lowest"] = round(b.pooled.P50), round(b.pooled.P99), b.duplicates, b.lowest
		d, _ := m["duplicates"].(int)
		m["duplicates"] = d + b.duplicates
	}
	w, _, ok = r.fromPoolRatio()
	put("numbers_from_pool_p50_ratio_max", w, ok)
	m["numbers_divisions16_vs_pool_lock"], m["numbers_one_division16_vs_divisions16"], m["numbers_duplicates"] = nil, nil, nil
	if n := r.numbers; n != nil {
		m["numbers_divisions16_vs_pool_lock"], m["numbers_one_division16_vs_divisions16"] = round(n.lockRatio), round(n.oneRatio)
		m["numbers_duplicates"], m["numbers_lowest"], m["numbers_from_pool_misses"] = n.duplicates, n.lowest, n.misses
		for pct, f := range n.fromPool {
			k := fmt.Sprintf("numbers_from_pool_%d_", pct)
			m[k+"p50_ms"], m[k+"p99_ms"], m[k+"statements"] = round(f.P50), round(f.P99), round(n.fromPoolStmts[pct])
			m[k+"p50_ratio"], m[k+"given_p50_ms"], m[k+"given_statements"] = round(n.fromPoolRatio[pct]), round(n.given[pct].P50), round(n.givenStmts[pct])
		}
		for k, f := range map[string]figure{"divisions16": n.divisions16, "pool_lock16": n.poolLock16, "one_division16": n.oneDivision16, "two_process": n.twoProc} {
			m["numbers_"+k+"_per_s"], m["numbers_"+k+"_p50_ms"], m["numbers_"+k+"_p99_ms"] = round(f.PerSec), round(f.P50), round(f.P99)
		}
		m["numbers_two_process_statements"] = round(n.twoProcStmts)
	}
	r.v6JSON(m)
	m["targets_hold"] = nil
	if r.mode != "smoke" {
		m["targets_hold"] = r.targetsHold()
	}
	return m
}

func round(v float64) float64 {
	if v >= 100 {
		return float64(int64(v + 0.5))
	}
	return float64(int64(v*1000+0.5)) / 1000
}

func msf(v float64) string {
	switch {
	case v == 0:
		return "—"
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	default:
		return fmt.Sprintf("%.3f ms", v)
	}
}

func rate(v float64) string {
	switch {
	case v == 0:
		return "—"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}
