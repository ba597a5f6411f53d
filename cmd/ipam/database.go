package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/graphql"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/metrics"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/pgembed"
	"pivirt.hu/ipam/internal/usage"
)

// embeddedDatabase is the database ipam creates in its own PostgreSQL.
const embeddedDatabase = "ipam"

// databaseFlags choose the database: an external one by URL, or the
// embedded PostgreSQL in a data folder.
type databaseFlags struct {
	url string
	// listenURL reaches PostgreSQL itself, for the notifications, when url
	// goes through a connection pooler in transaction mode (then url's
	// connections are opened with store.OpenPooled).
	listenURL string
	dataDir   string
	// routeListen is where ipam serve listens for the claims other
	// processes forward to it (ipam.Config.RouteListen); "" for the other
	// commands.
	routeListen string
	// exclusive refuses a data folder whose PostgreSQL another process
	// runs (ipam serve owns its PostgreSQL); without it, a command such as
	// ipam token uses that PostgreSQL while ipam serve runs it.
	exclusive bool
}

// register adds the flags to fs. $DATABASE_URL is read when the database is
// opened, not made the flag's default: a usage message prints defaults, and
// the URL may hold a password.
func (d *databaseFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.url, "database-url", "",
		"PostgreSQL URL (default $DATABASE_URL); without one, ipam runs its own PostgreSQL in --data-dir")
	fs.StringVar(&d.listenURL, "listen-database-url", "",
		"PostgreSQL URL of the server itself, for the notifications ipam processes send each other, when --database-url goes through a connection pooler in transaction mode (PgBouncer): ipam then prepares no statement and makes no session setting through the pooler")
	fs.StringVar(&d.dataDir, "data-dir", defaultDataDir(), "folder of the embedded PostgreSQL")
}

// setPasswordArgs are the flags that lead ipam user set-password to the
// database these flags chose: none for $DATABASE_URL and the default
// data folder.
func (d *databaseFlags) setPasswordArgs() string {
	switch {
	case d.url != "":
		return " --database-url URL"
	case os.Getenv("DATABASE_URL") != "" || d.dataDir == defaultDataDir():
		return ""
	}
	return " --data-dir " + d.dataDir
}

// pooled reports whether the database URL goes through a connection
// pooler: whether a URL to listen on was given apart from it.
func (d *databaseFlags) pooled() bool { return d.listenURL != "" }

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

// services are the domain's services over one database.
type services struct {
	ipam  *ipam.Service
	users *auth.Service
	// metrics measure the service; nil unless the services listen
	// (ipam serve).
	metrics *metrics.Metrics
	// branches holds the branches, the schema of kinds and the objects of
	// kinds; every schema change it makes is one the GraphQL API serves
	// (graphql.CheckSchema) and the number pools allow, and every change
	// of objects is recorded by the pools. It is numbers.Branches().
	branches *branch.Service
	// numbers holds the number pools.
	numbers *numbers.Service
}

