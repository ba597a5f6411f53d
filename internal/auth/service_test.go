package auth_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const alicePassword = "correct horse battery"

var alice = auth.Actor{Name: "alice", Role: auth.Tenant, Namespaces: []string{"acme/*"}}

// newService returns a Service over a fresh database holding the tenant
// alice, and the database.
func newService(t *testing.T) (*auth.Service, *store.DB) {
	t.Helper()
	db := pgtest.NewDB(t)
	s := auth.NewService(db)
	if err := s.AddUser(t.Context(), auth.System, alice.Name, alice.Role, alice.Namespaces, alicePassword); err != nil {
		t.Fatal(err)
	}
	return s, db
}

func countAudit(t *testing.T, db *store.DB) int {
	t.Helper()
	var n int
	if err := db.GetContext(t.Context(), &n, `SELECT count(*) FROM audit_log`); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestHashAndCheckPassword(t *testing.T) {
	hash, err := auth.HashPassword(alicePassword)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("HashPassword() = %q, want an argon2id hash with m=19456,t=2,p=1", hash)
	}
	again, err := auth.HashPassword(alicePassword)
	if err != nil {
		t.Fatal(err)
	}
	if again == hash {
		t.Error("two hashes of one password are equal: no salt")
	}

	for _, tt := range []struct {
		password string
		want     bool
	}{
		{alicePassword, true},
		{"correct horse batterY", false},
		{alicePassword + " ", false},
		{"", false},
	} {
		got, err := auth.CheckPassword(tt.password, hash)
		if err != nil || got != tt.want {
			t.Errorf("CheckPassword(%q, hash) = %v, %v, want %v", tt.password, got, err, tt.want)
		}
	}
	if _, err := auth.CheckPassword(alicePassword, "$2a$10$not-argon2"); err == nil {
		t.Error("CheckPassword(…, a bcrypt hash) succeeded, want an error")
	}
}

func TestNewToken(t *testing.T) {
	format := regexp.MustCompile(`^pvt_[A-Za-z0-9_-]{43}$`)
	seen := map[string]bool{}
	for range 100 {
		token, hash := auth.NewToken()
		if !format.MatchString(token) {
			t.Fatalf("NewToken() = %q, want pvt_ and 43 base64url characters", token)
		}
		if sum := sha256.Sum256([]byte(token)); !slices.Equal(hash, sum[:]) {
			t.Fatalf("NewToken() hash = %x, want the SHA-256 of the token %x", hash, sum)
		}
		if seen[token] {
			t.Fatalf("NewToken() returned %q twice", token)
		}
		seen[token] = true
	}
}

