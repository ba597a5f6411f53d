package store_test

import (
	"encoding/json"
	"errors"
	"testing"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// TestBranchesAndVersions: main is there and stays; a branch sees main's
// versions at its branch point and its own over them; a write that
// replaces a version another write replaced first stores nothing; the
// audit entries keep their branch.
func TestBranchesAndVersions(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := t.Context()
	const id = "01900000-0000-7000-8000-000000000001"
	write := func(w store.VersionWrite) int64 {
		t.Helper()
		var seq int64
		err := store.InTx(ctx, db, func(tx *store.Tx) error {
			var err error
			seq, _, err = store.WriteVersion(ctx, tx, w)
			return err
		})
		if err != nil {
			t.Fatalf("WriteVersion(%+v): %v", w, err)
		}
		return seq
	}
	data := func(v string) map[string]json.RawMessage {
		return map[string]json.RawMessage{"a": json.RawMessage(`"` + v + `"`)}
	}
	main := store.View{Branch: store.MainBranchID}
	first := write(store.VersionWrite{View: main, ID: id, Kind: "k", Data: data("one"),
		Audit: store.AuditEntry{Actor: "op", Action: "create", ObjectKind: "K", Branch: "main"}})

	var b store.BranchRow
	err := store.InTx(ctx, db, func(tx *store.Tx) error {
		if _, err := store.LockBranch(ctx, tx, "main", store.ExclusiveBranch, store.ObjectLocks{}); err != nil {
			return err
		}
		var err error
		b, err = store.InsertBranch(ctx, tx, "b1", "op")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if b.BranchedFrom <= first {
		t.Fatalf("branch point %d, want after %d", b.BranchedFrom, first)
	}
	second := write(store.VersionWrite{View: main, ID: id, Kind: "k", Data: data("two"), Prev: first})

	read := func(v store.View) string {
		t.Helper()
		o, err := store.Object(ctx, db, v, id)
		if err != nil {
			t.Fatal(err)
		}
		return string(o.Data["a"])
	}
	if got := read(b.View()); got != `"one"` {
		t.Fatalf("the branch reads %s, want main's at its point", got)
	}
	if got := read(main); got != `"two"` {
		t.Fatalf("main reads %s", got)
	}
	write(store.VersionWrite{View: b.View(), ID: id, Kind: "k", Data: data("mine")})
	if got := read(b.View()); got != `"mine"` {
		t.Fatalf("the branch reads %s, want its own", got)
	}

	err = store.InTx(ctx, db, func(tx *store.Tx) error {
		_, _, err := store.WriteVersion(ctx, tx, store.VersionWrite{View: main, ID: id, Kind: "k", Data: data("stale"), Prev: first})
		return err
	})
	if !errors.Is(err, store.ErrStale) {
		t.Fatalf("a write over a replaced version: %v, want ErrStale", err)
	}
	if got := read(main); got != `"two"` {
		t.Fatalf("main reads %s after a stale write", got)
	}
	rows, n, err := store.Objects(ctx, db, main, store.ObjectFilter{Kinds: []string{"k"}})
	if err != nil || n != 1 || len(rows) != 1 || rows[0].FromSeq != second {
		t.Fatalf("Objects = %+v, %d, %v", rows, n, err)
	}

	if _, err := db.ExecContext(ctx, `DELETE FROM branches WHERE name = 'main'`); err == nil {
		t.Fatal("main was deleted")
	}
	entries, err := store.AuditEntries(ctx, db, store.AuditFilter{})
	if err != nil || len(entries) != 1 || entries[0].Branch != "main" || entries[0].ObjectName != id {
		t.Fatalf("audit entries %+v, %v", entries, err)
	}
}