// open connects to the database, starting the embedded PostgreSQL first
// when no URL is given, applies the migrations and returns the services
// over it: they follow the other processes' releases, deletions and
// schema changes when listen is set, and the usage history of pools,
// subnets and number pools' divisions is written at once and every 15
// minutes (writeHistory). closeAll closes what open opened.
func (d *databaseFlags) open(ctx context.Context, logger *slog.Logger, listen bool) (svcs *services, closeAll func(), err error) {
	url, stopCluster, err := d.start(ctx, logger)
	if err != nil {
		return nil, nil, err
	}
	db, err := ipam.OpenDatabase(ctx, url, d.pooled(), logger)
	if err != nil {
		stopCluster()
		return nil, nil, err
	}
	cfg := ipam.Config{DB: db, Logger: logger}
	ncfg := numbers.Config{DB: db, Logger: logger, Branch: branch.Config{Guard: branch.SchemaGuard(graphql.CheckSchema)}}
	// Every command checks that notifications reach the listening URL,
	// serve's listeners and the releases any command notifies alike: not
	// so through a connection pooler in transaction mode, which needs
	// --listen-database-url, and whose pooled connections must not get
	// the prepared statements of a direct one.
	if d.pooled() {
		url = d.listenURL
	}
	if err := ipam.CheckNotifications(ctx, db, url); err != nil {
		db.Close()
		stopCluster()
		return nil, nil, err
	}
	var m *metrics.Metrics
	if listen {
		cfg.URL, ncfg.URL = url, url
		cfg.RouteListen = d.routeListen
		m = metrics.New()
		cfg.Observer = m
	}
	svc, err := ipam.New(ctx, cfg)
	if err != nil {
		db.Close()
		stopCluster()
		return nil, nil, err
	}
	pools, err := numbers.New(ctx, ncfg)
	if err != nil {
		svc.Close()
		db.Close()
		stopCluster()
		return nil, nil, err
	}
	stopWriting := func() {}
	if listen {
		m.Watch(svc, db.DB.DB)
		m.WatchNumbers(pools, metrics.DivisionsPerPool)
		stopWriting = writeHistory(ctx, logger, svc, pools)
	}
	return &services{ipam: svc, users: auth.NewService(db), metrics: m, branches: pools.Branches(), numbers: pools}, func() {
		stopWriting()
		pools.Close()
		svc.Close()
		db.Close()
		stopCluster()
	}, nil
}

// writeHistory starts the one writer of the usage history
// (usage.Writer): the pools' and subnets' (svc), the divisions' (pools),
// pruned daily. It returns what stops it and waits until it has.
func writeHistory(ctx context.Context, logger *slog.Logger, svc *ipam.Service, pools *numbers.Service) (stop func()) {
	w := &usage.Writer{Recorders: []usage.Recorder{svc, pools}, Prune: svc.PruneUsageHistory, Log: logger}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	ticker := time.NewTicker(usage.RecordEvery)
	var running sync.WaitGroup
	running.Go(func() { w.Run(ctx, ticker.C, time.Now) })
	return func() {
		cancel()
		running.Wait()
		ticker.Stop()
	}
}

// start returns the URL of the database: the one given (--database-url,
// else $DATABASE_URL), else the embedded PostgreSQL's, started unless ipam
// serve runs it (then stopCluster does nothing).
func (d *databaseFlags) start(ctx context.Context, logger *slog.Logger) (url string, stopCluster func(), err error) {
	stopCluster = func() {}
	if d.url != "" {
		return d.url, stopCluster, nil
	}
	if url := os.Getenv("DATABASE_URL"); url != "" {
		return url, stopCluster, nil
	}
	if d.pooled() {
		return "", nil, usageError{"--listen-database-url goes with --database-url (or DATABASE_URL), the URL of the connection pooler"}
	}
	dir, err := filepath.Abs(d.dataDir)
	if err != nil {
		return "", nil, err
	}
	cluster, err := pgembed.Start(ctx, pgembed.Options{DataDir: dir, Logger: logger})
	switch {
	case errors.Is(err, pgembed.ErrInUse) && !d.exclusive:
		// ipam serve runs this folder's PostgreSQL: use it, and leave it
		// running.
		return pgembed.SocketURL(dir, embeddedDatabase), stopCluster, nil
	case err != nil:
		return "", nil, err
	}
	stopCluster = func() {
		if err := cluster.Stop(); err != nil {
			logger.Error("stopping PostgreSQL failed", "err", err)
		}
	}
	if err := ipam.CreateDatabase(ctx, cluster.URL("postgres"), embeddedDatabase); err != nil {
		stopCluster()
		return "", nil, err
	}
	return cluster.URL(embeddedDatabase), stopCluster, nil
}

// withServices opens the services (see open) and runs fn with them, then
// closes what it opened; SIGINT and SIGTERM cancel fn's context.
func (d *databaseFlags) withServices(logger *slog.Logger, listen bool, fn func(ctx context.Context, svcs *services) error) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	svcs, closeAll, err := d.open(ctx, logger, listen)
	if err != nil {
		return err
	}
	defer closeAll()
	return fn(ctx, svcs)
}
