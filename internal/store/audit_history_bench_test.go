package store_test

import (
	"context"
	"fmt"
	"testing"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// BenchmarkAuditHistory reads a page of the audit log (51 entries, as
// /audit does, or 10, as an object's page does) from a log of n entries,
// nearly all of them the claims and releases of one busy VPC's 50 subnets
// and of one number pool, by a bot: the history of a quiet VPC, subnet and
// number pool and of the busy ones, and the log filtered to a quiet actor,
// a rare action, a kind and a namespace. Run with a fixed count:
// go test -run '^$' -bench AuditHistory -benchtime 20x ./internal/store
// (entries=100000 for a quick run).
func BenchmarkAuditHistory(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			db := pgtest.NewDB(b)
			ctx := context.Background()
			// The claims, by statements of 50 000 (the harness's
			// statement timeout).
			var fill []string
			for from := 1; from <= n*9/10; from += 50_000 {
				fill = append(fill, fmt.Sprintf(`INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, after)
					SELECT 'ci-bot', CASE WHEN i %% 2 = 0 THEN 'allocate' ELSE 'release' END, 'acme/prod', 'IPAllocation', 'vpc-main-' || i,
						jsonb_build_object('pool', 'vpc-main', 'subnet', 's' || (i %% 50), 'address', '10.0.0.1')
					FROM generate_series(%d, %d) i`, from, min(from+49_999, n*9/10)))
			}
			for _, q := range append(fill,
				fmt.Sprintf(`INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, after, branch)
					SELECT 'ci-bot', 'allocate', '', 'CoreNumberPool', 'VLAN IDs', jsonb_build_object('pool_id', 'p-busy', 'number', i), 'main'
					FROM generate_series(1, %d) i`, n/10),
				`INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, after, branch) VALUES
					('quiet-admin', 'create', 'acme/dev', 'VPC', 'quiet', '{}', NULL),
					('quiet-admin', 'create', 'acme/dev', 'Subnet', 'quiet/a', '{}', NULL),
					('quiet-admin', 'allocate', 'acme/dev', 'IPAllocation', 'vpc-quiet-1', '{"pool": "vpc-quiet", "subnet": "a"}', NULL),
					('quiet-admin', 'create', '', 'CoreNumberPool', 'Quiet IDs', '{"id": "p-quiet"}', 'main'),
					('quiet-admin', 'allocate', '', 'CoreNumberPool', 'Quiet IDs', '{"pool_id": "p-quiet", "number": 1}', 'main'),
					('quiet-admin', 'merge', '', 'Branch', 'b1', '{}', 'b1')`,
				fmt.Sprintf(`INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, after)
					SELECT 'ci-bot', 'allocate', 'acme/prod', 'IPAllocation', 'vpc-main-late-' || i,
						jsonb_build_object('pool', 'vpc-main', 'subnet', 's' || (i %% 50), 'address', '10.0.0.1')
					FROM generate_series(1, %d) i`, n/100),
				`ANALYZE audit_log`,
			) {
				if _, err := db.ExecContext(ctx, q); err != nil {
					b.Fatalf("%s: %v", q, err)
				}
			}
			for _, r := range []struct {
				name   string
				filter store.AuditFilter
				want   int
			}{
				{"quiet VPC", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindVPC, Namespace: "acme/dev", Name: "quiet"}, Limit: 10}, 3},
				{"quiet subnet", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindSubnet, Namespace: "acme/dev", Name: "quiet/a"}, Limit: 10}, 2},
				{"quiet number pool", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindNumberPool, Name: "p-quiet"}, Limit: 10}, 2},
				{"busy VPC", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindVPC, Namespace: "acme/prod", Name: "main"}, Limit: 10}, 10},
				{"busy subnet", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindSubnet, Namespace: "acme/prod", Name: "main/s7"}, Limit: 10}, 10},
				{"busy number pool", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindNumberPool, Name: "p-busy"}, Limit: 10}, 10},
				{"busy VPC, a page of the audit log", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindVPC, Namespace: "acme/prod", Name: "main"}, Limit: 51}, 51},
				{"quiet actor", store.AuditFilter{Actor: "quiet-admin", Limit: 51}, 6},
				{"rare action", store.AuditFilter{Action: "merge", Limit: 51}, 1},
				{"kind", store.AuditFilter{Kind: "Subnet", Limit: 51}, 1},
				{"quiet namespace", store.AuditFilter{Namespace: "acme/dev", Limit: 51}, 3},
				{"busy actor and action", store.AuditFilter{Actor: "ci-bot", Action: "release", Limit: 51}, 51},
			} {
				b.Run(r.name, func(b *testing.B) {
					for b.Loop() {
						got, err := store.AuditEntries(ctx, db, r.filter)
						if err != nil {
							b.Fatal(err)
						}
						if len(got) != r.want {
							b.Fatalf("%d entries, want %d", len(got), r.want)
						}
					}
				})
			}
		})
	}
}
