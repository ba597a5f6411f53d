package store_test

import (
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