func TestValidateUser(t *testing.T) {
	const pw = "twelve chars"
	tests := []struct {
		name       string
		role       auth.Role
		namespaces []string
		password   string
		want       string // "" when valid
	}{
		{"alice", auth.Tenant, []string{"acme/*"}, pw, ""},
		{"root", auth.Operator, nil, pw, ""},
		{"ci.bot_1-x", auth.Tenant, []string{"acme/prod", "shared/dns/eu-1", "a/b/*"}, pw, ""},
		{"0", auth.Operator, nil, "ünïcödé-pwd!", ""},
		{strings.Repeat("a", 63), auth.Operator, nil, pw, ""},
		{"", auth.Operator, nil, pw, `invalid name: "" is not 1 to 63 lowercase letters, digits, '.', '_' or '-' starting with a letter or digit`},
		{"Alice", auth.Operator, nil, pw, `invalid name: "Alice" is not 1 to 63 lowercase letters, digits, '.', '_' or '-' starting with a letter or digit`},
		{"-alice", auth.Operator, nil, pw, `invalid name: "-alice" is not 1 to 63 lowercase letters, digits, '.', '_' or '-' starting with a letter or digit`},
		{"al ice", auth.Operator, nil, pw, `invalid name: "al ice" is not 1 to 63 lowercase letters, digits, '.', '_' or '-' starting with a letter or digit`},
		{strings.Repeat("a", 64), auth.Operator, nil, pw, `invalid name: "` + strings.Repeat("a", 64) + `" is not 1 to 63 lowercase letters, digits, '.', '_' or '-' starting with a letter or digit`},
		{"alice", "admin", nil, pw, `invalid role: "admin" is neither operator nor tenant`},
		{"alice", "", nil, pw, `invalid role: "" is neither operator nor tenant`},
		{"alice", auth.Tenant, nil, pw, `invalid namespace: a tenant needs at least one namespace pattern`},
		{"alice", auth.Tenant, []string{}, pw, `invalid namespace: a tenant needs at least one namespace pattern`},
		{"root", auth.Operator, []string{"acme/*"}, pw, `invalid namespace: an operator sees every namespace and takes no pattern`},
		{"alice", auth.Tenant, []string{"acme/*", "Acme/prod"}, pw, `invalid namespace: "Acme/prod" is not a namespace pattern such as acme/prod or acme/*`},
		{"alice", auth.Tenant, []string{"*"}, pw, `invalid namespace: "*" is not a namespace pattern such as acme/prod or acme/*`},
		{"alice", auth.Tenant, []string{"acme/"}, pw, `invalid namespace: "acme/" is not a namespace pattern such as acme/prod or acme/*`},
		{"alice", auth.Tenant, []string{"acme//prod"}, pw, `invalid namespace: "acme//prod" is not a namespace pattern such as acme/prod or acme/*`},
		{"alice", auth.Tenant, []string{"acme/*/prod"}, pw, `invalid namespace: "acme/*/prod" is not a namespace pattern such as acme/prod or acme/*`},
		{"alice", auth.Tenant, []string{"acme-/prod"}, pw, `invalid namespace: "acme-/prod" is not a namespace pattern such as acme/prod or acme/*`},
		{"alice", auth.Tenant, []string{"acme/pr_od"}, pw, `invalid namespace: "acme/pr_od" is not a namespace pattern such as acme/prod or acme/*`},
		{"alice", auth.Tenant, []string{strings.Repeat("a", 64)}, pw, `invalid namespace: "` + strings.Repeat("a", 64) + `" is not a namespace pattern such as acme/prod or acme/*`},
		{"alice", auth.Tenant, []string{"acme/*"}, "eleven char", `invalid password: must be at least 12 characters`},
		{"alice", auth.Tenant, []string{"acme/*"}, "", `invalid password: must be at least 12 characters`},
		{"alice", auth.Tenant, []string{"acme/*"}, "ünïcödé-pw!", `invalid password: must be at least 12 characters`},
	}
	for _, tt := range tests {
		err := auth.ValidateUser(tt.name, tt.role, tt.namespaces, tt.password)
		var got string
		if err != nil {
			got = err.Error()
			if !errors.As(err, new(*auth.InvalidError)) {
				t.Errorf("ValidateUser(%q, %q, %q, %q) = %v, not an *InvalidError", tt.name, tt.role, tt.namespaces, tt.password, err)
			}
		}
		if got != tt.want {
			t.Errorf("ValidateUser(%q, %q, %q, %q) = %q, want %q", tt.name, tt.role, tt.namespaces, tt.password, got, tt.want)
		}
	}
}

