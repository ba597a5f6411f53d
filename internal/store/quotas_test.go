package store_test

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// limits are the limits of a quota from pairs of a kind and a number.
func limits(kv ...any) map[string]int64 {
	m := map[string]int64{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = int64(kv[i+1].(int))
	}
	return m
}

// TestQuotaRows: a quota is stored, replaced, read, listed, found by the
// namespaces its pattern matches, and deleted.
func TestQuotaRows(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := t.Context()
	for _, q := range []store.QuotaRow{
		{Pattern: "acme/*", Limits: limits(store.QuotaFloatingIPs, 2), UpdatedBy: "op"},
		{Pattern: "acme/prod", Limits: limits(store.QuotaVPCs, 1, store.QuotaAddresses, 0), UpdatedBy: "op"},
		{Pattern: "globex/*", Limits: limits(store.QuotaSubnets, 3), UpdatedBy: "op"},
	} {
		got, err := store.PutQuota(ctx, db, q)
		if err != nil || got.Pattern != q.Pattern || fmt.Sprint(got.Limits) != fmt.Sprint(q.Limits) || got.UpdatedAt.IsZero() {
			t.Fatalf("PutQuota(%+v) = %+v, %v", q, got, err)
		}
	}
	replaced, err := store.PutQuota(ctx, db, store.QuotaRow{Pattern: "acme/*", Limits: limits(store.QuotaFloatingIPs, 5, store.QuotaSubnets, 4), UpdatedBy: "op2"})
	if err != nil || fmt.Sprint(replaced.Limits) != fmt.Sprint(limits(store.QuotaFloatingIPs, 5, store.QuotaSubnets, 4)) || replaced.UpdatedBy != "op2" {
		t.Errorf("replacing acme/*: %+v, %v", replaced, err)
	}
	if _, err := store.PutQuota(ctx, db, store.QuotaRow{Pattern: "none/*", Limits: map[string]int64{}, UpdatedBy: "op"}); err == nil {
		t.Error("a quota without a limit was stored")
	}
	all, err := store.Quotas(ctx, db)
	if err != nil || len(all) != 3 || all[0].Pattern != "acme/*" || all[2].Pattern != "globex/*" {
		t.Errorf("Quotas = %+v, %v", all, err)
	}
	of, err := store.QuotasOf(ctx, db, "acme/prod")
	if err != nil || len(of) != 2 || of[0].Pattern != "acme/*" || of[1].Pattern != "acme/prod" {
		t.Errorf("QuotasOf(acme/prod) = %+v, %v", of, err)
	}
	for ns, want := range map[string]bool{"acme/prod": true, "acme/dev": false, "acme": false, "globex/x/y": false} {
		if got, err := store.QuotaApplies(ctx, db, ns, store.QuotaVPCs); err != nil || got != want {
			t.Errorf("QuotaApplies(%s, vpcs) = %v, %v; want %v", ns, got, err, want)
		}
	}
	if got, err := store.QuotaApplies(ctx, db, "globex/x/y", store.QuotaSubnets); err != nil || !got {
		t.Errorf("QuotaApplies(globex/x/y, subnets) = %v, %v; want true", got, err)
	}
	if q, err := store.Quota(ctx, db, "globex/*", false); err != nil || q.Limits[store.QuotaSubnets] != 3 {
		t.Errorf("Quota(globex/*) = %+v, %v", q, err)
	}
	if gone, err := store.DeleteQuota(ctx, db, "globex/*"); err != nil || gone.Pattern != "globex/*" {
		t.Errorf("DeleteQuota(globex/*) = %+v, %v", gone, err)
	}
	for _, err := range []error{
		func() error { _, err := store.DeleteQuota(ctx, db, "globex/*"); return err }(),
		func() error { _, err := store.Quota(ctx, db, "globex/*", false); return err }(),
	} {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a deleted quota: %v, want ErrNotFound", err)
		}
	}
}

