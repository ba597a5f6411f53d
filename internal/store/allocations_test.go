package store_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"testing"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// privatePool stores VPC main of acme/prod with its pool vpc-main and
// returns the pool's uid.
func privatePool(t *testing.T, db *store.DB) string {
	t.Helper()
	cidr := netip.MustParsePrefix("10.42.0.0/16")
	v, err := store.InsertVPC(t.Context(), db, store.VPCRow{UID: "8f0c5c6e-0d3b-4c8e-9a51-5c1b0c3d2e10", Namespace: "acme/prod", Name: "main", CIDR: cidr, CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.InsertPool(t.Context(), db, store.PoolRow{UID: "0b8e2b4a-6a51-4c1e-8f0d-2d9b1a7c3e44", Namespace: "acme/prod", Name: "vpc-main", Kind: "private",
		CIDR: cidr, VPCUID: v.UID, CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return p.UID
}

func vmRow(pool, address, uid, name, ns string) store.AllocationRow {
	return store.AllocationRow{Namespace: "acme/prod", Name: "vpc-main-" + address, PoolUID: pool, Address: netip.MustParseAddr(address),
		OwnerKind: "VirtualMachine", OwnerUID: uid, OwnerName: name, OwnerNamespace: ns, CreatedBy: "test"}
}

// TestOneAddressPerOwner: the schema gives an owner (namespace, kind, uid,
// and a VM's NIC) at most one address of a pool, whatever its name says and
// however many insert at once; an address is held once.
func TestOneAddressPerOwner(t *testing.T) {
	db := pgtest.NewDB(t)
	pool := privatePool(t, db)
	insert := func(a store.AllocationRow) error {
		_, err := store.InsertAllocation(t.Context(), db, a, "vpc-main")
		return err
	}
	if err := insert(vmRow(pool, "10.42.1.2", "vm-1", "web-01/0", "acme/prod")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		row  store.AllocationRow
		want error
	}{
		{"the same owner", vmRow(pool, "10.42.1.3", "vm-1", "web-01/0", "acme/prod"), store.ErrObjectExists},
		{"the same VM and NIC under another hostname", vmRow(pool, "10.42.1.3", "vm-1", "web-02/0", "acme/prod"), store.ErrObjectExists},
		{"the same address for another owner", vmRow(pool, "10.42.1.2", "vm-2", "web-02/0", "acme/prod"), store.ErrObjectExists},
		{"another NIC of the VM", vmRow(pool, "10.42.1.3", "vm-1", "web-01/1", "acme/prod"), nil},
		{"the same owner in another namespace", vmRow(pool, "10.42.1.4", "vm-1", "web-01/0", "globex/prod"), nil},
	} {
		if err := insert(c.row); !errors.Is(err, c.want) && (c.want != nil || err != nil) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}

	// 16 inserts at once of one owner, each for another address: one row.
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Go(func() {
			errs[i] = insert(vmRow(pool, fmt.Sprintf("10.42.2.%d", i+1), "vm-9", fmt.Sprintf("host-%d/0", i), "acme/prod"))
		})
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, store.ErrObjectExists):
			t.Errorf("a racing insert: %v", err)
		}
	}
	var held int
	if err := db.Get(&held, `SELECT count(*) FROM allocations WHERE owner_uid = 'vm-9'`); err != nil {
		t.Fatal(err)
	}
	if won != 1 || held != 1 {
		t.Errorf("16 racing inserts of one owner: %d succeeded, %d rows; want 1 and 1", won, held)
	}
}

// TestClaimAddress: a claim through a connection pooler (OpenPooled: the
// function claim_address) stores what a claim straight to PostgreSQL (the
// statement prepared) does: the allocation and its audit entry, nothing
// for an address or owner taken, ErrNotFound for a subnet gone.
func TestClaimAddress(t *testing.T) {
	type stored struct {
		Allocations []string
		Audit       []string
	}
	claims := func(t *testing.T, pooled bool) stored {
		url := pgtest.NewURL(t)
		open := store.Open
		if pooled {
			open = store.OpenPooled
		}
		db, err := open(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		pool := privatePool(t, db)
		first := vmRow(pool, "10.42.1.2", "vm-1", "web-01/0", "acme/prod")
		got, err := store.InsertAllocation(t.Context(), db, first, "vpc-main")
		if err != nil || got.Address != first.Address || got.OwnerUID != "vm-1" || got.UID == "" {
			t.Errorf("pooled %v: claim = %+v, %v", pooled, got, err)
		}
		for _, taken := range []store.AllocationRow{vmRow(pool, "10.42.1.2", "vm-2", "web-02/0", "acme/prod"), vmRow(pool, "10.42.1.3", "vm-1", "web-01/0", "acme/prod")} {
			if _, err := store.InsertAllocation(t.Context(), db, taken, "vpc-main"); !errors.Is(err, store.ErrObjectExists) {
				t.Errorf("pooled %v: claim of %s for %s = %v, want ErrObjectExists", pooled, taken.Address, taken.OwnerUID, err)
			}
		}
		gone := vmRow(pool, "10.42.1.4", "vm-3", "web-03/0", "acme/prod")
		gone.SubnetUID = "6d1f8a52-3c1e-4d7b-9a0e-1f2e3d4c5b6a"
		if _, err := store.InsertAllocation(t.Context(), db, gone, "vpc-main"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("pooled %v: claim in a subnet that is gone = %v, want ErrNotFound", pooled, err)
		}
		var s stored
		if err := db.Select(&s.Allocations, `SELECT concat_ws(' ', namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, owner_ref, subnet_uid, created_by) FROM allocations ORDER BY address`); err != nil {
			t.Fatal(err)
		}
		if err := db.Select(&s.Audit, `SELECT concat_ws(' ', actor, action, namespace, object_kind, object_name, before, after) FROM audit_log ORDER BY id`); err != nil {
			t.Fatal(err)
		}
		return s
	}
	direct, pooled := claims(t, false), claims(t, true)
	if fmt.Sprint(direct) != fmt.Sprint(pooled) {
		t.Errorf("a claim straight to PostgreSQL stored\n%v\nand through a connection pooler\n%v", direct, pooled)
	}
	if len(direct.Allocations) != 1 || len(direct.Audit) != 1 {
		t.Errorf("stored %v, want one allocation and its audit entry", direct)
	}
}

// TestInsertAllocations: claims made in one statement store what they
// store one by one, with the same audit entries, straight to PostgreSQL and
// as through a connection pooler (unprepared); a statement that fails
// stores none of them.
func TestInsertAllocations(t *testing.T) {
	type stored struct {
		Allocations []string
		Audit       []string
		Errors      []string
	}
	claims := func(t *testing.T, together bool, open func(context.Context, string) (*store.DB, error)) stored {
		db, err := open(t.Context(), pgtest.NewURL(t))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		pool := privatePool(t, db)
		if _, err := store.InsertAllocation(t.Context(), db, vmRow(pool, "10.42.1.2", "vm-1", "web-01/0", "acme/prod"), "vpc-main"); err != nil {
			t.Fatal(err)
		}
		rows := []store.AllocationRow{
			vmRow(pool, "10.42.1.5", "vm-4", "web-04/0", "acme/prod"),
			vmRow(pool, "10.42.1.2", "vm-2", "web-02/0", "acme/prod"), // address taken
			vmRow(pool, "10.42.1.3", "vm-1", "web-01/0", "acme/prod"), // owner holds one
			vmRow(pool, "10.42.1.4", "vm-3", "web-03/0", "acme/globex"),
		}
		var s stored
		errs := make([]error, len(rows))
		if together {
			got, each, err := store.InsertAllocations(t.Context(), db, rows, []string{"vpc-main", "vpc-main", "vpc-main", "vpc-main"})
			if err != nil {
				t.Fatal(err)
			}
			for i, g := range got {
				if each[i] == nil && (g.Address != rows[i].Address || g.UID == "" || g.OwnerUID != rows[i].OwnerUID) {
					t.Errorf("row %d: stored %+v for %+v", i, g, rows[i])
				}
			}
			errs = each
		} else {
			for i, r := range rows {
				_, errs[i] = store.InsertAllocation(t.Context(), db, r, "vpc-main")
			}
		}
		for _, err := range errs {
			s.Errors = append(s.Errors, fmt.Sprint(errors.Is(err, store.ErrObjectExists), err))
		}
		if err := db.Select(&s.Allocations, `SELECT concat_ws(' ', namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, owner_ref, subnet_uid, created_by) FROM allocations ORDER BY address`); err != nil {
			t.Fatal(err)
		}
		if err := db.Select(&s.Audit, `SELECT concat_ws(' ', actor, action, namespace, object_kind, object_name, before, after) FROM audit_log ORDER BY object_name`); err != nil {
			t.Fatal(err)
		}
		if together {
			gone := vmRow(pool, "10.42.1.9", "vm-9", "web-09/0", "acme/prod")
			gone.SubnetUID = "6d1f8a52-3c1e-4d7b-9a0e-1f2e3d4c5b6a"
			batch := []store.AllocationRow{vmRow(pool, "10.42.1.8", "vm-8", "web-08/0", "acme/prod"), gone}
			if _, _, err := store.InsertAllocations(t.Context(), db, batch, []string{"vpc-main", "vpc-main"}); err == nil {
				t.Error("claims of which one is in a subnet that is gone were stored")
			}
			var n int
			if err := db.Get(&n, `SELECT count(*) FROM allocations`); err != nil || n != 3 {
				t.Errorf("%d allocations after a failed statement, %v; want 3: the failed statement stored some", n, err)
			}
		}
		return s
	}
	alone, together, pooled := claims(t, false, store.Open), claims(t, true, store.Open), claims(t, true, store.OpenPooled)
	if fmt.Sprint(alone) != fmt.Sprint(together) || fmt.Sprint(alone) != fmt.Sprint(pooled) {
		t.Errorf("claims one by one stored\n%v\nin one statement\n%v\nunprepared\n%v", alone, together, pooled)
	}
	if len(alone.Allocations) != 3 || len(alone.Audit) != 3 {
		t.Errorf("stored %v, want three allocations and their audit entries", alone)
	}
}
