package pgtest_test

import (
	"testing"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

func TestMain(m *testing.M) {
	pgtest.Main(m)
}

func currentDatabase(t *testing.T, url string) string {
	t.Helper()
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	var name string
	if err := db.GetContext(t.Context(), &name, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestNewDBIsMigrated(t *testing.T) {
	db := pgtest.NewDB(t)
	version, err := store.SchemaVersion(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	if version == 0 {
		t.Fatal("the database is not migrated")
	}
}

func TestNewURLGivesSeparateDatabases(t *testing.T) {
	first := currentDatabase(t, pgtest.NewURL(t))
	second := currentDatabase(t, pgtest.NewURL(t))
	if first == second {
		t.Fatalf("two calls returned the same database %s", first)
	}
}

func TestNewDBIsDroppedAfterTheTest(t *testing.T) {
	var name string
	t.Run("user", func(t *testing.T) {
		name = currentDatabase(t, pgtest.NewURL(t))
	})

	db := pgtest.NewDB(t)
	var exists bool
	if err := db.GetContext(t.Context(), &exists, `SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)`, name); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Fatalf("the database %s outlived its test", name)
	}
}
