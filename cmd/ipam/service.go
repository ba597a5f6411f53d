package main

import (
	"context"
	"log/slog"

	"pivirt.hu/ipam/internal/ipam"
)

// openService opens the database as open does and starts the IPAM service
// on it; closeAll stops both.
func (d *databaseFlags) openService(ctx context.Context, logger *slog.Logger) (svc *ipam.Service, closeAll func(), err error) {
	db, closeDB, err := d.open(ctx, logger)
	if err != nil {
		return nil, nil, err
	}
	svc, err = ipam.New(ctx, ipam.Config{DB: db, URL: d.connected, Logger: logger})
	if err != nil {
		closeDB()
		return nil, nil, err
	}
	return svc, func() {
		svc.Close()
		closeDB()
	}, nil
}
