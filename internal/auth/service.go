package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"pivirt.hu/ipam/internal/store"
)

// AdminName is the operator that EnsureAdmin creates on an empty database.
const AdminName = "admin"

// A Service manages users and their API tokens, and tells who presents a
// password or a token.
type Service struct {
	db *store.DB
}

// NewService returns a Service over db.
func NewService(db *store.DB) *Service {
	return &Service{db: db}
}

// AddUser creates a user with a password. Only operators may; namespaces
// are a tenant's patterns ("acme/prod", "acme/*"). A refused field is an
// *InvalidError; an existing name wraps store.ErrObjectExists.
func (s *Service) AddUser(ctx context.Context, actor Actor, name string, role Role, namespaces []string, password string) error {
	if !actor.IsOperator() {
		return fmt.Errorf("auth: %s may not add users: %w", actor.Name, ErrForbidden)
	}
	if err := ValidateUser(name, role, namespaces, password); err != nil {
		return err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return err
	}
	_, err = store.CreateUser(ctx, s.db, actor.Name, store.UserRow{
		Name:         name,
		Role:         string(role),
		Namespaces:   namespaces,
		PasswordHash: hash,
	})
	return err
}

// SetPassword replaces the password of the user called name and ends their
// console sessions. Operators may set anyone's, others only their own.
func (s *Service) SetPassword(ctx context.Context, actor Actor, name, password string) error {
	if err := mayManage(actor, name, "set the password of"); err != nil {
		return err
	}
	if err := ValidatePassword(password); err != nil {
		return err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return err
	}
	return store.SetPassword(ctx, s.db, actor.Name, name, hash)
}

// EndSessions ends every console session of the user called name, without
// changing their password; their API tokens stay valid. Operators may end
// anyone's sessions, others only their own.
func (s *Service) EndSessions(ctx context.Context, actor Actor, name string) error {
	if err := mayManage(actor, name, "end the sessions of"); err != nil {
		return err
	}
	return store.EndSessions(ctx, s.db, actor.Name, name)
}

// CreateToken returns a new API token of user, the only time it is ever
// shown. Operators may create anyone's tokens, others only their own.
func (s *Service) CreateToken(ctx context.Context, actor Actor, user string) (string, error) {
	if err := mayManage(actor, user, "create tokens of"); err != nil {
		return "", err
	}
	token, hash := NewToken()
	if err := store.CreateToken(ctx, s.db, actor.Name, user, hash); err != nil {
		return "", err
	}
	return token, nil
}

// RevokeTokens revokes every API token of user and returns how many.
// Operators may revoke anyone's tokens, others only their own.
func (s *Service) RevokeTokens(ctx context.Context, actor Actor, user string) (int, error) {
	if err := mayManage(actor, user, "revoke tokens of"); err != nil {
		return 0, err
	}
	return store.RevokeTokens(ctx, s.db, actor.Name, user)
}

// mayManage refuses with ErrForbidden when actor, not an operator, would
// do something to another user.
func mayManage(actor Actor, user, what string) error {
	if actor.IsOperator() || actor.Name == user {
		return nil
	}
	return fmt.Errorf("auth: %s may not %s %s: %w", actor.Name, what, user, ErrForbidden)
}

// AuthenticateToken returns the holder of token, or ErrUnauthenticated when
// token is malformed, unknown or revoked.
func (s *Service) AuthenticateToken(ctx context.Context, token string) (Actor, error) {
	if !wellFormedToken(token) {
		return Actor{}, ErrUnauthenticated
	}
	u, err := store.UserByTokenHash(ctx, s.db, hashToken(token))
	if errors.Is(err, store.ErrNotFound) {
		return Actor{}, ErrUnauthenticated
	}
	if err != nil {
		return Actor{}, err
	}
	return actorOf(u), nil
}

// SignInLimit bounds the failed sign-ins SignIn allows within 10 minutes:
// 5 of one user name from one client address; 100 of one user name from
// all addresses together, so that failures from elsewhere hold the user
// back only when they come from many addresses; 20 from one address under
// any names.
var SignInLimit = store.LoginLimit{Window: 10 * time.Minute, PerUserAndClient: 5, PerUser: 100, PerClient: 20}

