// Package store holds every SQL statement of PiVirt IPAM: it opens the
// PostgreSQL database, keeps its schema up to date and reads and writes its
// rows.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// dialer bounds how long a connection attempt may take, so that a database
// that accepts nothing makes requests fail instead of hang.
type dialer struct{ net.Dialer }

func (d dialer) Dial(network, address string) (net.Conn, error) {
	return d.Dialer.Dial(network, address)
}

func (d dialer) DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	nd := d.Dialer
	nd.Timeout = min(timeout, nd.Timeout)
	return nd.Dial(network, address)
}

// MaxOpenConns is the size of each process's connection pool.
const MaxOpenConns = 20

// Open connects to the PostgreSQL database at url, a lib/pq URL or DSN.
// Its connections bound their statements by DefaultStatementTimeout unless
// the URL, the role, the database or the server sets a statement_timeout.
func Open(ctx context.Context, url string) (*sqlx.DB, error) {
	connector, err := pq.NewConnector(url)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the database URL: %w", err)
	}
	connector.Dialer(dialer{net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}})
	db := sqlx.NewDb(sql.OpenDB(boundedConnector{connector}), "postgres")

	db.SetMaxOpenConns(MaxOpenConns)
	db.SetMaxIdleConns(MaxOpenConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	db.SetConnMaxLifetime(time.Hour)

	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: unable to connect to the database: %w", classify(err))
	}
	return db, nil
}
