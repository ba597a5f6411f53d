package store_test

import (
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

func TestReserveLoginAttemptWindow(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	ctx := t.Context()
	limit := store.LoginLimit{Window: 10 * time.Minute, PerUserAndClient: 3, PerUser: 100, PerClient: 100}
	// Three failures of alice from 192.0.2.1, 12, 7 and 4 minutes ago: the
	// first is out of the window, so one more attempt is allowed.
	for _, ago := range []int{12, 7, 4} {
		if _, err := db.Exec(`INSERT INTO login_attempts (user_name, client, at) VALUES ('alice', '192.0.2.1', now() - make_interval(mins => $1))`, ago); err != nil {
			t.Fatal(err)
		}
	}
	id, wait, err := store.ReserveLoginAttempt(ctx, db, "alice", "192.0.2.1", limit)
	if err != nil || id == 0 || wait != 0 {
		t.Fatalf("ReserveLoginAttempt(alice) with two attempts in the window = %d, %v, %v; want an id", id, wait, err)
	}
	var old int
	if err := db.Get(&old, `SELECT count(*) FROM login_attempts WHERE at < now() - interval '10 minutes'`); err != nil {
		t.Fatal(err)
	}
	if old != 0 {
		t.Errorf("%d attempts older than the window are kept", old)
	}
	// Now at the limit: the one of 7 minutes ago must leave the window.
	id, wait, err = store.ReserveLoginAttempt(ctx, db, "alice", "192.0.2.1", limit)
	if err != nil || id != 0 || wait < 3*time.Minute-5*time.Second || wait > 3*time.Minute {
		t.Errorf("ReserveLoginAttempt(alice) at the limit = %d, %v, %v; want no id and about 3m to wait", id, wait, err)
	}
	// The same user from another address, and another user from the same
	// address, are not held back.
	if id, wait, err = store.ReserveLoginAttempt(ctx, db, "alice", "198.51.100.1", limit); err != nil || id == 0 || wait != 0 {
		t.Errorf("ReserveLoginAttempt(alice from 198.51.100.1) = %d, %v, %v; want an id", id, wait, err)
	}
	if id, wait, err = store.ReserveLoginAttempt(ctx, db, "bob", "192.0.2.1", limit); err != nil || id == 0 || wait != 0 {
		t.Errorf("ReserveLoginAttempt(bob from 192.0.2.1) = %d, %v, %v; want an id", id, wait, err)
	}
	// A successful attempt is deleted: it does not count.
	last, _, err := store.ReserveLoginAttempt(ctx, db, "carol", "203.0.113.1", limit)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.ForgetLoginAttempt(ctx, db, last); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM login_attempts WHERE user_name = 'carol'`); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("ForgetLoginAttempt kept %d attempts of carol", n)
	}
}

func TestReserveLoginAttemptCeilings(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	ctx := t.Context()
	limit := store.LoginLimit{Window: 10 * time.Minute, PerUserAndClient: 2, PerUser: 4, PerClient: 3}
	tests := []struct {
		user, client string
		allowed      bool
	}{
		// alice from four addresses, once each: the fifth address meets
		// the ceiling of the user name.
		{"alice", "192.0.2.1", true},
		{"alice", "192.0.2.2", true},
		{"alice", "192.0.2.3", true},
		{"alice", "192.0.2.4", true},
		{"alice", "192.0.2.5", false},
		// 198.51.100.1 under three names meets the ceiling of the address.
		{"bob", "198.51.100.1", true},
		{"carol", "198.51.100.1", true},
		{"dave", "198.51.100.1", true},
		{"erin", "198.51.100.1", false},
		{"erin", "198.51.100.2", true},
		// erin twice from 198.51.100.2 meets the limit of the pair only.
		{"erin", "198.51.100.2", true},
		{"erin", "198.51.100.2", false},
		{"erin", "198.51.100.3", true},
		{"frank", "198.51.100.2", true},
	}
	for i, tt := range tests {
		id, wait, err := store.ReserveLoginAttempt(ctx, db, tt.user, tt.client, limit)
		if err != nil {
			t.Fatal(err)
		}
		if got := id != 0; got != tt.allowed || got == (wait > 0) {
			t.Errorf("attempt %d: ReserveLoginAttempt(%s from %s) = %d, %v; want allowed %v", i+1, tt.user, tt.client, id, wait, tt.allowed)
		}
	}
}

func TestDeleteExpiredSessions(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	if _, err := db.Exec(`INSERT INTO sessions (token, data, expiry) VALUES
		('old', '', now() - interval '1 second'), ('live', '', now() + interval '1 hour')`); err != nil {
		t.Fatal(err)
	}
	if err := store.DeleteExpiredSessions(t.Context(), db); err != nil {
		t.Fatal(err)
	}
	var tokens []string
	if err := db.Select(&tokens, `SELECT token FROM sessions`); err != nil {
		t.Fatal(err)
	}
	if len(tokens) != 1 || tokens[0] != "live" {
		t.Errorf("after DeleteExpiredSessions the sessions are %v, want [live]", tokens)
	}
}
