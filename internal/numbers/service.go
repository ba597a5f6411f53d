package numbers

import (
	"context"
	"errors"
	"log/slog"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/store"
)

// Config is what the service needs.
type Config struct {
	DB *store.DB
	// URL is the database's URL, for the connection that follows the
	// other processes' releases and changes of pools. Without it the
	// service assumes it is the only one on the database (tests of a single
	// process): its views then learn of releases elsewhere from nothing.
	URL    string
	Logger *slog.Logger
	// Branches is the service of branches and objects, built with Guard
	// among its guards and Record as its recorder (branch.Config).
	Branches *branch.Service
}

// Service is the domain of number pools over one database. Several
// services, in one process or in many, may share the database.
type Service struct {
	db       *store.DB
	log      *slog.Logger
	branches *branch.Service
}

// errNotYet is returned by what is still being written.
var errNotYet = errors.New("numbers: not written yet")

// New starts the service on a migrated database. With cfg.URL it follows
// the other processes' releases and changes of pools until Close; it fails
// when it cannot listen before ctx ends.
func New(ctx context.Context, cfg Config) (*Service, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Service{db: cfg.DB, log: log, branches: cfg.Branches}, nil
}

// Close stops following the other processes and returns once the
// listener's connection is closed.
func (s *Service) Close() {}
