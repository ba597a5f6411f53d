package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"testing"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// dualStackVPC stores VPC main of acme/prod with the IPv6 prefix
// fd12:3456:789a::/48 and its two pools, and returns the VPC and the IPv6
// pool.
func dualStackVPC(t *testing.T, db *store.DB) (store.VPCRow, store.PoolRow) {
	t.Helper()
	v6 := netip.MustParsePrefix("fd12:3456:789a::/48")
	v, err := store.InsertVPC(t.Context(), db, store.VPCRow{UID: "8f0c5c6e-0d3b-4c8e-9a51-5c1b0c3d2e10", Namespace: "acme/prod", Name: "main",
		CIDR: netip.MustParsePrefix("10.42.0.0/16"), IPv6CIDR: v6, IPv6Addressing: "STABLE_OPAQUE", IPv6Key: bytes.Repeat([]byte{7}, 32), CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.InsertPool(t.Context(), db, store.PoolRow{UID: "0b8e2b4a-6a51-4c1e-8f0d-2d9b1a7c3e44", Namespace: "acme/prod", Name: "vpc-main", Kind: "private",
		CIDR: v.CIDR, VPCUID: v.UID, CreatedBy: "test"}); err != nil {
		t.Fatal(err)
	}
	p, err := store.InsertPool(t.Context(), db, store.PoolRow{UID: "1c9f3c5b-7b62-4d2f-9a1e-3e0c2b8d4f55", Namespace: "acme/prod", Name: "vpc-main-v6", Kind: "private",
		CIDR: v6, VPCUID: v.UID, CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return v, p
}

// TestDualStackRows: the schema holds IPv6 pools, VPCs, subnets and
// allocations beside the IPv4 ones, a pool of each family for a VPC and no
// more, and refuses what mixes the families.
func TestDualStackRows(t *testing.T) {
	db := pgtest.NewDB(t)
	v, pool := dualStackVPC(t, db)
	if v.IPv6CIDR.String() != "fd12:3456:789a::/48" || v.IPv6Addressing != "STABLE_OPAQUE" || len(v.IPv6Key) != 32 || v.IPv6Delegated {
		t.Errorf("the VPC as stored: %+v", v)
	}
	if _, err := store.InsertPool(t.Context(), db, store.PoolRow{UID: "2d0a4d6c-8c73-4e3a-8b2f-4f1d3c9e5a66", Namespace: "acme/prod", Name: "vpc-main-v6b", Kind: "private",
		CIDR: netip.MustParsePrefix("fd00::/48"), VPCUID: v.UID, CreatedBy: "test"}); !errors.Is(err, store.ErrObjectExists) {
		t.Errorf("a second IPv6 pool of a VPC: %v, want ErrObjectExists", err)
	}

	sub, err := store.InsertSubnet(t.Context(), db, store.SubnetRow{UID: "3e1b5e7d-9d84-4f4b-9c30-502e4d0f6b77", VPCUID: v.UID, Name: "web",
		CIDR: netip.MustParsePrefix("10.42.1.0/24"), Gateway: netip.MustParseAddr("10.42.1.1"),
		IPv6CIDR: netip.MustParsePrefix("fd12:3456:789a:1::/64"), IPv6Gateway: netip.MustParseAddr("fd12:3456:789a:1::1"), CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if sub.IPv6CIDR.String() != "fd12:3456:789a:1::/64" || sub.IPv6Gateway.String() != "fd12:3456:789a:1::1" {
		t.Errorf("the subnet as stored: %+v", sub)
	}
	if _, err := store.InsertSubnet(t.Context(), db, store.SubnetRow{UID: "4f2c6f8e-0e95-4a5c-8d41-613f5e1a7c88", VPCUID: v.UID, Name: "db",
		CIDR: netip.MustParsePrefix("10.42.2.0/24"), Gateway: netip.MustParseAddr("10.42.2.1"),
		IPv6CIDR: netip.MustParsePrefix("fd12:3456:789a::/56"), IPv6Gateway: netip.MustParseAddr("fd12:3456:789a::1"), CreatedBy: "test"}); !errors.Is(err, store.ErrObjectExists) {
		t.Errorf("a subnet whose IPv6 prefix overlaps a sibling's: %v, want ErrObjectExists", err)
	}
	for _, within := range []string{"fd12:3456:789a:1::/64", "fd12:3456:789a:1::/120"} {
		got, err := store.SubnetContaining(t.Context(), db, v.UID, netip.MustParsePrefix(within))
		if err != nil || got.Name != "web" {
			t.Errorf("SubnetContaining(%s) = %v, %v; want web", within, got.Name, err)
		}
	}
	if got, err := store.OverlappingSubnet(t.Context(), db, v.UID, netip.MustParsePrefix("fd12:3456:789a::/56")); err != nil || got.Name != "web" {
		t.Errorf("OverlappingSubnet(fd12:3456:789a::/56) = %v, %v; want web", got.Name, err)
	}

	a, err := store.InsertAllocation(t.Context(), db, store.AllocationRow{Namespace: "acme/prod", Name: "vpc-main-v6-fd12-3456-789a-1--7", PoolUID: pool.UID,
		Address: netip.MustParseAddr("fd12:3456:789a:1::7"), OwnerKind: "VirtualMachine", OwnerUID: "vm-1", OwnerName: "web-01/0", OwnerNamespace: "acme/prod",
		SubnetUID: sub.UID, CreatedBy: "test"}, "vpc-main-v6")
	if err != nil {
		t.Fatal(err)
	}
	if a.Address.String() != "fd12:3456:789a:1::7" {
		t.Errorf("the allocation's address: %s", a.Address)
	}
	if _, err := db.ExecContext(t.Context(), `INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, created_by)
		VALUES ('acme/prod', 'x', $1, 'fd12:3456:789a:1::/64', 'VirtualMachine', 'vm-2', 'web-02/0', 'acme/prod', 'test')`, pool.UID); err == nil {
		t.Error("an allocation of a prefix was stored")
	}
	taken, err := store.TakenAddresses(t.Context(), db, pool.UID)
	if err != nil || len(taken) != 1 || taken[0] != a.Address {
		t.Errorf("TakenAddresses of the IPv6 pool = %v, %v; want [%s]", taken, err, a.Address)
	}
}

// TestDelegatePrefix: of 16 delegations at once of one prefix of a pool,
// to 16 VPCs, one is stored and gives its VPC the prefix; a VPC holds one
// delegated prefix at most; the pool's view holds the prefixes' first
// addresses; deleting the VPC gives the prefix back, and the pool may not
// be deleted while it has delegated one.
func TestDelegatePrefix(t *testing.T) {
	db := pgtest.NewDB(t)
	pool, err := store.InsertPool(t.Context(), db, store.PoolRow{UID: "5a3d7a9f-1fa6-4b6d-9e52-724a6f2b8d99", Name: "v6-delegated", Kind: "public",
		CIDR: netip.MustParsePrefix("2001:db8::/48"), DelegatedPrefixLength: 56, CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if pool.DelegatedPrefixLength != 56 {
		t.Errorf("the pool's delegated prefix length: %d, want 56", pool.DelegatedPrefixLength)
	}
	vpcs := make([]store.VPCRow, 16)
	for i := range vpcs {
		if vpcs[i], err = store.InsertVPC(t.Context(), db, store.VPCRow{UID: fmt.Sprintf("6b4e8b0a-2ab7-4c7e-8f63-%012d", i), Namespace: "acme/prod", Name: fmt.Sprintf("v%d", i),
			CIDR: netip.MustParsePrefix("10.0.0.0/16"), CreatedBy: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	prefix := netip.MustParsePrefix("2001:db8:0:100::/56")
	key := bytes.Repeat([]byte{1}, 32)
	var wg sync.WaitGroup
	errs := make([]error, len(vpcs))
	for i, v := range vpcs {
		wg.Go(func() {
			_, errs[i] = store.DelegatePrefix(t.Context(), db, store.DelegatedPrefixRow{PoolUID: pool.UID, Prefix: prefix, VPCUID: v.UID, CreatedBy: "test"}, "LOWEST_FREE", key)
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Errorf("VPCs %d and %d were both delegated %s", winner, i, prefix)
		case err == nil:
			winner = i
		case !errors.Is(err, store.ErrObjectExists):
			t.Errorf("a racing delegation: %v", err)
		}
	}
	var rows int
	if err := db.Get(&rows, `SELECT count(*) FROM delegated_prefixes`); err != nil || rows != 1 || winner < 0 {
		t.Fatalf("16 racing delegations of one prefix: %d rows (%v), winner %d; want 1 row", rows, err, winner)
	}
	won, err := store.VPCByUID(t.Context(), db, vpcs[winner].UID)
	if err != nil || won.IPv6CIDR != prefix || !won.IPv6Delegated || !bytes.Equal(won.IPv6Key, key) {
		t.Errorf("the VPC delegated the prefix: %+v, %v", won, err)
	}
	other := vpcs[(winner+1)%len(vpcs)]
	c, err := store.DelegatedPrefixConflictOf(t.Context(), db, pool.UID, prefix, other.UID)
	if err != nil || c.HeldBy != won.UID || c.Held.IsValid() {
		t.Errorf("the conflict of a losing VPC: %+v, %v", c, err)
	}
	if _, err := store.DelegatePrefix(t.Context(), db, store.DelegatedPrefixRow{PoolUID: pool.UID, Prefix: netip.MustParsePrefix("2001:db8:0:200::/56"), VPCUID: won.UID, CreatedBy: "test"}, "LOWEST_FREE", key); !errors.Is(err, store.ErrObjectExists) {
		t.Errorf("a second prefix for a VPC: %v, want ErrObjectExists", err)
	}
	if _, err := store.DelegatePrefix(t.Context(), db, store.DelegatedPrefixRow{PoolUID: pool.UID, Prefix: netip.MustParsePrefix("2001:db8::/56"), VPCUID: other.UID, CreatedBy: "test"}, "LOWEST_FREE", key); err != nil {
		t.Fatal(err)
	}
	taken, err := store.TakenAddresses(t.Context(), db, pool.UID)
	if want := []netip.Addr{netip.MustParseAddr("2001:db8::"), netip.MustParseAddr("2001:db8:0:100::")}; err != nil || !slices.Equal(taken, want) {
		t.Errorf("TakenAddresses of the delegation pool = %v, %v; want %v", taken, err, want)
	}
	if n, err := store.CountDelegatedPrefixes(t.Context(), db, pool.UID); err != nil || n != 2 {
		t.Errorf("CountDelegatedPrefixes = %d, %v; want 2", n, err)
	}
	if err := store.DeletePool(t.Context(), db, pool.UID); !errors.Is(err, store.ErrInUse) {
		t.Errorf("deleting a pool that delegated prefixes: %v, want ErrInUse", err)
	}
	if err := store.DeleteVPC(t.Context(), db, won.UID); err != nil {
		t.Fatal(err)
	}
	if ds, err := store.DelegatedPrefixes(t.Context(), db, pool.UID); err != nil || len(ds) != 1 || ds[0].VPCUID != other.UID {
		t.Errorf("the delegations once the VPC is gone: %+v, %v", ds, err)
	}
}

// TestUsageHistoryHoldsIPv6Sizes: a /64's 2^64 - 1 candidates pass
// bigint; the history keeps them exact.
func TestUsageHistoryHoldsIPv6Sizes(t *testing.T) {
	db := pgtest.NewDB(t)
	if _, err := db.ExecContext(t.Context(), `INSERT INTO usage_history (object_uid, object_kind, step, at, used, size)
		VALUES (gen_random_uuid(), 'subnet', 'hour', now(), 3, 18446744073709551615)`); err != nil {
		t.Fatal(err)
	}
	var size string
	if err := db.Get(&size, `SELECT size::text FROM usage_history`); err != nil || size != "18446744073709551615" {
		t.Errorf("the size stored: %s, %v", size, err)
	}
}
