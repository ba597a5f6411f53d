package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"regexp"
	"strconv"
)

// migrationLockKey identifies the advisory lock that serialises migrations
// ("ipam" in ASCII).
const migrationLockKey = 0x6970616d

// Migrations are append-only: never edit or renumber a released file, add a
// new one with the next number instead.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

var migrationFilePattern = regexp.MustCompile(`^(\d{4})_([a-z0-9_]+)\.sql$`)

type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations returns the embedded migrations in order; their versions
// must be 1, 2, 3 and so on.
func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the migrations: %w", err)
	}

	migrations := make([]migration, 0, len(entries))
	for i, entry := range entries {
		match := migrationFilePattern.FindStringSubmatch(entry.Name())
		if match == nil {
			return nil, fmt.Errorf("store: the migration file %s is not named NNNN_name.sql", entry.Name())
		}

		version, err := strconv.Atoi(match[1])
		if err != nil {
			return nil, fmt.Errorf("store: invalid migration version in %s: %w", entry.Name(), err)
		}
		if version != i+1 {
			return nil, fmt.Errorf("store: the migration file %s is out of sequence: expected version %04d", entry.Name(), i+1)
		}

		content, err := fs.ReadFile(migrationFiles, path.Join("migrations", entry.Name()))
		if err != nil {
			return nil, fmt.Errorf("store: unable to read the migration %s: %w", entry.Name(), err)
		}

		migrations = append(migrations, migration{version: version, name: match[2], sql: string(content)})
	}
	return migrations, nil
}

// Migrate applies the migrations the database lacks, each in its own
// transaction, and returns how many it applied. Concurrent callers, even in
// other processes, are serialised by an advisory lock. It refuses to touch a
// database whose schema is newer than this binary knows.
func Migrate(ctx context.Context, db *DB) (applied int, err error) {
	migrations, err := loadMigrations()
	if err != nil {
		return 0, err
	}

	for {
		m, err := applyNextMigration(ctx, db, migrations)
		if err != nil {
			return applied, err
		}
		if m == nil {
			return applied, nil
		}
		applied++
		slog.Info("Applied database migration", slog.Int("version", m.version), slog.String("name", m.name))
	}
}

// applyNextMigration applies the first migration the database lacks and
// returns it, or returns nil when the schema is up to date.
func applyNextMigration(ctx context.Context, db *DB, migrations []migration) (*migration, error) {
	// Read committed, so that the statements after the lock see what the
	// previous holder of the lock committed.
	tx, err := db.BeginTxx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return nil, fmt.Errorf("store: unable to begin a migration transaction: %w", classify(err))
	}
	defer tx.Rollback()

	// A migration may rewrite large tables, and waits for another
	// process's: DefaultStatementTimeout is for requests, not for this.
	if _, err := tx.ExecContext(ctx, `SET LOCAL statement_timeout = 0`); err != nil {
		return nil, fmt.Errorf("store: unable to lift the statement timeout for a migration: %w", classify(err))
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLockKey); err != nil {
		return nil, fmt.Errorf("store: unable to take the migration lock: %w", classify(err))
	}

	if _, err := tx.ExecContext(ctx, `
		CREATE TABLE IF NOT EXISTS schema_migrations (
			version integer PRIMARY KEY,
			name text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now()
		)
	`); err != nil {
		return nil, fmt.Errorf("store: unable to create the schema_migrations table: %w", classify(err))
	}

	var version int
	if err := tx.GetContext(ctx, &version, `SELECT coalesce(max(version), 0) FROM schema_migrations`); err != nil {
		return nil, fmt.Errorf("store: unable to read the schema version: %w", classify(err))
	}

	latest := len(migrations)
	if version > latest {
		return nil, fmt.Errorf("store: the database schema version %d is newer than version %d, the latest this binary knows: upgrade ipam", version, latest)
	}

	var next *migration
	if version < latest {
		next = &migrations[version]
		if _, err := tx.ExecContext(ctx, next.sql); err != nil {
			return nil, fmt.Errorf("store: unable to apply the migration %04d_%s: %w", next.version, next.name, classify(err))
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, next.version, next.name); err != nil {
			return nil, fmt.Errorf("store: unable to record the migration %04d_%s: %w", next.version, next.name, classify(err))
		}
	}

	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: unable to commit the migration transaction: %w", classify(err))
	}
	return next, nil
}

// SchemaVersion returns the version of the latest migration applied to the
// database, or 0 when none was.
func SchemaVersion(ctx context.Context, db *DB) (int, error) {
	var exists bool
	if err := db.GetContext(ctx, &exists, `SELECT to_regclass('schema_migrations') IS NOT NULL`); err != nil {
		return 0, fmt.Errorf("store: unable to read the schema version: %w", classify(err))
	}
	if !exists {
		return 0, nil
	}

	var version int
	if err := db.GetContext(ctx, &version, `SELECT coalesce(max(version), 0) FROM schema_migrations`); err != nil {
		return 0, fmt.Errorf("store: unable to read the schema version: %w", classify(err))
	}
	return version, nil
}
