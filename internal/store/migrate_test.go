package store_test

import (
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

func TestMain(m *testing.M) {
	pgtest.Main(m)
}

// latestVersion counts the migration files, which are numbered from 0001.
func latestVersion(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// newEmptyDB returns a connection pool to a database without any table, and
// its URL. pgtest only hands out migrated databases, so it drops the schema.
func newEmptyDB(t *testing.T) (*sqlx.DB, string) {
	t.Helper()
	url := pgtest.NewURL(t)
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })

	if _, err := db.ExecContext(t.Context(), `DROP SCHEMA public CASCADE; CREATE SCHEMA public`); err != nil {
		t.Fatal(err)
	}
	assertVersion(t, db, 0)
	return db, url
}

func assertVersion(t *testing.T, db *sqlx.DB, want int) {
	t.Helper()
	version, err := store.SchemaVersion(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	if version != want {
		t.Fatalf("schema version is %d, want %d", version, want)
	}
}

// appliedVersions returns the versions recorded in schema_migrations, in order.
func appliedVersions(t *testing.T, db *sqlx.DB) []int {
	t.Helper()
	var versions []int
	if err := db.SelectContext(t.Context(), &versions, `SELECT version FROM schema_migrations ORDER BY version`); err != nil {
		t.Fatal(err)
	}
	return versions
}

func wantVersions(latest int) []int {
	versions := make([]int, latest)
	for i := range versions {
		versions[i] = i + 1
	}
	return versions
}

func TestMigrateEmptyDatabase(t *testing.T) {
	db, _ := newEmptyDB(t)
	latest := latestVersion(t)

	applied, err := store.Migrate(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	if applied != latest {
		t.Fatalf("Migrate applied %d migrations, want %d", applied, latest)
	}
	assertVersion(t, db, latest)

	if got := appliedVersions(t, db); !slices.Equal(got, wantVersions(latest)) {
		t.Fatalf("schema_migrations holds versions %v, want %v", got, wantVersions(latest))
	}

	if _, err := db.ExecContext(t.Context(), `INSERT INTO settings (name, value) VALUES ('demo_loaded', 'true')`); err != nil {
		t.Fatalf("the settings table is unusable: %v", err)
	}
}

func TestMigrateTwiceAppliesNothing(t *testing.T) {
	db := pgtest.NewDB(t)
	latest := latestVersion(t)
	assertVersion(t, db, latest)

	var before []string
	if err := db.SelectContext(t.Context(), &before, `SELECT version || ' ' || name || ' ' || applied_at FROM schema_migrations ORDER BY version`); err != nil {
		t.Fatal(err)
	}

	applied, err := store.Migrate(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	if applied != 0 {
		t.Fatalf("Migrate on an up-to-date database applied %d migrations", applied)
	}
	assertVersion(t, db, latest)

	var after []string
	if err := db.SelectContext(t.Context(), &after, `SELECT version || ' ' || name || ' ' || applied_at FROM schema_migrations ORDER BY version`); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(before, after) {
		t.Fatalf("schema_migrations changed from %v to %v", before, after)
	}
}

func TestMigrateConcurrently(t *testing.T) {
	_, url := newEmptyDB(t)
	latest := latestVersion(t)

	const migrators = 2
	pools := make([]*sqlx.DB, migrators)
	for i := range pools {
		db, err := store.Open(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		pools[i] = db
	}

	applied := make([]int, migrators)
	errs := make([]error, migrators)
	var wg sync.WaitGroup
	for i, db := range pools {
		wg.Go(func() {
			applied[i], errs[i] = store.Migrate(t.Context(), db)
		})
	}
	wg.Wait()

	total := 0
	for i := range migrators {
		if errs[i] != nil {
			t.Fatalf("migrator %d: %v", i, errs[i])
		}
		total += applied[i]
	}
	if total != latest {
		t.Fatalf("the migrators applied %v migrations, want %d in total", applied, latest)
	}

	assertVersion(t, pools[0], latest)
	if got := appliedVersions(t, pools[0]); !slices.Equal(got, wantVersions(latest)) {
		t.Fatalf("schema_migrations holds versions %v, want %v", got, wantVersions(latest))
	}
}

func TestMigrateRefusesNewerSchema(t *testing.T) {
	db := pgtest.NewDB(t)
	future := latestVersion(t) + 1
	if _, err := db.ExecContext(t.Context(), `INSERT INTO schema_migrations (version, name) VALUES ($1, 'from_the_future')`, future); err != nil {
		t.Fatal(err)
	}

	if _, err := store.Migrate(t.Context(), db); err == nil {
		t.Fatal("Migrate accepted a database newer than the binary")
	}
	assertVersion(t, db, future)
}
