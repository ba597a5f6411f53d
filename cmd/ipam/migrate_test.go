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
