package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"pivirt.hu/ipam/internal/store"
)

// migrate applies the migrations the database lacks and prints its version.
func migrate(args []string, _ io.Reader, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	var dbf databaseFlags
	dbf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return dbf.withDatabase(logger, func(ctx context.Context, db *store.DB) error {
		v, err := store.SchemaVersion(ctx, db)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "the database is at schema version %d\n", v)
		return nil
	})
}