func TestAddUser(t *testing.T) {
	s, db := newService(t)
	ctx := t.Context()

	u, err := store.User(ctx, db, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if u.Role != "tenant" || !slices.Equal(u.Namespaces, []string{"acme/*"}) || !strings.HasPrefix(u.PasswordHash, "$argon2id$") {
		t.Errorf("stored alice = %+v", u)
	}

	err = s.AddUser(ctx, auth.System, "alice", auth.Operator, nil, "another password")
	if !errors.Is(err, store.ErrObjectExists) {
		t.Errorf("AddUser(alice) again: err = %v, want ErrObjectExists", err)
	}
	err = s.AddUser(ctx, auth.System, "bob", auth.Tenant, nil, "another password")
	var invalid *auth.InvalidError
	if !errors.As(err, &invalid) || invalid.Field != "namespace" {
		t.Errorf("AddUser(bob without namespaces): err = %v, want an *InvalidError of namespace", err)
	}
	if n := countAudit(t, db); n != 1 {
		t.Errorf("%d audit entries, want alice's creation only", n)
	}
}

func TestOnlyOperatorsManageOthers(t *testing.T) {
	s, db := newService(t)
	ctx := t.Context()
	if err := s.AddUser(ctx, auth.System, "bob", auth.Tenant, []string{"globex/*"}, "bobs password"); err != nil {
		t.Fatal(err)
	}
	before := countAudit(t, db)

	if err := s.AddUser(ctx, alice, "mallory", auth.Operator, nil, "mallorys password"); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("tenant AddUser: err = %v, want ErrForbidden", err)
	}
	if _, err := s.CreateToken(ctx, alice, "bob"); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("alice CreateToken(bob): err = %v, want ErrForbidden", err)
	}
	if _, err := s.RevokeTokens(ctx, alice, "bob"); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("alice RevokeTokens(bob): err = %v, want ErrForbidden", err)
	}
	if err := s.SetPassword(ctx, alice, "bob", "a new password"); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("alice SetPassword(bob): err = %v, want ErrForbidden", err)
	}
	if err := s.EndSessions(ctx, alice, "bob"); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("alice EndSessions(bob): err = %v, want ErrForbidden", err)
	}
	if after := countAudit(t, db); after != before {
		t.Errorf("forbidden requests wrote %d audit entries", after-before)
	}

	// Her own tokens and password are hers to manage.
	token, err := s.CreateToken(ctx, alice, "alice")
	if err != nil {
		t.Fatalf("alice CreateToken(alice): %v", err)
	}
	if n, err := s.RevokeTokens(ctx, alice, "alice"); err != nil || n != 1 {
		t.Errorf("alice RevokeTokens(alice) = %d, %v, want 1", n, err)
	}
	if _, err := s.AuthenticateToken(ctx, token); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("AuthenticateToken(revoked) err = %v, want ErrUnauthenticated", err)
	}
	if err := s.SetPassword(ctx, alice, "alice", "a new password"); err != nil {
		t.Errorf("alice SetPassword(alice): %v", err)
	}
	if _, err := signIn(ctx, s, "alice", "a new password"); err != nil {
		t.Errorf("SignIn(alice, new password): %v", err)
	}
	if err := s.EndSessions(ctx, alice, "alice"); err != nil {
		t.Errorf("alice EndSessions(alice): %v", err)
	}

	// An operator manages anyone's.
	root := auth.Actor{Name: "root", Role: auth.Operator}
	if _, err := s.CreateToken(ctx, root, "bob"); err != nil {
		t.Errorf("operator CreateToken(bob): %v", err)
	}
	if n, err := s.RevokeTokens(ctx, root, "bob"); err != nil || n != 1 {
		t.Errorf("operator RevokeTokens(bob) = %d, %v, want 1", n, err)
	}
}

// signIn signs in from an address of its own each time, so that the
// failures of a test never reach SignIn's limit.
func signIn(ctx context.Context, s *auth.Service, name, password string) (auth.Actor, error) {
	n := clients.Add(1)
	actor, _, err := s.SignIn(ctx, fmt.Sprintf("198.51.%d.%d", n/256, n%256), name, password)
	return actor, err
}

// clients counts the addresses signIn signed in from.
var clients atomic.Int64

func TestSignIn(t *testing.T) {
	s, _ := newService(t)
	ctx := t.Context()

	got, err := signIn(ctx, s, "alice", alicePassword)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "alice" || got.Role != auth.Tenant || !slices.Equal(got.Namespaces, alice.Namespaces) {
		t.Errorf("SignIn(alice) = %+v, want %+v", got, alice)
	}
	for _, tt := range []struct{ name, password string }{
		{"alice", "wrong password!"},
		{"alice", ""},
		{"nobody", alicePassword},
		{"", ""},
	} {
		if got, err := signIn(ctx, s, tt.name, tt.password); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Errorf("SignIn(%q, %q) = %+v, %v, want ErrUnauthenticated", tt.name, tt.password, got, err)
		}
	}
}

func TestSignInGeneration(t *testing.T) {
	s, _ := newService(t)
	ctx := t.Context()
	signIn := func(password string) int64 {
		t.Helper()
		got, generation, err := s.SignIn(ctx, "192.0.2.1", "alice", password)
		if err != nil || got.Name != "alice" || generation == 0 {
			t.Fatalf("SignIn(alice) = %+v, %d, %v; want alice and a generation", got, generation, err)
		}
		return generation
	}
	first := signIn(alicePassword)
	if again := signIn(alicePassword); again != first {
		t.Errorf("two sign-ins gave the generations %d and %d, want the same", first, again)
	}
	if err := s.SetPassword(ctx, auth.System, "alice", "a new password"); err != nil {
		t.Fatal(err)
	}
	second := signIn("a new password")
	if second == first {
		t.Errorf("SetPassword kept the session generation %d", first)
	}
	if err := s.EndSessions(ctx, auth.System, "alice"); err != nil {
		t.Fatal(err)
	}
	if third := signIn("a new password"); third == second || third == first {
		t.Errorf("EndSessions gave the generation %d, after %d and %d", third, first, second)
	}
	if _, generation, err := s.SignIn(ctx, "192.0.2.1", "alice", "wrong password!"); !errors.Is(err, auth.ErrUnauthenticated) || generation != 0 {
		t.Errorf("SignIn(alice, a wrong password) = %d, %v; want 0, ErrUnauthenticated", generation, err)
	}
}

