package ipam

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/store"
)

// TestUsageHistory: the service writes the usage of each pool and subnet,
// one row an hour and one a day however often it writes, the last figures
// of the hour; pruning drops rows past their keeping and those of a subnet
// deleted.
func TestUsageHistory(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	setupSubnet(t, svc, "10.42.1.0/24")
	var pool, subnet string
	if err := db.Get(&pool, `SELECT uid FROM pools WHERE name = 'vpc-main'`); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&subnet, `SELECT uid FROM subnets WHERE name = 'web'`); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 10, 5, 0, 0, time.UTC)
	for i := range 3 {
		if _, err := attachVM(ctx, svc, i); err != nil {
			t.Fatal(err)
		}
		if err := svc.RecordUsage(ctx, at.Add(time.Duration(i)*15*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := attachVM(ctx, svc, 3); err != nil {
		t.Fatal(err)
	}
	if err := svc.RecordUsage(ctx, at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	hours, err := store.UsageHistory(ctx, db, subnet, "hour", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	want := []store.UsagePoint{{At: at.Truncate(time.Hour), Used: 3, Size: 253}, {At: at.Truncate(time.Hour).Add(time.Hour), Used: 4, Size: 253}}
	if len(hours) != len(want) || !hours[0].At.Equal(want[0].At) || hours[0].Used != 3 || hours[0].Size != 253 || !hours[1].At.Equal(want[1].At) || hours[1].Used != 4 {
		t.Errorf("the subnet's hours: %+v, want %+v", hours, want)
	}
	if got, err := svc.UsageHistory(ctx, acme, "acme/prod", subnet, HistoryHour, time.Time{}); err != nil || len(got) != 2 || got[1].Used != 4 {
		t.Errorf("acme reads its subnet's history: %+v, %v", got, err)
	}
	globex := auth.Actor{Name: "globex", Role: auth.Tenant, Namespaces: []string{"globex/*"}}
	if _, err := svc.UsageHistory(ctx, globex, "acme/prod", subnet, HistoryHour, time.Time{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("another tenant reads acme's history: %v, want not found", err)
	}
	if _, err := svc.UsageForecast(ctx, globex, "acme/prod", subnet, Usage{}, at); !errors.Is(err, ErrNotFound) {
		t.Errorf("another tenant reads acme's forecast: %v, want not found", err)
	}
	days, err := store.UsageHistory(ctx, db, pool, "day", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 1 || days[0].Used != 4 || days[0].Size != 65534 || !days[0].At.Equal(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("the pool's days: %+v, want one of 4 used (the last write, 3 interfaces and 1 more)", days)
	}

	if err := store.PruneUsageHistory(ctx, db, at.Add(store.HourlyUsageKept+90*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if hours, _ := store.UsageHistory(ctx, db, subnet, "hour", time.Time{}); len(hours) != 1 || hours[0].Used != 4 {
		t.Errorf("after the first hour passed its keeping: %+v, want the second hour alone", hours)
	}
	if days, _ := store.UsageHistory(ctx, db, subnet, "day", time.Time{}); len(days) != 1 {
		t.Errorf("the day row went with the hours: %+v", days)
	}
	for i := range 4 {
		if _, err := svc.DetachInterface(ctx, acme, DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: VMRef{UID: fmt.Sprintf("uid-%d", i), Hostname: fmt.Sprintf("vm-%d", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.DeleteSubnet(ctx, acme, "acme/prod", "main", "web"); err != nil {
		t.Fatal(err)
	}
	if err := store.PruneUsageHistory(ctx, db, at); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := db.Get(&left, `SELECT count(*) FROM usage_history WHERE object_uid = $1`, subnet); err != nil || left != 0 {
		t.Errorf("%d rows of a deleted subnet left, %v", left, err)
	}
	if err := db.Get(&left, `SELECT count(*) FROM usage_history WHERE object_uid = $1`, pool); err != nil || left == 0 {
		t.Errorf("the pool's history went with its subnet: %d rows, %v", left, err)
	}
}
