package store

import (
	"context"
	"fmt"
)

// DeleteExpiredSessions deletes the console sessions whose expiry has
// passed; they are never found again, only their rows stay.
func DeleteExpiredSessions(ctx context.Context, db *DB) error {
	if _, err := db.ExecContext(ctx, `DELETE FROM sessions WHERE expiry < now()`); err != nil {
		return fmt.Errorf("store: unable to delete expired sessions: %w", classify(err))
	}
	return nil
}
