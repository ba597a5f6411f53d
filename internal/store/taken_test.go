package store_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// BenchmarkTakenAddresses reads the view of a pool holding 1 000 000
// allocations in runs of 1 to 21 between single free addresses, as
// cmd/ipambench fills them: an IPv4 /10, and a /64 of a VPC's IPv6 /48.
// Run with a fixed count: go test -run '^$' -bench TakenAddresses
// -benchtime 3x ./internal/store
func BenchmarkTakenAddresses(b *testing.B) {
	const n = 1_000_000
	for _, c := range []struct{ family, vpc, pool, base string }{
		{"4", "10.0.0.0/8", "10.0.0.0/10", "10.0.0.0"},
		{"6", "10.0.0.0/8", "fd00:42::/48", "fd00:42::"},
	} {
		b.Run("family="+c.family, func(b *testing.B) {
			db := pgtest.NewDB(b)
			ctx := context.Background()
			// Filling takes longer than store.DefaultStatementTimeout on a
			// busy machine.
			fill, err := db.Connx(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer fill.Close()
			if _, err := fill.ExecContext(ctx, `SET statement_timeout = 0`); err != nil {
				b.Fatal(err)
			}
			var pool string
			if err := fill.GetContext(ctx, &pool, `WITH v AS (
					INSERT INTO vpcs (namespace, name, cidr, ipv6_cidr, ipv6_key, created_by)
					VALUES ('acme/prod', 'main', $1, CASE WHEN family($2::cidr) = 6 THEN $2::cidr END,
						CASE WHEN family($2::cidr) = 6 THEN decode(repeat('07', 32), 'hex') END, 'bench')
					RETURNING uid)
				INSERT INTO pools (namespace, name, kind, cidr, vpc_uid, created_by)
				SELECT 'acme/prod', 'vpc-main', 'private', $2::cidr, uid, 'bench' FROM v RETURNING uid`, c.vpc, c.pool); err != nil {
				b.Fatal(err)
			}
			offsets := fragments(n)
			for len(offsets) > 0 {
				part := offsets[:min(len(offsets), 250_000)]
				offsets = offsets[len(part):]
				if _, err := fill.ExecContext(ctx, `INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, created_by)
					SELECT 'acme/prod', 'vpc-main-' || i, $1, $2::inet + i, 'VirtualMachine', 'vm-' || i, 'vm-' || i || '/0', 'acme/prod', 'bench'
					FROM unnest($3::int8[]) i`, pool, c.base, pq.Array(part)); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := fill.ExecContext(ctx, `VACUUM (ANALYZE) allocations`); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				taken, err := store.TakenAddresses(ctx, db, pool)
				if err != nil || len(taken) != n {
					b.Fatalf("TakenAddresses: %d addresses, %v; want %d", len(taken), err, n)
				}
			}
		})
	}
}

// fragments returns n offsets from 2 up, in runs of 1 to 21 with one free
// offset after each.
func fragments(n int) []int64 {
	out := make([]int64, 0, n)
	o := int64(2)
	for k := 0; len(out) < n; k++ {
		for range k%21 + 1 {
			if len(out) == n {
				break
			}
			out = append(out, o)
			o++
		}
		o++
	}
	return out
}

// TestTakenAddressesOfIPv6Pool: the taken addresses of an IPv6 pool come
// back whole and in order whatever /64 they lie in and wherever in it:
// its first and last addresses, either side of its middle, and the last
// /64 of the address space.
func TestTakenAddressesOfIPv6Pool(t *testing.T) {
	db := pgtest.NewDB(t)
	_, pool := dualStackVPC(t, db)
	want := []netip.Addr{}
	for i, s := range []string{
		"fd12:3456:789a::1", "fd12:3456:789a::7fff:ffff:ffff:ffff", "fd12:3456:789a::8000:0:0:0",
		"fd12:3456:789a::ffff:ffff:ffff:ffff", "fd12:3456:789a:1::", "fd12:3456:789a:1::2",
		"fd12:3456:789a:ffff:ffff:ffff:ffff:fffe", "fd12:3456:789a:ffff:ffff:ffff:ffff:ffff",
		// The schema does not tie an address to its pool's prefix: the
		// walk of the /64s ends at the last one of the address space too.
		"ffff:ffff:ffff:ffff::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
	} {
		a := netip.MustParseAddr(s)
		want = append(want, a)
		if _, err := db.ExecContext(t.Context(), `INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, created_by)
			VALUES ('acme/prod', $1, $2, $3, 'VirtualMachine', $1, $1, 'acme/prod', 'test')`, fmt.Sprint("a-", i), pool.UID, s); err != nil {
			t.Fatal(err)
		}
	}
	got, err := store.TakenAddresses(t.Context(), db, pool.UID)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("TakenAddresses = %v, %v; want %v", got, err, want)
	}

}

