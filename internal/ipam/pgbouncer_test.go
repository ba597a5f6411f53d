package ipam

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// openPooledService opens a service whose statements go through PgBouncer
// in transaction mode (pooledURL) and whose notifications come from url.
func openPooledService(t *testing.T, pooledURL, url string) (*Service, *store.DB) {
	t.Helper()
	return openServiceWith(t, store.OpenPooled, pooledURL, url)
}

// TestClaimsThroughPgBouncer runs the claim scenarios through Debian's
// PgBouncer in transaction mode: 16 clients in each of two services, an
// owner racing itself, a release in one service reused first by the
// other once its notification arrives. No address twice, no owner twice,
// the lowest candidates taken.
func TestClaimsThroughPgBouncer(t *testing.T) {
	url := pgtest.NewURL(t)
	pooled := pgtest.NewPgBouncer(t, url)
	a, db := openPooledService(t, pooled, url)
	b, _ := openPooledService(t, pooled, url)
	setupSubnet(t, a, "10.42.0.0/22")
	const workers, each = 16, 20
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range workers {
		svc := []*Service{a, b}[w%2]
		wg.Go(func() {
			for i := range each {
				if _, err := attachVM(ctx, svc, w*each+i); err != nil {
					t.Error(err)
				}
			}
		})
	}
	racing := make([]string, 8)
	for i := range racing {
		svc := []*Service{a, b}[i%2]
		wg.Go(func() {
			got, err := attachVM(ctx, svc, workers*each)
			if err != nil {
				t.Error(err)
			}
			racing[i] = got.Address.String()
		})
	}
	wg.Wait()
	for _, addr := range racing {
		if addr != racing[0] {
			t.Fatalf("one owner racing itself through PgBouncer got %v, want one address", racing)
		}
	}
	checkLowest(t, db, "10.42.0.0/22", workers*each+1)

	held, err := attachVM(ctx, a, 0)
	if err != nil {
		t.Fatal(err)
	}
	// b knows a's claims only from conflicts: read its view afresh, so
	// that the release is all it has to learn.
	b.views.taken.RefreshAll(ctx)
	if _, err := a.DetachInterface(ctx, acme, DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: VMRef{UID: "uid-0", Hostname: "vm-0"}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		next, err := b.Preview(ctx, acme, "acme/prod", "vpc-main", "10.42.0.0/22", []string{"10.42.0.1"}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if next[0] == held.Address {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the other service still proposes %s 5 s after %s was released", next[0], held.Address)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got, err := attachVM(ctx, b, workers*each+1); err != nil || got.Address != held.Address {
		t.Errorf("after %s is released in one service, the other's claim got %s, %v; want it (the lowest free)", held.Address, got.Address, err)
	}
}

// TestPooledIsolationChecked: through a connection pooler, ipam cannot set
// the isolation level of its connections; on a database whose default is
// REPEATABLE READ, OpenPooled refuses and says what to set.
func TestPooledIsolationChecked(t *testing.T) {
	url := repeatableReadDatabase(t)
	_, err := store.OpenPooled(context.Background(), pgtest.NewPgBouncer(t, url))
	const want = `store: unable to connect to the database: store: statements would not run at READ COMMITTED: through a connection pooler, ipam cannot set the isolation level of its connections, and the database's default_transaction_isolation is "repeatable read": set it for ipam's role (ALTER ROLE … SET default_transaction_isolation = 'read committed'), or connect to PostgreSQL directly`
	if !errors.Is(err, store.ErrIsolation) || err.Error() != want {
		t.Errorf("OpenPooled on a REPEATABLE READ database = %v\nwant %s", err, want)
	}
}
