package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/views"
)

// BenchmarkNumberPoolPage renders a scoped pool's page, its first page of
// allocation scopes, through the whole server (session, domain, SQL,
// templ), for a pool of 10 divisions and one of 10 000 (sites each holding
// one VLAN), alternately in one loop so that load slows both alike, and
// reports each one's time and their ratio. By usage, the default, the
// page reads the divisions' usage kept in number_division_usage, its rows
// alone, and labels only the page's sites, as by site (their labels kept
// there too); a search (of the sites site-00000 to site-00009) reads every
// division's labels.
func BenchmarkNumberPoolPage(b *testing.B) {
	small, large := poolWithDivisions(b, 10), poolWithDivisions(b, 10_000)
	// The first view after the pool was made counts every division (the
	// fold of their marks, store.FoldDivisionUsage); the loops time the
	// views after it.
	b.Logf("the first view of the pool of 10 000 divisions: %v", large.get(b, "").Round(time.Millisecond))
	small.get(b, "")
	for _, order := range []struct{ name, query string }{{"usage", ""}, {"site", "?sort=site"}, {"search", "?q=site-0000"}} {
		b.Run("sort="+order.name, func(b *testing.B) {
			var atSmall, atLarge time.Duration
			for b.Loop() {
				atSmall += small.get(b, order.query)
				atLarge += large.get(b, order.query)
			}
			n := float64(b.N)
			b.ReportMetric(atSmall.Seconds()*1000/n, "ms/10-divisions")
			b.ReportMetric(atLarge.Seconds()*1000/n, "ms/10000-divisions")
			b.ReportMetric(atLarge.Seconds()/atSmall.Seconds(), "ratio")
		})
	}
}

// benchPool is a server with a scoped pool, an operator's session cookie
// and the pool's page.
type benchPool struct {
	h            http.Handler
	cookie, href string
}

// get times GET of the pool's page with the query.
func (p benchPool) get(b *testing.B, query string) time.Duration {
	req := httptest.NewRequestWithContext(b.Context(), http.MethodGet, p.href+query, nil)
	req.Header.Set("Cookie", p.cookie)
	rec := httptest.NewRecorder()
	start := time.Now()
	p.h.ServeHTTP(rec, req)
	took := time.Since(start)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `data-testid="allocation-scopes"`) {
		b.Fatalf("GET %s = %d", p.href+query, rec.Code)
	}
	return took
}

// poolWithDivisions returns a server whose pool, scoped by site, has n
// divisions.
func poolWithDivisions(b *testing.B, n int) benchPool {
	b.Helper()
	ctx := b.Context()
	db := pgtest.NewDB(b)
	nums := testNumbers(b, db)
	users := auth.NewService(db)
	ipamSvc, err := ipam.New(ctx, ipam.Config{DB: db, Logger: quietLogger})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ipamSvc.Close)
	h, err := New(Config{Auth: users, IPAM: ipamSvc, Numbers: nums, Logger: quietLogger, Version: "test"})
	if err != nil {
		b.Fatal(err)
	}
	f, err := schema.Parse("schema.yml", []byte(kindsSchema))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := nums.Branches().LoadSchema(ctx, auth.System, branch.Main, f); err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < n; i += 4 {
				site, err := nums.Branches().CreateObject(ctx, auth.System, branch.Main, "LocationSite", branch.ObjectInput{Attributes: map[string]any{"name": fmt.Sprintf("site-%05d", i)}})
				if err == nil {
					_, err = nums.Branches().CreateObject(ctx, auth.System, branch.Main, "IpamVLAN", branch.ObjectInput{
						Attributes: map[string]any{"name": fmt.Sprint("v", i), "vlan_id": 100 + i%3}, Relationships: map[string][]string{"site": {site.ID}}})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	pool, err := nums.CreatePool(ctx, auth.System, numbers.PoolInput{Name: "VLAN IDs per site", Node: "IpamVLAN", NodeAttribute: "vlan_id",
		Ranges: []numbers.Range{{Start: 100, End: 199, Weight: 1}}, AllocationScope: []string{"site"}})
	if err != nil {
		b.Fatal(err)
	}
	// A database in use has its statistics: autovacuum gathers them.
	if _, err := db.ExecContext(ctx, "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	password := "pw-bench-number-pools"
	if err := users.AddUser(ctx, auth.System, "ops", auth.Operator, nil, password); err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/login", strings.NewReader(url.Values{"username": {"ops"}, "password": {password}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	c := sessionCookieOf(rec.Result())
	if c == nil {
		b.Fatalf("signing in: %d", rec.Code)
	}
	return benchPool{h: h, cookie: c.Name + "=" + c.Value, href: views.NumberPoolHref(pool.ID)}
}
