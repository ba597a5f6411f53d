package main

import (
	"context"
	"log/slog"

	"pivirt.hu/ipam/internal/ipam"
)

// withService opens the database and the IPAM service, which follows the
// other processes' changes, and runs fn with the service, then closes both;
// SIGINT and SIGTERM cancel fn's context.
func (d *databaseFlags) withService(logger *slog.Logger, fn func(ctx context.Context, svc *ipam.Service) error) error {
	return d.withServices(logger, true, func(ctx context.Context, svcs *services) error {
		return fn(ctx, svcs.ipam)
	})
}
