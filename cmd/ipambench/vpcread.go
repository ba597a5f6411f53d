package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/ipam"
)

// vpcReadResult is the time of reading a VPC with its subnets' usage, by
// GraphQL and by the console's VPC page, with a /10 subnet of a /8 holding
// 1 000 allocations and 1 000 000 (config.vpcReadSizes), and of the
// subnet's page with the middle page of its allocation table
// (docs/benchmarks.md).
type vpcReadResult struct {
	sizes            [2]int    // the allocations of each VPC: the reference and the large one
	gql, page, table [2]figure // by sizes
	tablePages       [2]int    // the middle page read of each subnet's table
	// gqlRatio, pageRatio and tableRatio are the medians of the runs' p50
	// ratios of the large VPC to the reference.
	gqlRatio, pageRatio, tableRatio float64
	// viewLoad is a fresh process's first read of the large VPC's usage:
	// its view of the pool loaded.
	viewLoad figure
}

// ratio is the worse of the two reads' ratios.
func (v vpcReadResult) ratio() float64 { return max(v.gqlRatio, v.pageRatio) }

// vpcGQL reads a VPC with its subnets' usage.
const vpcGQL = `query($ns: String!) { vpc(namespace: $ns, name: "net") { name subnets { name cidr usage { size used free utilization } } } }`

// vpcRead fills the two VPCs by SQL (allocations of VMs, from the address
// after the gateway up), checks that both reads count them exactly, then
// times the reads, the two sizes alternating in each run.
func vpcRead(ctx context.Context, cfg config, dsn string) (vpcReadResult, error) {
	out := vpcReadResult{sizes: cfg.vpcReadSizes}
	db, svc, closeService, err := openService(ctx, dsn)
	if err != nil {
		return out, err
	}
	defer closeService()
	var namespaces [2]string
	for i, n := range out.sizes {
		ns := fmt.Sprintf("bench/vpc-%d", n)
		namespaces[i] = ns
		if _, err := svc.CreateVPC(ctx, operator, ipam.CreateVPCInput{Namespace: ns, Name: "net", CIDR: "10.0.0.0/8"}); err != nil {
			return out, err
		}
		sub, err := svc.CreateSubnet(ctx, operator, ipam.CreateSubnetInput{Namespace: ns, VPC: "net", Name: "big", CIDR: "10.0.0.0/10"})
		if err != nil {
			return out, err
		}
		p, err := svc.Pool(ctx, operator, ns, "vpc-net")
		if err != nil {
			return out, err
		}
		progress("VPC read: filling a /10 subnet with %d allocations", n)
		offsets := make([]int, n)
		for k := range offsets {
			offsets[k] = k + 2 // 10.0.0.1 is the gateway
		}
		if err := fillPool(ctx, db, p.UID, offsets, ipam.OwnerVirtualMachine, "/0", ns, sub.UID); err != nil {
			return out, err
		}
	}

	loads, err := viewLoads(ctx, cfg, db, func(fresh *ipam.Service) error {
		_, err := fresh.SubnetUsage(ctx, operator, ipam.Subnet{Namespace: namespaces[1], VPC: "net", Name: "big"})
		return err
	})
	if err != nil {
		return out, err
	}
	out.viewLoad = loads.f
	progress("  a process's first read of the VPC of %d allocations (its view loaded): %.1f ms", out.sizes[1], out.viewLoad.P50)

	h, closeHandler, err := operatorAPI(ctx, db, svc)
	if err != nil {
		return out, err
	}
	defer closeHandler()
	post := func(i int) (time.Duration, error) {
		d, body, err := postGraphQL(ctx, h, vpcGQL, map[string]any{"ns": namespaces[i]})
		if err != nil {
			return d, err
		}
		var res struct {
			Data struct {
				VPC struct {
					Subnets []struct {
						Usage struct{ Used int } `json:"usage"`
					} `json:"subnets"`
				} `json:"vpc"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &res); err != nil {
			return d, err
		}
		if s := res.Data.VPC.Subnets; len(s) != 1 || s[0].Usage.Used != out.sizes[i] {
			return d, fmt.Errorf("the VPC of %d allocations read by GraphQL: %.300s", out.sizes[i], body)
		}
		return d, nil
	}
	get, closeConsole, err := signedInConsole(ctx, db, svc, nil)
	if err != nil {
		return out, err
	}
	defer closeConsole()
	view := func(i int) (time.Duration, error) {
		d, _, err := get("/vpcs/" + namespaces[i] + "/net")
		return d, err
	}
	// The subnet's page at the middle page of its table (50 rows a page:
	// the allocations, then one run of free addresses), checked to start
	// with the allocation of its number.
	tableGet, closeTable, err := signedInConsoleBody(ctx, db, svc, nil)
	if err != nil {
		return out, err
	}
	defer closeTable()
	table := func(i int) (time.Duration, error) {
		rows := out.sizes[i] + 1
		pages := (rows + ipam.TablePerPage - 1) / ipam.TablePerPage
		out.tablePages[i] = pages / 2
		d, body, err := tableGet(fmt.Sprintf("/subnets/%s/net/big?page=%d", namespaces[i], out.tablePages[i]))
		if err != nil {
			return d, err
		}
		first := netip.AddrFrom4([4]byte{10, 0, 0, 0})
		for range (out.tablePages[i]-1)*ipam.TablePerPage + 2 {
			first = first.Next()
		}
		if want := `data-testid="allocation-` + first.String() + `"`; !strings.Contains(body, want) {
			return d, fmt.Errorf("the page %d of the table of %d allocations lacks its first row, %s", out.tablePages[i], out.sizes[i], first)
		}
		return d, nil
	}
	for i := range out.sizes {
		for range 3 { // loads the views and the caches, as a serving process has them
			if _, err := post(i); err != nil {
				return out, err
			}
			if _, err := view(i); err != nil {
				return out, err
			}
			if _, err := table(i); err != nil {
				return out, err
			}
		}
	}
	var gqlRuns, pageRuns, tableRuns [2][]run
	var gqlRatios, pageRatios, tableRatios []float64
	for r := range cfg.runs {
		for _, read := range []struct {
			op     func(int) (time.Duration, error)
			runs   *[2][]run
			ratios *[]float64
			name   string
		}{{post, &gqlRuns, &gqlRatios, "GraphQL"}, {view, &pageRuns, &pageRatios, "console"}, {table, &tableRuns, &tableRatios, "allocation table"}} {
			var rr [2]run
			for i := range out.sizes {
				if rr[i], err = concurrently(cfg.pageN, 1, func() (time.Duration, error) { return read.op(i) }); err != nil {
					return out, err
				}
				read.runs[i] = append(read.runs[i], rr[i])
			}
			*read.ratios = append(*read.ratios, ratio(rr[1].stats().p50, rr[0].stats().p50))
			progress("  run %d, %s: p50 %.2f ms at %d allocations, %.2f ms at %d", r+1, read.name, rr[0].stats().p50, out.sizes[0], rr[1].stats().p50, out.sizes[1])
		}
	}
	for i := range out.sizes {
		out.gql[i], out.page[i], out.table[i] = figureOf(gqlRuns[i]), figureOf(pageRuns[i]), figureOf(tableRuns[i])
	}
	out.gqlRatio, out.pageRatio, out.tableRatio = median(gqlRatios), median(pageRatios), median(tableRatios)
	return out, nil
}
