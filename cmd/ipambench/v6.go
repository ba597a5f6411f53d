package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/netip"
	"time"

	"github.com/lib/pq"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/store"
)

// v6Result is what the IPv6 measurements found (docs/benchmarks.md, "IPv6"):
// the claims of ours in IPv6 subnets against the floor's inserts of IPv6
// addresses, the view of a /64 holding 1 000 000 allocations, subnets by
// size in a /48 and the browser's previews.
type v6Result struct {
	// ours holds the sequential claims (a /112 at each fill level, and
	// the /64 of the view) and 16 clients in one /64.
	ours oursResult

	viewSize  int        // allocations of the /64 (1 000 000; config.v6ViewSize)
	viewLoad  figure     // a process's first use of the /64's pool
	viewBytes [2]float64 // live heap per allocation of the view, then of the IPv4 view of as many

	subnets      int    // subnets of the /48 (10 000; config.v6Subnets)
	bySize       figure // the next /64 of the /48
	bySizeFloor  figure // the floor, alternating with it
	bySizeRatio  float64
	bySizeStmts  float64 // statements per subnet
	bySizeMisses int     // subnets that did not get the lowest free /64
	overlaps     int     // pairs of the VPC's subnets whose IPv6 prefixes overlap

	addresses     *previewResult // the WASM preview of the next addresses of a /64
	subnetPreview []previewForm  // the WASM previews of the next /64 of the /48, the page's last
	prefixes      int            // subnets the preview's /48 holds
}

// duplicates counts the addresses and the prefixes handed out twice.
func (v *v6Result) duplicates() int { return v.ours.duplicates + v.overlaps }

// claimed says whether a measurement made claims, whose duplicates and
// misses count.
func (v *v6Result) claimed() bool {
	return len(v.ours.seq) > 0 || v.ours.conc16.Runs > 0 || v.bySize.Runs > 0
}

// misses counts the claims that did not get the lowest free candidate or
// prefix.
func (v *v6Result) misses() int {
	n := v.ours.seqMisses + v.bySizeMisses
	if v.ours.conc16.Runs > 0 && !v.ours.conc16Lowest {
		n++
	}
	return n
}

// previewP50 is the slower of the two WASM previews' p50, in the form the
// page calls them.
func (v *v6Result) previewP50() (float64, bool) {
	if v.addresses == nil || v.subnetPreview == nil {
		return 0, false
	}
	return max(v.addresses.page().f.P50, v.subnetPage().f.P50), true
}

// subnetPage is the subnet preview in the form the page calls it.
func (v *v6Result) subnetPage() previewForm { return v.subnetPreview[len(v.subnetPreview)-1] }

// viewBytesRatio is the memory of the /64's view per allocation over an
// IPv4 view's of as many.
func (v *v6Result) viewBytesRatio() float64 { return ratio(v.viewBytes[0], v.viewBytes[1]) }

// benchV6 is the IPv6 prefix of the VPCs whose IPv6 claims the bench
// measures: a ULA /48, its subnets carved from its first address.
var benchV6 = netip.MustParsePrefix("fd00:42::/48")

// The prefixes the IPv6 measurements claim in: the /64 of the view (and
// of the 16 clients), the /112 of the fill levels, and the IPv4 prefix of
// the view of reference, large enough for as many allocations in
// fragments.
var (
	v6View   = netip.MustParsePrefix("fd00:42::/64")
	v6Seq    = netip.MustParsePrefix("fd00:42::/112")
	v4ViewOf = netip.MustParsePrefix("10.0.0.0/10")
)

