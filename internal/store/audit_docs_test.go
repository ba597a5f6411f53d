package store_test

import (
	"encoding/json"
	"net/netip"
	"slices"
	"testing"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/audit/audittest"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// TestSQLWrittenAuditDecodes: every audit entry the SQL of the store writes
// (claims of addresses, prepared, through claim_address, in a batch and
// under quota; their renames and releases, one by one and all of a
// subnet; claims and releases of numbers) is exactly of the type of its
// kind and action (internal/audit): no key the type lacks, every key it
// has, straight to PostgreSQL and through a connection pooler.
func TestSQLWrittenAuditDecodes(t *testing.T) {
	for _, pooled := range []bool{false, true} {
		open := store.Open
		if pooled {
			open = store.OpenPooled
		}
		db, err := open(t.Context(), pgtest.NewURL(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		writeSQLAudit(t, db)
		entries, err := store.AuditEntries(t.Context(), db, store.AuditFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var changes []string
		for _, e := range entries {
			changes = append(changes, e.ObjectKind+" "+e.Action)
			shape, ok := audit.ShapeOf(e.ObjectKind, e.Action)
			if !ok {
				t.Errorf("pooled %v: %s %s has no shape", pooled, e.Action, e.ObjectKind)
				continue
			}
			for _, doc := range []struct {
				name  string
				raw   store.RawJSON
				proto audit.Payload
			}{{"before", e.Before, shape.Before}, {"after", e.After, shape.After}} {
				switch {
				case doc.proto == nil && doc.raw != nil:
					t.Errorf("pooled %v: %s %s %s has a %s, %s, where its shape has none", pooled, e.Action, e.ObjectKind, e.ObjectName, doc.name, doc.raw)
				case doc.proto != nil && doc.raw == nil:
					t.Errorf("pooled %v: %s %s %s has no %s", pooled, e.Action, e.ObjectKind, e.ObjectName, doc.name)
				case doc.proto != nil:
					if err := audittest.Exact(doc.raw, doc.proto); err != nil {
						t.Errorf("pooled %v: the %s of %s %s %s: %v", pooled, doc.name, e.Action, e.ObjectKind, e.ObjectName, err)
					}
				}
			}
		}
		slices.Sort(changes)
		if got, want := slices.Compact(changes), []string{"CoreNumberPool allocate", "CoreNumberPool create", "CoreNumberPool release", "IPAllocation allocate", "IPAllocation release", "IPAllocation rename"}; !slices.Equal(got, want) {
			t.Errorf("pooled %v: the SQL wrote %v, want %v", pooled, got, want)
		}
		// The claims of the subnet name it; the others none.
		var subnets []string
		if err := db.Select(&subnets, `SELECT object_name || ' ' || action || ' ' || coalesce(coalesce(after, before) ->> 'subnet', '-') FROM audit_log
			WHERE object_kind = 'IPAllocation' ORDER BY id`); err != nil {
			t.Fatal(err)
		}
		want := []string{"vpc-main-10.42.1.2 allocate web", "vpc-main-10.42.1.3 allocate web", "vpc-main-10.42.9.1 allocate -", "vpc-main-10.42.1.4 allocate web",
			"vpc-main-10.42.1.2 rename web", "vpc-main-10.42.1.2 release web", "vpc-main-10.42.9.1 release -", "vpc-main-10.42.1.3 release web", "vpc-main-10.42.1.4 release web"}
		if !slices.Equal(subnets, want) {
			t.Errorf("pooled %v: the entries of addresses name the subnets\n%q\nwant\n%q", pooled, subnets, want)
		}
	}
}

// writeSQLAudit makes every change whose audit entry the store's SQL
// writes.
func writeSQLAudit(t *testing.T, db *store.DB) {
	ctx := t.Context()
	pool := privatePool(t, db)
	subnet, err := store.InsertSubnet(ctx, db, store.SubnetRow{UID: "3a9d5c1e-7b2f-4e8a-9c0d-1e2f3a4b5c6d", VPCUID: "8f0c5c6e-0d3b-4c8e-9a51-5c1b0c3d2e10", Name: "web",
		CIDR: netip.MustParsePrefix("10.42.1.0/24"), Gateway: netip.MustParseAddr("10.42.1.1"), CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	inSubnet := func(a store.AllocationRow) store.AllocationRow {
		a.SubnetUID = subnet.UID
		return a
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = store.InsertAllocation(ctx, db, inSubnet(vmRow(pool, "10.42.1.2", "vm-1", "web-01/0", "acme/prod")), "vpc-main")
	must(err)
	_, errs, err := store.InsertAllocations(ctx, db, []store.AllocationRow{inSubnet(vmRow(pool, "10.42.1.3", "vm-2", "web-02/0", "acme/prod")),
		vmRow(pool, "10.42.9.1", "vm-3", "db-01/0", "acme/prod")}, []string{"vpc-main", "vpc-main"})
	must(err)
	must(errs[0])
	must(errs[1])
	must(store.InTx(ctx, db, func(tx *store.Tx) error {
		_, err := store.InsertAllocationUnderQuota(ctx, tx, inSubnet(vmRow(pool, "10.42.1.4", "vm-4", "web-04/0", "acme/prod")), "vpc-main")
		return err
	}))
	_, err = store.RenameVM(ctx, db, "acme/prod", "vm-1", "web-99", "test")
	must(err)
	_, err = store.ReleaseAllocation(ctx, db, pool, "vpc-main", netip.MustParseAddr("10.42.1.2"), store.OwnerKey{}, "test")
	must(err)
	_, err = store.ReleaseAllocation(ctx, db, pool, "vpc-main", netip.Addr{}, store.OwnerKey{Namespace: "acme/prod", Kind: "VirtualMachine", UID: "vm-3", Ref: "0"}, "test")
	must(err)
	_, err = store.ReleaseAllocations(ctx, db, pool, subnet.UID, "", "vpc-main", "test")
	must(err)

	must(store.InTx(ctx, db, func(tx *store.Tx) error {
		p, err := store.InsertNumberPool(ctx, tx, store.NumberPoolRow{ID: "5b2d8e1a-4c3f-4a6b-8d9e-0f1a2b3c4d5e", Name: "VLAN IDs", KindID: "k", AttributeID: "a",
			Scope: []string{"s"}, Ranges: []store.NumberRange{{Start: 100, End: 199, Weight: 1}}, CreatedBy: "test"},
			store.AuditEntry{Actor: "test", Action: audit.Create, ObjectKind: audit.KindNumberPool, ObjectName: "VLAN IDs", After: store.JSON(audit.NumberPool{Name: "VLAN IDs"})})
		if err != nil {
			return err
		}
		key := store.NumberKey{Pool: p.ID, Division: json.RawMessage(`["site-a"]`), Number: 100}
		if err := store.ClaimNumber(ctx, tx, store.NumberClaim{NumberKey: key, Revision: p.Revision, Identifier: "6c3e9f2b-5d4a-4b7c-9e0f-1a2b3c4d5e6f",
			Object: "6c3e9f2b-5d4a-4b7c-9e0f-1a2b3c4d5e6f", Branch: "main", Actor: "test", PoolName: p.Name}); err != nil {
			return err
		}
		_, err = store.ReleaseNumbers(ctx, tx, []store.NumberKey{key}, "test", "main")
		return err
	}))
}
