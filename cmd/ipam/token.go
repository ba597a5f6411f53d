package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"pivirt.hu/ipam/internal/auth"
)

const tokenUsage = `Usage:
  ipam token create NAME   print a new API token of the user NAME, shown only this once
  ipam token revoke NAME   revoke every token of the user NAME and print how many`

// tokenCommand creates and revokes users' API tokens, as auth.System.
func tokenCommand(args []string, _ io.Reader, stdout io.Writer, logger *slog.Logger) error {
	if len(args) == 0 {
		return usageError{"token needs a subcommand\n" + tokenUsage}
	}
	switch args[0] {
	case "create", "revoke":
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, tokenUsage)
		return nil
	default:
		return usageError{fmt.Sprintf("unknown token subcommand %q\n%s", args[0], tokenUsage)}
	}
	fs := flag.NewFlagSet("token "+args[0], flag.ContinueOnError)
	var dbf databaseFlags
	dbf.register(fs)
	name, err := parseNameAndFlags(fs, args[1:])
	if err != nil {
		return err
	}

	return dbf.withServices(logger, false, func(ctx context.Context, svcs *services) error {
		service := svcs.users
		if args[0] == "create" {
			token, err := service.CreateToken(ctx, auth.System, name)
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, token)
			return nil
		}
		n, err := service.RevokeTokens(ctx, auth.System, name)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, n)
		return nil
	})
}
