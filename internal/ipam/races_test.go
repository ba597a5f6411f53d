package ipam

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// The race tests force the interleavings that break promises of
// docs/allocation.md, each the way a review reproduced it: a proxy holds
// one statement (or its answer) of one request while another request runs,
// or a raw connection holds a row.

// proxiedService opens a service on url whose statements pass through a
// proxy, and returns both. The service follows notifications directly.
func proxiedService(t *testing.T, dbURL string) (*Service, *pgtest.Proxy) {
	t.Helper()
	proxy, through := pgtest.NewProxy(t, dbURL)
	svc, _ := openServiceVia(t, through, dbURL)
	return svc, proxy
}

// reached waits for h to be held.
func reached(t *testing.T, h *pgtest.Hold, what string) {
	t.Helper()
	select {
	case <-h.Reached():
	case <-time.After(10 * time.Second):
		t.Fatalf("%s never reached the database", what)
	}
}

// allocationCount counts the allocations at address.
func allocationCount(t *testing.T, db *store.DB, address string) int {
	t.Helper()
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM allocations WHERE address = $1::inet`, address); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDeleteKeepsInterfaceAttachedMeanwhile: a VM interface attached
// between the delete's count of VM interfaces and its release of the
// subnet's (or VPC's) addresses is not deleted with it: the attach's answer
// stays true, and the delete is refused with the count.
func TestDeleteKeepsInterfaceAttachedMeanwhile(t *testing.T) {
	for _, what := range []string{"subnet", "VPC"} {
		t.Run(what, func(t *testing.T) {
			other, db, dbURL := newService(t)
			setupSubnet(t, other, "10.42.1.0/24")
			svc, proxy := proxiedService(t, dbURL)
			ctx := context.Background()
			if _, err := other.AttachNode(ctx, acme, AttachNodeInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", Node: NodeRef{UID: "node-1", Name: "hv-1"}}); err != nil {
				t.Fatal(err)
			}

			release := proxy.Hold("DELETE FROM allocations")
			deleted := make(chan error, 1)
			go func() {
				if what == "subnet" {
					deleted <- svc.DeleteSubnet(ctx, acme, "acme/prod", "main", "web")
				} else {
					deleted <- svc.DeleteVPC(ctx, acme, "acme/prod", "main")
				}
			}()
			reached(t, release, "the delete's release")
			a, attachErr := attachVM(ctx, other, 1)
			release.Release()
			err := <-deleted

			if attachErr != nil {
				return // the claim failed: nothing was promised
			}
			if n := allocationCount(t, db, a.Address.String()); n != 1 {
				t.Errorf("attachInterface answered %s, then the delete (%v) left %d allocations of it", a.Address, err, n)
			}
			want := what + " web of VPC acme/prod/main still has 1 VM interface; detach it first"
			if what == "VPC" {
				want = "VPC acme/prod/main still has 1 VM interface; detach it first"
			}
			if err == nil || err.Error() != want {
				t.Errorf("the delete = %v, want %q", err, want)
			}
		})
	}
}

// TestOneOwnerInTwoSubnetsAtOnce: two requests of one owner in flight in
// one process, for two subnets, each get the answer to their own request:
// an address in their subnet, or a refusal naming it.
func TestOneOwnerInTwoSubnetsAtOnce(t *testing.T) {
	_, db, dbURL := newService(t)
	svc, proxy := proxiedService(t, dbURL)
	setupSubnet(t, svc, "10.42.1.0/24")
	ctx := context.Background()
	if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "db", CIDR: "10.42.2.0/24"}); err != nil {
		t.Fatal(err)
	}
	attach := func(subnet string) (Allocation, error) {
		return svc.AttachInterface(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: subnet, VM: VMRef{UID: "vm-1", Hostname: "web-01"}})
	}
	hold := proxy.Hold("INSERT INTO allocations")
	defer hold.Release() // a failure lets the statement go before the services close
	type answer struct {
		a   Allocation
		err error
	}
	first, second := make(chan answer, 1), make(chan answer, 1)
	go func() {
		a, err := attach("web")
		first <- answer{a, err}
	}()
	reached(t, hold, "the first claim")
	secondDone := make(chan struct{})
	go func() {
		a, err := attach("db")
		second <- answer{a, err}
		close(secondDone)
	}()
	// The second request goes as far as it can while the first's insert
	// is held: to its answer, or to a lock the first holds; waiting for
	// the first's answer in this process, it is seen doing neither, and
	// the test fails.
	pgtest.WaitForLock(t, db, "the attach in db", pgtest.LockWait{MayEnd: true}, secondDone)
	hold.Release()
	for _, c := range []struct {
		subnet, cidr string
		got          answer
	}{{"web", "10.42.1.0/24", <-first}, {"db", "10.42.2.0/24", <-second}} {
		switch {
		case c.got.err == nil && !strings.HasPrefix(c.got.a.Address.String(), strings.TrimSuffix(c.cidr, "0/24")):
			t.Errorf("attach in %s (%s) answered %s", c.subnet, c.cidr, c.got.a.Address)
		case c.got.err != nil && !strings.Contains(c.got.err.Error(), "outside "+c.cidr):
			t.Errorf("attach in %s (%s) refused: %v", c.subnet, c.cidr, c.got.err)
		}
	}
}

// nextInWeb returns the address svc's view proposes next in subnet web
// (10.42.1.0/24).
func nextInWeb(t *testing.T, svc *Service) string {
	t.Helper()
	as, err := svc.Preview(context.Background(), acme, "acme/prod", "vpc-main", "10.42.1.0/24", []string{"10.42.1.1"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return as[0].String()
}

// waitNext waits until svc's view proposes want next in subnet web: the
// notification of a release elsewhere arrived.
func waitNext(t *testing.T, svc *Service, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for nextInWeb(t, svc) != want {
		if time.Now().After(deadline) {
			t.Fatalf("the view still does not propose %s: the release's notification did not arrive", want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRefreshKeepsReleaseLearntMeanwhile: a release announced while the
// periodic refresh reads the pool is not lost when the refresh swaps in
// what it read.
func TestRefreshKeepsReleaseLearntMeanwhile(t *testing.T) {
	other, _, dbURL := newService(t)
	setupSubnet(t, other, "10.42.1.0/24")
	svc, proxy := proxiedService(t, dbURL)
	ctx := context.Background()
	for i := range 3 {
		if _, err := attachVM(ctx, svc, i); err != nil {
			t.Fatal(err)
		}
	}
	if got := nextInWeb(t, svc); got != "10.42.1.5" {
		t.Fatalf("next = %s, want 10.42.1.5", got)
	}

	hold := proxy.HoldAnswer("string_agg(int4send(")
	refreshed := make(chan struct{})
	go func() {
		svc.views.taken.RefreshAll(ctx)
		close(refreshed)
	}()
	reached(t, hold, "the refresh's read")
	if ok, err := other.DetachInterface(ctx, acme, DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: VMRef{UID: "uid-0", Hostname: "vm-0"}}); err != nil || !ok {
		t.Fatalf("detach = %v, %v", ok, err)
	}
	waitNext(t, svc, "10.42.1.2")
	hold.Release()
	<-refreshed
	if got := nextInWeb(t, svc); got != "10.42.1.2" {
		t.Errorf("after the refresh, next = %s, want the released 10.42.1.2", got)
	}
}

// TestOwnerReleasedDuringConflict: a claim whose insert met the owner's
// address, released before the claim looked it up, leaves the candidate it
// tried free in the view.
func TestOwnerReleasedDuringConflict(t *testing.T) {
	other, db, dbURL := newService(t)
	setupSubnet(t, other, "10.42.1.0/24")
	svc, proxy := proxiedService(t, dbURL)
	ctx := context.Background()
	if _, err := attachVM(ctx, svc, 1); err != nil { // 10.42.1.2
		t.Fatal(err)
	}
	// The owner asks again: the view proposes 10.42.1.3, the insert meets
	// the owner's 10.42.1.2, which is released before the lookup.
	hold := proxy.Hold("AND owner_kind = $")
	claimed := make(chan error, 1)
	go func() {
		_, err := attachVM(ctx, svc, 1)
		claimed <- err
	}()
	reached(t, hold, "the lookup after the conflict")
	if ok, err := other.DetachInterface(ctx, acme, DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: VMRef{UID: "uid-1", Hostname: "vm-1"}}); err != nil || !ok {
		t.Fatalf("detach = %v, %v", ok, err)
	}
	waitNext(t, svc, "10.42.1.2")
	hold.Release()
	if err := <-claimed; err != nil {
		t.Fatal(err)
	}
	var lowest string
	if err := db.Get(&lowest, `SELECT host(a) FROM generate_series(2, 254) n, LATERAL (SELECT '10.42.1.0'::inet + n AS a) x
		WHERE NOT EXISTS (SELECT 1 FROM allocations WHERE address = x.a) ORDER BY n LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	if got := nextInWeb(t, svc); got != lowest {
		t.Errorf("after the claim, the view proposes %s; the lowest free address is %s", got, lowest)
	}
}