// TestSessionActor checks that a session's user is read afresh, and that
// the session ends when the user draws another generation or is gone.
func TestSessionActor(t *testing.T) {
	s, db := newService(t)
	ctx := t.Context()
	_, generation, err := s.SignIn(ctx, "192.0.2.1", "alice", alicePassword)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.SessionActor(ctx, "alice", generation); err != nil || got.Name != "alice" || got.Role != auth.Tenant {
		t.Errorf("SessionActor(alice) = %+v, %v; want alice, a tenant", got, err)
	}
	if _, err := s.SessionActor(ctx, "alice", generation+1); !errors.Is(err, auth.ErrSessionEnded) {
		t.Errorf("SessionActor(alice, another generation) = %v, want ErrSessionEnded", err)
	}
	if err := s.EndSessions(ctx, auth.System, "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SessionActor(ctx, "alice", generation); !errors.Is(err, auth.ErrSessionEnded) {
		t.Errorf("SessionActor(alice) after EndSessions = %v, want ErrSessionEnded", err)
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM users WHERE name = 'alice'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SessionActor(ctx, "alice", generation); !errors.Is(err, auth.ErrSessionEnded) {
		t.Errorf("SessionActor(a deleted user) = %v, want ErrSessionEnded", err)
	}
}

// TestSignInThrottled checks that SignIn holds a user name back from a
// client after SignInLimit.PerUserAndClient failures, without checking the
// password, and that successes do not count.
func TestSignInThrottled(t *testing.T) {
	s, _ := newService(t)
	ctx := t.Context()
	const client = "198.51.100.1"
	for range auth.SignInLimit.PerUserAndClient - 1 {
		if _, _, err := s.SignIn(ctx, client, "alice", "wrong password!"); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Fatalf("SignIn(a wrong password) = %v, want ErrUnauthenticated", err)
		}
	}
	if _, _, err := s.SignIn(ctx, client, "alice", alicePassword); err != nil {
		t.Fatalf("SignIn(alice) after %d failures = %v", auth.SignInLimit.PerUserAndClient-1, err)
	}
	if _, _, err := s.SignIn(ctx, client, "alice", "wrong password!"); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Fatalf("SignIn(a wrong password) = %v, want ErrUnauthenticated", err)
	}
	var throttled *auth.ThrottledError
	if _, _, err := s.SignIn(ctx, client, "alice", alicePassword); !errors.As(err, &throttled) || throttled.RetryIn <= 0 || throttled.RetryIn > auth.SignInLimit.Window {
		t.Errorf("SignIn(alice) after %d failures = %v, want a *ThrottledError", auth.SignInLimit.PerUserAndClient, err)
	}
	if _, _, err := s.SignIn(ctx, "203.0.113.9", "alice", alicePassword); err != nil {
		t.Errorf("SignIn(alice) from another client = %v", err)
	}
}

