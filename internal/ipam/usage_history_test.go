package ipam

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/internal/usage"
)

// TestUsageHistory: the service writes the usage of each pool and subnet,
// one row an hour and one a day however often it writes, the last figures
// of the hour; pruning drops rows past their keeping and those of a subnet
// deleted.
func TestUsageHistory(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	setupSubnet(t, svc, "10.42.1.0/24")
	var pool, subnet string
	if err := db.Get(&pool, `SELECT uid FROM pools WHERE name = 'vpc-main'`); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&subnet, `SELECT uid FROM subnets WHERE name = 'web'`); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 10, 5, 0, 0, time.UTC)
	for i := range 3 {
		if _, err := attachVM(ctx, svc, i); err != nil {
			t.Fatal(err)
		}
		if err := svc.RecordUsage(ctx, at.Add(time.Duration(i)*15*time.Minute), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := attachVM(ctx, svc, 3); err != nil {
		t.Fatal(err)
	}
	if err := svc.RecordUsage(ctx, at.Add(time.Hour), time.Time{}); err != nil {
		t.Fatal(err)
	}
	hours, err := store.UsageHistory(ctx, db, subnet, "hour", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	want := []usage.Point{{At: at.Truncate(time.Hour), Used: 3, Size: 253}, {At: at.Truncate(time.Hour).Add(time.Hour), Used: 4, Size: 253}}
	if len(hours) != len(want) || !hours[0].At.Equal(want[0].At) || hours[0].Used != 3 || hours[0].Size != 253 || !hours[1].At.Equal(want[1].At) || hours[1].Used != 4 {
		t.Errorf("the subnet's hours: %+v, want %+v", hours, want)
	}
	if got, err := svc.UsageHistory(ctx, acme, "acme/prod", subnet, usage.Hour, time.Time{}); err != nil || len(got) != 2 || got[1].Used != 4 {
		t.Errorf("acme reads its subnet's history: %+v, %v", got, err)
	}
	globex := auth.Actor{Name: "globex", Role: auth.Tenant, Namespaces: []string{"globex/*"}}
	if _, err := svc.UsageHistory(ctx, globex, "acme/prod", subnet, usage.Hour, time.Time{}); !errors.Is(err, refusal.ErrNotFound) {
		t.Errorf("another tenant reads acme's history: %v, want not found", err)
	}
	if _, err := svc.UsageForecast(ctx, globex, "acme/prod", subnet, usage.Figures{}, at); !errors.Is(err, refusal.ErrNotFound) {
		t.Errorf("another tenant reads acme's forecast: %v, want not found", err)
	}
	days, err := store.UsageHistory(ctx, db, pool, "day", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 1 || days[0].Used != 4 || days[0].Size != 65534 || !days[0].At.Equal(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("the pool's days: %+v, want one of 4 used (the last write, 3 interfaces and 1 more)", days)
	}

	if err := store.PruneUsageHistory(ctx, db, at.Add(usage.HourlyKept+90*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if hours, _ := store.UsageHistory(ctx, db, subnet, "hour", time.Time{}); len(hours) != 1 || hours[0].Used != 4 {
		t.Errorf("after the first hour passed its keeping: %+v, want the second hour alone", hours)
	}
	if days, _ := store.UsageHistory(ctx, db, subnet, "day", time.Time{}); len(days) != 1 {
		t.Errorf("the day row went with the hours: %+v", days)
	}
	for i := range 4 {
		if _, err := svc.DetachInterface(ctx, acme, DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: VMRef{UID: fmt.Sprintf("uid-%d", i), Hostname: fmt.Sprintf("vm-%d", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.DeleteSubnet(ctx, acme, "acme/prod", "main", "web"); err != nil {
		t.Fatal(err)
	}
	if err := store.PruneUsageHistory(ctx, db, at); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := db.Get(&left, `SELECT count(*) FROM usage_history WHERE object_uid = $1`, subnet); err != nil || left != 0 {
		t.Errorf("%d rows of a deleted subnet left, %v", left, err)
	}
	if err := db.Get(&left, `SELECT count(*) FROM usage_history WHERE object_uid = $1`, pool); err != nil || left == 0 {
		t.Errorf("the pool's history went with its subnet: %d rows, %v", left, err)
	}
}

// TestUsageHistoryCountsChanges: the claims and releases of each hour are
// counted from the audit log into the pool's and the subnet's rows, the
// hour before counted whole when a write covers it, and the day's the sum
// of its hours.
func TestUsageHistoryCountsChanges(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	setupSubnet(t, svc, "10.42.1.0/24")
	var pool, subnet string
	if err := db.Get(&pool, `SELECT uid FROM pools WHERE name = 'vpc-main'`); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&subnet, `SELECT uid FROM subnets WHERE name = 'web'`); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	hour := now.Truncate(time.Hour)
	for i := range 5 {
		if _, err := attachVM(ctx, svc, i); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.DetachInterface(ctx, acme, DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: VMRef{UID: "uid-0", Hostname: "vm-0"}}); err != nil {
		t.Fatal(err)
	}
	// Two of the claims were made in the hour before, which a write then
	// covered without seeing them.
	if _, err := db.Exec(`UPDATE audit_log SET at = $1 WHERE action = 'allocate' AND object_name IN ('vpc-main-10-42-1-3', 'vpc-main-10-42-1-4')`, hour.Add(-30*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := store.RecordUsage(ctx, db, []store.UsageRecord{{ObjectUID: subnet, ObjectKind: "subnet", Used: 2, Size: 253}}, hour.Add(-10*time.Minute), time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := svc.RecordUsage(ctx, now, hour.Add(-10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		uid, step        string
		at               time.Time
		claims, releases int64
	}{
		{subnet, usage.Hour, hour.Add(-time.Hour), 2, 0},
		{subnet, usage.Hour, hour, 3, 1},
		{pool, usage.Hour, hour, 3, 1},
	} {
		points, err := svc.UsageHistory(ctx, acme, "acme/prod", c.uid, c.step, c.at)
		if err != nil || len(points) == 0 || !points[0].At.Equal(c.at) {
			t.Fatalf("the %s row of %s: %+v, %v", c.step, c.at, points, err)
		}
		if p := points[0]; p.Claims != c.claims || p.Releases != c.releases {
			t.Errorf("the %s of %s of %s: %d claims and %d releases, want %d and %d", c.step, c.at, c.uid, p.Claims, p.Releases, c.claims, c.releases)
		}
	}
	days, err := svc.UsageHistory(ctx, acme, "acme/prod", subnet, usage.Day, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var claims, releases int64
	for _, d := range days {
		claims, releases = claims+d.Claims, releases+d.Releases
	}
	if claims != 5 || releases != 1 {
		t.Errorf("the subnet's days: %+v, want 5 claims and 1 release in all", days)
	}
}

// TestUsageHistoryUnderClaims: writing the history while 8 goroutines
// claim never makes a claim fail or an address go twice, and adds no row
// per claim: one an hour and one a day per object, however many claims
// and writes; the claims are all counted.
func TestUsageHistoryUnderClaims(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	setupSubnet(t, svc, "10.42.0.0/20")
	const workers, each = 8, 40
	done := make(chan struct{})
	var writes int
	writer := make(chan error, 1)
	go func() {
		last := time.Time{}
		for {
			now := time.Now()
			if err := svc.RecordUsage(ctx, now, last); err != nil {
				writer <- err
				return
			}
			writes, last = writes+1, now
			select {
			case <-done:
				writer <- nil
				return
			default:
			}
		}
	}()
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			for i := range each {
				if _, err := attachVM(ctx, svc, w*each+i); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	if err := <-writer; err != nil {
		t.Fatal(err)
	}
	if err := svc.RecordUsage(ctx, time.Now(), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	checkLowest(t, db, "10.42.0.0/20", workers*each)
	var rows struct {
		Rows    int   `db:"rows"`
		Objects int   `db:"objects"`
		Hours   int   `db:"hours"`
		Claims  int64 `db:"claims"`
	}
	if err := db.Get(&rows, `SELECT count(*) AS rows, count(DISTINCT object_uid) AS objects, count(DISTINCT at) FILTER (WHERE step = 'hour') AS hours,
		coalesce(sum(claims) FILTER (WHERE step = 'hour' AND object_kind = 'subnet'), 0) AS claims FROM usage_history`); err != nil {
		t.Fatal(err)
	}
	if rows.Objects != 2 || rows.Rows > rows.Objects*2*rows.Hours {
		t.Errorf("%d rows of %d objects over %d hours after %d writes and %d claims: want one an hour and one a day per object", rows.Rows, rows.Objects, rows.Hours, writes, workers*each)
	}
	if rows.Claims != workers*each {
		t.Errorf("the subnet's hours count %d claims, want %d", rows.Claims, workers*each)
	}
	t.Logf("%d writes of the history during %d claims", writes, workers*each)
}

// TestImportedHistoryForecast: a history imported after the forecasts'
// sums were read counts at the next forecast, not 15 minutes later.
func TestImportedHistoryForecast(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	setupSubnet(t, svc, "10.42.1.0/24")
	for i := range 50 {
		if _, err := attachVM(ctx, svc, i); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	d, err := svc.Dashboard(ctx, acme, now, 0)
	if err != nil || len(d.Trends) != 2 || d.Trends[0].Forecast.State != "not enough history yet" {
		t.Fatalf("before the import: %d trends, %v", len(d.Trends), err)
	}
	var web ObjectUsage
	usages, err := svc.Usages(ctx, acme)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range usages {
		if u.Subnet.Name == "web" {
			web = u
		}
	}
	var points []usage.Point
	for h := 7 * 24; h >= 1; h-- {
		points = append(points, usage.Point{At: now.Add(-time.Duration(h) * time.Hour), Used: int64(50 - h/24*5), Size: 253})
	}
	if err := svc.ImportUsageHistory(ctx, acme, web, points); !errors.Is(err, refusal.ErrForbidden) {
		t.Errorf("a tenant imports a history: %v, want forbidden", err)
	}
	if err := svc.ImportUsageHistory(ctx, operator, web, points); err != nil {
		t.Fatal(err)
	}
	d, err = svc.Dashboard(ctx, acme, now.Add(time.Minute), 0)
	if err != nil {
		t.Fatal(err)
	}
	if top := d.Trends[0]; top.Subnet.Name != "web" || top.Forecast.State != "filling" {
		t.Errorf("after the import the first trend is %s/%s, %s; want web filling up", top.Pool.Name, top.Subnet.Name, top.Forecast)
	}
}

// TestUsageHistoryTwoProcesses: two services on one database (as two ipam
// serve processes) claim in one subnet and write the history at the same
// time: one row an hour and one a day per object, and every claim of
// either counted once.
func TestUsageHistoryTwoProcesses(t *testing.T) {
	a, db, url := newService(t)
	b, _ := openService(t, url)
	ctx := context.Background()
	setupSubnet(t, a, "10.42.0.0/22")
	const each = 60
	errs := make(chan error, 4)
	for p, svc := range []*Service{a, b} {
		go func() {
			for i := range each {
				if _, err := attachVM(ctx, svc, p*each+i); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
		go func() {
			var last time.Time
			for range 10 {
				now := time.Now()
				if err := svc.RecordUsage(ctx, now, last); err != nil {
					errs <- err
					return
				}
				last = now
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if err := a.RecordUsage(ctx, time.Now(), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	checkLowest(t, db, "10.42.0.0/22", 2*each)
	var got struct {
		Rows    int   `db:"rows"`
		Objects int   `db:"objects"`
		Hours   int   `db:"hours"`
		Claims  int64 `db:"claims"`
	}
	if err := db.Get(&got, `SELECT count(*) AS rows, count(DISTINCT object_uid) AS objects, count(DISTINCT at) FILTER (WHERE step = 'hour') AS hours,
		coalesce(sum(claims) FILTER (WHERE step = 'hour' AND object_kind = 'subnet'), 0) AS claims FROM usage_history`); err != nil {
		t.Fatal(err)
	}
	if got.Objects != 2 || got.Rows > got.Objects*2*got.Hours {
		t.Errorf("%d rows of %d objects over %d hours: want one an hour and one a day per object", got.Rows, got.Objects, got.Hours)
	}
	if got.Claims != 2*each {
		t.Errorf("the subnet's hours count %d claims of the two processes, want %d", got.Claims, 2*each)
	}
}

// TestUsageHistoryCountsLateCommit: a claim whose statement begins in an
// hour (its audit entry's time) and commits after the first write of the
// next hour is counted in its hour, once. The claim waits on a row another
// session holds (seen waiting in pg_stat_activity); the history is written
// as at the next hour's start, then the claim commits, then the history is
// written again.
func TestUsageHistoryCountsLateCommit(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	setupSubnet(t, svc, "10.42.1.0/24")
	var pool, subnet string
	if err := db.Get(&pool, `SELECT uid FROM pools WHERE name = 'vpc-main'`); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&subnet, `SELECT uid FROM subnets WHERE name = 'web'`); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, subnet_uid, created_by)
		VALUES ('acme/prod', 'vpc-main-10-42-1-2', $1, '10.42.1.2', 'VirtualMachine', 'other', 'other/0', 'acme/prod', $2, 'test')`, pool, subnet); err != nil {
		t.Fatal(err)
	}
	claimed := make(chan error, 1)
	go func() {
		a, err := attachVM(ctx, svc, 1)
		if err == nil && a.Address.String() != "10.42.1.2" {
			err = fmt.Errorf("got %s, want 10.42.1.2", a.Address)
		}
		claimed <- err
	}()
	pgtest.WaitForLock(t, db, "the claim of the held address", pgtest.LockWait{})
	// The claim's audit entry will bear its statement's start: the
	// waiting session's transaction start.
	var began time.Time
	if err := db.Get(&began, `SELECT xact_start FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`); err != nil {
		t.Fatal(err)
	}
	hour := began.UTC().Truncate(time.Hour)
	next := hour.Add(time.Hour)
	if err := svc.RecordUsage(ctx, began, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := svc.RecordUsage(ctx, next.Add(time.Minute), began); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-claimed; err != nil {
		t.Fatal(err)
	}
	var at time.Time
	if err := db.Get(&at, `SELECT at FROM audit_log WHERE action = 'allocate' AND object_name = 'vpc-main-10-42-1-2'`); err != nil {
		t.Fatal(err)
	}
	if !at.Equal(began) {
		t.Fatalf("the claim's entry is at %s, want its statement's start %s", at, began)
	}
	if err := svc.RecordUsage(ctx, next.Add(16*time.Minute), next.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := svc.RecordUsage(ctx, next.Add(31*time.Minute), next.Add(16*time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, uid := range []string{pool, subnet} {
		hours, err := store.UsageHistory(ctx, db, uid, usage.Hour, hour)
		if err != nil {
			t.Fatal(err)
		}
		var claims []int64
		for _, h := range hours {
			claims = append(claims, h.Claims)
		}
		if len(hours) != 2 || claims[0] != 1 || claims[1] != 0 {
			t.Errorf("the claims of %s's hours %s and %s: %v, want 1 and 0: the claim counted in its hour, once", uid, hour, next, claims)
		}
		days, err := store.UsageHistory(ctx, db, uid, usage.Day, hour.Truncate(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, d := range days {
			sum += d.Claims
		}
		if sum != 1 {
			t.Errorf("the days of %s: %+v, want 1 claim in all", uid, days)
		}
	}
}

// TestDualStackUsageHistory: a dual-stack VPC's history keeps, beside its
// pools' and its subnets' IPv4 sides, its IPv6 prefix in /64s (under the
// VPC's uid) and each subnet's IPv6 side in addresses (under its IPv6
// uid), exact; the IPv6 claims and releases are counted into the IPv6
// side; the IPv6 sides go with their subnet and their VPC.
func TestDualStackUsageHistory(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	v := dualStack(t, svc, "fd12:3456:789a::/48", "")
	web, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "db", PrefixLength: 24, IPv6PrefixLength: 60}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		in := AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: VMRef{UID: fmt.Sprintf("uid-%d", i), Hostname: fmt.Sprintf("vm-%d", i)}}
		if _, err := svc.AttachNic(ctx, acme, in); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.DetachInterface(ctx, acme, DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: VMRef{UID: "uid-0", Hostname: "vm-0"}}); err != nil {
		t.Fatal(err)
	}
	if SubnetIPv6HistoryUID(web) == web.UID {
		t.Fatalf("the IPv6 side of subnet web is kept under the subnet's own uid %s", web.UID)
	}
	var sqlUID string
	if err := db.Get(&sqlUID, `SELECT ipv6_side_uid($1)`, web.UID); err != nil || sqlUID != SubnetIPv6HistoryUID(web) {
		t.Errorf("ipv6_side_uid(%s) = %s (%v); the process says %s", web.UID, sqlUID, err, SubnetIPv6HistoryUID(web))
	}

	usages, err := svc.Usages(ctx, acme)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, u := range usages {
		kinds = append(kinds, u.HistoryKind()+" "+u.Pool.Name+" "+u.Subnet.Name)
	}
	if want := []string{"pool vpc-main ", "subnet vpc-main db", "subnet vpc-main web", "pool vpc-main-v6 ", "vpc-ipv6 vpc-main-v6 ", "subnet-ipv6 vpc-main-v6 db", "subnet-ipv6 vpc-main-v6 web"}; !slices.Equal(kinds, want) {
		t.Errorf("acme's usages: %q, want %q", kinds, want)
	}

	now := time.Now().UTC()
	if err := svc.RecordUsage(ctx, now, time.Time{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what, uid                string
		size, used               string
		claims, releases, points int64
	}{
		{"subnet web's IPv4 side", web.UID, "253", "2", 3, 1, 1},
		{"subnet web's IPv6 side", SubnetIPv6HistoryUID(web), "18446744073709551614", "2", 3, 1, 1},
		{"VPC main's IPv6 prefix", v.UID, "65536", "17", 0, 0, 1},
	} {
		points, err := svc.UsageHistory(ctx, acme, "acme/prod", c.uid, usage.Hour, now.Add(-time.Hour))
		if err != nil || int64(len(points)) != c.points {
			t.Errorf("%s: %+v, %v; want %d point", c.what, points, err, c.points)
			continue
		}
		p := points[0]
		size, used := candidates.CountOf(uint64(p.Size)), candidates.CountOf(uint64(p.Used))
		if !p.SizeCount.IsZero() {
			size, used = p.SizeCount, p.UsedCount
		}
		if size.String() != c.size || used.String() != c.used || p.Claims != c.claims || p.Releases != c.releases {
			t.Errorf("%s: %s of %s, %d claims and %d releases; want %s of %s, %d and %d", c.what, used, size, p.Claims, p.Releases, c.used, c.size, c.claims, c.releases)
		}
	}
	globex := auth.Actor{Name: "globex", Role: auth.Tenant, Namespaces: []string{"globex/*"}}
	if _, err := svc.UsageHistory(ctx, globex, "acme/prod", SubnetIPv6HistoryUID(web), usage.Hour, time.Time{}); !errors.Is(err, refusal.ErrNotFound) {
		t.Errorf("another tenant reads the IPv6 side's history: %v, want not found", err)
	}

	for i := 1; i < 3; i++ {
		if _, err := svc.DetachInterface(ctx, acme, DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: VMRef{UID: fmt.Sprintf("uid-%d", i), Hostname: fmt.Sprintf("vm-%d", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.DeleteSubnet(ctx, acme, "acme/prod", "main", "web"); err != nil {
		t.Fatal(err)
	}
	left := func() (n int) {
		t.Helper()
		if err := store.PruneUsageHistory(ctx, db, now); err != nil {
			t.Fatal(err)
		}
		if err := db.Get(&n, `SELECT count(*) FROM usage_history WHERE object_kind IN ('subnet-ipv6', 'vpc-ipv6')`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := left(); n != 4 {
		t.Errorf("%d rows of IPv6 sides after subnet web went, want 4: db's and the VPC's, an hour and a day each", n)
	}
	if err := svc.DeleteVPC(ctx, acme, "acme/prod", "main"); err != nil {
		t.Fatal(err)
	}
	if n := left(); n != 0 {
		t.Errorf("%d rows of IPv6 sides after VPC main went, want 0", n)
	}
}