// TestReleaseFloatingIPTwiceAuditsOnce: of two releases of one floating IP
// at once, one releases it and writes its audit entries; the other finds
// nothing.
func TestReleaseFloatingIPTwiceAuditsOnce(t *testing.T) {
	other, db, dbURL := newService(t)
	ctx := context.Background()
	if _, err := other.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.ClaimFloatingIP(ctx, acme, ClaimFloatingIPInput{Namespace: "acme/prod", Name: "web", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	svc, proxy := proxiedService(t, dbURL)
	hold := proxy.Hold("DELETE FROM floating_ips")
	defer hold.Release() // a failure lets the statement go before the services close
	first := make(chan error, 1)
	go func() { first <- svc.ReleaseFloatingIP(ctx, acme, "acme/prod", "web") }()
	reached(t, hold, "the first release")
	secondDone := make(chan struct{})
	var second error
	go func() {
		second = other.ReleaseFloatingIP(ctx, acme, "acme/prod", "web")
		close(secondDone)
	}()
	// The second release goes as far as it can while the first's delete
	// is held: to its answer, or to a lock the first holds.
	pgtest.WaitForLock(t, db, "the second release", pgtest.LockWait{MayEnd: true}, secondDone)
	hold.Release()
	errs := []error{<-first}
	<-secondDone
	errs = append(errs, second)
	if (errs[0] == nil) == (errs[1] == nil) || !errors.Is(errs[0], refusal.ErrNotFound) && !errors.Is(errs[1], refusal.ErrNotFound) {
		t.Errorf("two releases of one floating IP = %v; want one done, one not found", errs)
	}
	var entries []string
	if err := db.Select(&entries, `SELECT action || ' ' || object_kind FROM audit_log WHERE action IN ('delete', 'release') ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if strings.Join(entries, ", ") != "release IPAllocation, delete FloatingIP" {
		t.Errorf("audit entries: %v, want one release and one delete", entries)
	}
}

// TestOwnersOfTwoNamespaces: the same owner (kind, uid, name) in two
// namespaces is two owners in a public pool.
func TestOwnersOfTwoNamespaces(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	if _, err := svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24"}); err != nil {
		t.Fatal(err)
	}
	owner := Owner{Kind: OwnerNode, UID: "n1", Name: "edge"}
	a, err := svc.Allocate(ctx, operator, AllocateInput{Pool: "public-zone-a", Owner: owner, OwnerNamespace: "acme/prod"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.Allocate(ctx, operator, AllocateInput{Pool: "public-zone-a", Owner: owner, OwnerNamespace: "globex/prod"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Address == b.Address || b.OwnerNamespace != "globex/prod" {
		t.Errorf("the owner in acme/prod holds %s, in globex/prod %s (%s): want two addresses", a.Address, b.Address, b.OwnerNamespace)
	}
	released, err := svc.Release(ctx, operator, ReleaseInput{Pool: "public-zone-a", Owner: &owner, OwnerNamespace: "globex/prod"})
	if err != nil || !released {
		t.Fatalf("release of globex's = %v, %v", released, err)
	}
	again, err := svc.Allocate(ctx, operator, AllocateInput{Pool: "public-zone-a", Owner: owner, OwnerNamespace: "acme/prod"})
	if err != nil || again.Address != a.Address {
		t.Errorf("acme's owner asking again got %v, %v; want %s, still held", again.Address, err, a.Address)
	}
}

// repeatableReadDatabase returns a fresh database whose default isolation
// level is REPEATABLE READ, and its URL.
func repeatableReadDatabase(t *testing.T) string {
	t.Helper()
	dbURL := pgtest.NewURL(t)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	name := strings.TrimPrefix(u.Path, "/")
	if _, err := db.Exec(`ALTER DATABASE "` + name + `" SET default_transaction_isolation = 'repeatable read'`); err != nil {
		t.Fatal(err)
	}
	return dbURL
}

// TestIsolationPinned: on a database whose default isolation level is
// REPEATABLE READ, subnets created at once never overlap and a claim that
// meets an address committed meanwhile takes the next one.
func TestIsolationPinned(t *testing.T) {
	dbURL := repeatableReadDatabase(t)
	svc, db := openService(t, dbURL)
	ctx := context.Background()
	var level string
	if err := store.InTx(ctx, db, func(tx *store.Tx) error {
		return tx.Get(&level, `SHOW transaction_isolation`)
	}); err != nil || level != "read committed" {
		t.Errorf("a transaction's isolation = %q, %v; want read committed", level, err)
	}
	if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16"}); err != nil {
		t.Fatal(err)
	}

	t.Run("subnets", func(t *testing.T) {
		var wg sync.WaitGroup
		for i, cidr := range []string{"10.42.0.0/24", "10.42.0.0/23", "10.42.0.0/22", "10.42.1.0/24", "10.42.0.128/25", "10.42.2.0/23", "10.42.0.0/21", "10.42.3.0/24"} {
			wg.Go(func() {
				svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "s" + string(rune('a'+i)), CIDR: cidr})
			})
		}
		wg.Wait()
		var overlaps int
		if err := db.Get(&overlaps, `SELECT count(*) FROM subnets a JOIN subnets b ON a.uid < b.uid AND a.cidr && b.cidr`); err != nil {
			t.Fatal(err)
		}
		if overlaps != 0 {
			t.Errorf("%d pairs of subnets overlap", overlaps)
		}
	})

	t.Run("claim meets a row committed meanwhile", func(t *testing.T) {
		if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.100.0/24"}); err != nil {
			t.Fatal(err)
		}
		// Another client holds 10.42.100.2, uncommitted: the claim's
		// insert waits for it, then meets it committed.
		var pool, subnet string
		if err := db.Get(&pool, `SELECT uid FROM pools WHERE name = 'vpc-main'`); err != nil {
			t.Fatal(err)
		}
		if err := db.Get(&subnet, `SELECT uid FROM subnets WHERE name = 'web'`); err != nil {
			t.Fatal(err)
		}
		raw, err := sqlx.Open("postgres", dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		tx, err := raw.Beginx()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, subnet_uid, created_by)
			VALUES ('acme/prod', 'vpc-main-10-42-100-2', $1, '10.42.100.2', 'VirtualMachine', 'other', 'other/0', 'acme/prod', $2, 'test')`, pool, subnet); err != nil {
			t.Fatal(err)
		}
		claimed, claimErr := make(chan struct{}), new(error)
		var got Allocation
		go func() {
			defer close(claimed)
			got, *claimErr = svc.AttachInterface(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: VMRef{UID: "vm-1", Hostname: "web-01"}})
		}()
		pgtest.WaitForLock(t, db, "the claim of the address another client holds uncommitted", pgtest.LockWait{}, claimed)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		<-claimed
		if *claimErr != nil || got.Address.String() != "10.42.100.3" {
			t.Errorf("the claim = %v, %v; want 10.42.100.3", got.Address, *claimErr)
		}
	})
}