// TestSignInUnknownUserTakesAsLong checks that an unknown
// name costs a password check too: without it, the time of a refusal would
// tell which names exist. The work is measured by what the refusals
// allocate, not by a clock: each argon2id check allocates its memory
// parameter (19 MiB), which the rest of a sign-in does not come near, and
// a timed comparison failed on a loaded machine (35 ms against 88 ms).
func TestSignInUnknownUserTakesAsLong(t *testing.T) {
	s, _ := newService(t)
	ctx := t.Context()
	allocated := func(name string) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 3 {
			if _, err := signIn(ctx, s, name, "wrong password!"); !errors.Is(err, auth.ErrUnauthenticated) {
				t.Fatalf("SignIn(%q, wrong) err = %v, want ErrUnauthenticated", name, err)
			}
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	allocated("nobody") // The dummy hash is made once, on first use.
	unknown, wrong := allocated("nobody"), allocated("alice")
	if unknown < wrong/2 || wrong < 3*19<<20 {
		t.Errorf("3 refusals of an unknown user allocated %d MiB, of a wrong password %d MiB: the work tells names apart", unknown>>20, wrong>>20)
	}
}

func TestTokens(t *testing.T) {
	s, db := newService(t)
	ctx := t.Context()

	token, err := s.CreateToken(ctx, auth.System, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(token, "pvt_") {
		t.Errorf("CreateToken() = %q, want a pvt_ token", token)
	}
	var stored int
	if err := db.GetContext(ctx, &stored, `SELECT count(*) FROM api_tokens WHERE token_hash = sha256($1::bytea)`, token); err != nil {
		t.Fatal(err)
	}
	if stored != 1 {
		t.Errorf("%d api_tokens rows hold the SHA-256 of the token, want 1", stored)
	}

	got, err := s.AuthenticateToken(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "alice" || got.Role != auth.Tenant || !slices.Equal(got.Namespaces, alice.Namespaces) {
		t.Errorf("AuthenticateToken() = %+v, want %+v", got, alice)
	}

	unissued, _ := auth.NewToken()
	for _, bad := range []string{
		"",
		"pvt_",
		unissued,
		strings.TrimPrefix(token, "pvt_"),
		"pvx_" + strings.TrimPrefix(token, "pvt_"),
		token + "A",
		token[:len(token)-1],
		token[:len(token)-1] + "=",
		token[:len(token)-2] + "!!",
		strings.ToUpper(token),
	} {
		if got, err := s.AuthenticateToken(ctx, bad); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Errorf("AuthenticateToken(%q) = %+v, %v, want ErrUnauthenticated", bad, got, err)
		}
	}

	if _, err := s.CreateToken(ctx, auth.System, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CreateToken(nobody): err = %v, want ErrNotFound", err)
	}

	n, err := s.RevokeTokens(ctx, auth.System, "alice")
	if err != nil || n != 1 {
		t.Fatalf("RevokeTokens(alice) = %d, %v, want 1", n, err)
	}
	if got, err := s.AuthenticateToken(ctx, token); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("AuthenticateToken(revoked) = %+v, %v, want ErrUnauthenticated", got, err)
	}
}

func TestEnsureAdmin(t *testing.T) {
	db := pgtest.NewDB(t)
	s := auth.NewService(db)
	ctx := t.Context()

	password, created, err := s.EnsureAdmin(ctx)
	if err != nil || !created {
		t.Fatalf("EnsureAdmin() on an empty database = %q, %v, %v, want a new admin", password, created, err)
	}
	if len(password) != 20 {
		t.Errorf("EnsureAdmin() password %q has %d characters, want 20", password, len(password))
	}
	admin, err := signIn(ctx, s, auth.AdminName, password)
	if err != nil {
		t.Fatalf("SignIn(admin, the printed password): %v", err)
	}
	if admin.Name != "admin" || !admin.IsOperator() {
		t.Errorf("admin = %+v, want the operator admin", admin)
	}

	again, created, err := s.EnsureAdmin(ctx)
	if err != nil || created || again != "" {
		t.Errorf("EnsureAdmin() again = %q, %v, %v, want nothing created", again, created, err)
	}
	var entries int
	if err := db.GetContext(ctx, &entries, `SELECT count(*) FROM audit_log WHERE actor = 'system' AND object_name = 'admin'`); err != nil {
		t.Fatal(err)
	}
	if entries != 1 {
		t.Errorf("%d audit entries of system creating admin, want 1", entries)
	}
}

func TestEnsureAdminWithOtherUsers(t *testing.T) {
	s, db := newService(t)
	if _, created, err := s.EnsureAdmin(t.Context()); err != nil || created {
		t.Errorf("EnsureAdmin() with a user = %v, %v, want nothing created", created, err)
	}
	if _, err := store.User(t.Context(), db, auth.AdminName); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("User(admin): err = %v, want ErrNotFound", err)
	}
}

// TestEnsureAdminConcurrently starts two "processes", each with its own
// connection pool, on one empty database: exactly one creates the admin.
func TestEnsureAdminConcurrently(t *testing.T) {
	for range 5 {
		url := pgtest.NewURL(t)
		var services [2]*auth.Service
		for i := range services {
			db, err := store.Open(t.Context(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			services[i] = auth.NewService(db)
		}

		type result struct {
			password string
			created  bool
			err      error
		}
		var results [2]result
		var start, done sync.WaitGroup
		start.Add(1)
		for i, s := range services {
			done.Go(func() {
				start.Wait()
				password, created, err := s.EnsureAdmin(context.Background())
				results[i] = result{password, created, err}
			})
		}
		start.Done()
		done.Wait()

		var created []string
		for _, r := range results {
			if r.err != nil {
				t.Fatalf("EnsureAdmin(): %v", r.err)
			}
			if r.created {
				created = append(created, r.password)
			}
		}
		if len(created) != 1 {
			t.Fatalf("%d of 2 concurrent EnsureAdmin calls created the admin, want 1: %+v", len(created), results)
		}
		if _, err := signIn(t.Context(), services[0], auth.AdminName, created[0]); err != nil {
			t.Errorf("SignIn(admin, the winner's password): %v", err)
		}
	}
}
