package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
)

// migrate applies the migrations the database lacks and prints its version.
func migrate(args []string, _ io.Reader, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	var dbf databaseFlags
	dbf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return dbf.withServices(logger, false, func(ctx context.Context, svcs *services) error {
		svc := svcs.ipam
		h, err := svc.Health(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "the database is at schema version %d\n", h.SchemaVersion)
		return nil
	})
}
