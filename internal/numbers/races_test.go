package numbers

import (
	"context"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// proxied opens another service on e's database, as another process
// would, through a proxy that can hold its statements back; it follows no
// other process (its views learn from conflicts alone). With
// inTransactions it makes every write of an object in a transaction, whose
// statements a test holds (branch.Config.InTransactions); without, a
// write is one statement (store.WriteObject).
func (e *env) proxied(inTransactions bool) (*env, *pgtest.Proxy) {
	e.t.Helper()
	proxy, through := pgtest.NewProxy(e.t, e.url)
	db, err := store.Open(context.Background(), through)
	if err != nil {
		e.t.Fatal(err)
	}
	svc, err := New(context.Background(), Config{DB: db, Branch: branch.Config{InTransactions: inTransactions}})
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
// lock (pgtest.WaitForLock): the operation has gone as far as the locks
// held now let it.
func (e *env) waitFor(what string, signals ...<-chan struct{}) {
	e.t.Helper()
	pgtest.WaitForLock(e.t, e.db, what, pgtest.LockWait{MayEnd: true}, signals...)
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
// committed; the second a write in a transaction, or in one statement
// (store.WriteObject) when it is a write of an object. Each release sees
// the other's holding; the one that decides last must see the other's
// removal: the number comes back, and no allocation is left to an object
// that holds nothing.
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
		for _, write := range []string{"in a transaction", "in one statement"} {
			t.Run(c.name+", the second "+write, func(t *testing.T) {
				e := newEnv(t)
				a, b := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b")
				e.endpoint()
				p := e.pool("last holders", []Range{{Start: 1, End: 10, Weight: 1}}, "site")
				first, second := c.setup(e, p.ID, a.ID, b.ID)
				one, proxyOne := e.proxied(true)
				two, proxyTwo := e.proxied(write == "in a transaction")

				// The first change decides on its release, and is held there.
				held := proxyOne.HoldAnswer("DELETE FROM number_allocations")
				firstDone, firstErr := goDo(func() error { return first(one) })
				reached(t, held, "the first release")
				// The second decides while the first is open, or waits for it
				// (a write in one statement waits in its statement).
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
				// A process that reads the division afresh: e's view learns of
				// the releases the others made from their notifications, which
				// may still be on their way.
				if _, n := openEnv(t, e.url).fromPool(branch.Main, p.ID, "again", a.ID, "user"); n != 1 {
					t.Errorf("site A got %d, want 1: the number came back", n)
				}
			})
		}
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

// TestIdentifierPathHoldsItsNumber: an interleaving of branches. VLAN O gets
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

			other, proxy := e.proxied(true)
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

	other, proxy := e.proxied(true)
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
	// Read afresh: the release may be the other process's, of which e's
	// view learns from a notification still on its way.
	if _, n := openEnv(t, e.url).fromPool(branch.Main, p.ID, "again", a.ID, "user"); n != 1 {
		t.Errorf("site A got %d, want 1: the number came back", n)
	}
}

// TestChangesTriedAgainAfterADeadlock: a merge, a rebase or a deletion of
// a branch releases, in one statement, the numbers 1, 2 and 3 of site A
// (locking their allocations in that order), while another transaction,
// standing for a change whose releases lock in the other order (a write
// whose two releases free 3 then 1, or whose claim holds 3 key-share
// locked), holds 3 and asks for 1. The branch's change is held at 2 by a
// third session until the other waits for 1 (seen in pg_stat_activity),
// then asks for 3: PostgreSQL breaks the deadlock by refusing the
// branch's change, the only one of the two that looks for deadlocks (the
// other's deadlock_timeout is an hour, which the harness's superuser may
// set). The change is tried again, waits for the other to commit, and is
// done; the numbers come back.
func TestChangesTriedAgainAfterADeadlock(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(e *env) error
	}{
		{"merge", func(e *env) error { _, err := e.branches.MergeBranch(context.Background(), operator, "bx"); return err }},
		{"rebase", func(e *env) error {
			_, err := e.branches.RebaseBranch(context.Background(), operator, "bx")
			return err
		}},
		{"deletion", func(e *env) error {
			_, err := e.branches.DeleteBranch(context.Background(), operator, "bx")
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := t.Context()
			a := e.site(branch.Main, "site-a")
			e.endpoint()
			p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 10, Weight: 1}}, "site")
			var vlans []branch.Object
			for _, name := range []string{"o1", "o2", "o3"} {
				o, _ := e.fromPool(branch.Main, p.ID, name, a.ID, "user") // 1, 2, 3
				vlans = append(vlans, o)
			}
			// bx renames them; main renumbers them (4, 5, 6): bx's rows and
			// main's ended rows hold 1, 2 and 3 until bx is merged, rebased
			// or deleted, which frees the three in one release.
			e.newBranch("bx")
			for _, o := range vlans {
				if _, err := e.branches.UpdateObject(ctx, operator, "bx", o.ID, branch.ObjectInput{Attributes: map[string]any{"name": o.Attributes["name"].(string) + "-bx"}}); err != nil {
					t.Fatal(err)
				}
				if _, err := e.svc.UpdateObject(ctx, operator, branch.Main, o.ID, branch.ObjectInput{Attributes: map[string]any{"vlan_id": nil}},
					[]FromPool{{Attribute: "vlan_id", Pool: p.ID}}); err != nil {
					t.Fatal(err)
				}
			}
			lock := func(tx *sqlx.Tx, n int, mode string) error {
				_, err := tx.ExecContext(context.Background(), `SELECT FROM number_allocations WHERE pool_id = $1 AND number = $2 FOR `+mode, p.ID, n)
				return err
			}
			begin := func() *sqlx.Tx {
				tx, err := e.db.Beginx()
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { tx.Rollback() })
				return tx
			}
			third, other := begin(), begin()
			thirdPID, otherPID := pgtest.BackendPID(t, third), pgtest.BackendPID(t, other)
			if err := lock(third, 2, "KEY SHARE"); err != nil {
				t.Fatal(err)
			}
			if _, err := other.Exec(`SET LOCAL deadlock_timeout = '1h'`); err != nil {
				t.Fatalf("the other transaction cannot leave deadlocks to the change (it needs a superuser): %v", err)
			}
			if err := lock(other, 3, "UPDATE"); err != nil {
				t.Fatal(err)
			}

			changeDone, changeErr := goDo(func() error { return c.change(e) })
			// The change locks 1, then waits for 2.
			pgtest.WaitForLock(t, e.db, "the "+c.name, pgtest.LockWait{BlockedBy: thirdPID}, changeDone)
			otherDone, otherErr := goDo(func() error { return lock(other, 1, "UPDATE") })
			// The other, holding 3, waits for 1: two sessions wait.
			pgtest.WaitForLock(t, e.db, "the other transaction", pgtest.LockWait{Sessions: 2}, otherDone)
			if err := third.Commit(); err != nil {
				t.Fatal(err)
			}
			// The change takes 2 and waits for 3: a deadlock, which its
			// own check finds a second later; its retry waits for 1.
			pgtest.WaitForLock(t, e.db, "the "+c.name, pgtest.LockWait{BlockedBy: otherPID}, changeDone)
			finished(t, otherDone, otherErr, "the other transaction's lock of 1")
			if err := other.Commit(); err != nil {
				t.Fatalf("the other transaction: %v", err)
			}
			finished(t, changeDone, changeErr, "the "+c.name)

			// PostgreSQL counts the deadlock once its session reports. It
			// may count more than one: when the refused change rolls back,
			// the other's wait for 1 and the change's retry both ask for 1,
			// and PostgreSQL does not promise the one that waited first the
			// tuple; the retry that wins it deadlocks again, is refused
			// again and tried again (the server's log shows the same two
			// statements each time). The test asks that one was forced and
			// that the change was done in the end.
			var deadlocks int
			for deadline := time.Now().Add(30 * time.Second); deadlocks == 0; time.Sleep(10 * time.Millisecond) {
				if err := e.db.GetContext(ctx, &deadlocks, `SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`); err != nil {
					t.Fatal(err)
				}
				if time.Now().After(deadline) {
					t.Fatal("no deadlock was counted: the test forced none")
				}
			}
			if n := e.orphans(); n != 0 {
				t.Errorf("%d allocations held by nothing", n)
			}
			if _, n := e.fromPool(branch.Main, p.ID, "again", a.ID, "user"); n != 1 {
				t.Errorf("site A got %d, want 1: the numbers came back", n)
			}
		})
	}
}