// A ThrottledError refuses a sign-in over the limit of failed sign-ins of
// its user name or its client address.
type ThrottledError struct {
	// RetryIn is how long until enough failures are old enough not to
	// count.
	RetryIn time.Duration
}

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("auth: too many failed sign-ins; try again in %v", e.RetryIn)
}

// SignIn checks the password of the user called name for a console
// session from client (the address the limit counts: an IPv4 address, an
// IPv6 client's /64) and returns the user with the session generation they
// had when the password was checked. The session keeps it, and ends when
// the user draws another (SetPassword, EndSessions), even while the
// password was being checked (see SessionActor).
//
// Failed sign-ins are counted in the database, so that every process
// shares the count (see SignInLimit); over the limit the password is not
// even checked and the error is a *ThrottledError. A wrong password or an
// unknown user is ErrUnauthenticated, alike in answer and in time.
func (s *Service) SignIn(ctx context.Context, client, name, password string) (actor Actor, generation int64, err error) {
	attempt, wait, err := store.ReserveLoginAttempt(ctx, s.db, name, client, SignInLimit)
	if err != nil {
		return Actor{}, 0, err
	}
	if wait > 0 {
		return Actor{}, 0, &ThrottledError{RetryIn: wait}
	}
	u, err := s.checkPassword(ctx, name, password)
	if err != nil {
		return Actor{}, 0, err
	}
	// Only failed attempts count against the limit.
	if err := store.ForgetLoginAttempt(ctx, s.db, attempt); err != nil {
		return Actor{}, 0, err
	}
	return actorOf(u), u.SessionGeneration, nil
}

// checkPassword returns the user called name when password is theirs, or
// ErrUnauthenticated, taking as long for an unknown name.
func (s *Service) checkPassword(ctx context.Context, name, password string) (store.UserRow, error) {
	u, err := store.User(ctx, s.db, name)
	if errors.Is(err, store.ErrNotFound) {
		hash, err := dummyHash()
		if err != nil {
			return store.UserRow{}, err
		}
		if _, err := CheckPassword(password, hash); err != nil {
			return store.UserRow{}, err
		}
		return store.UserRow{}, ErrUnauthenticated
	}
	if err != nil {
		return store.UserRow{}, err
	}
	match, err := CheckPassword(password, u.PasswordHash)
	if err != nil {
		return store.UserRow{}, err
	}
	if !match {
		return store.UserRow{}, ErrUnauthenticated
	}
	return u, nil
}

// SessionActor returns the user signed in to a console session as name
// with generation (what SignIn returned), or ErrSessionEnded when the user
// was deleted since or drew another generation (a new password, ipam user
// sessions end). The user's row is read at every call, so that a change
// made by any process ends the session in every process at once.
func (s *Service) SessionActor(ctx context.Context, name string, generation int64) (Actor, error) {
	u, err := store.User(ctx, s.db, name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return Actor{}, ErrSessionEnded
	case err != nil:
		return Actor{}, err
	case u.SessionGeneration != generation:
		return Actor{}, ErrSessionEnded
	}
	return actorOf(u), nil
}

// EnsureAdmin creates the operator AdminName with a random password when
// the database has no user, and returns that password to show once. Of
// processes starting together on an empty database, the unique name lets
// one create it; the others return created false.
func (s *Service) EnsureAdmin(ctx context.Context) (password string, created bool, err error) {
	n, err := store.CountUsers(ctx, s.db)
	if err != nil || n > 0 {
		return "", false, err
	}
	password = randomPassword()
	hash, err := HashPassword(password)
	if err != nil {
		return "", false, err
	}
	_, err = store.CreateUser(ctx, s.db, System.Name, store.UserRow{Name: AdminName, Role: string(Operator), PasswordHash: hash})
	if errors.Is(err, store.ErrObjectExists) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return password, true, nil
}

// actorOf returns the actor that the user u is.
func actorOf(u store.UserRow) Actor {
	return Actor{Name: u.Name, Role: Role(u.Role), Namespaces: u.Namespaces}
}
