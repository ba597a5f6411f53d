package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/pgembed"
)

// embeddedDatabase is the database ipam creates in its own PostgreSQL.
const embeddedDatabase = "ipam"

// databaseFlags choose the database: an external one by URL, or the
// embedded PostgreSQL in a data folder.
type databaseFlags struct {
	url     string
	dataDir string
	// exclusive refuses a data folder whose PostgreSQL another process
	// runs (ipam serve owns its PostgreSQL); without it, a command such as
	// ipam token uses that PostgreSQL while ipam serve runs it.
	exclusive bool
}

func (d *databaseFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.url, "database-url", os.Getenv("DATABASE_URL"),
		"PostgreSQL URL (default $DATABASE_URL); without one, ipam runs its own PostgreSQL in --data-dir")
	fs.StringVar(&d.dataDir, "data-dir", defaultDataDir(), "folder of the embedded PostgreSQL")
}

// defaultDataDir is a folder the postgres user can reach: as root,
// /var/lib/pivirt-ipam (root's home is closed to other users); otherwise
// under the user's data home.
func defaultDataDir() string {
	if os.Geteuid() == 0 {
		return "/var/lib/pivirt-ipam"
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "pivirt-ipam")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "pivirt-ipam")
	}
	return "pivirt-ipam-data"
}

// open connects to the database, starting the embedded PostgreSQL first
// when no URL is given, applies the migrations and returns the services
// over it: svc follows the other processes' releases and deletions when
// listen is set. closeAll closes what open opened.
func (d *databaseFlags) open(ctx context.Context, logger *slog.Logger, listen bool) (svc *ipam.Service, users *auth.Service, closeAll func(), err error) {
	url := d.url
	stopCluster := func() {}
	if url == "" {
		dir, err := filepath.Abs(d.dataDir)
		if err != nil {
			return nil, nil, nil, err
		}
		cluster, err := pgembed.Start(ctx, pgembed.Options{DataDir: dir, Logger: logger})
		switch {
		case errors.Is(err, pgembed.ErrInUse) && !d.exclusive:
			// ipam serve runs this folder's PostgreSQL: use it, and leave
			// it running.
			url = pgembed.SocketURL(dir, embeddedDatabase)
		case err != nil:
			return nil, nil, nil, err
		default:
			stopCluster = func() {
				if err := cluster.Stop(); err != nil {
					logger.Error("stopping PostgreSQL failed", "err", err)
				}
			}
			if err := ipam.CreateDatabase(ctx, cluster.URL("postgres"), embeddedDatabase); err != nil {
				stopCluster()
				return nil, nil, nil, err
			}
			url = cluster.URL(embeddedDatabase)
		}
	}
	db, err := ipam.OpenDatabase(ctx, url, logger)
	if err != nil {
		stopCluster()
		return nil, nil, nil, err
	}
	cfg := ipam.Config{DB: db, Logger: logger}
	if listen {
		cfg.URL = url
	}
	if svc, err = ipam.New(ctx, cfg); err != nil {
		db.Close()
		stopCluster()
		return nil, nil, nil, err
	}
	return svc, auth.NewService(db), func() {
		svc.Close()
		db.Close()
		stopCluster()
	}, nil
}

// withServices opens the services (see open) and runs fn with them, then
// closes what it opened; SIGINT and SIGTERM cancel fn's context.
func (d *databaseFlags) withServices(logger *slog.Logger, listen bool, fn func(ctx context.Context, svc *ipam.Service, users *auth.Service) error) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	svc, users, closeAll, err := d.open(ctx, logger, listen)
	if err != nil {
		return err
	}
	defer closeAll()
	return fn(ctx, svc, users)
}
