package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/manifest"
)

const getUsage = `Usage:
  ipam get pools|allocations|vpcs [-n NAMESPACE] [-o yaml|table]

Without -n, every namespace; -n '' lists the cluster scope: public pools
and their allocations. An allocation's namespace is its pool's.`

// A getter prints the objects of one resource that filter keeps.
type getter func(ctx context.Context, svc *ipam.Service, filter namespaceFilter, asYAML bool, stdout io.Writer) error

// getters are the resources of ipam get, by the names it accepts.
var getters = map[string]getter{
	"pools": getPools, "pool": getPools, "ipampools": getPools, "ipampool": getPools,
	"allocations": getAllocations, "allocation": getAllocations, "ipallocations": getAllocations, "ipallocation": getAllocations,
	"vpcs": getVPCs, "vpc": getVPCs,
}

// get prints pools, allocations or VPCs, as auth.System.
func get(args []string, _ io.Reader, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("get", flag.ContinueOnError)
	var namespace string
	for _, name := range []string{"n", "namespace"} {
		fs.StringVar(&namespace, name, "", "list only the objects of `NAMESPACE`; '' for the cluster scope (default: every namespace)")
	}
	output := fs.String("o", "table", "output format: table, or yaml in the form ipam apply reads")
	var dbf databaseFlags
	dbf.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), getUsage)
		fs.PrintDefaults()
	}
	if len(args) == 0 {
		return usageError{"get needs what to list: pools, allocations or vpcs\n" + getUsage}
	}
	name, err := parseNameAndFlags(fs, args)
	if err != nil {
		return err
	}
	show, ok := getters[name]
	if !ok {
		return usageError{fmt.Sprintf("get lists pools, allocations or vpcs, not %q\n%s", name, getUsage)}
	}
	if *output != "table" && *output != "yaml" {
		return usageError{fmt.Sprintf("-o must be table or yaml, got %q", *output)}
	}
	filter := namespaceFilter{all: true}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "n" || f.Name == "namespace" {
			filter = namespaceFilter{namespace: namespace}
		}
	})

	return dbf.withService(logger, func(ctx context.Context, svc *ipam.Service) error {
		return show(ctx, svc, filter, *output == "yaml", stdout)
	})
}

// namespaceFilter keeps the objects of one namespace ("" being the
// cluster scope), or all.
type namespaceFilter struct {
	all       bool
	namespace string
}

func (f namespaceFilter) keeps(namespace string) bool {
	return f.all || namespace == f.namespace
}

// pools returns the pools the filter keeps, in namespace and name order.
func (f namespaceFilter) pools(ctx context.Context, svc *ipam.Service) ([]ipam.Pool, error) {
	all, err := svc.Pools(ctx, auth.System, "", f.namespace)
	if err != nil {
		return nil, err
	}
	var out []ipam.Pool
	for _, p := range all {
		if f.keeps(p.Namespace) {
			out = append(out, p)
		}
	}
	return out, nil
}

func getPools(ctx context.Context, svc *ipam.Service, filter namespaceFilter, asYAML bool, stdout io.Writer) error {
	pools, err := filter.pools(ctx, svc)
	if err != nil {
		return err
	}
	if asYAML {
		return manifest.WritePoolsYAML(stdout, pools)
	}
	items := make([]manifest.PoolItem, len(pools))
	for i, p := range pools {
		usage, err := svc.PoolUsage(ctx, auth.System, p)
		if err != nil {
			return err
		}
		items[i] = manifest.PoolItem{Pool: p, Usage: usage}
	}
	return manifest.WritePoolsTable(stdout, items)
}

// allocationsPage is how many allocations get reads at a time.
const allocationsPage = 1000

func getAllocations(ctx context.Context, svc *ipam.Service, filter namespaceFilter, asYAML bool, stdout io.Writer) error {
	pools, err := filter.pools(ctx, svc)
	if err != nil {
		return err
	}
	var allocations []ipam.Allocation
	for _, p := range pools {
		page := ipam.Page{First: allocationsPage}
		for {
			got, err := svc.PoolAllocations(ctx, auth.System, p, page)
			if err != nil {
				return err
			}
			allocations = append(allocations, got.Allocations...)
			if !got.HasNext {
				break
			}
			page.After = got.EndCursor
		}
	}
	if asYAML {
		return manifest.WriteAllocationsYAML(stdout, allocations)
	}
	return manifest.WriteAllocationsTable(stdout, allocations)
}

func getVPCs(ctx context.Context, svc *ipam.Service, filter namespaceFilter, asYAML bool, stdout io.Writer) error {
	var items []manifest.VPCItem
	if filter.all || filter.namespace != "" {
		vpcs, err := svc.VPCSummaries(ctx, auth.System, filter.namespace)
		if err != nil {
			return err
		}
		for _, v := range vpcs {
			item := manifest.VPCItem{VPC: v.VPC, Router: v.Router.Uplink, DefaultRoute: v.Router.DefaultRoute, Subnets: v.Subnets}
			if v.VPC.IPv6CIDR.IsValid() && asYAML {
				uplink, route, ok, err := svc.IPv6Router(ctx, auth.System, v.VPC)
				if err != nil {
					return err
				}
				if ok {
					item.IPv6Router, item.IPv6DefaultRoute = uplink.Address, route
				}
			}
			items = append(items, item)
		}
	}
	if asYAML {
		return manifest.WriteVPCsYAML(stdout, items)
	}
	return manifest.WriteVPCsTable(stdout, items)
}
