package branch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// sites is a schema of sites with a unique name.
const sites = `version: "1.0"
nodes:
  - name: Site
    namespace: Location
    attributes:
      - {name: name, kind: Text, unique: true}
      - {name: note, kind: Text, optional: true}
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: name, kind: Text}
    relationships:
      - {name: site, peer: LocationSite, cardinality: one, optional: false}
`

// proxiedService opens a service on dbURL whose statements pass through a
// proxy, and returns both; it follows notifications directly. With
// inTransactions it makes every write of an object in a transaction, whose
// statements a test holds to force an interleaving.
func proxiedService(t testing.TB, dbURL string, inTransactions bool) (*Service, *pgtest.Proxy) {
	t.Helper()
	proxy, through := pgtest.NewProxy(t, dbURL)
	db, err := store.Open(context.Background(), through)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := New(context.Background(), Config{DB: db, URL: dbURL, InTransactions: inTransactions})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		svc.Close()
		db.Close()
	})
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

// sitesNamed counts the sites called name that the branch shows.
func sitesNamed(t *testing.T, svc *Service, branch, name string) int {
	t.Helper()
	page, err := svc.Objects(t.Context(), operator, branch, "LocationSite", Filter{Values: map[string]any{"name": name}}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return page.Count
}

// TestUniqueAcrossServices: two services, as two ipam serve processes,
// create sites of one name at once, on main and on a branch: one wins,
// every other gets the conflict, never two sites.
func TestUniqueAcrossServices(t *testing.T) {
	svc1, _, url := newService(t)
	svc2, _ := openService(t, url)
	load(t, svc1, Main, sites)
	site(t, svc1, Main, "held-on-main")
	newBranch(t, svc1, "b1")
	for _, branch := range []string{Main, "b1"} {
		for _, name := range []string{"contended", "held-on-main"} {
			t.Run(branch+"/"+name, func(t *testing.T) {
				const clients = 16
				var wg sync.WaitGroup
				errs := make(chan error, clients)
				start := make(chan struct{})
				for i := range clients {
					svc := svc1
					if i%2 == 1 {
						svc = svc2
					}
					wg.Go(func() {
						<-start
						_, err := svc.CreateObject(context.Background(), operator, branch, "LocationSite", ObjectInput{Attributes: map[string]any{"name": name}})
						errs <- err
					})
				}
				close(start)
				wg.Wait()
				close(errs)
				won := 0
				for err := range errs {
					var c *refusal.ConflictError
					switch {
					case err == nil:
						won++
					case errors.As(err, &c) && c.Message == "Violates uniqueness constraint 'name'":
					default:
						t.Errorf("err = %v, want the conflict", err)
					}
				}
				want := 1
				if name == "held-on-main" {
					want = 0 // main at the branch point holds it
				}
				if won != want {
					t.Errorf("%d creations won, want %d", won, want)
				}
				if n := sitesNamed(t, svc2, branch, name); n != 1 {
					t.Errorf("%d sites called %s on %s", n, name, branch)
				}
			})
		}
	}
}

// TestUniqueOnBranchWhileShadowing forces the interleavings of
// docs/branches.md on a branch: main at the branch point holds a site's
// name; a writer gives the branch its own version of that site while
// another creates a site of the name. Whatever the order, the branch never
// shows two sites of one name; a race costs at most a refusal that a retry
// does not get.
func TestUniqueOnBranchWhileShadowing(t *testing.T) {
	for _, rename := range []bool{false, true} {
		t.Run(fmt.Sprintf("rename=%v", rename), func(t *testing.T) {
			other, _, url := newService(t)
			load(t, other, Main, sites)
			x := site(t, other, Main, "x")
			newBranch(t, other, "b1")
			svc, proxy := proxiedService(t, url, true)

			// The writer's statement has run, its transaction is open.
			hold := proxy.HoldAnswer("INSERT INTO unique_values")
			attrs := map[string]any{"note": "shadowed"}
			if rename {
				attrs = map[string]any{"name": "y"}
			}
			done := make(chan error, 1)
			go func() {
				_, err := svc.UpdateObject(context.Background(), operator, "b1", x.ID, ObjectInput{Attributes: attrs})
				done <- err
			}()
			reached(t, hold, "the shadowing write")
			_, err := other.CreateObject(t.Context(), operator, "b1", "LocationSite", ObjectInput{Attributes: map[string]any{"name": "x"}})
			wantRefusal(t, err, refusal.ErrConflict, "Violates uniqueness constraint 'name'")
			hold.Release()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			_, err = other.CreateObject(t.Context(), operator, "b1", "LocationSite", ObjectInput{Attributes: map[string]any{"name": "x"}})
			if rename && err != nil {
				t.Fatalf("x is free once renamed: %v", err)
			}
			if !rename {
				wantRefusal(t, err, refusal.ErrConflict, "Violates uniqueness constraint 'name'")
			}
			if n := sitesNamed(t, other, "b1", "x"); n != 1 {
				t.Fatalf("%d sites called x on b1", n)
			}
		})
	}
}

// goDo runs op in a goroutine and returns a channel closed when it is
// done, and where its error is then.
func goDo(op func() error) (<-chan struct{}, *error) {
	done, err := make(chan struct{}), new(error)
	go func() {
		defer close(done)
		*err = op()
	}()
	return done, err
}

// TestUniqueOnMainWaitsForTheHolder: a writer whose value another
// transaction holds (uncommitted) waits for it (seen waiting for a lock),
// and gets the conflict once it commits.
func TestUniqueOnMainWaitsForTheHolder(t *testing.T) {
	other, db, url := newService(t)
	load(t, other, Main, sites)
	svc, proxy := proxiedService(t, url, true)
	hold := proxy.HoldAnswer("INSERT INTO unique_values")
	defer hold.Release() // a failure lets the statement go before the services close
	done := make(chan error, 1)
	go func() {
		_, err := svc.CreateObject(context.Background(), operator, Main, "LocationSite", ObjectInput{Attributes: map[string]any{"name": "x"}})
		done <- err
	}()
	reached(t, hold, "the first creation")
	secondDone, second := goDo(func() error {
		_, err := other.CreateObject(context.Background(), operator, Main, "LocationSite", ObjectInput{Attributes: map[string]any{"name": "x"}})
		return err
	})
	pgtest.WaitForLock(t, db, "the second creation of x (the first holds the name)", pgtest.LockWait{}, secondDone)
	hold.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	<-secondDone
	wantRefusal(t, *second, refusal.ErrConflict, "Violates uniqueness constraint 'name'")
	if n := sitesNamed(t, other, Main, "x"); n != 1 {
		t.Fatalf("%d sites called x", n)
	}
}

// TestDeleteWhilePointedAtAnew: a site deleted while a VLAN is being
// created on it waits for the creation (seen waiting for a lock), and is
// then refused naming the VLAN; a VLAN created while its site is being
// deleted waits for the deletion, and then finds no site.
func TestDeleteWhilePointedAtAnew(t *testing.T) {
	for _, branch := range []string{Main, "b1"} {
		t.Run(branch, func(t *testing.T) {
			other, db, url := newService(t)
			load(t, other, Main, sites)
			s := site(t, other, Main, "s")
			newBranch(t, other, "b1")
			svc, proxy := proxiedService(t, url, true)

			hold := proxy.Hold("INSERT INTO unique_values")
			defer hold.Release() // a failure lets the statement go before the services close
			created := make(chan error, 1)
			var vlanID string
			go func() {
				o, err := svc.CreateObject(context.Background(), operator, branch, "IpamVLAN", ObjectInput{Attributes: map[string]any{"name": "v"},
					Relationships: map[string][]string{"site": {s.ID}}})
				vlanID = o.ID
				created <- err
			}()
			reached(t, hold, "the VLAN's creation")
			deletedDone, deleted := goDo(func() error {
				_, err := other.DeleteObject(context.Background(), operator, branch, s.ID)
				return err
			})
			pgtest.WaitForLock(t, db, "the site's deletion during the VLAN's creation", pgtest.LockWait{}, deletedDone)
			hold.Release()
			if err := <-created; err != nil {
				t.Fatal(err)
			}
			<-deletedDone
			var c *refusal.ConflictError
			if !errors.As(*deleted, &c) || len(c.Objects) != 1 || c.Objects[0] != vlanID {
				t.Fatalf("the deletion: %v, want the conflict naming VLAN %s", *deleted, vlanID)
			}

			// The other way round: the deletion first.
			if _, err := other.DeleteObject(t.Context(), operator, branch, vlanID); err != nil {
				t.Fatal(err)
			}
			hold = proxy.Hold("INSERT INTO object_versions")
			defer hold.Release()
			deletedDone, deleted = goDo(func() error {
				_, err := svc.DeleteObject(context.Background(), operator, branch, s.ID)
				return err
			})
			reached(t, hold, "the site's deletion")
			createdDone, creation := goDo(func() error {
				_, err := other.CreateObject(context.Background(), operator, branch, "IpamVLAN", ObjectInput{Attributes: map[string]any{"name": "v"},
					Relationships: map[string][]string{"site": {s.ID}}})
				return err
			})
			pgtest.WaitForLock(t, db, "the VLAN's creation during its site's deletion", pgtest.LockWait{}, createdDone)
			hold.Release()
			<-deletedDone
			if *deleted != nil {
				t.Fatal(*deleted)
			}
			<-createdDone
			wantRefusal(t, *creation, refusal.ErrNotFound, "")
		})
	}
}

// TestSchemaFollowedAcrossServices: a schema loaded through one service is
// what another serves within seconds; a service that follows nothing
// still writes against the schema the database holds.
func TestSchemaFollowedAcrossServices(t *testing.T) {
	svc1, db, url := newService(t)
	svc2, _ := openService(t, url)
	lone, err := New(t.Context(), Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	load(t, svc1, Main, sites)
	for _, svc := range []*Service{svc2, lone} {
		if _, err := svc.Schema(t.Context(), Main); err != nil {
			t.Fatal(err)
		}
	}
	load(t, svc1, Main, `version: "1.0"
nodes:
  - name: Site
    namespace: Location
    attributes:
      - {name: city, kind: Text, optional: true}
`)
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, err := svc2.Schema(t.Context(), Main)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := s.Attribute("LocationSite", "city"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the other service still serves the old schema after 5 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The lone service's cache is stale, yet its writes check the schema
	// the database holds.
	if _, err := lone.CreateObject(t.Context(), operator, Main, "LocationSite", ObjectInput{Attributes: map[string]any{"name": "a", "city": "Pécs"}}); err != nil {
		t.Fatal(err)
	}
	if s, _ := lone.Schema(t.Context(), Main); func() bool { _, ok := s.Attribute("LocationSite", "city"); return !ok }() {
		t.Fatal("the lone service's write did not refresh its schema")
	}
}

// TestStatementsPerWrite counts the statements of a creation, a read by id,
// an update and a deletion, on main and on a branch (docs/branches.md: one
// statement a write in the common case, store.WriteObject; an update or a
// deletion reads the object first; a read one statement).
func TestStatementsPerWrite(t *testing.T) {
	other, _, url := newService(t)
	load(t, other, Main, vlans)
	a := site(t, other, Main, "site-a")
	newBranch(t, other, "b1")
	svc, proxy := proxiedService(t, url, false)
	ctx := t.Context()
	for _, branch := range []string{Main, "b1"} {
		// The service serves the branch already: its schema is cached.
		if _, err := svc.Schema(ctx, branch); err != nil {
			t.Fatal(err)
		}
		statements := func(what string, want int64, op func() error) {
			t.Helper()
			before := proxy.Statements()
			if err := op(); err != nil {
				t.Fatal(err)
			}
			if got := proxy.Statements() - before; got != want {
				t.Errorf("%s on %s: %d statements, want %d", what, branch, got, want)
			}
		}
		var v Object
		statements("a VLAN's creation", 1, func() (err error) {
			v, err = svc.CreateObject(ctx, operator, branch, "IpamVLAN", ObjectInput{Attributes: map[string]any{"name": "v-" + branch, "vlan_id": 7},
				Relationships: map[string][]string{"site": {a.ID}}})
			return err
		})
		statements("a site's creation", 1, func() error {
			_, err := svc.CreateObject(ctx, operator, branch, "LocationSite", ObjectInput{Attributes: map[string]any{"name": "s-" + branch}})
			return err
		})
		statements("a read by id", 1, func() error { _, err := svc.Object(ctx, operator, branch, v.ID); return err })
		statements("an update of a value", 2, func() error {
			_, err := svc.UpdateObject(ctx, operator, branch, v.ID, ObjectInput{Attributes: map[string]any{"name": "w-" + branch}})
			return err
		})
		statements("a deletion", 2, func() error {
			_, err := svc.DeleteObject(ctx, operator, branch, v.ID)
			return err
		})
	}
}
