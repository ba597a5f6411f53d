package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
)

const auditUsage = `Usage:
  ipam audit [--since DURATION|TIME] [--namespace NS] [--limit N]

Prints the newest entries of the audit log, oldest first, one line each:
time (UTC), actor, branch (- for the changes of IP addresses, which have
none), action, kind, namespace/name, and the change in words with the
fields it changed (field: before → after). --since takes a duration back from now (90m, 24h,
7d), an RFC 3339 time or a date (2006-01-02, local time); --namespace an
exact namespace or a pattern such as acme/*.`

// defaultAuditLimit is how many entries ipam audit prints without --limit.
const defaultAuditLimit = 100

// auditLog prints the audit log.
func auditLog(args []string, _ io.Reader, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	since := fs.String("since", "", "only entries since `DURATION|TIME`: 90m, 24h, 7d, 2006-01-02T15:04:05Z or 2006-01-02")
	var namespace string
	for _, name := range []string{"n", "namespace"} {
		fs.StringVar(&namespace, name, "", "only entries of `NS`, a namespace or a pattern such as acme/* (default: all)")
	}
	limit := fs.Int("limit", defaultAuditLimit, "print the newest `N` entries; 0 for all")
	var dbf databaseFlags
	dbf.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), auditUsage)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *limit < 0 {
		return usageError{fmt.Sprintf("--limit must be 0 (all) or more, got %d", *limit)}
	}
	filter := ipam.AuditFilter{Namespace: namespace, Limit: *limit}
	if *since != "" {
		t, err := parseSince(*since, time.Now())
		if err != nil {
			return err
		}
		filter.Since = t
	}

	return dbf.withServices(logger, false, func(ctx context.Context, svcs *services) error {
		svc := svcs.ipam
		entries, err := svc.AuditLog(ctx, auth.System, filter)
		if err != nil {
			return err
		}
		slices.Reverse(entries)
		w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		for _, e := range entries {
			branch := e.Branch
			if branch == "" {
				branch = "-"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s", e.At.UTC().Format(time.RFC3339), e.Actor, branch, e.Action, e.Kind, e.Object())
			s := audit.Describe(e)
			s.Actor = ""
			fmt.Fprint(w, "\t"+strings.TrimPrefix(s.String(), " "))
			fmt.Fprintln(w)
		}
		return w.Flush()
	})
}

// parseSince reads --since: a duration back from now, an RFC 3339 time,
// or a date in local time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, ok := parseDuration(s); ok {
		if d < 0 {
			return time.Time{}, usageError{fmt.Sprintf("--since %s is negative: give how long back from now", s)}
		}
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, time.Local); err == nil {
		return t, nil
	}
	return time.Time{}, usageError{fmt.Sprintf("--since %q is neither a duration (90m, 24h, 7d) nor a time (2006-01-02T15:04:05Z, 2006-01-02)", s)}
}

// maxDays bounds a duration in days, far below what overflows.
const maxDays = 100 * 366

// parseDuration reads a Go duration, or a whole number of days such as 7d.
func parseDuration(s string) (time.Duration, bool) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		return time.Duration(n) * 24 * time.Hour, err == nil && n >= -maxDays && n <= maxDays
	}
	d, err := time.ParseDuration(s)
	return d, err == nil
}
