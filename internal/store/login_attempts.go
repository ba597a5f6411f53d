package store

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"slices"
	"time"
)

// A LoginLimit bounds the failed sign-ins within Window: PerUserAndClient
// of one user name from one client address, PerUser of one user name from
// every address together, and PerClient from one address under any names.
type LoginLimit struct {
	Window           time.Duration
	PerUserAndClient int
	PerUser          int
	PerClient        int
}

// ReserveLoginAttempt records an attempt to sign in as user from client
// and returns its id, to be given to ForgetLoginAttempt if the attempt
// succeeds. When user from client, user from anywhere or client under any
// name already made as many attempts within limit.Window as limit allows,
// it records nothing and returns instead how long it takes until enough of
// them leave the window, by the database's clock. Concurrent reservations
// for the same user or client, in any process, are serialised, so that the
// limit holds exactly. Attempts older than the window are deleted on the
// way.
func ReserveLoginAttempt(ctx context.Context, db *DB, user, client string, limit LoginLimit) (id int64, retryIn time.Duration, err error) {
	err = InTx(ctx, db, func(tx *Tx) error {
		keys := []int64{lockKey("login user " + user), lockKey("login client " + client)}
		slices.Sort(keys)
		for _, k := range keys {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, k); err != nil {
				return fmt.Errorf("store: unable to lock the login attempts of %s: %w", user, classify(err))
			}
		}
		window := limit.Window.Seconds()
		if _, err := tx.ExecContext(ctx, `DELETE FROM login_attempts WHERE at <= now() - make_interval(secs => $1)`, window); err != nil {
			return fmt.Errorf("store: unable to delete old login attempts: %w", classify(err))
		}
		// The attempts that must leave the window before another is
		// allowed are the limit-th newest of each count; the last of them
		// to leave decides.
		var wait sql.NullFloat64
		err := tx.GetContext(ctx, &wait, `SELECT extract(epoch FROM max(at) + make_interval(secs => $6) - now()) FROM (
			(SELECT at FROM login_attempts WHERE user_name = $1 AND client = $2 ORDER BY at DESC OFFSET $3 LIMIT 1)
			UNION ALL
			(SELECT at FROM login_attempts WHERE user_name = $1 ORDER BY at DESC OFFSET $4 LIMIT 1)
			UNION ALL
			(SELECT at FROM login_attempts WHERE client = $2 ORDER BY at DESC OFFSET $5 LIMIT 1)
		) AS blocking`, user, client, limit.PerUserAndClient-1, limit.PerUser-1, limit.PerClient-1, window)
		if err != nil {
			return fmt.Errorf("store: unable to count the login attempts of %s: %w", user, classify(err))
		}
		if wait.Valid {
			retryIn = max(time.Duration(wait.Float64*float64(time.Second)), time.Second)
			return nil
		}
		err = tx.GetContext(ctx, &id, `INSERT INTO login_attempts (user_name, client) VALUES ($1, $2) RETURNING id`, user, client)
		if err != nil {
			return fmt.Errorf("store: unable to record a login attempt of %s: %w", user, classify(err))
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	return id, retryIn, nil
}

// ForgetLoginAttempt deletes the attempt id, which succeeded: only failed
// attempts count against the limit.
func ForgetLoginAttempt(ctx context.Context, db *DB, id int64) error {
	if _, err := db.ExecContext(ctx, `DELETE FROM login_attempts WHERE id = $1`, id); err != nil {
		return fmt.Errorf("store: unable to delete the login attempt %d: %w", id, classify(err))
	}
	return nil
}

// lockKey is the advisory lock key of name.
func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return int64(h.Sum64())
}
