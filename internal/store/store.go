// Package store opens the PostgreSQL database and keeps its schema up to date.
package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq" // The postgres driver for database/sql.
)

// Open connects to the PostgreSQL database at url, a lib/pq URL or DSN.
func Open(ctx context.Context, url string) (*sqlx.DB, error) {
	db, err := sqlx.Open("postgres", url)
	if err != nil {
		return nil, fmt.Errorf("store: unable to open the database: %w", err)
	}

	db.SetMaxOpenConns(20)
	db.SetMaxIdleConns(10)
	db.SetConnMaxIdleTime(5 * time.Minute)
	db.SetConnMaxLifetime(time.Hour)

	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: unable to connect to the database: %w", err)
	}
	return db, nil
}
