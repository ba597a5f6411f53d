package store_test

import (
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

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
func newEmptyDB(t *testing.T) (*store.DB, string) {
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

func assertVersion(t *testing.T, db *store.DB, want int) {
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
func appliedVersions(t *testing.T, db *store.DB) []int {
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
	pools := make([]*store.DB, migrators)
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

// migratedTo returns a database with the migrations up to version applied,
// as an older ipam would have left it.
func migratedTo(t *testing.T, version int) *store.DB {
	t.Helper()
	db, _ := newEmptyDB(t)
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries[:version] {
		sql, err := os.ReadFile("migrations/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(t.Context(), string(sql)); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if _, err := db.ExecContext(t.Context(), `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, len(appliedVersions(t, db))+1, e.Name()); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// legacyVPC makes, in a database of schema version 3, VPC main of acme/prod
// with its pool and subnet web (10.42.1.0/24), and returns the pool's and
// the subnet's uids.
func legacyVPC(t *testing.T, db *store.DB) (pool, subnet string) {
	t.Helper()
	err := db.QueryRowxContext(t.Context(), `WITH v AS (
			INSERT INTO vpcs (namespace, name, cidr, created_by) VALUES ('acme/prod', 'main', '10.42.0.0/16', 'test') RETURNING uid
		), p AS (
			INSERT INTO pools (namespace, name, kind, cidr, vpc_uid, created_by) SELECT 'acme/prod', 'vpc-main', 'private', '10.42.0.0/16', uid, 'test' FROM v RETURNING uid
		), s AS (
			INSERT INTO subnets (vpc_uid, name, cidr, gateway, created_by) SELECT uid, 'web', '10.42.1.0/24', '10.42.1.1', 'test' FROM v RETURNING uid
		)
		SELECT p.uid, s.uid FROM p, s`).Scan(&pool, &subnet)
	if err != nil {
		t.Fatal(err)
	}
	return pool, subnet
}

const legacyAllocation = `INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, created_by)
	VALUES ('acme/prod', $2, $1, $3, 'VirtualMachine', $4, $5, 'acme/prod', 'test')`

// TestMigration4 links the addresses claimed without a subnet to the subnet
// they lie in, and refuses, saying what to do, a database where a VM holds
// two addresses of a pool under two hostnames.
func TestMigration4(t *testing.T) {
	t.Run("links addresses to their subnet", func(t *testing.T) {
		db := migratedTo(t, 3)
		pool, subnet := legacyVPC(t, db)
		for _, a := range [][]string{{"vpc-main-10-42-1-5", "10.42.1.5", "vm-1", "web-01/0"}, {"vpc-main-10-42-9-5", "10.42.9.5", "vm-2", "web-02/0"}} {
			if _, err := db.ExecContext(t.Context(), legacyAllocation, pool, a[0], a[1], a[2], a[3]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := store.Migrate(t.Context(), db); err != nil {
			t.Fatal(err)
		}
		var linked []string
		if err := db.SelectContext(t.Context(), &linked, `SELECT host(address) FROM allocations WHERE subnet_uid = $1`, subnet); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(linked, []string{"10.42.1.5"}) {
			t.Errorf("addresses linked to subnet web: %v, want 10.42.1.5 only", linked)
		}
	})
	t.Run("refuses a VM holding two addresses", func(t *testing.T) {
		db := migratedTo(t, 3)
		pool, _ := legacyVPC(t, db)
		for _, a := range [][]string{{"vpc-main-10-42-1-5", "10.42.1.5", "web-01/0"}, {"vpc-main-10-42-1-6", "10.42.1.6", "web-01-renamed/0"}} {
			if _, err := db.ExecContext(t.Context(), legacyAllocation, pool, a[0], a[1], "vm-1", a[2]); err != nil {
				t.Fatal(err)
			}
		}
		_, err := store.Migrate(t.Context(), db)
		want := "VM vm-1 NIC 0 holds several addresses of pool acme/prod/vpc-main: 10.42.1.5 (web-01/0), 10.42.1.6 (web-01-renamed/0); release all but one (GraphQL: release) and run ipam migrate again"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Migrate = %v, want the refusal %q", err, want)
		}
		assertVersion(t, db, 3)
	})
}

// TestMigration15 makes the indexes of allocations the same on a database
// that ran the first form of migration 0013 (commit 3e2714e, kept in
// testdata) as on one that ran the form shipped since.
func TestMigration15(t *testing.T) {
	early := migratedTo(t, 12)
	first, err := os.ReadFile("testdata/0013_search_3e2714e.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := early.ExecContext(t.Context(), string(first)); err != nil {
		t.Fatal(err)
	}
	if _, err := early.ExecContext(t.Context(), `INSERT INTO schema_migrations (version, name) VALUES (13, 'search')`); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Migrate(t.Context(), early); err != nil {
		t.Fatal(err)
	}

	fresh := migratedTo(t, latestVersion(t))
	if got, want := allocationIndexes(t, early), allocationIndexes(t, fresh); !slices.Equal(got, want) {
		t.Errorf("indexes of allocations after the first form of 0013:\n%s\nafter the shipped form:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := allocationIndexes(t, early); !slices.Contains(got, "CREATE INDEX allocations_owner_namespace_address ON public.allocations USING btree (owner_namespace, address)") {
		t.Errorf("indexes of allocations: %v, want (owner_namespace, address) among them", got)
	}
}

// allocationIndexes returns the definitions of the indexes of allocations,
// sorted.
func allocationIndexes(t *testing.T, db *store.DB) []string {
	t.Helper()
	var defs []string
	if err := db.SelectContext(t.Context(), &defs, `SELECT indexdef FROM pg_indexes WHERE tablename = 'allocations' ORDER BY indexdef`); err != nil {
		t.Fatal(err)
	}
	return defs
}
