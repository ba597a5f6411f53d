package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"text/tabwriter"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
)

const quotaUsage = `Usage:
  ipam quota set PATTERN [--vpcs N] [--subnets N] [--floating-ips N] [--addresses N]
  ipam quota list
  ipam quota unset PATTERN

A quota bounds what each namespace matching PATTERN (acme/prod, or acme/*
for every namespace under acme) may hold; every namespace it matches has
limits of its own. set changes the limits it is given and keeps the
others: N is a number from 0, or none to lift that limit. A namespace that
several quotas match is bound by each of them. What counts in a namespace:
vpcs its VPCs, subnets the subnets of its VPCs, floating-ips its floating
IPs, addresses every address it holds (VM interfaces, node addresses,
router uplinks and floating IPs alike). A lower limit takes nothing back:
claims are refused until the namespace holds less.`

// quotaFlags are the flags of ipam quota set, one per kind of quota.
var quotaFlags = map[ipam.QuotaKind]string{
	ipam.QuotaVPCs:        "vpcs",
	ipam.QuotaSubnets:     "subnets",
	ipam.QuotaFloatingIPs: "floating-ips",
	ipam.QuotaAddresses:   "addresses",
}

// quotaCommand sets, lists and unsets quotas, as auth.System.
func quotaCommand(args []string, _ io.Reader, stdout io.Writer, logger *slog.Logger) error {
	if len(args) == 0 {
		return usageError{"quota needs a subcommand\n" + quotaUsage}
	}
	switch args[0] {
	case "set":
		return quotaSet(args[1:], stdout, logger)
	case "list":
		return quotaList(args[1:], stdout, logger)
	case "unset":
		return quotaUnset(args[1:], stdout, logger)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, quotaUsage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown quota subcommand %q\n%s", args[0], quotaUsage)}
}

// limitFlag is the flag of one kind of ipam quota set: a limit, or none.
type limitFlag struct {
	kind   ipam.QuotaKind
	change *ipam.QuotaChange
}

func (f limitFlag) String() string { return "" }

func (f limitFlag) Set(s string) error {
	if s == "none" {
		f.change.Lift = append(f.change.Lift, f.kind)
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("want a number from 0, or none")
	}
	f.change.Set[f.kind] = n
	return nil
}

func quotaSet(args []string, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("quota set", flag.ContinueOnError)
	change := ipam.QuotaChange{Set: map[ipam.QuotaKind]int64{}}
	for _, k := range ipam.QuotaKinds {
		fs.Var(limitFlag{kind: k, change: &change}, quotaFlags[k], fmt.Sprintf("the most %s each namespace may hold, or none", k.Label()))
	}
	var dbf databaseFlags
	dbf.register(fs)
	pattern, err := parseNameAndFlags(fs, args)
	if err != nil {
		return err
	}
	if len(change.Set) == 0 && len(change.Lift) == 0 {
		return usageError{"quota set needs a limit: --vpcs, --subnets, --floating-ips or --addresses N (or none)"}
	}
	change.Pattern = pattern
	return dbf.withServices(logger, false, func(ctx context.Context, svcs *services) error {
		q, err := svcs.ipam.SetQuota(ctx, auth.System, change)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "set the quota of %s: each namespace it matches may hold %s\n", q.Pattern, q.Describe())
		return nil
	})
}

func quotaUnset(args []string, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("quota unset", flag.ContinueOnError)
	var dbf databaseFlags
	dbf.register(fs)
	pattern, err := parseNameAndFlags(fs, args)
	if err != nil {
		return err
	}
	return dbf.withServices(logger, false, func(ctx context.Context, svcs *services) error {
		q, err := svcs.ipam.UnsetQuota(ctx, auth.System, pattern)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "unset the quota of %s, which allowed %s\n", q.Pattern, q.Describe())
		return nil
	})
}

func quotaList(args []string, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("quota list", flag.ContinueOnError)
	var dbf databaseFlags
	dbf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return dbf.withServices(logger, false, func(ctx context.Context, svcs *services) error {
		quotas, err := svcs.ipam.Quotas(ctx, auth.System)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "PATTERN\tVPCS\tSUBNETS\tFLOATING IPS\tADDRESSES\tUPDATED\tBY")
		for _, q := range quotas {
			fmt.Fprint(w, q.Pattern)
			for _, k := range ipam.QuotaKinds {
				if n, ok := q.Limits[k]; ok {
					fmt.Fprintf(w, "\t%d", n)
				} else {
					fmt.Fprint(w, "\t-")
				}
			}
			fmt.Fprintf(w, "\t%s\t%s\n", q.UpdatedAt.UTC().Format(time.RFC3339), q.UpdatedBy)
		}
		return w.Flush()
	})
}
