package store_test

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"testing"

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
