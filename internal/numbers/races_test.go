package numbers

import (
	"context"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// proxied opens another service on e's database, as another process
// would, through a proxy that can hold its statements back; it follows no
// other process (its views learn from conflicts alone).
func (e *env) proxied() (*env, *pgtest.Proxy) {
	e.t.Helper()
	proxy, through := pgtest.NewProxy(e.t, e.url)
	db, err := store.Open(context.Background(), through)
	if err != nil {
		e.t.Fatal(err)
	}
	svc, err := New(context.Background(), Config{DB: db})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		svc.Close()
		db.Close()
	})
	return &env{t: e.t, svc: svc, branches: svc.Branches(), db: db, url: e.url}, proxy
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

// waitFor waits until one of signals is closed (an operation done, a held
// statement reached), or until a session of the database waits for a
// lock (pgtest.DoneOrWaiting): the operation has gone as far as the locks
// held now let it.
func (e *env) waitFor(what string, signals ...<-chan struct{}) {
	e.t.Helper()
	pgtest.DoneOrWaiting(e.t, e.db, what, signals...)
}

// reached waits until the statement h holds is held.
func reached(t *testing.T, h *pgtest.Hold, what string) {
	t.Helper()
	select {
	case <-h.Reached():
	case <-time.After(30 * time.Second):
		t.Fatalf("%s never reached the database", what)
	}
}

// finished waits for an operation of goDo and fails on its error.
func finished(t *testing.T, done <-chan struct{}, err *error, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s never finished", what)
	}
	if *err != nil {
		t.Fatalf("%s: %v", what, *err)
	}
}

// orphans counts the allocations that no holding holds: numbers that
// count as free but are never handed out again.
func (e *env) orphans() int {
	e.t.Helper()
	var n int
	if err := e.db.GetContext(e.t.Context(), &n, `SELECT count(*) FROM number_allocations a
		WHERE NOT EXISTS (SELECT 1 FROM number_holdings h WHERE h.pool_id = a.pool_id AND h.division = a.division AND h.number = a.number)`); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// TestLastHoldersGoAtOnce: two transactions each remove one of the last
// two holdings of a number (a deletion, a branch's deletion, a move out of
// the division), the second one's release running while the first is not
// committed. Each release sees the other's holding; the one that decides
// last must see the other's removal: the number comes back, and no
// allocation is left to an object that holds nothing.
func TestLastHoldersGoAtOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		// setup makes two holders of 1 in site a (the first from the
		// pool), and returns the two changes that remove them.
		setup func(e *env, pool, a, b string) (first, second func(*env) error)
	}{
		{"two deletions", func(e *env, pool, a, b string) (func(*env) error, func(*env) error) {
			v1, _ := e.fromPool(branch.Main, pool, "v1", a, "user")
			v2 := e.given(branch.Main, "v2", a, "user", 1)
			return deleting(branch.Main, v1.ID), deleting(branch.Main, v2.ID)
		}},
		{"a deletion on a branch and a branch's deletion", func(e *env, pool, a, b string) (func(*env) error, func(*env) error) {
			e.newBranch("bx")
			e.newBranch("b2")
			v1, _ := e.fromPool("b2", pool, "v1", a, "user")
			e.given("bx", "v2", a, "user", 1)
			return deleting("b2", v1.ID), func(o *env) error {
				_, err := o.branches.DeleteBranch(context.Background(), operator, "bx")
				return err
			}
		}},
		{"a move out of the division and a deletion", func(e *env, pool, a, b string) (func(*env) error, func(*env) error) {
			v1, _ := e.fromPool(branch.Main, pool, "v1", a, "user")
			v2 := e.given(branch.Main, "v2", a, "user", 1)
			return func(o *env) error {
				_, err := o.branches.UpdateObject(context.Background(), operator, branch.Main, v2.ID, branch.ObjectInput{Relationships: map[string][]string{"site": {b}}})
				return err
			}, deleting(branch.Main, v1.ID)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			a, b := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b")
			e.endpoint()
			p := e.pool("last holders", []Range{{Start: 1, End: 10, Weight: 1}}, "site")
			first, second := c.setup(e, p.ID, a.ID, b.ID)
			one, proxyOne := e.proxied()
			two, proxyTwo := e.proxied()

			// The first change decides on its release, and is held there.
			held := proxyOne.HoldAnswer("DELETE FROM number_allocations")
			firstDone, firstErr := goDo(func() error { return first(one) })
			reached(t, held, "the first release")
			// The second decides while the first is open, or waits for it.
			next := proxyTwo.HoldAnswer("DELETE FROM number_allocations")
			secondDone, secondErr := goDo(func() error { return second(two) })
			e.waitFor("the second release", next.Reached(), secondDone)
			held.Release()
			next.Release()
			finished(t, firstDone, firstErr, "the first change")
			finished(t, secondDone, secondErr, "the second change")

			if n := e.orphans(); n != 0 {
				t.Errorf("%d allocations held by nothing", n)
			}
			if _, n := e.fromPool(branch.Main, p.ID, "again", a.ID, "user"); n != 1 {
				t.Errorf("site A got %d, want 1: the number came back", n)
			}
		})
	}
}

// deleting is the deletion of the object id on the branch.
func deleting(branchName, id string) func(*env) error {
	return func(o *env) error {
		_, err := o.branches.DeleteObject(context.Background(), operator, branchName, id)
		return err
	}
}