// measureV6 runs the IPv6 measurements; wasm, when built, times the
// browser's previews too.
func measureV6(ctx context.Context, cfg config, svc *ipam.Service, db *store.DB, wasm *wasmModule) (*v6Result, error) {
	out := &v6Result{viewSize: cfg.v6ViewSize, subnets: cfg.v6Subnets}

	// The /64 of the view, and the IPv4 subnet of as many allocations:
	// the same fragments in both (runs of 1 to 21 taken between single
	// free addresses), so that a view holds as many spans as it would
	// after releases here and there.
	offsets := fragmented(cfg.v6ViewSize)
	progress("IPv6: a /64 holding %d allocations in fragments, and an IPv4 subnet of as many", len(offsets))
	big, err := createSubnetIn(ctx, svc, "bench/v6-1m", netip.MustParsePrefix(benchCIDR), v6View)
	if err != nil {
		return out, err
	}
	ref, err := createSubnetIn(ctx, svc, "bench/v6-ref", v4ViewOf, netip.Prefix{})
	if err != nil {
		return out, err
	}
	for _, s := range []subnet{big, ref} {
		if err := s.fill(ctx, db, offsets); err != nil {
			return out, err
		}
	}
	// The fills wrote about a gigabyte of WAL: the checkpoints they started
	// would write back the table while the first view loads (measured: the
	// IPv6 view, read first, took twice its CPU time then). A process meets
	// a pool filled over months, not a second ago.
	if _, err := db.ExecContext(ctx, `CHECKPOINT`); err != nil {
		return out, fmt.Errorf("a checkpoint after the fills (the role needs pg_checkpoint): %w", err)
	}
	for i, s := range []subnet{big, ref} {
		loads, err := viewLoads(ctx, cfg, db, func(fresh *ipam.Service) error {
			// The subnet's usage in its family, as a VPC's read asks for it
			// (view_load_ms_1m's use): one view loaded.
			usage := fresh.SubnetUsage
			if s.family == ipam.IPv6 {
				usage = fresh.SubnetIPv6Usage
			}
			_, err := usage(ctx, operator, ipam.Subnet{Namespace: s.ns, VPC: "net", Name: "all"})
			return err
		})
		if err != nil {
			return out, err
		}
		out.viewBytes[i] = loads.heap / float64(len(offsets))
		if i == 0 {
			out.viewLoad = loads.f
		}
		progress("  a process's first use of the %s pool (its view loaded): %.1f ms, %.1f bytes of heap an allocation", s.base, loads.f.P50, out.viewBytes[i])
	}

	levels := fillLevelsIn(ctx, cfg, db, "bench/v6-seq", "/112", func(ns string) (subnet, error) {
		return createSubnetIn(ctx, svc, ns, netip.MustParsePrefix(benchCIDR), v6Seq)
	})
	levels = append(levels, seqLevel{key: "1m", name: fmt.Sprintf("a /64 holding %d allocations", len(offsets)),
		prepare: func() (subnet, []int, error) {
			progress("ours, sequential in the /64 holding %d allocations", len(offsets))
			return big, offsets, nil
		}})
	if err := sequential(ctx, cfg, svc, db, levels, &out.ours); err != nil {
		return out, fmt.Errorf("sequential claims: %w", err)
	}

	progress("ours, 16 clients in one /64")
	warmPool(ctx, db, 16)
	err = concurrent16(ctx, cfg, svc, db, "v6-c16", func(ns string) (subnet, error) {
		return createSubnetIn(ctx, svc, ns, netip.MustParsePrefix(benchCIDR), v6View)
	}, &out.ours)
	if err != nil {
		return out, fmt.Errorf("16 clients: %w", err)
	}

	if err := subnetsBySize(ctx, cfg, svc, db, out); err != nil {
		return out, fmt.Errorf("subnets by size: %w", err)
	}

	if wasm != nil {
		progress("WASM preview in node: next 8 of a /64 with %d taken in fragments", cfg.v6PreviewTaken)
		pr, err := preview(ctx, cfg, wasm, previewPool{cidr: v6View.String(), gateway: v6View.Addr().Next().String(), taken: cfg.v6PreviewTaken})
		if err != nil {
			return out, fmt.Errorf("preview: %w", err)
		}
		out.addresses = &pr
		progress("WASM preview in node: the next /64 of a /48 with %d subnets", cfg.v6PreviewSubnets)
		if out.subnetPreview, err = subnetPreview(ctx, cfg, wasm); err != nil {
			return out, fmt.Errorf("subnet preview: %w", err)
		}
		out.prefixes = cfg.v6PreviewSubnets
	}
	return out, nil
}

