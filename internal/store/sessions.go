package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Session returns the data and the expiry of the console session stored
// under token (the hash of the session's token), unless it has expired:
// found is false then, as for an unknown token.
func Session(ctx context.Context, db *DB, token string) (data []byte, expiry time.Time, found bool, err error) {
	var row struct {
		Data   []byte    `db:"data"`
		Expiry time.Time `db:"expiry"`
	}
	err = db.GetContext(ctx, &row, `SELECT data, expiry FROM sessions WHERE token = $1 AND current_timestamp < expiry`, token)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, time.Time{}, false, nil
	}
	if err != nil {
		return nil, time.Time{}, false, fmt.Errorf("store: unable to read a session: %w", classify(err))
	}
	return row.Data, row.Expiry, true, nil
}

// SaveSession stores the data of the console session under token until
// expiry, replacing what is stored under token.
func SaveSession(ctx context.Context, db *DB, token string, data []byte, expiry time.Time) error {
	_, err := db.ExecContext(ctx, `INSERT INTO sessions (token, data, expiry) VALUES ($1, $2, $3)
		ON CONFLICT (token) DO UPDATE SET data = EXCLUDED.data, expiry = EXCLUDED.expiry`, token, data, expiry)
	if err != nil {
		return fmt.Errorf("store: unable to save a session: %w", classify(err))
	}
	return nil
}

// DeleteSession deletes the console session stored under token, if any.
func DeleteSession(ctx context.Context, db *DB, token string) error {
	if _, err := db.ExecContext(ctx, `DELETE FROM sessions WHERE token = $1`, token); err != nil {
		return fmt.Errorf("store: unable to delete a session: %w", classify(err))
	}
	return nil
}

// DeleteExpiredSessions deletes the console sessions whose expiry has
// passed; they are never found again, only their rows stay.
func DeleteExpiredSessions(ctx context.Context, db *DB) error {
	if _, err := db.ExecContext(ctx, `DELETE FROM sessions WHERE expiry < now()`); err != nil {
		return fmt.Errorf("store: unable to delete expired sessions: %w", classify(err))
	}
	return nil
}
