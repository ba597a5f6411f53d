package ipam

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// openRouted opens a service that routes its claims, as ipam serve does.
func openRouted(t *testing.T, url string) (*Service, *store.DB) {
	t.Helper()
	return openServiceConfig(t, store.Open, url, Config{URL: url, RouteListen: "127.0.0.1:0"})
}

// attachFrom attaches VMs first … first+count-1 with workers goroutines.
func attachFrom(t *testing.T, svc *Service, first, count, workers int) {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	per := count / workers
	for w := range workers {
		wg.Go(func() {
			for i := range per {
				if _, err := attachVM(ctx, svc, first+w*per+i); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestRoutedClaims claims from two routing services at once, eight
// goroutines each, on one subnet: one owns the pool and makes the other's
// claims.
func TestRoutedClaims(t *testing.T) {
	url := pgtest.NewURL(t)
	a, db := openRouted(t, url)
	b, _ := openRouted(t, url)
	setupSubnet(t, a, "10.42.0.0/22")
	const per = 200
	var wg sync.WaitGroup
	wg.Go(func() { attachFrom(t, a, 0, per, 8) })
	wg.Go(func() { attachFrom(t, b, per, per, 8) })
	wg.Wait()
	checkLowest(t, db, "10.42.0.0/22", 2*per)
	sa, sb := a.router.Stats(), b.router.Stats()
	t.Logf("a: %+v, b: %+v", sa, sb)
	if sa.Forwarded+sb.Forwarded < per*9/10 {
		t.Errorf("%d and %d claims forwarded, want about %d: one process owns the pool", sa.Forwarded, sb.Forwarded, per)
	}
	if sa.Served != sb.Forwarded || sb.Served != sa.Forwarded {
		t.Errorf("served %d and %d, forwarded %d and %d", sa.Served, sb.Served, sa.Forwarded, sb.Forwarded)
	}
	if sa.Fallbacks+sb.Fallbacks != 0 {
		t.Errorf("%d claims fell back, want 0", sa.Fallbacks+sb.Fallbacks)
	}
}

// TestRoutedOwnerGone: the owner of a pool stops; the process that
// forwarded its claims makes them itself, owns the pool, and its view
// holds what the owner claimed meanwhile (the lowest candidates still).
func TestRoutedOwnerGone(t *testing.T) {
	url := pgtest.NewURL(t)
	a, db := openRouted(t, url)
	b, _ := openRouted(t, url)
	setupSubnet(t, a, "10.42.0.0/22")
	attachFrom(t, a, 0, 10, 1) // a owns the pool
	attachFrom(t, b, 10, 10, 1)
	if s := b.router.Stats(); s.Forwarded != 10 {
		t.Fatalf("b forwarded %d claims, want 10: %+v", s.Forwarded, s)
	}
	a.Close()
	var routes int
	if err := db.Get(&routes, `SELECT count(*) FROM claim_routes`); err != nil || routes != 0 {
		t.Fatalf("%d routes left after the owner stopped, %v; want none", routes, err)
	}
	// The owner's lock ends with its connection, once the server sees it
	// closed.
	waitFor(t, "the owner's lock to end", func() bool {
		var locks int
		return db.Get(&locks, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'`) == nil && locks == 0
	})
	attachFrom(t, b, 20, 40, 4)
	checkLowest(t, db, "10.42.0.0/22", 60)
	if s := b.router.Stats(); s.Forwarded != 10 {
		t.Errorf("b forwarded %d claims, want 10 (none after a stopped): %+v", s.Forwarded, s)
	}
	var pool string
	if err := db.Get(&pool, `SELECT uid FROM pools WHERE name = 'vpc-main'`); err != nil {
		t.Fatal(err)
	}
	if r, err := store.RouteOf(context.Background(), db, pool); err != nil || r.Address != b.router.Address() {
		t.Errorf("the route after a stopped: %+v, %v; want b's", r, err)
	}
	c, _ := openRouted(t, url)
	attachFrom(t, c, 60, 10, 2)
	if s := c.router.Stats(); s.Forwarded != 10 {
		t.Errorf("c forwarded %d claims to b, the new owner, want 10: %+v", s.Forwarded, s)
	}
	checkLowest(t, db, "10.42.0.0/22", 70)
}

// TestForwardedAnswers: what the owner answers a forwarded claim is what
// the forwarding process would have answered: the same allocation to an
// owner asking twice, and the same refusals, word for word.
func TestForwardedAnswers(t *testing.T) {
	url := pgtest.NewURL(t)
	a, _ := openRouted(t, url)
	b, _ := openRouted(t, url)
	ctx := context.Background()
	setupSubnet(t, a, "10.42.1.0/29") // 5 candidates: .2 is the gateway
	first, err := attachVM(ctx, a, 0)
	if err != nil {
		t.Fatal(err)
	}
	again, err := attachVM(ctx, b, 0)
	if err != nil || again.Address != first.Address || again.UID != first.UID || again.Name != first.Name || again.Pool != first.Pool {
		t.Fatalf("the owner asking again through b got %+v, %v; want %+v", again, err, first)
	}
	for i := 1; i < 5; i++ {
		if _, err := attachVM(ctx, b, i); err != nil {
			t.Fatal(err)
		}
	}
	_, local := attachVM(ctx, a, 9)
	_, forwarded := attachVM(ctx, b, 9)
	if local == nil || forwarded == nil || local.Error() != forwarded.Error() || !reflect.DeepEqual(refusal.Classify(local), refusal.Classify(forwarded)) {
		t.Errorf("exhausted: here %v, forwarded %v; want the same refusal", local, forwarded)
	}
	if _, err := a.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "db", CIDR: "10.42.2.0/24"}); err != nil {
		t.Fatal(err)
	}
	in := AllocateInput{Namespace: "acme/prod", Pool: "vpc-main", Within: "10.42.2.0/24",
		Owner: Owner{Kind: OwnerVirtualMachine, UID: "uid-0", Name: "vm-0/0"}}
	_, local = a.Allocate(ctx, acme, in)
	_, forwarded = b.Allocate(ctx, acme, in)
	if local == nil || forwarded == nil || local.Error() != forwarded.Error() || !reflect.DeepEqual(refusal.Classify(local), refusal.Classify(forwarded)) {
		t.Errorf("held outside within: here %v, forwarded %v; want the same refusal", local, forwarded)
	}
	if s := b.router.Stats(); s.Forwarded != 7 || s.Fallbacks != 0 {
		t.Errorf("b's claims were not all forwarded: %+v", s)
	}
}

// waitFor waits until done holds, for up to 10 s.
func waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !done(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// TestRoutedClaimsWhileSecretRotates: claims run through forwarding while
// the cluster secret is rotated again and again, and after each rotation
// a process that starts forwards claims, connecting to the owner with the
// new secret: every claim is answered by the owner, no address twice, the
// taken set the lowest candidates.
func TestRoutedClaimsWhileSecretRotates(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewURL(t)
	a, db := openRouted(t, url)
	b, _ := openRouted(t, url)
	setupSubnet(t, a, "10.42.0.0/22")
	attachFrom(t, a, 0, 1, 1) // a owns the pool
	const rotations, per, forwarded = 4, 16, 400
	late := make([]*Service, rotations)
	for i := range late {
		late[i], _ = openRouted(t, url)
	}
	var wg sync.WaitGroup
	wg.Go(func() { attachFrom(t, b, 1, forwarded, 8) })
	wg.Go(func() {
		for i, svc := range late {
			if err := a.RotateClusterSecret(ctx, operator); err != nil {
				t.Error(err)
				return
			}
			attachFrom(t, svc, 1000+i*per, per, 4)
		}
	})
	wg.Wait()
	checkLowest(t, db, "10.42.0.0/22", 1+forwarded+rotations*per)
	if s := b.router.Stats(); s.Forwarded != forwarded || s.Fallbacks != 0 {
		t.Errorf("b's counts %+v, want %d forwarded and no fallback", s, forwarded)
	}
	for i, svc := range late {
		if s := svc.router.Stats(); s.Forwarded != per || s.Fallbacks != 0 {
			t.Errorf("the process started after rotation %d: %+v, want %d forwarded and no fallback", i+1, s, per)
		}
	}
	var rotated int
	if err := db.Get(&rotated, `SELECT count(*) FROM audit_log WHERE action = 'rotate' AND object_kind = 'ClusterSecret'`); err != nil || rotated != rotations {
		t.Errorf("%d rotations audited, %v; want %d", rotated, err, rotations)
	}
}