// nthPrefix returns the n-th prefix of length bits of parent, from its
// first address.
func nthPrefix(parent netip.Prefix, bits, n int) netip.Prefix {
	b := parent.Addr().AsSlice()
	v := new(big.Int).SetBytes(b)
	v.Add(v, new(big.Int).Lsh(big.NewInt(int64(n)), uint(parent.Addr().BitLen()-bits)))
	a, _ := netip.AddrFromSlice(v.FillBytes(b))
	return netip.PrefixFrom(a, bits)
}

// fillSubnetsSQL inserts, in one statement, subnets fill-<i> of the VPC,
// each with its IPv4 and IPv6 prefixes and their first host addresses as
// gateways, as CreateSubnet makes them (without their audit entries).
const fillSubnetsSQL = `INSERT INTO subnets (vpc_uid, name, cidr, gateway, ipv6_cidr, ipv6_gateway, created_by)
	SELECT $1, 'fill-' || i, c, host(c)::inet + 1, c6, host(c6)::inet + 1, 'bench'
	FROM unnest($2::cidr[], $3::cidr[]) WITH ORDINALITY AS x(c, c6, i)`

// subnetsBySize times the next /64 of a dual-stack VPC's /48 holding
// cfg.v6Subnets subnets (its lowest /64s), each create alternating with
// the floor's insert of an IPv6 address, and checks that each subnet got
// the lowest free /64 and that no two of the VPC's IPv6 prefixes
// overlap. The IPv4 prefix of each subnet is given (a /28), so that the
// create searches for its IPv6 prefix alone.
func subnetsBySize(ctx context.Context, cfg config, svc *ipam.Service, db *store.DB, out *v6Result) error {
	const ns = "bench/v6-subnets"
	v4 := netip.MustParsePrefix("10.0.0.0/8")
	vpc, err := svc.CreateVPC(ctx, operator, ipam.CreateVPCInput{Namespace: ns, Name: "net", CIDR: v4.String(), IPv6CIDR: benchV6.String()})
	if err != nil {
		return err
	}
	progress("ours, subnets by size: the next /64 of a /48 holding %d subnets", cfg.v6Subnets)
	var cidrs, cidrs6 []string
	for i := range cfg.v6Subnets {
		cidrs, cidrs6 = append(cidrs, nthPrefix(v4, 28, i).String()), append(cidrs6, nthPrefix(benchV6, 64, i).String())
	}
	if _, err := db.ExecContext(ctx, fillSubnetsSQL, vpc.UID, pq.Array(cidrs), pq.Array(cidrs6)); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `VACUUM (ANALYZE) subnets`); err != nil {
		return err
	}
	next := cfg.v6Subnets
	create := func() (time.Duration, error) {
		i := next
		next++
		start := time.Now()
		sub, err := svc.CreateSubnet(ctx, operator, ipam.CreateSubnetInput{Namespace: ns, VPC: "net", Name: fmt.Sprintf("s-%d", i),
			CIDR: nthPrefix(v4, 28, i).String(), IPv6PrefixLength: 64})
		d := time.Since(start)
		if err == nil && sub.IPv6CIDR != nthPrefix(benchV6, 64, i) {
			out.bySizeMisses++
		}
		return d, err
	}
	if _, err := create(); err != nil { // as a serving process has the VPC's rows read once
		return err
	}
	fop, err := floorOp(ctx, db, floorV6)
	if err != nil {
		return err
	}
	alt, err := alternateRuns(cfg, fop, create)
	if err != nil {
		return err
	}
	out.bySize, out.bySizeFloor, out.bySizeRatio = figureOf(alt.runs), figureOf(alt.floors), median(alt.ratios)
	out.bySizeStmts = alt.stmtsPerOp
	return db.GetContext(ctx, &out.overlaps, `SELECT count(*) FROM subnets a JOIN subnets b
		ON a.vpc_uid = b.vpc_uid AND a.uid < b.uid AND a.ipv6_cidr && b.ipv6_cidr WHERE a.vpc_uid = $1`, vpc.UID)
}

