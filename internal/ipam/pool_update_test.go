package ipam

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// ptr returns a pointer to v, for the fields of UpdatePublicPoolInput.
func ptr[T any](v T) *T { return &v }

// newSmallPool creates the public pool public-zone-a, 203.0.113.0/29 with
// gateway 203.0.113.1 in zone-a: candidates 203.0.113.2 to .6.
func newSmallPool(t *testing.T, svc *Service) {
	t.Helper()
	if _, err := svc.CreatePublicPool(t.Context(), operator, CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/29", Gateway: "203.0.113.1", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
}

// claimFIP claims the floating IP name of acme/prod in zone-a, and returns
// its address.
func claimFIP(t *testing.T, svc *Service, name string) string {
	t.Helper()
	f, err := svc.ClaimFloatingIP(t.Context(), acme, ClaimFloatingIPInput{Namespace: "acme/prod", Name: name, Zone: "zone-a"})
	if err != nil {
		t.Fatal(err)
	}
	return f.Address.String()
}

// poolState is what the database holds of public-zone-a's spec.
func poolState(t *testing.T, db *store.DB) string {
	t.Helper()
	p, err := store.Pool(t.Context(), db, "", "public-zone-a")
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("gateway %v exclude %v zone %q version %d", p.Gateway, p.Exclude, p.Zone, p.SpecVersion)
}

// poolAudits counts the audit entries of action on IPAMPool objects.
func poolAudits(t *testing.T, db *store.DB, action string) int {
	t.Helper()
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM audit_log WHERE object_kind = 'IPAMPool' AND action = $1`, action); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestUpdatePublicPool(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := t.Context()
	newSmallPool(t, svc)
	if got := claimFIP(t, svc, "web"); got != "203.0.113.2" {
		t.Fatalf("the first floating IP got %s, want 203.0.113.2", got)
	}

	p, err := svc.UpdatePublicPool(ctx, operator, UpdatePublicPoolInput{Name: "public-zone-a", Gateway: ptr("203.0.113.6"), Exclude: ptr([]string{" 203.0.113.3 - 203.0.113.4 "}), Zone: ptr("zone-b")})
	if err != nil {
		t.Fatal(err)
	}
	if p.Gateway.String() != "203.0.113.6" || !slices.Equal(p.Exclude, []string{"203.0.113.3-203.0.113.4"}) || p.Zone != "zone-b" {
		t.Errorf("UpdatePublicPool = %+v", p)
	}
	if got, want := poolState(t, db), `gateway 203.0.113.6 exclude [203.0.113.3-203.0.113.4] zone "zone-b" version 2`; got != want {
		t.Errorf("stored: %s, want %s", got, want)
	}
	entries, err := svc.AuditLog(ctx, operator, AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if e := entries[0]; e.Action != "update" || e.Kind != "IPAMPool" || e.Name != "public-zone-a" ||
		audit.Describe(e).String() != "op changed public pool public-zone-a; exclude: — → 203.0.113.3-203.0.113.4; gateway: 203.0.113.1 → 203.0.113.6; zone: zone-a → zone-b" {
		t.Errorf("the update's audit entry: %s %s %s %q", e.Action, e.Kind, e.Name, audit.Describe(e))
	}
	// The former gateway is a candidate now; the excludes and the new
	// gateway are not.
	f, err := svc.ClaimFloatingIP(ctx, acme, ClaimFloatingIPInput{Namespace: "acme/prod", Name: "db", Zone: "zone-b"})
	if err != nil || f.Address.String() != "203.0.113.1" {
		t.Errorf("a claim after the update = %v, %v; want 203.0.113.1", f.Address, err)
	}
	f, err = svc.ClaimFloatingIP(ctx, acme, ClaimFloatingIPInput{Namespace: "acme/prod", Name: "ops", Zone: "zone-b"})
	if err != nil || f.Address.String() != "203.0.113.5" {
		t.Errorf("the next claim = %v, %v; want 203.0.113.5", f.Address, err)
	}
	if _, err := svc.ClaimFloatingIP(ctx, acme, ClaimFloatingIPInput{Namespace: "acme/prod", Name: "full", Zone: "zone-b"}); !errors.Is(err, refusal.ErrPoolExhausted) {
		t.Errorf("a claim in the full pool = %v, want exhausted", err)
	}

	// The same spec again changes nothing, and is not audited.
	if _, err := svc.UpdatePublicPool(ctx, operator, UpdatePublicPoolInput{Name: "public-zone-a", Gateway: ptr("203.0.113.6"), Exclude: ptr([]string{"203.0.113.3-203.0.113.4"})}); err != nil {
		t.Fatal(err)
	}
	if n := poolAudits(t, db, "update"); n != 1 {
		t.Errorf("%d update entries after an update that changed nothing, want 1", n)
	}
}

func TestUpdatePublicPoolRefusals(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := t.Context()
	if _, err := svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"}); err != nil {
		t.Fatal(err) // its uplink: 203.0.113.2
	}
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		claimFIP(t, svc, name) // 203.0.113.3 to .7
	}
	before, audits := poolState(t, db), poolAudits(t, db, "update")

	tests := []struct {
		name  string
		actor auth.Actor
		in    UpdatePublicPoolInput
		code  refusal.Code
		field string
		want  string
	}{
		{"a tenant", acme, UpdatePublicPoolInput{Name: "public-zone-a", Zone: ptr("zone-b")}, refusal.CodeForbidden, "", "forbidden: only operators change public pools"},
		{"no such pool", operator, UpdatePublicPoolInput{Name: "public-zone-x", Zone: ptr("zone-b")}, refusal.CodeNotFound, "", "pool public-zone-x not found"},
		{"a gateway outside", operator, UpdatePublicPoolInput{Name: "public-zone-a", Gateway: ptr("192.0.2.1")}, refusal.CodeInvalidArgument, "gateway", "gateway 192.0.2.1 is outside cidr 203.0.113.0/24"},
		{"a bad zone", operator, UpdatePublicPoolInput{Name: "public-zone-a", Zone: ptr("Zone A")}, refusal.CodeInvalidArgument, "zone", `zone "Zone A" is not a valid zone: use lower-case letters, digits and '-'`},
		{"a gateway held", operator, UpdatePublicPoolInput{Name: "public-zone-a", Gateway: ptr("203.0.113.4")}, refusal.CodeConflict, "gateway",
			"public pool public-zone-a holds 1 address that gateway 203.0.113.4 would cover: 203.0.113.4 (FloatingIP acme/prod/b); release it first, or leave it out"},
		{"excludes over five", operator, UpdatePublicPoolInput{Name: "public-zone-a", Exclude: ptr([]string{"203.0.113.2-203.0.113.5", "203.0.113.7", "203.0.113.200"})}, refusal.CodeConflict, "exclude",
			"public pool public-zone-a holds 5 addresses that the excludes would cover: 203.0.113.2 (VPC acme/prod/router), 203.0.113.3 (FloatingIP acme/prod/a), 203.0.113.4 (FloatingIP acme/prod/b), 2 more; release them first, or leave them out"},
		{"both", operator, UpdatePublicPoolInput{Name: "public-zone-a", Gateway: ptr("203.0.113.9"), Exclude: ptr([]string{"203.0.113.6"})}, refusal.CodeConflict, "exclude",
			"public pool public-zone-a holds 1 address that the excludes would cover: 203.0.113.6 (FloatingIP acme/prod/d); release it first, or leave it out"},
		{"a gateway and excludes held", operator, UpdatePublicPoolInput{Name: "public-zone-a", Gateway: ptr("203.0.113.3"), Exclude: ptr([]string{"203.0.113.6"})}, refusal.CodeConflict, "gateway",
			"public pool public-zone-a holds 2 addresses that gateway 203.0.113.3 and the excludes would cover: 203.0.113.3 (FloatingIP acme/prod/a), 203.0.113.6 (FloatingIP acme/prod/d); release them first, or leave them out"},
		{"a zone with uplinks", operator, UpdatePublicPoolInput{Name: "public-zone-a", Zone: ptr("")}, refusal.CodeConflict, "zone",
			"public pool public-zone-a holds the router uplinks of 1 VPC of zone zone-a (acme/prod/main at 203.0.113.2): a router's uplink is in its VPC's zone; delete those VPCs before moving the pool to no zone"},
	}
	for _, tt := range tests {
		_, err := svc.UpdatePublicPool(ctx, tt.actor, tt.in)
		if r := refusal.Classify(err); r.Code != tt.code || r.Field != tt.field || r.Message != tt.want {
			t.Errorf("%s: %s %s %q\nwant %s %s %q", tt.name, r.Code, r.Field, r.Message, tt.code, tt.field, tt.want)
		}
	}
	if got := poolState(t, db); got != before || poolAudits(t, db, "update") != audits {
		t.Errorf("the refusals stored something: %s (before: %s)", got, before)
	}
}

// TestClaimWaitsForPoolUpdate: a claim made while an update of the pool's
// gateway is in progress waits for it, and does not get the new gateway,
// which it had chosen under the spec it knew. The update is held before
// its audit entry, after it locked and changed the pool's row; the claim
// is seen waiting for a lock before the update goes on.
func TestClaimWaitsForPoolUpdate(t *testing.T) {
	claimer, db, dbURL := newService(t)
	newSmallPool(t, claimer)
	claimFIP(t, claimer, "web") // 203.0.113.2; the claimer knows the pool
	updater, proxy := proxiedService(t, dbURL)
	hold := proxy.Hold("INSERT INTO audit_log")
	defer hold.Release()
	updated := make(chan error, 1)
	go func() {
		_, err := updater.UpdatePublicPool(context.Background(), operator, UpdatePublicPoolInput{Name: "public-zone-a", Gateway: ptr("203.0.113.3"), Exclude: ptr([]string{"203.0.113.1", "203.0.113.4"})})
		updated <- err
	}()
	reached(t, hold, "the update's audit entry")

	claimed := make(chan struct{})
	var got string
	var claimErr error
	go func() {
		defer close(claimed)
		f, err := claimer.ClaimFloatingIP(context.Background(), acme, ClaimFloatingIPInput{Namespace: "acme/prod", Name: "db", Zone: "zone-a"})
		got, claimErr = f.Address.String(), err
	}()
	pgtest.WaitForLock(t, db, "the claim", pgtest.LockWait{}, claimed)
	hold.Release()
	if err := <-updated; err != nil {
		t.Fatal(err)
	}
	<-claimed
	if claimErr != nil || got != "203.0.113.5" {
		t.Errorf("the claim made during the update got %s, %v; want 203.0.113.5 (.3 is the gateway now, .1 and .4 excluded)", got, claimErr)
	}
	for _, a := range []string{"203.0.113.1", "203.0.113.3", "203.0.113.4"} {
		if n := allocationCount(t, db, a); n != 0 {
			t.Errorf("%s, now the gateway or excluded, is allocated %d times", a, n)
		}
	}
}

// TestPoolUpdateWaitsForClaim: an update of the gateway made while a claim
// of that address is in progress (its transaction holds it, uncommitted)
// waits for the claim, then sees it and is refused. The claim's
// transaction is held after its insert of the address; the update is seen
// waiting for a lock before it goes on.
func TestPoolUpdateWaitsForClaim(t *testing.T) {
	updater, db, dbURL := newService(t)
	newSmallPool(t, updater)
	claimer, proxy := proxiedService(t, dbURL)
	hold := proxy.Hold("INSERT INTO floating_ips")
	defer hold.Release()
	claimed := make(chan error, 1)
	go func() {
		_, err := claimer.ClaimFloatingIP(context.Background(), acme, ClaimFloatingIPInput{Namespace: "acme/prod", Name: "web", Zone: "zone-a"})
		claimed <- err
	}()
	reached(t, hold, "the claim's floating IP")

	updated := make(chan struct{})
	var updateErr error
	go func() {
		defer close(updated)
		_, updateErr = updater.UpdatePublicPool(context.Background(), operator, UpdatePublicPoolInput{Name: "public-zone-a", Gateway: ptr("203.0.113.2")})
	}()
	pgtest.WaitForLock(t, db, "the update", pgtest.LockWait{}, updated)
	hold.Release()
	if err := <-claimed; err != nil {
		t.Fatal(err)
	}
	<-updated
	want := "public pool public-zone-a holds 1 address that gateway 203.0.113.2 would cover: 203.0.113.2 (FloatingIP acme/prod/web); release it first, or leave it out"
	if r := refusal.Classify(updateErr); r.Code != refusal.CodeConflict || r.Message != want {
		t.Errorf("the update = %v, want %q", updateErr, want)
	}
	if got := poolState(t, db); !strings.HasPrefix(got, "gateway 203.0.113.1 ") {
		t.Errorf("after the refused update the pool has %s", got)
	}
}

// TestStaleSpecInAnotherProcess: a process that missed the notification of
// a change of the pool's spec (it follows none) still never hands out the
// new gateway: its claim stores nothing under the old spec, and it reads
// the pool again.
func TestStaleSpecInAnotherProcess(t *testing.T) {
	updater, db, _ := newService(t)
	newSmallPool(t, updater)
	deaf, err := New(t.Context(), Config{DB: db, Logger: updater.log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(deaf.Close)
	claimFIP(t, deaf, "web") // 203.0.113.2
	if _, err := updater.UpdatePublicPool(t.Context(), operator, UpdatePublicPoolInput{Name: "public-zone-a", Gateway: ptr("203.0.113.3"), Exclude: ptr([]string{"203.0.113.1"})}); err != nil {
		t.Fatal(err)
	}
	// A floating IP claimed from the pool by name, from the process's
	// cache of pools.
	f, err := deaf.ClaimFloatingIP(t.Context(), acme, ClaimFloatingIPInput{Namespace: "acme/prod", Name: "db", Pool: "public-zone-a"})
	if err != nil || f.Address.String() != "203.0.113.4" {
		t.Errorf("the process that missed the update claimed %v, %v; want 203.0.113.4", f.Address, err)
	}
	// Operators' allocations in the pool go the same way, by the batch of
	// claims made outside a transaction.
	if _, err := updater.UpdatePublicPool(t.Context(), operator, UpdatePublicPoolInput{Name: "public-zone-a", Exclude: ptr([]string{"203.0.113.1", "203.0.113.5"})}); err != nil {
		t.Fatal(err)
	}
	a, err := deaf.Allocate(t.Context(), operator, AllocateInput{Pool: "public-zone-a", Owner: Owner{Kind: OwnerVirtualMachine, UID: "vm-1", Name: "vm-1/0"}, OwnerNamespace: "acme/prod"})
	if err != nil || a.Address.String() != "203.0.113.6" {
		t.Errorf("an allocation after the excludes changed = %v, %v; want 203.0.113.6", a.Address, err)
	}
}
