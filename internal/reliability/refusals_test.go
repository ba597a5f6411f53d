package reliability

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// refusalLimit bounds the answer to a request the database refuses: the
// tests' statement timeout is 300 ms, a refused connection or a disk-full
// error come at once.
const refusalLimit = 5 * time.Second

// tables are those a request may change.
var tables = []string{"pools", "vpcs", "subnets", "allocations", "floating_ips", "audit_log"}

// tableCounts counts the rows of tables.
func tableCounts(t *testing.T, db *store.DB) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range tables {
		var n int
		if err := db.GetContext(t.Context(), &n, "SELECT count(*) FROM "+table); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

// checkUnchanged wants the counts of tables to be before's: the refusals
// stored nothing, not even half a change.
func checkUnchanged(t *testing.T, db *store.DB, before map[string]int) {
	t.Helper()
	if after := tableCounts(t, db); !maps.Equal(before, after) {
		t.Errorf("the refused requests changed the database: %v, then %v", before, after)
	}
}

// checkAudited wants every allocation to have exactly one audit entry of
// its claim.
func checkAudited(t *testing.T, db *store.DB) {
	t.Helper()
	var unaudited []string
	if err := db.SelectContext(t.Context(), &unaudited, `SELECT a.name FROM allocations a
		WHERE (SELECT count(*) FROM audit_log l WHERE l.action = 'allocate' AND l.object_kind = 'IPAllocation'
			AND l.object_name = a.name AND l.namespace = a.namespace) <> 1`); err != nil {
		t.Fatal(err)
	}
	if len(unaudited) > 0 {
		t.Errorf("allocations without exactly one audit entry: %v", unaudited)
	}
}

// refused sends a GraphQL request the database must refuse: the answer is
// UNAVAILABLE, retryable, and comes within refusalLimit.
func refused(t *testing.T, client *http.Client, base, token, what, query string, vars map[string]any) {
	t.Helper()
	r := graphql(t.Context(), client, base, token, query, vars)
	if r.outcome != unavailable {
		t.Errorf("%s: %v, want UNAVAILABLE, retryable", what, r)
	}
	if r.took > refusalLimit {
		t.Errorf("%s took %v, more than %v", what, r.took, refusalLimit)
	}
}

// claimed sends a claim that must succeed and returns its address.
func claimed(t *testing.T, client *http.Client, base, token, query, field string, vars map[string]any) string {
	t.Helper()
	var a struct{ Address string }
	must(t, client, base, token, query, vars, field, &a)
	return a.Address
}

// consoleUnavailable posts form to the console page path (GET when form is
// nil) and wants the 503 page with the request id, within refusalLimit.
func consoleUnavailable(t *testing.T, console *http.Client, base, path string, form url.Values) {
	t.Helper()
	method, send := http.MethodGet, func() (*http.Response, error) { return console.Get(base + path) }
	if form != nil {
		method, send = http.MethodPost, func() (*http.Response, error) { return console.PostForm(base+path, form) }
	}
	began := time.Now()
	res, err := send()
	if err != nil {
		t.Fatal(err)
	}
	page, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusServiceUnavailable ||
		!strings.Contains(string(page), "The database is unavailable right now; try again in a moment.") ||
		!strings.Contains(string(page), res.Header.Get("X-Request-Id")) {
		t.Errorf("%s %s = %d, want the 503 page with the request id:\n%.600s", method, path, res.StatusCode, page)
	}
	if took := time.Since(began); took > refusalLimit {
		t.Errorf("%s %s took %v, more than %v", method, path, took, refusalLimit)
	}
}

// checkLogged wants the log of p to name the database's refusal.
func checkLogged(t *testing.T, p *process, cause string) {
	t.Helper()
	if log := p.stderr.String(); !strings.Contains(log, "the database is unavailable") || !strings.Contains(log, cause) {
		t.Errorf("the log of ipam serve does not say the database is unavailable because of %q:\n%s", cause, log)
	}
}

// setupTenancy makes, through base, the public pool public-a of zone-a
// (operator's token) and the VPC acme/prod/main with subnet web
// 10.42.0.0/24 (tenant's token).
func setupTenancy(t *testing.T, client *http.Client, base, opToken, token string) {
	t.Helper()
	must(t, client, base, opToken, createPublicPool, map[string]any{"name": "public-a", "cidr": "203.0.113.0/24", "zone": "zone-a"}, "", nil)
	setupVPC(t, client, base, token, "10.42.0.0/24")
}

// TestConnectionLimit runs ipam serve as a role that may hold no more
// connections than it has when the claims begin (SQLSTATE 53300 for any
// other), under 16 concurrent claimers: the claims that need a connection
// more are answered UNAVAILABLE, at once; once the limit is lifted, the
// owners that retry get their address, and the database holds exactly the
// confirmed claims, each with its audit entry.
func TestConnectionLimit(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	c.exec("postgres", "CREATE ROLE ipam_app LOGIN", "ALTER DATABASE ipam OWNER TO ipam_app")
	dbURL := c.url("ipam", "ipam_app")
	token := tenant(t, dbURL, "a tenant's long password")
	p, base := serve(t, dbURL)
	client := newHTTPClient()
	setupVPC(t, client, base, token, "10.42.0.0/20")

	admin := openDB(t, c.url("ipam", ""))
	defer admin.Close()
	var open int
	if err := admin.GetContext(t.Context(), &open, `SELECT count(*) FROM pg_stat_activity WHERE usename = 'ipam_app'`); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.ExecContext(t.Context(), fmt.Sprintf("ALTER ROLE ipam_app CONNECTION LIMIT %d", open)); err != nil {
		t.Fatal(err)
	}
	t.Logf("ipam serve holds %d connections, its limit now", open)

	load := startClaims(client, token, 16, 200, func(int, int) string { return base })
	enough := waitUntil(20*time.Second, func() bool {
		load.mu.Lock()
		defer load.mu.Unlock()
		return len(load.confirmed) >= 100 && load.outcomes[unavailable] >= 10
	})
	load.finish()
	load.report(t, refusalLimit)
	if !enough {
		t.Errorf("in 20 s, %d claims were confirmed and %d refused for want of a connection, want 100 and 10",
			len(load.confirmed), load.outcomes[unavailable])
	}
	if load.outcomes[dropped] > 0 {
		t.Errorf("%d claims lost their connection to ipam serve", load.outcomes[dropped])
	}
	checkLogged(t, p, "too many connections")

	if _, err := admin.ExecContext(t.Context(), "ALTER ROLE ipam_app CONNECTION LIMIT -1"); err != nil {
		t.Fatal(err)
	}
	load.retryAll(t, base, 30*time.Second)
	load.checkStored(t, admin)
}

// TestStatementTimeout gives the database a statement_timeout of 300 ms and
// holds a lock that makes claims wait: claims and a floating IP (a
// transaction) are answered UNAVAILABLE within the timeout, reads that the
// lock does not stop are answered, a console page behind a lock answers
// the 503 page, and nothing is stored; once the lock is gone, the same
// claims succeed with the lowest addresses, which the refused claims did
// not keep.
func TestStatementTimeout(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.NewURL(t)
	token := tenant(t, dbURL, "a tenant's long password")
	opToken := operator(t, dbURL)
	_, setup := serve(t, dbURL)
	client := newHTTPClient()
	setupTenancy(t, client, setup, opToken, token)

	admin := openDB(t, dbURL)
	defer admin.Close()
	if _, err := admin.ExecContext(t.Context(), `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET statement_timeout = 300', current_database()); END $$`); err != nil {
		t.Fatal(err)
	}
	// A new process: its connections take the database's setting.
	p, base := serve(t, dbURL)
	console := signIn(t, base, "acme", "a tenant's long password")
	before := tableCounts(t, admin)

	lock, err := admin.BeginTxx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	if _, err := lock.ExecContext(t.Context(), `LOCK TABLE allocations IN SHARE MODE`); err != nil {
		t.Fatal(err)
	}
	refused(t, client, base, token, "attachInterface behind a lock", attachInterface, map[string]any{"vm": "vm-1"})
	refused(t, client, base, token, "claimFloatingIp behind a lock", claimFloatingIP, map[string]any{"name": "fip-1"})
	must(t, client, base, token, readVPC, nil, "", nil)
	consoleUnavailable(t, console, base, "/vpcs/acme/prod/main/-/attach-interface", url.Values{
		"subnet": {"web"}, "hostname": {"console-1"}, "nic": {"0"}})
	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}
	checkUnchanged(t, admin, before)
	checkLogged(t, p, "canceling statement due to statement timeout")

	lock, err = admin.BeginTxx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	if _, err := lock.ExecContext(t.Context(), `LOCK TABLE vpcs IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	consoleUnavailable(t, console, base, "/vpcs/acme/prod/main", nil)
	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}

	if a := claimed(t, client, base, token, attachInterface, "attachInterface", map[string]any{"vm": "vm-1"}); a != "10.42.0.2" {
		t.Errorf("vm-1 got %s once the lock was gone, want the lowest candidate 10.42.0.2", a)
	}
	if a := claimed(t, client, base, token, claimFloatingIP, "claimFloatingIp", map[string]any{"name": "fip-1"}); a != "203.0.113.1" {
		t.Errorf("fip-1 got %s once the lock was gone, want the lowest candidate 203.0.113.1", a)
	}
	checkAudited(t, admin)
}

// TestDiskFull makes PostgreSQL fail every insert into allocations with
// SQLSTATE 53100 (disk_full), as a full disk does: a VM interface, a
// floating IP and a VPC with its uplink, through the API and the console,
// are answered UNAVAILABLE or the 503 page, at once, and nothing of them is
// stored, not even their VPC or audit entry. Once the disk has room, the
// same requests succeed with the lowest addresses.
func TestDiskFull(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.NewURL(t)
	token := tenant(t, dbURL, "a tenant's long password")
	opToken := operator(t, dbURL)
	p, base := serve(t, dbURL)
	client := newHTTPClient()
	setupTenancy(t, client, base, opToken, token)
	console := signIn(t, base, "acme", "a tenant's long password")

	admin := openDB(t, dbURL)
	defer admin.Close()
	for _, s := range []string{
		`CREATE FUNCTION reliability_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			RAISE EXCEPTION 'could not extend file "base/16384/16400": No space left on device' USING ERRCODE = 'disk_full';
		END $$`,
		`CREATE TRIGGER reliability_disk_full BEFORE INSERT ON allocations FOR EACH ROW EXECUTE FUNCTION reliability_disk_full()`,
	} {
		if _, err := admin.ExecContext(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	before := tableCounts(t, admin)
	refused(t, client, base, token, "attachInterface on a full disk", attachInterface, map[string]any{"vm": "vm-1"})
	refused(t, client, base, token, "claimFloatingIp on a full disk", claimFloatingIP, map[string]any{"name": "fip-1"})
	refused(t, client, base, token, "createVpc with an uplink on a full disk", createVPC, map[string]any{"name": "edge", "cidr": "10.43.0.0/16", "zone": "zone-a"})
	consoleUnavailable(t, console, base, "/vpcs/acme/prod/main/-/attach-interface", url.Values{
		"subnet": {"web"}, "hostname": {"console-1"}, "nic": {"0"}})
	checkUnchanged(t, admin, before)
	checkLogged(t, p, "No space left on device")

	if _, err := admin.ExecContext(t.Context(), `DROP TRIGGER reliability_disk_full ON allocations`); err != nil {
		t.Fatal(err)
	}
	if a := claimed(t, client, base, token, attachInterface, "attachInterface", map[string]any{"vm": "vm-1"}); a != "10.42.0.2" {
		t.Errorf("vm-1 got %s once the disk had room, want the lowest candidate 10.42.0.2", a)
	}
	if a := claimed(t, client, base, token, claimFloatingIP, "claimFloatingIp", map[string]any{"name": "fip-1"}); a != "203.0.113.1" {
		t.Errorf("fip-1 got %s once the disk had room, want the lowest candidate 203.0.113.1", a)
	}
	must(t, client, base, token, createVPC, map[string]any{"name": "edge", "cidr": "10.43.0.0/16", "zone": "zone-a"}, "", nil)
	checkAudited(t, admin)
}
