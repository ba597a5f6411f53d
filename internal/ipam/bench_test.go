package ipam

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/store"
)

// BenchmarkAllocate measures claims through the domain layer on a /16
// private pool: one client, and sixteen at once; on an empty pool and on
// one 99 % full, with its free addresses spread in holes (every 100th), so
// that the view is as fragmented as a well-used pool's. Run with a fixed
// count: go test -run '^$' -bench Allocate -benchtime 400x ./internal/ipam
func BenchmarkAllocate(b *testing.B) {
	for _, fill := range []int{0, 99} {
		for _, clients := range []int{1, 16} {
			b.Run(fmt.Sprintf("fill=%d%%/clients=%d", fill, clients), func(b *testing.B) {
				svc, db, _ := newService(b)
				ctx := context.Background()
				if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16"}); err != nil {
					b.Fatal(err)
				}
				if fill > 0 {
					// Every address but each 100th, as allocations of owners
					// that are not the benchmark's.
					_, err := db.Exec(`INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, created_by)
						SELECT 'acme/prod', 'vpc-main-' || replace(host(a), '.', '-'), p.uid, a, 'VirtualMachine', 'fill-' || i, 'fill-' || i || '/0', 'acme/prod', 'bench'
						FROM pools p, generate_series(1, 65534) i, LATERAL (SELECT '10.42.0.0'::inet + i AS a) x
						WHERE p.name = 'vpc-main' AND i % 100 <> 0`)
					if err != nil {
						b.Fatal(err)
					}
					if b.N > 600 {
						b.Fatalf("a 99%% full /16 has 655 free addresses; run with -benchtime 400x")
					}
				}
				var next atomic.Int64
				claim := func() {
					i := next.Add(1)
					_, err := svc.Allocate(ctx, acme, AllocateInput{Namespace: "acme/prod", Pool: "vpc-main",
						Owner: Owner{Kind: OwnerVirtualMachine, UID: fmt.Sprint("bench-", i), Name: fmt.Sprint("bench-", i, "/0")}})
					if err != nil {
						b.Error(err)
					}
				}
				claim() // loads the view, as a serving process has
				b.ResetTimer()
				if clients == 1 {
					for range b.N {
						claim()
					}
				} else {
					b.SetParallelism((clients + 1) / 2)
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							claim()
						}
					})
				}
				b.StopTimer()
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "claims/s")
				var dup int
				db.Get(&dup, `SELECT count(*) - count(DISTINCT address) FROM allocations`)
				if dup != 0 {
					b.Fatalf("%d duplicate addresses", dup)
				}
			})
		}
	}
}

// BenchmarkDashboard measures the dashboard of an operator who sees 10
// VPCs of 100 subnets, each with a week of hourly history (168 000 rows):
// the first reading of the forecasts' sums (cold), and the readings
// within the 15 minutes they are kept (warm). Run with a fixed count: go
// test -run '^$' -bench Dashboard -benchtime 20x ./internal/ipam
func BenchmarkDashboard(b *testing.B) {
	svc, db, _ := newService(b)
	ctx := context.Background()
	var records []store.UsageRecord
	for v := range 10 {
		ns := fmt.Sprintf("tenant-%d/prod", v)
		if _, err := svc.CreateVPC(ctx, operator, CreateVPCInput{Namespace: ns, Name: "main", CIDR: "10.0.0.0/8"}); err != nil {
			b.Fatal(err)
		}
		for s := range 100 {
			sub, err := svc.CreateSubnet(ctx, operator, CreateSubnetInput{Namespace: ns, VPC: "main", Name: fmt.Sprintf("s%d", s), CIDR: fmt.Sprintf("10.%d.0.0/16", s)})
			if err != nil {
				b.Fatal(err)
			}
			records = append(records, store.UsageRecord{ObjectUID: sub.UID, ObjectKind: "subnet", Size: 65533})
		}
	}
	now := time.Now()
	for h := 7 * 24; h >= 1; h-- {
		for i := range records {
			records[i].Used = int64(i%50 + 7*24 - h)
		}
		if err := store.RecordUsage(ctx, db, records, now.Add(-time.Duration(h)*time.Hour), time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
	for _, cold := range []bool{true, false} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if cold {
					svc.fits.forget()
				}
				d, err := svc.Dashboard(ctx, operator, time.Now(), 10)
				if err != nil || len(d.Trends) != 1010 {
					b.Fatalf("%d trends, %v", len(d.Trends), err)
				}
			}
		})
	}
}