// TestTakenAddressesAsStored: TakenAddresses gives exactly the addresses
// the tables hold, sorted, for an IPv4 pool, an IPv6 pool of many /64s
// (some spanning 2^32 addresses or more, packed 8 bytes an address, some
// just less) and a delegation pool, all inserted out of order; and read
// with a plan that leaves the indexes out, which gives them out of order.
func TestTakenAddressesAsStored(t *testing.T) {
	db := pgtest.NewDB(t)
	_, pool6 := dualStackVPC(t, db)
	const pool4 = "0b8e2b4a-6a51-4c1e-8f0d-2d9b1a7c3e44" // dualStackVPC's IPv4 pool
	var addrs []netip.Addr
	for i := range 3000 {
		if i%7 != 3 {
			addrs = append(addrs, netip.AddrFrom4([4]byte{10, 42, byte(i >> 8), byte(i)}))
		}
	}
	for k := range 40 {
		net := netip.AddrFrom16([16]byte{0xfd, 0x12, 0x34, 0x56, 0x78, 0x9a, byte(k >> 8), byte(k * 37)})
		b := net.As16()
		at := func(lo uint64) netip.Addr {
			binary.BigEndian.PutUint64(b[8:], lo)
			return netip.AddrFrom16(b)
		}
		for i := range uint64(50) {
			addrs = append(addrs, at(uint64(k)<<20+i*uint64(k%3+1)))
		}
		switch k % 4 {
		case 0: // the span of 2^32 addresses, packed 8 bytes an address
			addrs = append(addrs, at(uint64(k)<<20+1<<32))
		case 1: // one less, packed 4 bytes an address
			addrs = append(addrs, at(uint64(k)<<20+1<<32-1))
		case 2: // the first, the last and the middle of the /64
			addrs = append(addrs, at(0), at(1<<63-1), at(1<<63), at(1<<64-1))
		}
	}
	addrs = append(addrs, netip.MustParseAddr("ffff:ffff:ffff:ffff::1"), netip.MustParseAddr("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"))
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(addrs), func(i, j int) { addrs[i], addrs[j] = addrs[j], addrs[i] })
	for i, a := range addrs {
		pool := pool6.UID
		if a.Is4() {
			pool = pool4
		}
		if _, err := db.ExecContext(t.Context(), `INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, created_by)
			VALUES ('acme/prod', $1, $2, $3, 'VirtualMachine', $1, $1, 'acme/prod', 'test')`, fmt.Sprint("a-", i), pool, a.String()); err != nil {
			t.Fatal(err)
		}
	}
	delegation, err := store.InsertPool(t.Context(), db, store.PoolRow{UID: "5a3d7a9f-1fa6-4b6d-9e52-724a6f2b8d99", Name: "v6-delegated", Kind: "public",
		CIDR: netip.MustParsePrefix("2001:db8::/48"), DelegatedPrefixLength: 56, CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range []int{5, 0, 255, 3, 17, 1} {
		v, err := store.InsertVPC(t.Context(), db, store.VPCRow{UID: fmt.Sprintf("6b4e8b0a-2ab7-4c7e-8f63-%012d", i), Namespace: "acme/prod", Name: fmt.Sprint("v", i),
			CIDR: netip.MustParsePrefix("10.0.0.0/16"), CreatedBy: "test"})
		if err != nil {
			t.Fatal(err)
		}
		prefix := netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, byte(n)}), 56)
		if _, err := store.DelegatePrefix(t.Context(), db, store.DelegatedPrefixRow{PoolUID: delegation.UID, Prefix: prefix, VPCUID: v.UID, CreatedBy: "test"}, "LOWEST_FREE", bytes.Repeat([]byte{1}, 32)); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := db.BeginTxx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(t.Context(), `SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off; SET LOCAL enable_bitmapscan = off`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, pool, model string
	}{
		{"IPv4", pool4, `SELECT host(address) FROM allocations WHERE pool_uid = $1 ORDER BY address`},
		{"IPv6", pool6.UID, `SELECT host(address) FROM allocations WHERE pool_uid = $1 ORDER BY address`},
		{"delegation", delegation.UID, `SELECT host(prefix) FROM delegated_prefixes WHERE pool_uid = $1 ORDER BY prefix`},
	} {
		var hosts []string
		if err := db.SelectContext(t.Context(), &hosts, c.model, c.pool); err != nil {
			t.Fatal(err)
		}
		want := make([]netip.Addr, len(hosts))
		for i, h := range hosts {
			want[i] = netip.MustParseAddr(h)
		}
		for _, ext := range []struct {
			name string
			q    sqlx.QueryerContext
		}{{"indexed", db}, {"without indexes", tx}} {
			got, err := store.TakenAddresses(t.Context(), ext.q, c.pool)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("%s, %s: TakenAddresses = %d addresses, %v; want the %d stored:\n%v\nwant\n%v", c.name, ext.name, len(got), err, len(want), got, want)
			}
		}
	}
}
