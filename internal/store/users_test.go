package store_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// auditRow is a row of audit_log. (store.AuditEntry's json.RawMessage
// cannot scan a NULL.)
type auditRow struct {
	Actor  string `db:"actor"`
	Action string `db:"action"`
	Before []byte `db:"before"`
	After  []byte `db:"after"`
}

// auditRows returns the audit entries of kind/name in order.
func auditRows(t *testing.T, db *store.DB, kind, name string) []auditRow {
	t.Helper()
	var entries []auditRow
	err := db.SelectContext(t.Context(), &entries, `SELECT actor, action, before, after
		FROM audit_log WHERE object_kind = $1 AND object_name = $2 ORDER BY id`, kind, name)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

func countAudit(t *testing.T, db *store.DB) int {
	t.Helper()
	var n int
	if err := db.GetContext(t.Context(), &n, `SELECT count(*) FROM audit_log`); err != nil {
		t.Fatal(err)
	}
	return n
}

// assertNoSecret fails when an audit entry mentions secret.
func assertNoSecret(t *testing.T, db *store.DB, secret []byte) {
	t.Helper()
	var dump string
	if err := db.GetContext(t.Context(), &dump, `SELECT coalesce(string_agg(audit_log::text, E'\n'), '') FROM audit_log`); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains([]byte(dump), secret) {
		t.Errorf("the audit log holds the secret %q:\n%s", secret, dump)
	}
	if strings.Contains(dump, "password_hash") || strings.Contains(dump, "passwordHash") {
		t.Errorf("the audit log holds a password hash field:\n%s", dump)
	}
}

func tokenHash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

func TestCreateUser(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := t.Context()

	in := store.UserRow{Name: "alice", Role: "tenant", Namespaces: []string{"acme/*", "shared/dns"}, PasswordHash: "$argon2id$secret-hash"}
	created, err := store.CreateUser(ctx, db, "root", in)
	if err != nil {
		t.Fatal(err)
	}
	if created.CreatedAt.IsZero() {
		t.Error("CreateUser left CreatedAt zero")
	}

	got, err := store.User(ctx, db, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "alice" || got.Role != "tenant" || !slices.Equal(got.Namespaces, in.Namespaces) ||
		got.PasswordHash != in.PasswordHash || !got.CreatedAt.Equal(created.CreatedAt) {
		t.Errorf("User(alice) = %+v, want %+v", got, created)
	}

	entries := auditRows(t, db, "User", "alice")
	if len(entries) != 1 {
		t.Fatalf("%d audit entries of the user, want 1: %+v", len(entries), entries)
	}
	e := entries[0]
	if e.Actor != "root" || e.Action != "create" || e.Before != nil || e.After == nil {
		t.Errorf("audit entry = %+v, want root creating alice", e)
	}
	var after map[string]any
	if err := json.Unmarshal(e.After, &after); err != nil {
		t.Fatal(err)
	}
	if after["name"] != "alice" || after["role"] != "tenant" {
		t.Errorf("audit entry after = %s, want alice the tenant", e.After)
	}
	assertNoSecret(t, db, []byte(in.PasswordHash))
}

func TestCreateUserWithoutNamespaces(t *testing.T) {
	db := pgtest.NewDB(t)
	if _, err := store.CreateUser(t.Context(), db, "system", store.UserRow{Name: "root", Role: "operator", PasswordHash: "h"}); err != nil {
		t.Fatal(err)
	}
	got, err := store.User(t.Context(), db, "root")
	if err != nil {
		t.Fatal(err)
	}
	if got.Namespaces == nil || len(got.Namespaces) != 0 {
		t.Errorf("User(root).Namespaces = %#v, want empty", got.Namespaces)
	}
}

func TestCreateUserExists(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := t.Context()
	if _, err := store.CreateUser(ctx, db, "root", store.UserRow{Name: "alice", Role: "operator", PasswordHash: "first"}); err != nil {
		t.Fatal(err)
	}
	_, err := store.CreateUser(ctx, db, "root", store.UserRow{Name: "alice", Role: "tenant", Namespaces: []string{"acme/*"}, PasswordHash: "second"})
	if !errors.Is(err, store.ErrObjectExists) {
		t.Fatalf("CreateUser(alice) again: err = %v, want ErrObjectExists", err)
	}
	if want := "store: unable to create the user alice: store: object exists"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
	got, err := store.User(ctx, db, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if got.PasswordHash != "first" || got.Role != "operator" {
		t.Errorf("the refused CreateUser changed alice: %+v", got)
	}
	if n := len(auditRows(t, db, "User", "alice")); n != 1 {
		t.Errorf("%d audit entries, want 1: the refused change must leave none", n)
	}
}

func TestUserNotFound(t *testing.T) {
	db := pgtest.NewDB(t)
	_, err := store.User(t.Context(), db, "nobody")
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("User(nobody): err = %v, want ErrNotFound", err)
	}
}

func TestUsersAndCountUsers(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := t.Context()

	n, err := store.CountUsers(ctx, db)
	if err != nil || n != 0 {
		t.Fatalf("CountUsers() = %d, %v on an empty database, want 0", n, err)
	}
	users, err := store.Users(ctx, db)
	if err != nil || len(users) != 0 {
		t.Fatalf("Users() = %v, %v on an empty database, want none", users, err)
	}

	for _, name := range []string{"carol", "alice", "bob"} {
		if _, err := store.CreateUser(ctx, db, "root", store.UserRow{Name: name, Role: "operator", PasswordHash: "h"}); err != nil {
			t.Fatal(err)
		}
	}
	n, err = store.CountUsers(ctx, db)
	if err != nil || n != 3 {
		t.Errorf("CountUsers() = %d, %v, want 3", n, err)
	}
	users, err = store.Users(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range users {
		names = append(names, u.Name)
	}
	if want := []string{"alice", "bob", "carol"}; !slices.Equal(names, want) {
		t.Errorf("Users() names = %v, want %v", names, want)
	}
}

func TestSetPassword(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := t.Context()
	if _, err := store.CreateUser(ctx, db, "root", store.UserRow{Name: "alice", Role: "operator", PasswordHash: "old-hash"}); err != nil {
		t.Fatal(err)
	}
	if err := store.SetPassword(ctx, db, "alice", "alice", "new-hash"); err != nil {
		t.Fatal(err)
	}
	got, err := store.User(ctx, db, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if got.PasswordHash != "new-hash" {
		t.Errorf("PasswordHash = %q, want new-hash", got.PasswordHash)
	}
	entries := auditRows(t, db, "User", "alice")
	if len(entries) != 2 || entries[1].Action != "set-password" || entries[1].Actor != "alice" {
		t.Errorf("audit entries = %+v, want create then alice's set-password", entries)
	}
	assertNoSecret(t, db, []byte("old-hash"))
	assertNoSecret(t, db, []byte("new-hash"))

	before := countAudit(t, db)
	if err := store.SetPassword(ctx, db, "root", "nobody", "h"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetPassword(nobody): err = %v, want ErrNotFound", err)
	}
	if after := countAudit(t, db); after != before {
		t.Errorf("the refused SetPassword wrote %d audit entries", after-before)
	}
}

func TestTokens(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := t.Context()
	if _, err := store.CreateUser(ctx, db, "root", store.UserRow{Name: "alice", Role: "tenant", Namespaces: []string{"acme/*"}, PasswordHash: "h"}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateUser(ctx, db, "root", store.UserRow{Name: "bob", Role: "operator", PasswordHash: "h"}); err != nil {
		t.Fatal(err)
	}
	first, second, bobs := tokenHash("pvt_first"), tokenHash("pvt_second"), tokenHash("pvt_bob")
	for _, tok := range []struct {
		user string
		hash []byte
	}{{"alice", first}, {"alice", second}, {"bob", bobs}} {
		if err := store.CreateToken(ctx, db, "root", tok.user, tok.hash); err != nil {
			t.Fatal(err)
		}
	}

	for _, tt := range []struct {
		hash []byte
		want string
	}{{first, "alice"}, {second, "alice"}, {bobs, "bob"}} {
		u, err := store.UserByTokenHash(ctx, db, tt.hash)
		if err != nil || u.Name != tt.want {
			t.Errorf("UserByTokenHash(%x) = %q, %v, want %s", tt.hash, u.Name, err, tt.want)
		}
	}
	if _, err := store.UserByTokenHash(ctx, db, tokenHash("pvt_unknown")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UserByTokenHash(unknown): err = %v, want ErrNotFound", err)
	}
	if n := len(auditRows(t, db, "APIToken", "alice")); n != 2 {
		t.Errorf("%d audit entries of alice's tokens, want 2", n)
	}

	n, err := store.RevokeTokens(ctx, db, "root", "alice")
	if err != nil || n != 2 {
		t.Fatalf("RevokeTokens(alice) = %d, %v, want 2", n, err)
	}
	for _, hash := range [][]byte{first, second} {
		if _, err := store.UserByTokenHash(ctx, db, hash); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("UserByTokenHash(revoked %x): err = %v, want ErrNotFound", hash, err)
		}
	}
	if u, err := store.UserByTokenHash(ctx, db, bobs); err != nil || u.Name != "bob" {
		t.Errorf("UserByTokenHash(bob's) after revoking alice's = %q, %v, want bob", u.Name, err)
	}
	entries := auditRows(t, db, "APIToken", "alice")
	if len(entries) != 3 || entries[2].Action != "revoke" || entries[2].Before == nil {
		t.Errorf("audit entries of alice's tokens = %+v, want 2 creates and 1 revoke", entries)
	}

	// Revoking again changes nothing and records nothing.
	before := countAudit(t, db)
	n, err = store.RevokeTokens(ctx, db, "root", "alice")
	if err != nil || n != 0 {
		t.Errorf("RevokeTokens(alice) again = %d, %v, want 0", n, err)
	}
	if after := countAudit(t, db); after != before {
		t.Errorf("revoking no token wrote %d audit entries", after-before)
	}
	for _, hash := range [][]byte{first, second, bobs} {
		assertNoSecret(t, db, []byte(hex.EncodeToString(hash)))
		assertNoSecret(t, db, []byte(base64.StdEncoding.EncodeToString(hash)))
	}
}

func TestTokensOfUnknownUser(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := t.Context()
	if err := store.CreateToken(ctx, db, "root", "nobody", tokenHash("pvt_x")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CreateToken(nobody): err = %v, want ErrNotFound", err)
	}
	if n, err := store.RevokeTokens(ctx, db, "root", "nobody"); !errors.Is(err, store.ErrNotFound) || n != 0 {
		t.Errorf("RevokeTokens(nobody) = %d, %v, want 0, ErrNotFound", n, err)
	}
	if n := countAudit(t, db); n != 0 {
		t.Errorf("refused changes wrote %d audit entries", n)
	}
}

func TestCreateTokenDuplicateHash(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := t.Context()
	if _, err := store.CreateUser(ctx, db, "root", store.UserRow{Name: "alice", Role: "operator", PasswordHash: "h"}); err != nil {
		t.Fatal(err)
	}
	hash := tokenHash("pvt_same")
	if err := store.CreateToken(ctx, db, "root", "alice", hash); err != nil {
		t.Fatal(err)
	}
	before := countAudit(t, db)
	if err := store.CreateToken(ctx, db, "root", "alice", hash); err == nil {
		t.Error("CreateToken stored the same hash twice")
	}
	if after := countAudit(t, db); after != before {
		t.Errorf("the refused CreateToken wrote %d audit entries", after-before)
	}
}

func TestSessionGeneration(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := t.Context()
	generation := func() int64 {
		t.Helper()
		u, err := store.User(ctx, db, "alice")
		if err != nil {
			t.Fatal(err)
		}
		return u.SessionGeneration
	}
	if _, err := store.CreateUser(ctx, db, "root", store.UserRow{Name: "alice", Role: "operator", PasswordHash: "h"}); err != nil {
		t.Fatal(err)
	}
	seen := map[int64]string{}
	saw := func(step string) {
		t.Helper()
		g := generation()
		if g == 0 {
			t.Errorf("after %s the session generation is 0, which a session without one has", step)
		}
		if before, ok := seen[g]; ok {
			t.Errorf("after %s the session generation is %d, as after %s: the sessions of then are alive", step, g, before)
		}
		seen[g] = step
	}
	saw("CreateUser")
	if err := store.SetPassword(ctx, db, "root", "alice", "h2"); err != nil {
		t.Fatal(err)
	}
	saw("SetPassword")
	if err := store.EndSessions(ctx, db, "root", "alice"); err != nil {
		t.Fatal(err)
	}
	saw("EndSessions")
	// A user deleted and created again does not take over the sessions of
	// the one before.
	if _, err := db.ExecContext(ctx, `DELETE FROM users WHERE name = 'alice'`); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateUser(ctx, db, "root", store.UserRow{Name: "alice", Role: "tenant", Namespaces: []string{"acme/*"}, PasswordHash: "h"}); err != nil {
		t.Fatal(err)
	}
	saw("deleting and creating alice again")

	entries := auditRows(t, db, "User", "alice")
	if len(entries) != 4 || entries[2].Action != "end-sessions" || entries[2].Actor != "root" {
		t.Errorf("audit entries = %+v, want create, set-password, root's end-sessions, create", entries)
	}
	before := countAudit(t, db)
	if err := store.EndSessions(ctx, db, "root", "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("EndSessions(nobody): err = %v, want ErrNotFound", err)
	}
	if after := countAudit(t, db); after != before {
		t.Errorf("the refused EndSessions wrote %d audit entries", after-before)
	}
}
