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
