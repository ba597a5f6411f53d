package ipam

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/store"
)

// OpenDatabase connects to the PostgreSQL database at url and applies the
// migrations it lacks, logging how many. pooled says that url is a
// connection pooler in transaction mode (store.OpenPooled). The caller
// closes it.
func OpenDatabase(ctx context.Context, url string, pooled bool, log *slog.Logger) (*store.DB, error) {
	open := store.Open
	if pooled {
		open = store.OpenPooled
	}
	db, err := open(ctx, url)
	if err != nil {
		return nil, err
	}
	applied, err := store.Migrate(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	if applied > 0 {
		log.Info("migrated the database", "migrations", applied)
	}
	return db, nil
}

// CheckNotifications checks that a notification sent through db reaches a
// connection listening at url, as every process's views need: not so when
// db goes through a connection pooler in transaction mode and url too, or
// when they reach different servers.
func CheckNotifications(ctx context.Context, db *store.DB, url string) error {
	err := store.CheckNotifications(ctx, db, url)
	if errors.Is(err, store.ErrNotificationLost) {
		return fmt.Errorf("%w: when the database URL goes through a connection pooler in transaction mode (PgBouncer), give --listen-database-url, a URL of the PostgreSQL server itself", err)
	}
	return err
}

// CreateDatabase creates the database name, unless it exists, on the
// server at serverURL (a URL of another of its databases).
func CreateDatabase(ctx context.Context, serverURL, name string) error {
	admin, err := store.Open(ctx, serverURL)
	if err != nil {
		return err
	}
	defer admin.Close()
	if err := store.CreateDatabase(ctx, admin, name, ""); err != nil && !errors.Is(err, store.ErrObjectExists) {
		return err
	}
	return nil
}

// Health is what a health check found of a database that answers.
type Health struct {
	// SchemaVersion is the version of the latest migration applied.
	SchemaVersion int
}

// Health checks that the database answers by ctx's deadline, and reads its
// schema version. It starts no goroutine: the database's connections give
// up on a server that does not answer by then (store.Open).
func (s *Service) Health(ctx context.Context) (Health, error) {
	v, err := store.SchemaVersion(ctx, s.db)
	if err != nil {
		return Health{}, err
	}
	return Health{SchemaVersion: v}, nil
}

// SetOnce records the instance-wide setting name with value unless it is
// recorded already, and reports whether this call recorded it: of
// processes setting it together, one does. Only operators may.
func (s *Service) SetOnce(ctx context.Context, actor auth.Actor, name string, value any) (bool, error) {
	if !actor.IsOperator() {
		return false, forbidden("%s may not change the settings", actor.Name)
	}
	doc, err := json.Marshal(value)
	if err != nil {
		return false, fmt.Errorf("ipam: unable to write the setting %s: %w", name, err)
	}
	return store.InsertSetting(ctx, s.db, name, doc)
}
