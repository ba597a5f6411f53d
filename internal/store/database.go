package store

import (
	"context"
	"fmt"

	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"
)

// CreateDatabase creates the database name on the server of admin (a
// connection to any of its databases, as a role that may create
// databases): a copy of template when template is not empty, made by
// copying its files, the fastest for a small database, on PostgreSQL 15
// and later. It fails with ErrObjectExists when name exists.
func CreateDatabase(ctx context.Context, admin *DB, name, template string) error {
	query := "CREATE DATABASE " + pq.QuoteIdentifier(name)
	if template != "" {
		var version int
		if err := admin.GetContext(ctx, &version, `SELECT current_setting('server_version_num')::integer`); err != nil {
			return fmt.Errorf("store: unable to read the server's version: %w", classify(err))
		}
		query += " TEMPLATE " + pq.QuoteIdentifier(template)
		if version >= 150000 {
			query += " STRATEGY FILE_COPY"
		}
	}
	_, err := admin.ExecContext(ctx, query)
	if pq.As(err, pqerror.DuplicateDatabase) != nil {
		return fmt.Errorf("store: unable to create the database %s: %w", name, ErrObjectExists)
	}
	if err != nil {
		return fmt.Errorf("store: unable to create the database %s: %w", name, classify(err))
	}
	return nil
}

// DropDatabase drops the database name, if it exists, on the server of
// admin, ending the connections to it.
func DropDatabase(ctx context.Context, admin *DB, name string) error {
	if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+pq.QuoteIdentifier(name)+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("store: unable to drop the database %s: %w", name, classify(err))
	}
	return nil
}
