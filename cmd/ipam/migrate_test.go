package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// latestMigration is the version of the newest migration file; they are
// numbered from 0001 without gaps.
func latestMigration(t *testing.T) int {
	t.Helper()
	files, err := filepath.Glob("../../internal/store/migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no migration files in internal/store/migrations")
	}
	return len(files)
}

// emptyDatabaseURL returns the URL of a database without any table.
// pgtest only hands out migrated databases, so it drops the schema.
func emptyDatabaseURL(t *testing.T) string {
	t.Helper()
	url := pgtest.NewURL(t)
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), `DROP SCHEMA public CASCADE; CREATE SCHEMA public`); err != nil {
		t.Fatal(err)
	}
	return url
}

func TestMigrate(t *testing.T) {
	url := emptyDatabaseURL(t)
	want := fmt.Sprintf("the database is at schema version %d\n", latestMigration(t))
	tests := []struct {
		name        string
		wantApplied bool
	}{
		{"empty database", true},
		{"up-to-date database", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runIpam(t, 30*time.Second, "migrate", "--database-url", url)
			if code != 0 {
				t.Fatalf("ipam migrate exited %d, want 0\nstderr:\n%s", code, stderr)
			}
			if stdout != want {
				t.Errorf("ipam migrate printed %q, want %q", stdout, want)
			}
			if got := strings.Contains(stderr, "migrated the database"); got != tt.wantApplied {
				t.Errorf("ipam migrate logged applying migrations: %v, want %v\nstderr:\n%s", got, tt.wantApplied, stderr)
			}
		})
	}
}

// TestMalformedDatabaseURLMasked runs ipam migrate with a malformed
// --database-url, and with a good one beside a malformed
// --listen-database-url, each holding a password: ipam exits 1 naming the
// URL with its password masked, and prints no part of the password.
func TestMalformedDatabaseURLMasked(t *testing.T) {
	const password = "Pw0rdA"
	malformed := "postgres://alice:" + password + "@db.example:54x2/ipam"
	for _, args := range [][]string{
		{"migrate", "--database-url", malformed},
		{"migrate", "--database-url", "host=db.example user=alice password=" + password + " Pw0rdB"},
		{"migrate", "--database-url", pgtest.NewURL(t), "--listen-database-url", malformed},
	} {
		code, stdout, stderr := runIpam(t, 30*time.Second, args...)
		if code != 1 || !strings.Contains(stderr, "postgres://alice:xxxxx@") && !strings.Contains(stderr, "password=xxxxx") {
			t.Errorf("ipam %q exited %d, want 1 and the URL with its password masked\nstderr:\n%s", args, code, stderr)
		}
		if strings.Contains(stdout+stderr, "Pw0rd") {
			t.Errorf("ipam %q printed the password:\n%s%s", args, stdout, stderr)
		}
	}
}
