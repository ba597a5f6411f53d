package pgtest_test

import (
	"testing"

	"pivirt.hu/ipam/internal/pgtest"
)

// TestLockWaitsSeen: a session that waits for a row another holds is seen
// waiting, as waiting for that session; a statement that takes no lock
// held is seen ending.
func TestLockWaitsSeen(t *testing.T) {
	db := pgtest.NewDB(t)
	if _, err := db.Exec(`CREATE TABLE rows (id int PRIMARY KEY); INSERT INTO rows VALUES (1), (2)`); err != nil {
		t.Fatal(err)
	}
	holder, err := db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	if _, err := holder.Exec(`SELECT FROM rows WHERE id = 1 FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	free := make(chan struct{})
	go func() {
		defer close(free)
		if _, err := db.Exec(`UPDATE rows SET id = 3 WHERE id = 2`); err != nil {
			t.Error(err)
		}
	}()
	if pgtest.WaitForLock(t, db, "an update of a row nobody holds", pgtest.LockWait{MayEnd: true}, free) {
		t.Fatal("an update of a row nobody holds was seen waiting")
	}
	held := make(chan struct{})
	go func() {
		defer close(held)
		if _, err := db.Exec(`UPDATE rows SET id = 4 WHERE id = 1`); err != nil {
			t.Error(err)
		}
	}()
	pgtest.WaitForLock(t, db, "an update of the held row", pgtest.LockWait{BlockedBy: pgtest.BackendPID(t, holder)}, held)
	if !pgtest.WaitForLock(t, db, "an update of the held row", pgtest.LockWait{MayEnd: true}, held) {
		t.Fatal("the update of the held row ended while the row was held")
	}
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	<-held
}