// TestQuotaGuard: a claim whose owner's namespace a quota of addresses
// matches stores nothing, straight to PostgreSQL, through a connection
// pooler (claim_address) and in a statement of several claims, as if the
// address were taken, and QuotaApplies tells why; made under its quota
// (InsertAllocationUnderQuota) it is stored with its audit entry. A quota
// of other kinds, or of other namespaces, changes nothing.
func TestQuotaGuard(t *testing.T) {
	for _, pooled := range []bool{false, true} {
		t.Run(fmt.Sprintf("pooled=%v", pooled), func(t *testing.T) {
			open := store.Open
			if pooled {
				open = store.OpenPooled
			}
			db, err := open(t.Context(), pgtest.NewURL(t))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx := t.Context()
			pool := privatePool(t, db)
			for _, q := range []store.QuotaRow{
				{Pattern: "capped/*", Limits: limits(store.QuotaAddresses, 5), UpdatedBy: "op"},
				{Pattern: "acme/prod", Limits: limits(store.QuotaVPCs, 5), UpdatedBy: "op"},
			} {
				if _, err := store.PutQuota(ctx, db, q); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := store.InsertAllocation(ctx, db, vmRow(pool, "10.42.1.2", "vm-1", "web-01/0", "capped/prod"), "vpc-main"); !errors.Is(err, store.ErrObjectExists) {
				t.Errorf("a claim under a quota of addresses = %v, want ErrObjectExists", err)
			}
			rows := []store.AllocationRow{vmRow(pool, "10.42.1.3", "vm-2", "web-02/0", "capped/dev"), vmRow(pool, "10.42.1.4", "vm-3", "web-03/0", "acme/prod")}
			_, errs, err := store.InsertAllocations(ctx, db, rows, []string{"vpc-main", "vpc-main"})
			if err != nil || !errors.Is(errs[0], store.ErrObjectExists) || errs[1] != nil {
				t.Errorf("claims in one statement, the first under a quota: %v, %v; want ErrObjectExists and nil", errs, err)
			}
			if applies, err := store.QuotaApplies(ctx, db, "capped/prod", store.QuotaAddresses); err != nil || !applies {
				t.Errorf("QuotaApplies(capped/prod, addresses) = %v, %v; want true", applies, err)
			}
			err = store.InTx(ctx, db, func(tx *store.Tx) error {
				if err := store.LockQuotas(ctx, tx, "capped/prod"); err != nil {
					return err
				}
				_, err := store.InsertAllocationUnderQuota(ctx, tx, vmRow(pool, "10.42.1.2", "vm-1", "web-01/0", "capped/prod"), "vpc-main")
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			var stored []string
			if err := db.Select(&stored, `SELECT owner_namespace || ' ' || host(address) FROM allocations ORDER BY address`); err != nil {
				t.Fatal(err)
			}
			if want := []string{"capped/prod 10.42.1.2", "acme/prod 10.42.1.4"}; !slices.Equal(stored, want) {
				t.Errorf("stored %v, want %v", stored, want)
			}
			var audited int
			if err := db.Get(&audited, `SELECT count(*) FROM audit_log WHERE action = 'allocate'`); err != nil || audited != 2 {
				t.Errorf("%d allocate entries, %v; want 2", audited, err)
			}
		})
	}
}

// TestQuotaUsage: what a namespace holds of each kind, as a quota counts
// it (docs/allocation.md, "Quotas"), with the limits that apply to it;
// and the namespaces under quotas.
func TestQuotaUsage(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := t.Context()
	pool := privatePool(t, db)
	if _, err := store.InsertSubnet(ctx, db, store.SubnetRow{UID: "5a7e2f3c-1b4d-4e6f-8a9b-0c1d2e3f4a5b", VPCUID: "8f0c5c6e-0d3b-4c8e-9a51-5c1b0c3d2e10", Name: "web",
		CIDR: netip.MustParsePrefix("10.42.1.0/24"), Gateway: netip.MustParseAddr("10.42.1.1"), CreatedBy: "test"}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []store.AllocationRow{
		vmRow(pool, "10.42.1.2", "vm-1", "web-01/0", "acme/prod"), vmRow(pool, "10.42.1.3", "vm-2", "web-02/0", "acme/prod"),
		vmRow(pool, "10.42.1.4", "vm-3", "web-03/0", "acme/dev"), vmRow(pool, "10.42.1.5", "vm-4", "web-04/0", "other"),
	} {
		if _, err := store.InsertAllocation(ctx, db, r, "vpc-main"); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []store.QuotaRow{
		{Pattern: "acme/*", Limits: limits(store.QuotaAddresses, 10, store.QuotaVPCs, 3), UpdatedBy: "op"},
		{Pattern: "acme/prod", Limits: limits(store.QuotaAddresses, 4), UpdatedBy: "op"},
	} {
		if _, err := store.PutQuota(ctx, db, q); err != nil {
			t.Fatal(err)
		}
	}
	got, used, err := store.QuotaUsage(ctx, db, "acme/prod", store.QuotaAddresses)
	if want := []store.QuotaLimit{{Pattern: "acme/*", Limit: 10}, {Pattern: "acme/prod", Limit: 4}}; err != nil || used != 2 || !slices.Equal(got, want) {
		t.Errorf("QuotaUsage(acme/prod, addresses) = %v, %d, %v; want %v, 2", got, used, err, want)
	}
	if got, used, err := store.QuotaUsage(ctx, db, "acme/prod", store.QuotaSubnets); err != nil || used != 1 || len(got) != 0 {
		t.Errorf("QuotaUsage(acme/prod, subnets) = %v, %d, %v; want none, 1", got, used, err)
	}
	usage, err := store.NamespaceUsage(ctx, db, []string{"acme/prod", "acme/dev", "nobody"})
	want := map[string]map[string]int64{
		"acme/prod": {store.QuotaVPCs: 1, store.QuotaSubnets: 1, store.QuotaFloatingIPs: 0, store.QuotaAddresses: 2},
		"acme/dev":  {store.QuotaVPCs: 0, store.QuotaSubnets: 0, store.QuotaFloatingIPs: 0, store.QuotaAddresses: 1},
		"nobody":    {store.QuotaVPCs: 0, store.QuotaSubnets: 0, store.QuotaFloatingIPs: 0, store.QuotaAddresses: 0},
	}
	if err != nil || fmt.Sprint(usage) != fmt.Sprint(want) {
		t.Errorf("NamespaceUsage = %v, %v; want %v", usage, err, want)
	}
	if ns, err := store.QuotaNamespaces(ctx, db, []string{"acme/*", "acme/prod"}); err != nil || !slices.Equal(ns, []string{"acme/dev", "acme/prod"}) {
		t.Errorf("QuotaNamespaces = %v, %v; want acme/dev and acme/prod", ns, err)
	}
}

// FuzzNamespacePatterns: NamespacePatterns, through which statements
// find the quotas of a namespace, lists exactly the patterns that
// auth.MatchNamespace matches with the namespace.
func FuzzNamespacePatterns(f *testing.F) {
	for _, seed := range [][2]string{
		{"acme/prod", "acme/*"}, {"acme/prod", "acme/prod"}, {"acme", "acme/*"}, {"acme/", "acme/*"},
		{"acme-corp/prod", "acme/*"}, {"a/b/c", "a/b/*"}, {"/x", "/*"}, {"a//b", "a//*"}, {"ü/é", "ü/*"}, {"a/*", "a/*"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, namespace, pattern string) {
		patterns := store.NamespacePatterns(namespace)
		if got, want := slices.Contains(patterns, pattern), auth.MatchNamespace(pattern, namespace); got != want {
			t.Errorf("NamespacePatterns(%q) = %q holds %q: %v; MatchNamespace says %v", namespace, patterns, pattern, got, want)
		}
		for _, p := range patterns {
			if !auth.MatchNamespace(p, namespace) {
				t.Errorf("NamespacePatterns(%q) holds %q, which MatchNamespace does not match", namespace, p)
			}
		}
	})
}
