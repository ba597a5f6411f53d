package auth

import (
	"context"
	"time"

	"pivirt.hu/ipam/internal/store"
)

// The console's sessions are kept in the database, so that every process
// knows them, under the hash of their token: the session manager of the
// console hashes it and encodes the session's data.

// Session returns the data and the expiry of the console session stored
// under token, unless it has expired: found is false then, as for an
// unknown token.
func (s *Service) Session(ctx context.Context, token string) (data []byte, expiry time.Time, found bool, err error) {
	return store.Session(ctx, s.db, token)
}

// SaveSession stores the data of the console session under token until
// expiry, replacing what was stored.
func (s *Service) SaveSession(ctx context.Context, token string, data []byte, expiry time.Time) error {
	return store.SaveSession(ctx, s.db, token, data, expiry)
}

// DeleteSession deletes the console session stored under token, if any.
func (s *Service) DeleteSession(ctx context.Context, token string) error {
	return store.DeleteSession(ctx, s.db, token)
}

// DeleteExpiredSessions deletes the console sessions whose expiry has
// passed.
func (s *Service) DeleteExpiredSessions(ctx context.Context) error {
	return store.DeleteExpiredSessions(ctx, s.db)
}
