package main

import (
	"context"
	"log/slog"

	"pivirt.hu/ipam/internal/store"

	"pivirt.hu/ipam/internal/ipam"
)

// withService opens the database and the IPAM service and runs fn with the
// service, then closes both; SIGINT and SIGTERM cancel fn's context.
func (d *databaseFlags) withService(logger *slog.Logger, fn func(ctx context.Context, svc *ipam.Service) error) error {
	return d.withDatabase(logger, func(ctx context.Context, db *store.DB) error {
		svc, err := ipam.New(ctx, ipam.Config{DB: db, URL: d.connected, Logger: logger})
		if err != nil {
			return err
		}
		defer svc.Close()
		return fn(ctx, svc)
	})
}
