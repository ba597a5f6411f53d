package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"pivirt.hu/ipam/internal/auth"
)

const clusterUsage = `Usage:
  ipam cluster rotate-secret   give the ipam serve processes of the database a new cluster secret

The processes prove the cluster secret to each other on the connections that
carry forwarded claims (docs/scaling.md, "The route link"). Rotating it loses
no claim: the connections already made go on, new ones prove the new secret,
and the previous one is still accepted for a minute.`

// clusterCommand runs the commands about the processes of a database, as
// auth.System.
func clusterCommand(args []string, _ io.Reader, stdout io.Writer, logger *slog.Logger) error {
	if len(args) == 0 {
		return usageError{"cluster needs a subcommand\n" + clusterUsage}
	}
	switch args[0] {
	case "rotate-secret":
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, clusterUsage)
		return nil
	default:
		return usageError{fmt.Sprintf("unknown cluster subcommand %q\n%s", args[0], clusterUsage)}
	}
	fs := flag.NewFlagSet("cluster "+args[0], flag.ContinueOnError)
	var dbf databaseFlags
	dbf.register(fs)
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	return dbf.withServices(logger, false, func(ctx context.Context, svcs *services) error {
		if err := svcs.ipam.RotateClusterSecret(ctx, auth.System); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "rotated the cluster secret: new connections between ipam serve processes prove the new one; the previous one is accepted for another minute")
		return nil
	})
}
