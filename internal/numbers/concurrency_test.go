package numbers

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// claimAll runs n claims at once from the pool in the site, spread over
// the services, and returns the numbers they got.
func claimAll(t *testing.T, envs []*env, pool, site string, n int) []int64 {
	t.Helper()
	var mu sync.Mutex
	var got []int64
	var wg sync.WaitGroup
	endpoint := envs[0].endpoint()
	for i := range n {
		e := envs[i%len(envs)]
		wg.Go(func() {
			in := branch.ObjectInput{Attributes: map[string]any{"name": fmt.Sprintf("v%d", i), "role": "user"},
				Relationships: map[string][]string{"site": {site}, "endpoints": {endpoint}}}
			o, err := e.svc.CreateObject(t.Context(), operator, branch.Main, "IpamVLAN", in, []FromPool{{Attribute: "vlan_id", Pool: pool}})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			got = append(got, o.Attributes["vlan_id"].(int64))
			mu.Unlock()
		})
	}
	wg.Wait()
	return sorted(got)
}

// lowest is 1..n.
func lowest(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i + 1)
	}
	return out
}

// TestConcurrentClaimsOneDivision: 32 claims at once in one division of one
// service get exactly the 32 lowest numbers, none twice.
func TestConcurrentClaimsOneDivision(t *testing.T) {
	e := newEnv(t)
	a := e.site(branch.Main, "site-a")
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 4094, Weight: 1}}, "site")
	if got := claimAll(t, []*env{e}, p.ID, a.ID, 32); !slices.Equal(got, lowest(32)) {
		t.Fatalf("got %v, want 1..32 once each", got)
	}
}

// TestConcurrentClaimsAcrossDivisions: 8 claims at once in each of 8 sites
// get 1..8 in every site.
func TestConcurrentClaimsAcrossDivisions(t *testing.T) {
	e := newEnv(t)
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 4094, Weight: 1}}, "site")
	sites := make([]string, 8)
	for i := range sites {
		sites[i] = e.site(branch.Main, fmt.Sprintf("site-%d", i)).ID
	}
	results := make([][]int64, len(sites))
	var wg sync.WaitGroup
	for i, s := range sites {
		wg.Go(func() { results[i] = claimAll(t, []*env{e}, p.ID, s, 8) })
	}
	wg.Wait()
	for i, got := range results {
		if !slices.Equal(got, lowest(8)) {
			t.Errorf("site %d got %v, want 1..8", i, got)
		}
	}
}

// TestConcurrentClaimsTwoServices: two services on one database, as two
// processes, each with its own view, claim 16 numbers each at once in one
// division: 32 numbers, the lowest, none twice.
func TestConcurrentClaimsTwoServices(t *testing.T) {
	e := newEnv(t)
	other := openEnv(t, e.url)
	a := e.site(branch.Main, "site-a")
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 4094, Weight: 1}}, "site")
	if got := claimAll(t, []*env{e, other}, p.ID, a.ID, 32); !slices.Equal(got, lowest(32)) {
		t.Fatalf("got %v, want 1..32 once each", got)
	}
	// Each service's view learnt of the other's claims from conflicts:
	// the next claims go on from 33.
	if got := claimAll(t, []*env{other, e}, p.ID, a.ID, 4); !slices.Equal(got, []int64{33, 34, 35, 36}) {
		t.Fatalf("then got %v, want 33..36", got)
	}
}

// TestDivisionsNeverWait: while a claim in site A holds its transaction
// open, a claim in site B of another service (which knows nothing of it)
// goes through without waiting for a lock (were it to wait for the open
// claim, it would never end: the test fails when it is seen waiting); one
// in site A waits for the first (seen waiting in pg_stat_activity), then
// takes the next number.
func TestDivisionsNeverWait(t *testing.T) {
	e := newEnv(t)
	other := openEnv(t, e.url)
	ctx := t.Context()
	a, b := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b")
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 4094, Weight: 1}}, "site")
	claimed, release := make(chan struct{}), make(chan struct{})
	defer func() {
		select {
		case <-release:
		default:
			close(release) // a failure lets the open claim end
		}
	}()
	c := e.svc.Claims(operator, []FromPool{{Attribute: "vlan_id", Pool: p.ID}})
	in := e.vlanInput("held", a.ID, "user", nil)
	in.Hook = func(ctx context.Context, w *branch.Write) error {
		if err := c.Hook(ctx, w); err != nil {
			return err
		}
		close(claimed)
		<-release
		return nil
	}
	held := make(chan error, 1)
	go func() {
		_, err := e.branches.CreateObject(ctx, operator, branch.Main, "IpamVLAN", in)
		c.Settle(err)
		held <- err
	}()
	<-claimed
	claim := func(name, site string) (<-chan struct{}, *int64, *error) {
		n := new(int64)
		done, err := goDo(func() error {
			o, err := other.svc.CreateObject(context.Background(), operator, branch.Main, "IpamVLAN", other.vlanInput(name, site, "user", nil),
				[]FromPool{{Attribute: "vlan_id", Pool: p.ID}})
			if err == nil {
				*n = o.Attributes["vlan_id"].(int64)
			}
			return err
		})
		return done, n, err
	}
	inB, nB, errB := claim("site-b", b.ID)
	if pgtest.WaitForLock(t, e.db, "the claim in site B", pgtest.LockWait{MayEnd: true}, inB) {
		t.Fatal("a claim in site B waited for a lock while one in site A was open")
	}
	if *errB != nil || *nB != 1 {
		t.Errorf("site B got %d, %v; want 1", *nB, *errB)
	}
	inA, nA, errA := claim("site-a", a.ID)
	pgtest.WaitForLock(t, e.db, "the second claim in site A", pgtest.LockWait{}, inA)
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	<-inA
	if *errA != nil || *nA != 2 {
		t.Fatalf("the second claim in site A got %d, %v; want 2", *nA, *errA)
	}
}

// TestConcurrentClaimsThroughAPooler: two services whose connections go
// through PgBouncer in transaction mode (store.OpenPooled), each with its
// own view, claim 16 numbers each at once in one division, each write one
// call of write_object on whatever server connection the pooler gives:
// 32 numbers, the lowest, none twice; deleted, they are free again.
func TestConcurrentClaimsThroughAPooler(t *testing.T) {
	e := newEnv(t)
	pooled := pgtest.NewPgBouncer(t, e.url)
	var envs []*env
	for range 2 {
		db, err := store.OpenPooled(t.Context(), pooled)
		if err != nil {
			t.Fatal(err)
		}
		svc, err := New(t.Context(), Config{DB: db, URL: e.url})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			svc.Close()
			db.Close()
		})
		envs = append(envs, &env{t: t, svc: svc, branches: svc.Branches(), db: db, url: e.url})
	}
	a := e.site(branch.Main, "site-a")
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 4094, Weight: 1}}, "site")
	if got := claimAll(t, envs, p.ID, a.ID, 32); !slices.Equal(got, lowest(32)) {
		t.Fatalf("got %v, want 1..32 once each", got)
	}
	page, err := e.branches.Objects(t.Context(), operator, branch.Main, "IpamVLAN", branch.Filter{}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range page.Objects {
		if _, err := envs[i%2].branches.DeleteObject(t.Context(), operator, branch.Main, o.ID); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.orphans(); n != 0 {
		t.Errorf("%d allocations held by nothing", n)
	}
	if _, n := openEnv(t, e.url).fromPool(branch.Main, p.ID, "again", a.ID, "user"); n != 1 {
		t.Errorf("site A got %d once its VLANs were deleted, want 1", n)
	}
}