// sharedNumbers lists the numbers of the pool that two objects hold in
// one division, on any branch (no number is given in the tests that ask).
func (e *env) sharedNumbers(pool string) []string {
	e.t.Helper()
	var out []string
	if err := e.db.SelectContext(e.t.Context(), &out, `SELECT division::text || ' ' || number FROM number_holdings
		WHERE pool_id = $1 AND number IS NOT NULL GROUP BY division, number HAVING count(DISTINCT object_id) > 1`, pool); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// TestIdentifierPathHoldsItsNumber: the interleaving. VLAN O gets
// 100 on main; on branch bx it is renumbered (value: null with from_pool)
// to 101; on main it is renumbered again and takes 101 through its
// identifier's allocation, its write held open once its holding is
// written. Then bx is deleted, or O renumbered again on bx, either of
// which used to free 101 (the holding on main not committed); then VLAN
// P is created from the pool in the same site, and O's write commits. No
// number may be held by two VLANs of the site.
func TestIdentifierPathHoldsItsNumber(t *testing.T) {
	for _, c := range []struct {
		name string
		bx   func(e *env, pool, o string) error
	}{
		{"bx deleted", func(e *env, pool, o string) error {
			_, err := e.branches.DeleteBranch(context.Background(), operator, "bx")
			return err
		}},
		{"O renumbered again on bx", func(e *env, pool, o string) error {
			_, err := e.svc.UpdateObject(context.Background(), operator, "bx", o, branch.ObjectInput{Attributes: map[string]any{"vlan_id": nil}},
				[]FromPool{{Attribute: "vlan_id", Pool: pool}})
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			x := e.site(branch.Main, "site-x")
			e.endpoint()
			p := e.pool("VLAN IDs per site", []Range{{Start: 100, End: 199, Weight: 1}}, "site")
			renumber := func(on *env, branchName, id string) (int64, error) {
				o, err := on.svc.UpdateObject(context.Background(), operator, branchName, id, branch.ObjectInput{Attributes: map[string]any{"vlan_id": nil}},
					[]FromPool{{Attribute: "vlan_id", Pool: p.ID}})
				if err != nil {
					return 0, err
				}
				return o.Attributes["vlan_id"].(int64), nil
			}
			o, _ := e.fromPool(branch.Main, p.ID, "O", x.ID, "user") // 100
			e.newBranch("bx")
			if n, err := renumber(e, "bx", o.ID); err != nil || n != 101 {
				t.Fatalf("O renumbered on bx: %d, %v; want 101", n, err)
			}

			other, proxy := e.proxied()
			open := proxy.HoldAnswer("INSERT INTO number_holdings")
			var onMain int64
			mainDone, mainErr := goDo(func() (err error) {
				onMain, err = renumber(other, branch.Main, o.ID)
				return err
			})
			reached(t, open, "O's write on main")
			bxDone, bxErr := goDo(func() error { return c.bx(e, p.ID, o.ID) })
			e.waitFor(c.name, bxDone)
			_, np := e.fromPool(branch.Main, p.ID, "P", x.ID, "user")
			open.Release()
			finished(t, mainDone, mainErr, "O's write on main")
			finished(t, bxDone, bxErr, c.name)

			if onMain != 101 {
				t.Fatalf("O got %d on main, want 101 (its identifier's)", onMain)
			}
			if np == 101 {
				t.Errorf("P got 101, which O holds from the pool")
			}
			if shared := e.sharedNumbers(p.ID); len(shared) > 0 {
				t.Errorf("numbers held by two VLANs of a division: %v", shared)
			}
			if n := e.orphans(); n != 0 {
				t.Errorf("%d allocations held by nothing", n)
			}
		})
	}
}

// TestBranchDeletionMeetsADeletionOnMain: a VLAN of main that branch bx
// sees is deleted on main while bx is deleted. The deletion on main ends
// the VLAN's holding (bx sees it) rather than deleting it; the deletion of
// bx must then drop it, as no branch sees it any more, and free the
// number, whichever commits first.
func TestBranchDeletionMeetsADeletionOnMain(t *testing.T) {
	e := newEnv(t)
	a := e.site(branch.Main, "site-a")
	e.endpoint()
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 10, Weight: 1}}, "site")
	v, _ := e.fromPool(branch.Main, p.ID, "v", a.ID, "user") // 1
	e.newBranch("bx")

	other, proxy := e.proxied()
	open := proxy.HoldAnswer("INSERT INTO number_holdings")
	mainDone, mainErr := goDo(func() error { return deleting(branch.Main, v.ID)(other) })
	reached(t, open, "the deletion on main")
	bxDone, bxErr := goDo(func() error {
		_, err := e.branches.DeleteBranch(context.Background(), operator, "bx")
		return err
	})
	e.waitFor("bx's deletion", bxDone)
	open.Release()
	finished(t, mainDone, mainErr, "the deletion on main")
	finished(t, bxDone, bxErr, "bx's deletion")

	var rows int
	if err := e.db.GetContext(t.Context(), &rows, `SELECT count(*) FROM number_holdings WHERE object_id = $1`, v.ID); err != nil {
		t.Fatal(err)
	}
	if rows != 0 {
		t.Errorf("the deleted VLAN keeps %d holdings, though no branch sees it", rows)
	}
	if n := e.orphans(); n != 0 {
		t.Errorf("%d allocations held by nothing", n)
	}
	if _, n := e.fromPool(branch.Main, p.ID, "again", a.ID, "user"); n != 1 {
		t.Errorf("site A got %d, want 1: the number came back", n)
	}
}
