package auth

import (
	"context"
	"errors"
	"fmt"

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
	return ActorOf(u), nil
}

// AuthenticatePassword returns the user called name when password is
// theirs, or ErrUnauthenticated. An unknown name costs the same password
// check as a wrong password, so the time taken does not tell the two apart.
func (s *Service) AuthenticatePassword(ctx context.Context, name, password string) (Actor, error) {
	actor, _, err := s.SignIn(ctx, name, password)
	return actor, err
}

// SignIn is AuthenticatePassword for a console session: it also returns the
// session generation the user had when the password was checked. The
// session keeps it, and ends when the user draws another (SetPassword,
// EndSessions), even while the password was being checked.
func (s *Service) SignIn(ctx context.Context, name, password string) (actor Actor, generation int64, err error) {
	u, err := store.User(ctx, s.db, name)
	if errors.Is(err, store.ErrNotFound) {
		hash, err := dummyHash()
		if err != nil {
			return Actor{}, 0, err
		}
		if _, err := CheckPassword(password, hash); err != nil {
			return Actor{}, 0, err
		}
		return Actor{}, 0, ErrUnauthenticated
	}
	if err != nil {
		return Actor{}, 0, err
	}
	match, err := CheckPassword(password, u.PasswordHash)
	if err != nil {
		return Actor{}, 0, err
	}
	if !match {
		return Actor{}, 0, ErrUnauthenticated
	}
	return ActorOf(u), u.SessionGeneration, nil
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

// ActorOf returns the actor that the user u is.
func ActorOf(u store.UserRow) Actor {
	return Actor{Name: u.Name, Role: Role(u.Role), Namespaces: u.Namespaces}
}
