package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// BenchmarkCountChanges counts an hour of 100 000 claims in a VPC's pool
// into the history of the pool and of its subnets (20, then 1 000): each
// claim's subnet is one probe of subnets_vpc_cidr, so the count grows
// with the VPC's subnets by the index's depth only. Run with a fixed count: go test -run '^$'
// -bench CountChanges -benchtime 5x ./internal/store
func BenchmarkCountChanges(b *testing.B) {
	for _, subnets := range []int{20, 1000} {
		b.Run(fmt.Sprintf("subnets=%d", subnets), func(b *testing.B) {
			db := pgtest.NewDB(b)
			ctx := context.Background()
			for _, q := range []string{
				`INSERT INTO vpcs (namespace, name, cidr, created_by) VALUES ('acme/prod', 'main', '10.0.0.0/8', 'bench')`,
				`INSERT INTO pools (namespace, name, kind, cidr, vpc_uid, created_by) SELECT 'acme/prod', 'vpc-main', 'private', '10.0.0.0/8', uid, 'bench' FROM vpcs`,
				fmt.Sprintf(`INSERT INTO subnets (vpc_uid, name, cidr, gateway, created_by)
					SELECT v.uid, 's' || i, set_masklen('10.0.0.0'::inet + i * 4096, 20)::cidr, '10.0.0.0'::inet + i * 4096 + 1, 'bench' FROM vpcs v, generate_series(0, %d) i`, subnets-1),
				fmt.Sprintf(`INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, after)
					SELECT 'bench', 'allocate', 'acme/prod', 'IPAllocation', 'vpc-main-' || i, jsonb_build_object('pool', 'vpc-main',
						'address', host('10.0.0.0'::inet + (i %% %d) * 4096 + i / %d %% 4000 + 2))
					FROM generate_series(1, 100000) i`, subnets, subnets),
				`ANALYZE audit_log`,
				`ANALYZE subnets`,
			} {
				if _, err := db.ExecContext(ctx, q); err != nil {
					b.Fatalf("%s: %v", q, err)
				}
			}
			var records []store.UsageRecord
			if err := db.SelectContext(ctx, &records, `SELECT uid AS objectuid, 'subnet' AS objectkind FROM subnets`); err != nil {
				b.Fatal(err)
			}
			now := time.Now()
			if err := store.RecordUsage(ctx, db, records, now, time.Time{}); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := store.CountChanges(ctx, db, now, now); err != nil {
					b.Fatal(err)
				}
			}
			var counted int
			if err := db.GetContext(ctx, &counted, `SELECT sum(claims) FROM usage_history WHERE step = 'hour' AND object_kind = 'subnet'`); err != nil || counted != 100000 {
				b.Fatalf("the subnets count %d claims, %v; want 100 000", counted, err)
			}
		})
	}
}

// BenchmarkCountChangesIPv6 is BenchmarkCountChanges in a dual-stack VPC:
// an hour of 100 000 IPv6 claims counted into its subnets' IPv6 sides,
// each claim's subnet one probe of subnets_vpc_ipv6_cidr (migration
// 0029). go test -run '^$' -bench CountChangesIPv6 -benchtime 5x ./internal/store
func BenchmarkCountChangesIPv6(b *testing.B) {
	for _, subnets := range []int{20, 1000} {
		b.Run(fmt.Sprintf("subnets=%d", subnets), func(b *testing.B) {
			db := pgtest.NewDB(b)
			ctx := context.Background()
			for _, q := range []string{
				`INSERT INTO vpcs (namespace, name, cidr, ipv6_cidr, ipv6_key, created_by)
					VALUES ('acme/prod', 'main', '10.0.0.0/8', 'fd00::/48', decode(repeat('00', 32), 'hex'), 'bench')`,
				`INSERT INTO pools (namespace, name, kind, cidr, vpc_uid, created_by) SELECT 'acme/prod', 'vpc-main-v6', 'private', 'fd00::/48', uid, 'bench' FROM vpcs`,
				fmt.Sprintf(`INSERT INTO subnets (vpc_uid, name, cidr, gateway, ipv6_cidr, ipv6_gateway, created_by)
					SELECT v.uid, 's' || i, set_masklen('10.0.0.0'::inet + i * 4096, 20)::cidr, '10.0.0.0'::inet + i * 4096 + 1,
						('fd00:0:0:' || to_hex(i) || '::/64')::cidr, ('fd00:0:0:' || to_hex(i) || '::1')::inet, 'bench'
					FROM vpcs v, generate_series(0, %d) i`, subnets-1),
				fmt.Sprintf(`INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, after)
					SELECT 'bench', 'allocate', 'acme/prod', 'IPAllocation', 'vpc-main-v6-' || i, jsonb_build_object('pool', 'vpc-main-v6',
						'address', 'fd00:0:0:' || to_hex(i %% %d) || '::' || to_hex(i / %d %% 4000 + 2))
					FROM generate_series(1, 100000) i`, subnets, subnets),
				`ANALYZE audit_log`,
				`ANALYZE subnets`,
			} {
				if _, err := db.ExecContext(ctx, q); err != nil {
					b.Fatalf("%s: %v", q, err)
				}
			}
			var records []store.UsageRecord
			if err := db.SelectContext(ctx, &records, `SELECT ipv6_side_uid(uid) AS objectuid, 'subnet-ipv6' AS objectkind FROM subnets`); err != nil {
				b.Fatal(err)
			}
			now := time.Now()
			if err := store.RecordUsage(ctx, db, records, now, time.Time{}); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := store.CountChanges(ctx, db, now, now); err != nil {
					b.Fatal(err)
				}
			}
			var counted int
			if err := db.GetContext(ctx, &counted, `SELECT sum(claims) FROM usage_history WHERE step = 'hour' AND object_kind = 'subnet-ipv6'`); err != nil || counted != 100000 {
				b.Fatalf("the subnets' IPv6 sides count %d claims, %v; want 100 000", counted, err)
			}
		})
	}
}