// subnetPreview times, in node, the browser's preview of the next /64
// of a /48 whose lowest cfg.v6PreviewSubnets /64s are subnets (each with a
// /28 of 10.0.0.0/8): as the VPC's page asks for it
// (ipamPredictClaim of an IPv6 subnet of length 64, the VPC's claims one
// string that the module parses once), and with the subnets in the JSON
// of ipamPreviewSubnet, read every call. Each answer is checked against
// the Go package's, and must be the /64 after the subnets'. It returns the
// page's form last.
func subnetPreview(ctx context.Context, cfg config, m *wasmModule) ([]previewForm, error) {
	v4 := netip.MustParsePrefix("10.0.0.0/8")
	spec := candidates.ClaimsSpec{Namespace: "bench", VPC: "net",
		Pool:   candidates.ClaimPool{Name: candidates.PrivatePoolName("net"), PoolSpec: candidates.PoolSpec{CIDR: v4.String()}},
		PoolV6: &candidates.ClaimPool{Name: candidates.PrivatePoolNameV6("net"), PoolSpec: candidates.PoolSpec{CIDR: benchV6.String()}}}
	var subnets []string
	for i := range cfg.v6PreviewSubnets {
		p4, p6 := nthPrefix(v4, 28, i), nthPrefix(benchV6, 64, i)
		subnets = append(subnets, p6.String())
		spec.Subnets = append(spec.Subnets, candidates.ClaimSubnet{Name: fmt.Sprintf("s-%d", i), CIDR: p4.String(), Gateway: p4.Addr().Next().String(),
			IPv6CIDR: p6.String(), IPv6Gateway: p6.Addr().Next().String()})
	}
	want := nthPrefix(benchV6, 64, cfg.v6PreviewSubnets).String()
	claimsJSON, _ := json.Marshal(spec)
	claims := string(claimsJSON)
	request := map[string]any{"ipv6Subnet": map[string]any{"prefixLength": 64}}
	inputs := []harnessInput{
		{Name: "subnet json", Function: "ipamPreviewSubnet",
			Input: candidates.SubnetPreviewInput{VPC: "net", CIDR: benchV6.String(), Subnets: subnets, PrefixLength: 64}},
		{Name: "subnet claims", Function: "ipamPredictClaim", Input: request, Claims: &claims},
	}
	forms := []previewForm{
		{key: "json", name: "`ipamPreviewSubnet`, the subnets in the JSON"},
		{key: "claims", name: "`ipamPredictClaim` of an `ipv6Subnet`, the VPC's claims parsed once (the page's call)"},
	}
	// The Go package's answers, which the module's must equal.
	inJSON, _ := json.Marshal(inputs[0].Input)
	checkJSON, err := sameNext("subnet preview", candidates.SubnetPreviewJSON(inJSON), 1)
	if err != nil {
		return nil, err
	}
	c, err := candidates.ParseClaimsJSON(claimsJSON)
	if err != nil {
		return nil, err
	}
	reqJSON, _ := json.Marshal(request)
	var predicted struct {
		IPv6CIDR string `json:"ipv6Cidr"`
	}
	if err := json.Unmarshal(c.PredictJSON(reqJSON), &predicted); err != nil || predicted.IPv6CIDR != want {
		return nil, fmt.Errorf("the Go package predicts the IPv6 subnet %q (%v), want %s", predicted.IPv6CIDR, err, want)
	}
	runs, firsts, err := inNode(ctx, cfg, m, inputs, func(name string, answer json.RawMessage) error {
		if name == inputs[0].Name {
			return checkJSON(name, answer)
		}
		var got struct {
			IPv6CIDR string `json:"ipv6Cidr"`
		}
		if err := json.Unmarshal(answer, &got); err != nil || got.IPv6CIDR != want {
			return fmt.Errorf("the WASM prediction (%s) answered %.300s, want the IPv6 subnet %s", name, answer, want)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range forms {
		forms[i].f, forms[i].firstMs, forms[i].bytes = figureOf(runs[inputs[i].Name]), median(firsts[inputs[i].Name]), inputs[i].bytes()
	}
	return forms, nil
}

// targets are the IPv6 measurements' targets (docs/benchmarks.md).
func (v *v6Result) targets() []target {
	var ts []target
	if w, level, ok := v.ours.seqWorst(); ok {
		ts = append(ts, target{"IPv6: sequential claim p50 ≤ 1.3 × the floor's p50 (inserts of IPv6 addresses), in a /112 0 %, 50 %, 90 % and 99 % full and in a /64 holding 1 000 000 allocations",
			fmt.Sprintf("%.2f × at worst (%s)", w, level), w <= 1.3})
	}
	if o := v.ours; o.conc16.Runs > 0 {
		ts = append(ts, target{"IPv6: 16 clients in one /64, throughput ≥ 0.7 × the floor's with 16 clients", fmt.Sprintf("%.2f ×", o.conc16Ratio), o.conc16Ratio >= 0.7})
	}
	if v.viewLoad.Runs > 0 {
		q := v.viewBytesRatio()
		ts = append(ts,
			target{fmt.Sprintf("IPv6: a process's first use of a /64 holding %d allocations (its view loaded) ≤ 500 ms", v.viewSize), msf(v.viewLoad.P50), v.viewLoad.P50 <= 500},
			target{"IPv6: the memory of that view per allocation ≤ 2 × an IPv4 view's of as many",
				fmt.Sprintf("%.2f × (%.1f and %.1f bytes an allocation)", q, v.viewBytes[0], v.viewBytes[1]), q <= 2})
	}
	if v.bySize.Runs > 0 {
		ts = append(ts, target{fmt.Sprintf("IPv6: the next /64 of a /48 holding %d subnets, p50 ≤ 2 × the floor's p50", v.subnets),
			fmt.Sprintf("%.2f ×", v.bySizeRatio), v.bySizeRatio <= 2})
	}
	if p, ok := v.previewP50(); ok {
		ts = append(ts, target{fmt.Sprintf("IPv6: the WASM preview ≤ 5 ms per call at p50, the next address of a /64 with %d taken and the next /64 of a /48 with %d subnets", v.addresses.taken, v.prefixes),
			fmt.Sprintf("%s at worst (%s and %s)", msf(p), msf(v.addresses.page().f.P50), msf(v.subnetPage().f.P50)), p <= 5})
	}
	if v.claimed() {
		ts = append(ts, target{"IPv6: 0 addresses or prefixes handed out twice, every claim the lowest free candidate or prefix",
			fmt.Sprintf("%d; claims not given the lowest: %d", v.duplicates(), v.misses()), v.duplicates() == 0 && v.misses() == 0})
	}
	return ts
}

// rows writes the IPv6 measurements' rows of the report.
func (v *v6Result) rows(row func(name, clients string, f figure, stmts, notes string)) {
	if v.viewLoad.Runs > 0 {
		row(fmt.Sprintf("IPv6: a process's first use of a /64 holding %d allocations (its view loaded)", v.viewSize), "1", v.viewLoad, "",
			fmt.Sprintf("%.1f bytes of heap an allocation; an IPv4 view of as many, %.1f", v.viewBytes[0], v.viewBytes[1]))
	}
	v.ours.seqRows(func(name, clients string, f figure, stmts, notes string) {
		row("IPv6: "+name, clients, f, stmts, notes)
	})
	if o := v.ours; o.conc16.Runs > 0 {
		row("IPv6: ours: claims in one /64 in one process", "16", o.conc16, fmt.Sprintf("%.2f", o.conc16Stmts),
			fmt.Sprintf("throughput **%.2f ×** the floor's (%s inserts/s, alternating with the claims); p99 %.1f × p50; lowest candidates: %s; %d claims a run",
				o.conc16Ratio, rate(o.conc16Floor.PerSec), ratio(o.conc16.P99, o.conc16.P50), yes(o.conc16Lowest), o.conc16.Ops))
	}
	if v.bySize.Runs > 0 {
		row(fmt.Sprintf("IPv6: ours: a subnet, the next /64 of a /48 holding %d subnets", v.subnets), "1", v.bySize, fmt.Sprintf("%.2f", v.bySizeStmts),
			fmt.Sprintf("p50 **%.2f ×** the floor's (%s, alternating); subnets not given the lowest free /64: %d; overlaps: %d", v.bySizeRatio, msf(v.bySizeFloor.P50), v.bySizeMisses, v.overlaps))
	}
	if p := v.addresses; p != nil {
		for _, f := range p.forms {
			row(fmt.Sprintf("IPv6: WASM preview in node, next 8 of a /64 with %d taken (%d ranges), %s", p.taken, p.rangeCount, f.name), "1", f.f, "",
				fmt.Sprintf("per call; first call %s; input %d bytes", msf(f.firstMs), f.bytes))
		}
	}
	for _, f := range v.subnetPreview {
		row(fmt.Sprintf("IPv6: WASM preview in node, the next /64 of a /48 with %d subnets, %s", v.prefixes, f.name), "1", f.f, "",
			fmt.Sprintf("per call; first call %s; input %d bytes", msf(f.firstMs), f.bytes))
	}
}

// v6JSON puts the IPv6 measurements' keys in m: each key of a target,
// null when not measured.
func (r *report) v6JSON(m map[string]any) {
	for _, k := range []string{"v6_seq_p50_ratio_to_floor_max", "v6_conc16_throughput_ratio_to_floor", "v6_view_load_ms_1m",
		"v6_view_bytes_ratio_to_v4", "v6_subnet_by_size_p50_ratio_to_floor", "v6_preview_ms_p50", "v6_duplicates"} {
		m[k] = nil
	}
	v := r.v6
	if v == nil {
		return
	}
	if w, _, ok := v.ours.seqWorst(); ok {
		m["v6_seq_p50_ratio_to_floor_max"] = round(w)
	}
	v.ours.seqJSON(m, "v6_")
	if o := v.ours; o.conc16.Runs > 0 {
		m["v6_conc16_throughput_ratio_to_floor"], m["v6_conc16_per_s"], m["v6_conc16_floor_per_s"] = round(o.conc16Ratio), round(o.conc16.PerSec), round(o.conc16Floor.PerSec)
		m["v6_conc16_p50_ms"], m["v6_conc16_p99_ms"], m["v6_conc16_lowest"] = round(o.conc16.P50), round(o.conc16.P99), o.conc16Lowest
	}
	if v.viewLoad.Runs > 0 {
		m["v6_view_load_ms_1m"], m["v6_view_bytes_ratio_to_v4"] = round(v.viewLoad.P50), round(v.viewBytesRatio())
		m["v6_view_bytes_per_allocation"], m["v6_view_v4_bytes_per_allocation"] = round(v.viewBytes[0]), round(v.viewBytes[1])
	}
	if v.bySize.Runs > 0 {
		m["v6_subnet_by_size_p50_ratio_to_floor"], m["v6_subnet_by_size_p50_ms"], m["v6_subnet_by_size_floor_p50_ms"] = round(v.bySizeRatio), round(v.bySize.P50), round(v.bySizeFloor.P50)
		m["v6_subnet_by_size_statements"] = round(v.bySizeStmts)
	}
	if p, ok := v.previewP50(); ok {
		m["v6_preview_ms_p50"] = round(p)
		m["v6_preview_addresses_ms_p50"] = round(v.addresses.page().f.P50)
		for _, f := range v.subnetPreview {
			m["v6_preview_subnet_"+f.key+"_ms_p50"] = round(f.f.P50)
		}
	}
	if v.claimed() {
		m["v6_duplicates"], m["v6_lowest_misses"] = v.duplicates(), v.misses()
	}
}
