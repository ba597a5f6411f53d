package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
)

const branchUsage = `Usage:
  ipam branch create NAME   create a branch at main's head
  ipam branch list          list the branches, main first
  ipam branch rebase NAME   move the branch point to main's head, keeping the branch's changes
  ipam branch merge NAME    apply the branch's changes to main, then rebase the branch onto it
  ipam branch delete NAME   delete the branch and discard its changes

A branch sees main as it was at its branch point, plus its own changes of
objects and of the schema of kinds. A merge or a rebase that conflicts with
main's changes is refused, listing every conflict, and changes nothing.`

// branchActions are the subcommands of ipam branch that take a NAME, and
// what each does.
var branchActions = map[string]func(ctx context.Context, svc *branch.Service, name string) (branch.Branch, error){
	"create": func(ctx context.Context, svc *branch.Service, name string) (branch.Branch, error) {
		return svc.CreateBranch(ctx, auth.System, name)
	},
	"rebase": func(ctx context.Context, svc *branch.Service, name string) (branch.Branch, error) {
		return svc.RebaseBranch(ctx, auth.System, name)
	},
	"merge": func(ctx context.Context, svc *branch.Service, name string) (branch.Branch, error) {
		return svc.MergeBranch(ctx, auth.System, name)
	},
	"delete": func(ctx context.Context, svc *branch.Service, name string) (branch.Branch, error) {
		return svc.DeleteBranch(ctx, auth.System, name)
	},
}

// branchDone says what each action did, of the branch named.
var branchDone = map[string]string{
	"create": "created branch %s, branched from main at %s",
	"rebase": "rebased branch %s onto main at %s",
	"merge":  "merged branch %s into main; it is rebased onto main at %s",
	"delete": "deleted branch %s (branched from main at %s)",
}

// branchCommand creates, lists, rebases, merges and deletes branches, as
// auth.System.
func branchCommand(args []string, _ io.Reader, stdout io.Writer, logger *slog.Logger) error {
	if len(args) == 0 {
		return usageError{"branch needs a subcommand\n" + branchUsage}
	}
	action, ok := branchActions[args[0]]
	switch {
	case args[0] == "list":
		return branchList(args[1:], stdout, logger)
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help":
		fmt.Fprintln(stdout, branchUsage)
		return nil
	case !ok:
		return usageError{fmt.Sprintf("unknown branch subcommand %q\n%s", args[0], branchUsage)}
	}
	fs := flag.NewFlagSet("branch "+args[0], flag.ContinueOnError)
	var dbf databaseFlags
	dbf.register(fs)
	name, err := parseNameAndFlags(fs, args[1:])
	if err != nil {
		return err
	}
	return dbf.withServices(logger, false, func(ctx context.Context, svcs *services) error {
		b, err := action(ctx, svcs.branches, name)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, branchDone[args[0]]+"\n", b.Name, b.BranchedFrom.UTC().Format(time.RFC3339))
		return nil
	})
}

func branchList(args []string, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("branch list", flag.ContinueOnError)
	var dbf databaseFlags
	dbf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return dbf.withServices(logger, false, func(ctx context.Context, svcs *services) error {
		branches, err := svcs.branches.Branches(ctx, auth.System)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "NAME\tID\tDEFAULT\tBRANCHED FROM\tSCHEMA CHANGES\tCREATED BY")
		for _, b := range branches {
			fmt.Fprintf(w, "%s\t%d\t%t\t%s\t%t\t%s\n", b.Name, b.ID, b.IsDefault, b.BranchedFrom.UTC().Format(time.RFC3339), b.OwnSchema, b.CreatedBy)
		}
		return w.Flush()
	})
}
