package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/lib/pq"
	"pivirt.hu/ipam/internal/store"

	"pivirt.hu/ipam/internal/pgembed"
)

// embeddedDatabase is the database ipam creates in its own PostgreSQL.
const embeddedDatabase = "ipam"

// databaseFlags choose the database: an external one by URL, or the
// embedded PostgreSQL in a data folder.
type databaseFlags struct {
	url     string
	dataDir string
	// connected is the URL open connected to: url, or the embedded
	// PostgreSQL's.
	connected string
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
// when no URL is given, and applies the migrations. close stops what open
// started.
func (d *databaseFlags) open(ctx context.Context, logger *slog.Logger) (db *store.DB, closeAll func(), err error) {
	url := d.url
	stopCluster := func() {}
	if url == "" {
		dir, err := filepath.Abs(d.dataDir)
		if err != nil {
			return nil, nil, err
		}
		cluster, err := pgembed.Start(ctx, pgembed.Options{DataDir: dir, Logger: logger})
		switch {
		case errors.Is(err, pgembed.ErrInUse) && !d.exclusive:
			// ipam serve runs this folder's PostgreSQL: use it, and leave
			// it running.
			url = pgembed.SocketURL(dir, embeddedDatabase)
		case err != nil:
			return nil, nil, err
		default:
			stopCluster = func() {
				if err := cluster.Stop(); err != nil {
					logger.Error("stopping PostgreSQL failed", "err", err)
				}
			}
			if err := createDatabase(ctx, cluster.URL("postgres"), embeddedDatabase); err != nil {
				stopCluster()
				return nil, nil, err
			}
			url = cluster.URL(embeddedDatabase)
		}
	}
	db, err = store.Open(ctx, url)
	if err != nil {
		stopCluster()
		return nil, nil, err
	}
	d.connected = url
	applied, err := store.Migrate(ctx, db)
	if err != nil {
		db.Close()
		stopCluster()
		return nil, nil, err
	}
	if applied > 0 {
		logger.Info("migrated the database", "migrations", applied)
	}
	return db, func() {
		db.Close()
		stopCluster()
	}, nil
}

// createDatabase creates name unless it exists.
func createDatabase(ctx context.Context, url, name string) error {
	db, err := store.Open(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(name))
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "42P04" { // duplicate_database
		return nil
	}
	if err != nil {
		return fmt.Errorf("unable to create the database %s: %w", name, err)
	}
	return nil
}

// withDatabase opens the database and runs fn with it, then closes what
// it opened; SIGINT and SIGTERM cancel fn's context.
func (d *databaseFlags) withDatabase(logger *slog.Logger, fn func(ctx context.Context, db *store.DB) error) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	db, closeAll, err := d.open(ctx, logger)
	if err != nil {
		return err
	}
	defer closeAll()
	return fn(ctx, db)
}
