package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"pivirt.hu/ipam/internal/audit"
)

// A UserRow is a row of users: a person or a robot that signs in to the
// console or the API.
type UserRow struct {
	Name       string
	Role       string // operator or tenant
	Namespaces []string
	// PasswordHash is never shown, not even in the audit log (userDoc).
	PasswordHash string
	CreatedAt    time.Time
	// SessionGeneration is kept by the console sessions the user starts;
	// a session whose generation is not the user's any more has ended.
	// SetPassword and EndSessions draw a new one.
	SessionGeneration int64
}

// userScan is a row of users as the driver reads it.
type userScan struct {
	Name              string         `db:"name"`
	Role              string         `db:"role"`
	Namespaces        pq.StringArray `db:"namespaces"`
	PasswordHash      string         `db:"password_hash"`
	CreatedAt         time.Time      `db:"created_at"`
	SessionGeneration int64          `db:"session_generation"`
}

func (s userScan) row() (UserRow, error) {
	return UserRow{
		Name: s.Name, Role: s.Role, Namespaces: append([]string{}, s.Namespaces...), PasswordHash: s.PasswordHash,
		CreatedAt: s.CreatedAt, SessionGeneration: s.SessionGeneration,
	}, nil
}

// The audit log's object kinds of users and their tokens.
const (
	userKind  = audit.KindUser
	tokenKind = audit.KindToken
)

const userColumns = `name, role, namespaces, password_hash, created_at, session_generation`

// CreateUser stores u and returns it as stored. A user of the same name
// makes it fail with ErrObjectExists. Like the other changes of users and
// tokens, it runs in a transaction of its own with its audit entry.
func CreateUser(ctx context.Context, db *DB, actor string, u UserRow) (UserRow, error) {
	if u.Namespaces == nil {
		u.Namespaces = []string{}
	}
	err := InTx(ctx, db, func(tx *Tx) error {
		err := tx.GetContext(ctx, &u.CreatedAt, `INSERT INTO users (name, role, namespaces, password_hash)
			VALUES ($1, $2, $3, $4) RETURNING created_at`,
			u.Name, u.Role, textArray(u.Namespaces), u.PasswordHash)
		if _, ok := isUniqueViolation(err); ok {
			return fmt.Errorf("store: unable to create the user %s: %w", u.Name, ErrObjectExists)
		}
		if err != nil {
			return fmt.Errorf("store: unable to create the user %s: %w", u.Name, classify(err))
		}
		return InsertAudit(ctx, tx, AuditEntry{
			Actor:      actor,
			Action:     audit.Create,
			ObjectKind: userKind,
			ObjectName: u.Name,
			After:      JSON(userDoc(u)),
		})
	})
	if err != nil {
		return UserRow{}, err
	}
	return u, nil
}

// User returns the user called name, or ErrNotFound.
func User(ctx context.Context, q sqlx.QueryerContext, name string) (UserRow, error) {
	u, err := getRow[userScan](ctx, q, `SELECT `+userColumns+` FROM users WHERE name = $1`, name)
	if errors.Is(err, sql.ErrNoRows) {
		return UserRow{}, fmt.Errorf("store: unable to find the user %s: %w", name, ErrNotFound)
	}
	if err != nil {
		return UserRow{}, fmt.Errorf("store: unable to read the user %s: %w", name, classify(err))
	}
	return u, nil
}

