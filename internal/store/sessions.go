package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// DeleteExpiredSessions deletes the console sessions whose expiry has
// passed; they are never found again, only their rows stay.
func DeleteExpiredSessions(ctx context.Context, db *sqlx.DB) error {
	if _, err := db.ExecContext(ctx, `DELETE FROM sessions WHERE expiry < now()`); err != nil {
		return fmt.Errorf("store: unable to delete expired sessions: %w", classify(err))
	}
	return nil
}