// Users returns every user, by name.
func Users(ctx context.Context, q sqlx.QueryerContext) ([]UserRow, error) {
	users, err := selectRows[userScan](ctx, q, `SELECT `+userColumns+` FROM users ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the users: %w", classify(err))
	}
	return users, nil
}

// CountUsers returns how many users there are.
func CountUsers(ctx context.Context, q sqlx.QueryerContext) (int, error) {
	var n int
	if err := sqlx.GetContext(ctx, q, &n, `SELECT count(*) FROM users`); err != nil {
		return 0, fmt.Errorf("store: unable to count the users: %w", classify(err))
	}
	return n, nil
}

// SetPassword replaces the password hash of the user called name and ends
// their console sessions (see EndSessions), or fails with ErrNotFound.
func SetPassword(ctx context.Context, db *DB, actor, name, passwordHash string) error {
	return InTx(ctx, db, func(tx *Tx) error {
		u, err := getRow[userScan](ctx, tx, `UPDATE users
			SET password_hash = $2, session_generation = nextval('users_session_generation_seq')
			WHERE name = $1 RETURNING `+userColumns,
			name, passwordHash)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("store: unable to set the password of %s: %w", name, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store: unable to set the password of %s: %w", name, classify(err))
		}
		// The hash is left out of the JSON: before and after look alike,
		// the action says what changed.
		return InsertAudit(ctx, tx, AuditEntry{
			Actor:      actor,
			Action:     audit.SetPassword,
			ObjectKind: userKind,
			ObjectName: name,
			Before:     JSON(userDoc(u)),
			After:      JSON(userDoc(u)),
		})
	})
}

// EndSessions ends every console session of the user called name, in
// every process, by drawing a new session generation for them, or fails
// with ErrNotFound.
func EndSessions(ctx context.Context, db *DB, actor, name string) error {
	return InTx(ctx, db, func(tx *Tx) error {
		u, err := getRow[userScan](ctx, tx, `UPDATE users SET session_generation = nextval('users_session_generation_seq')
			WHERE name = $1 RETURNING `+userColumns, name)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("store: unable to end the sessions of %s: %w", name, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store: unable to end the sessions of %s: %w", name, classify(err))
		}
		return InsertAudit(ctx, tx, AuditEntry{
			Actor:      actor,
			Action:     audit.EndSessions,
			ObjectKind: userKind,
			ObjectName: name,
			Before:     JSON(userDoc(u)),
			After:      JSON(userDoc(u)),
		})
	})
}

// tokenRecord is what the audit log says of a token (audit.Token): never
// the token nor its hash.
type tokenRecord struct {
	ID        int64     `db:"id"`
	User      string    `db:"user_name"`
	CreatedAt time.Time `db:"created_at"`
}

// doc is the audit log's document of the token.
func (t tokenRecord) doc() audit.Token {
	return audit.Token{ID: t.ID, User: t.User, CreatedAt: t.CreatedAt}
}

// tokensDoc is the audit log's document of tokens revoked together.
func tokensDoc(ts []tokenRecord) audit.Tokens {
	out := make(audit.Tokens, len(ts))
	for i, t := range ts {
		out[i] = t.doc()
	}
	return out
}

// userDoc is the audit log's document of the user u: never its password's
// hash.
func userDoc(u UserRow) audit.User {
	return audit.User{Name: u.Name, Role: u.Role, Namespaces: u.Namespaces, CreatedAt: u.CreatedAt}
}

// CreateToken stores the SHA-256 hash of a new API token of user, or fails
// with ErrNotFound when there is no such user.
func CreateToken(ctx context.Context, db *DB, actor, user string, hash []byte) error {
	return InTx(ctx, db, func(tx *Tx) error {
		var t tokenRecord
		err := tx.GetContext(ctx, &t, `INSERT INTO api_tokens (user_name, token_hash)
			SELECT name, $2 FROM users WHERE name = $1
			RETURNING id, user_name, created_at`, user, hash)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("store: unable to create a token for %s: no such user: %w", user, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store: unable to create a token for %s: %w", user, classify(err))
		}
		return InsertAudit(ctx, tx, AuditEntry{
			Actor:      actor,
			Action:     audit.Create,
			ObjectKind: tokenKind,
			ObjectName: user,
			After:      JSON(t.doc()),
		})
	})
}

// UserByTokenHash returns the user holding the unrevoked API token of that
// SHA-256 hash, or ErrNotFound.
func UserByTokenHash(ctx context.Context, q sqlx.QueryerContext, hash []byte) (UserRow, error) {
	u, err := getRow[userScan](ctx, q, `SELECT u.name, u.role, u.namespaces, u.password_hash, u.created_at, u.session_generation
		FROM api_tokens t JOIN users u ON u.name = t.user_name
		WHERE t.token_hash = $1 AND t.revoked_at IS NULL`, hash)
	if errors.Is(err, sql.ErrNoRows) {
		return UserRow{}, fmt.Errorf("store: unable to find the token: %w", ErrNotFound)
	}
	if err != nil {
		return UserRow{}, fmt.Errorf("store: unable to look up a token: %w", classify(err))
	}
	return u, nil
}

// RevokeTokens revokes every API token of user and returns how many it
// revoked. It fails with ErrNotFound when there is no such user; a user
// without tokens is no change and leaves no audit entry.
func RevokeTokens(ctx context.Context, db *DB, actor, user string) (int, error) {
	var revoked []tokenRecord
	err := InTx(ctx, db, func(tx *Tx) error {
		var exists bool
		if err := tx.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM users WHERE name = $1)`, user); err != nil {
			return fmt.Errorf("store: unable to revoke the tokens of %s: %w", user, classify(err))
		}
		if !exists {
			return fmt.Errorf("store: unable to revoke the tokens of %s: no such user: %w", user, ErrNotFound)
		}
		err := tx.SelectContext(ctx, &revoked, `UPDATE api_tokens SET revoked_at = now()
			WHERE user_name = $1 AND revoked_at IS NULL
			RETURNING id, user_name, created_at`, user)
		if err != nil {
			return fmt.Errorf("store: unable to revoke the tokens of %s: %w", user, classify(err))
		}
		if len(revoked) == 0 {
			return nil
		}
		return InsertAudit(ctx, tx, AuditEntry{
			Actor:      actor,
			Action:     audit.Revoke,
			ObjectKind: tokenKind,
			ObjectName: user,
			Before:     JSON(tokensDoc(revoked)),
		})
	})
	if err != nil {
		return 0, err
	}
	return len(revoked), nil
}
