package ipam

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// setQuota sets the limits of pattern.
func setQuota(t *testing.T, svc *Service, pattern string, set map[QuotaKind]int64) {
	t.Helper()
	if _, err := svc.SetQuota(context.Background(), operator, QuotaChange{Pattern: pattern, Set: set}); err != nil {
		t.Fatal(err)
	}
}

// setupZone makes the public pool public-zone-a of zone-a.
func setupZone(t *testing.T, svc *Service) {
	t.Helper()
	if _, err := svc.CreatePublicPool(context.Background(), operator, CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
}

// rows counts the rows of a query.
func rows(t *testing.T, db *store.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Get(&n, query, args...); err != nil {
		t.Fatal(err)
	}
	return n
}

// wantQuotaRefusal checks that err is the refusal QUOTA_EXCEEDED with
// message want.
func wantQuotaRefusal(t *testing.T, what string, err error, want string) {
	t.Helper()
	if r := refusal.Classify(err); r.Code != refusal.CodeQuotaExceeded || r.Message != want {
		t.Errorf("%s past its quota: %s %q, want QUOTA_EXCEEDED %q", what, r.Code, r.Message, want)
	}
}

func TestQuotaErrorMessages(t *testing.T) {
	for _, tt := range []struct {
		kind  QuotaKind
		limit int64
		want  string
	}{
		{QuotaFloatingIPs, 2, "namespace acme/prod has reached its quota of 2 floating IPs (set for acme/*)"},
		{QuotaFloatingIPs, 1, "namespace acme/prod has reached its quota of 1 floating IP (set for acme/*)"},
		{QuotaVPCs, 1, "namespace acme/prod has reached its quota of 1 VPC (set for acme/*)"},
		{QuotaVPCs, 2, "namespace acme/prod has reached its quota of 2 VPCs (set for acme/*)"},
		{QuotaSubnets, 1, "namespace acme/prod has reached its quota of 1 subnet (set for acme/*)"},
		{QuotaSubnets, 2, "namespace acme/prod has reached its quota of 2 subnets (set for acme/*)"},
		{QuotaAddresses, 1, "namespace acme/prod has reached its quota of 1 address (set for acme/*)"},
		{QuotaAddresses, 2, "namespace acme/prod has reached its quota of 2 addresses (set for acme/*)"},
		{QuotaAddresses, 0, "namespace acme/prod has reached its quota of 0 addresses (set for acme/*)"},
	} {
		err := error(&QuotaError{Namespace: "acme/prod", Kind: tt.kind, Limit: tt.limit, Pattern: "acme/*"})
		if got := refusal.Classify(err); got.Code != refusal.CodeQuotaExceeded || got.Message != tt.want || !errors.Is(err, refusal.ErrQuotaExceeded) {
			t.Errorf("(%s, %d) = %s %q, want QUOTA_EXCEEDED %q", tt.kind, tt.limit, got.Code, got.Message, tt.want)
		}
	}
}

// TestQuotaRefusals: each kind of quota refuses the claim past it with the
// tightest quota's words, per namespace, storing nothing; what an owner
// holds already is still its answer; a release makes room again.
func TestQuotaRefusals(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	setupZone(t, svc)
	setQuota(t, svc, "acme/*", map[QuotaKind]int64{QuotaFloatingIPs: 2, QuotaSubnets: 2})
	setQuota(t, svc, "acme/prod", map[QuotaKind]int64{QuotaVPCs: 1, QuotaAddresses: 5})

	if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	_, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "other", CIDR: "10.43.0.0/16", Zone: "zone-a"})
	wantQuotaRefusal(t, "a second VPC", err, "namespace acme/prod has reached its quota of 1 VPC (set for acme/prod)")
	if n := rows(t, db, `SELECT count(*) FROM pools WHERE name = 'vpc-other'`) + rows(t, db, `SELECT count(*) FROM audit_log WHERE object_name = 'other'`); n != 0 {
		t.Errorf("the refused VPC left %d rows", n)
	}

	for _, name := range []string{"web", "db"} {
		if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: name, PrefixLength: 24}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "cache", PrefixLength: 24})
	wantQuotaRefusal(t, "a third subnet", err, "namespace acme/prod has reached its quota of 2 subnets (set for acme/*)")

	fip := func(ns, name string) (FloatingIP, error) {
		return svc.ClaimFloatingIP(ctx, acme, ClaimFloatingIPInput{Namespace: ns, Name: name, Zone: "zone-a"})
	}
	first, err := fip("acme/prod", "ip-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fip("acme/prod", "ip-2"); err != nil {
		t.Fatal(err)
	}
	_, err = fip("acme/prod", "ip-3")
	wantQuotaRefusal(t, "a third floating IP", err, "namespace acme/prod has reached its quota of 2 floating IPs (set for acme/*)")
	if again, err := fip("acme/prod", "ip-1"); err != nil || again.Address != first.Address {
		t.Errorf("a floating IP claimed again at the limit = %+v, %v; want %s", again, err, first.Address)
	}
	for _, name := range []string{"ip-1", "ip-2"} {
		if _, err := fip("acme/dev", name); err != nil {
			t.Errorf("acme/dev's own floating IP %s: %v; each namespace under acme/* has its own 2", name, err)
		}
	}

	// acme/prod holds 3 addresses: the router uplink and 2 floating IPs.
	vm := func(i int) (Allocation, error) {
		return svc.AttachInterface(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web",
			VM: VMRef{UID: fmt.Sprint("vm-", i), Hostname: fmt.Sprint("web-", i)}})
	}
	held, err := vm(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vm(2); err != nil {
		t.Fatal(err)
	}
	_, err = vm(3)
	wantQuotaRefusal(t, "a sixth address", err, "namespace acme/prod has reached its quota of 5 addresses (set for acme/prod)")
	if again, err := vm(1); err != nil || again.Address != held.Address {
		t.Errorf("a VM attached again at the limit = %+v, %v; want %s", again, err, held.Address)
	}
	if _, err := svc.DetachInterface(ctx, acme, DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: VMRef{UID: "vm-2", Hostname: "web-2"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := vm(3); err != nil {
		t.Errorf("a claim after a release made room: %v", err)
	}
	if n := rows(t, db, `SELECT count(*) FROM allocations WHERE owner_namespace = 'acme/prod'`); n != 5 {
		t.Errorf("acme/prod holds %d addresses, want 5", n)
	}

	// A quota lowered below what a namespace holds takes nothing back.
	setQuota(t, svc, "acme/prod", map[QuotaKind]int64{QuotaAddresses: 1})
	_, err = vm(4)
	wantQuotaRefusal(t, "a claim past a lowered quota", err, "namespace acme/prod has reached its quota of 1 address (set for acme/prod)")
	if n := rows(t, db, `SELECT count(*) FROM allocations WHERE owner_namespace = 'acme/prod'`); n != 5 {
		t.Errorf("acme/prod holds %d addresses after the quota was lowered, want its 5", n)
	}
}

// TestQuotaTightest: of the quotas matching a namespace, the refusal names
// the lowest limit; of equal limits, the most specific pattern.
func TestQuotaTightest(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	setupZone(t, svc)
	setQuota(t, svc, "acme/*", map[QuotaKind]int64{QuotaFloatingIPs: 1})
	setQuota(t, svc, "acme/prod/*", map[QuotaKind]int64{QuotaFloatingIPs: 3})
	setQuota(t, svc, "acme/prod/eu", map[QuotaKind]int64{QuotaFloatingIPs: 1})
	if _, err := svc.ClaimFloatingIP(ctx, acme, ClaimFloatingIPInput{Namespace: "acme/prod/eu", Name: "ip-1", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	_, err := svc.ClaimFloatingIP(ctx, acme, ClaimFloatingIPInput{Namespace: "acme/prod/eu", Name: "ip-2", Zone: "zone-a"})
	wantQuotaRefusal(t, "a floating IP under three quotas", err, "namespace acme/prod/eu has reached its quota of 1 floating IP (set for acme/prod/eu)")
	if _, err := svc.SetQuota(ctx, operator, QuotaChange{Pattern: "acme/prod/eu", Lift: []QuotaKind{QuotaFloatingIPs}}); err == nil {
		t.Fatal("a quota left without a limit was kept")
	}
	if _, err := svc.UnsetQuota(ctx, operator, "acme/prod/eu"); err != nil {
		t.Fatal(err)
	}
	_, err = svc.ClaimFloatingIP(ctx, acme, ClaimFloatingIPInput{Namespace: "acme/prod/eu", Name: "ip-2", Zone: "zone-a"})
	wantQuotaRefusal(t, "a floating IP under two quotas", err, "namespace acme/prod/eu has reached its quota of 1 floating IP (set for acme/*)")
}

// TestQuotaNothingHalfStored: a VPC whose router uplink is refused by the
// quota of addresses is not created, nor its pool; a floating IP whose
// address is refused is not stored; a manifest with one VPC too many
// stores none of its VPCs.
func TestQuotaNothingHalfStored(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	setupZone(t, svc)
	setQuota(t, svc, "acme/*", map[QuotaKind]int64{QuotaAddresses: 0, QuotaVPCs: 1})
	_, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"})
	wantQuotaRefusal(t, "a VPC's uplink", err, "namespace acme/prod has reached its quota of 0 addresses (set for acme/*)")
	_, err = svc.ClaimFloatingIP(ctx, acme, ClaimFloatingIPInput{Namespace: "acme/prod", Name: "ip-1", Zone: "zone-a"})
	wantQuotaRefusal(t, "a floating IP's address", err, "namespace acme/prod has reached its quota of 0 addresses (set for acme/*)")
	_, err = svc.Apply(ctx, acme, []ApplyObject{
		{VPC: &ApplyVPCInput{CreateVPCInput: CreateVPCInput{Namespace: "acme/dev", Name: "a", CIDR: "10.1.0.0/16"}}},
		{VPC: &ApplyVPCInput{CreateVPCInput: CreateVPCInput{Namespace: "acme/dev", Name: "b", CIDR: "10.2.0.0/16"}}},
	})
	wantQuotaRefusal(t, "a manifest's second VPC", err, "namespace acme/dev has reached its quota of 1 VPC (set for acme/*)")
	if n := rows(t, db, `SELECT (SELECT count(*) FROM vpcs) + (SELECT count(*) FROM pools WHERE kind = 'private') + (SELECT count(*) FROM floating_ips) + (SELECT count(*) FROM allocations)`); n != 0 {
		t.Errorf("the refused claims left %d rows", n)
	}
	if n := rows(t, db, `SELECT count(*) FROM audit_log WHERE object_kind <> 'Quota' AND object_kind <> 'IPAMPool'`); n != 0 {
		t.Errorf("the refused claims left %d audit entries", n)
	}
}

// TestQuotaRaces: 16 claims racing past a quota of 10, from two services
// on one database (as two processes) with 8 goroutines each, leave
// exactly 10 rows, for each kind; the addresses also through claim
// routing (the pool's owner process makes the other's claims) and through
// PgBouncer (claim_address). The claims of addresses start together, so
// that they meet the quota in the shared statements, before either
// process knows the namespace is bound (Service.quotaBound).
func TestQuotaRaces(t *testing.T) {
	const racing, limit = 16, 10
	type setup struct {
		name string
		open func(t *testing.T, url string) (*Service, *store.DB)
	}
	plain := setup{"two services", func(t *testing.T, url string) (*Service, *store.DB) { return openService(t, url) }}
	routed := setup{"two routed services", openRouted}
	pooled := setup{"two services through PgBouncer", nil}
	for _, tt := range []struct {
		kind   QuotaKind
		setups []setup
		claim  func(ctx context.Context, svc *Service, i int) error
		count  string // the rows the claims make
		held   int64  // what the namespace holds before they race
	}{
		{QuotaAddresses, []setup{plain, routed, pooled}, func(ctx context.Context, svc *Service, i int) error {
			_, err := attachVM(ctx, svc, i)
			return err
		}, `SELECT count(*) FROM allocations WHERE owner_namespace = 'acme/prod'`, 0},
		{QuotaFloatingIPs, []setup{plain}, func(ctx context.Context, svc *Service, i int) error {
			_, err := svc.ClaimFloatingIP(ctx, acme, ClaimFloatingIPInput{Namespace: "acme/prod", Name: fmt.Sprint("ip-", i), Zone: "zone-a"})
			return err
		}, `SELECT count(*) FROM floating_ips WHERE namespace = 'acme/prod'`, 0},
		{QuotaVPCs, []setup{plain}, func(ctx context.Context, svc *Service, i int) error {
			_, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: fmt.Sprint("vpc-", i), CIDR: "10.0.0.0/16"})
			return err
		}, `SELECT count(*) FROM vpcs WHERE namespace = 'acme/prod' AND name LIKE 'vpc-%'`, 1},
		{QuotaSubnets, []setup{plain}, func(ctx context.Context, svc *Service, i int) error {
			_, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: fmt.Sprint("s-", i), PrefixLength: 24})
			return err
		}, `SELECT count(*) FROM subnets WHERE name LIKE 's-%'`, 1},
	} {
		for _, st := range tt.setups {
			t.Run(string(tt.kind)+" "+st.name, func(t *testing.T) {
				url := pgtest.NewURL(t)
				open := st.open
				if open == nil {
					through := pgtest.NewPgBouncer(t, url)
					open = func(t *testing.T, url string) (*Service, *store.DB) { return openPooledService(t, through, url) }
				}
				a, db := open(t, url)
				b, _ := open(t, url)
				setupZone(t, a)
				setupSubnet(t, a, "10.42.0.0/22")
				setQuota(t, a, "acme/*", map[QuotaKind]int64{tt.kind: tt.held + limit})
				ctx := context.Background()
				var wg sync.WaitGroup
				errs := make([]error, racing)
				for i := range racing {
					svc := []*Service{a, b}[i%2]
					wg.Go(func() { errs[i] = tt.claim(ctx, svc, i) })
				}
				wg.Wait()
				refused := 0
				for _, err := range errs {
					switch {
					case errors.Is(err, refusal.ErrQuotaExceeded):
						refused++
					case err != nil:
						t.Error(err)
					}
				}
				if n := rows(t, db, tt.count); n != limit || refused != racing-limit {
					t.Errorf("%d claims racing past a quota of %d %s: %d stored, %d refused; want %d and %d",
						racing, limit, tt.kind.Label(), n, refused, limit, racing-limit)
				}
			})
		}
	}
}

// TestQuotaCountsUnderTheLock forces the interleaving the quota lock is
// for: a transaction holds acme/prod's quota lock and has inserted its
// tenth address, uncommitted; a claim meanwhile waits for the lock (seen
// waiting in pg_stat_activity) and, once the transaction commits, counts the
// tenth address and is refused. Counting without the lock, it would see
// nine and store an eleventh.
func TestQuotaCountsUnderTheLock(t *testing.T) {
	svc, db, url := newService(t)
	ctx := context.Background()
	setupSubnet(t, svc, "10.42.1.0/24")
	for i := range 9 {
		if _, err := attachVM(ctx, svc, i); err != nil {
			t.Fatal(err)
		}
	}
	setQuota(t, svc, "acme/prod", map[QuotaKind]int64{QuotaAddresses: 10})
	raw, err := sqlx.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	tx, err := raw.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`SELECT pg_advisory_xact_lock(hashtextextended('quota acme/prod', 0))`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, subnet_uid, created_by)
		SELECT 'acme/prod', 'vpc-main-10-42-1-200', p.uid, '10.42.1.200', 'VirtualMachine', 'tenth', 'tenth/0', 'acme/prod', s.uid, 'test'
		FROM pools p, subnets s WHERE p.name = 'vpc-main' AND s.name = 'web'`); err != nil {
		t.Fatal(err)
	}
	claimed := make(chan error, 1)
	go func() {
		_, err := attachVM(ctx, svc, 99)
		claimed <- err
	}()
	pgtest.WaitForLock(t, db, "the claim", pgtest.LockWait{Query: "pg_advisory_xact_lock"})
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	wantQuotaRefusal(t, "a claim that waited for the tenth address", <-claimed, "namespace acme/prod has reached its quota of 10 addresses (set for acme/prod)")
	if n := rows(t, db, `SELECT count(*) FROM allocations WHERE owner_namespace = 'acme/prod'`); n != 10 {
		t.Errorf("acme/prod holds %d addresses, want 10", n)
	}
}

// TestClaimWithoutQuotaCostsOneStatement: a claim in a namespace no quota
// matches is one statement, as without quotas (docs/allocation.md, "What
// a claim costs"), though quotas bind other namespaces.
func TestClaimWithoutQuotaCostsOneStatement(t *testing.T) {
	url := pgtest.NewURL(t)
	proxy, through := pgtest.NewProxy(t, url)
	svc, _ := openServiceVia(t, through, url)
	setupSubnet(t, svc, "10.42.1.0/24")
	setQuota(t, svc, "globex/*", map[QuotaKind]int64{QuotaAddresses: 1})
	setQuota(t, svc, "acme/prod/*", map[QuotaKind]int64{QuotaAddresses: 1})
	ctx := context.Background()
	if _, err := attachVM(ctx, svc, 0); err != nil { // reads the subnet and the view
		t.Fatal(err)
	}
	before := proxy.Statements()
	if _, err := attachVM(ctx, svc, 1); err != nil {
		t.Fatal(err)
	}
	if n := proxy.Statements() - before; n != 1 {
		t.Errorf("a claim outside every quota took %d statements, want 1", n)
	}
}

// TestForwardedQuotaRefusal: the owner process refuses a forwarded claim
// past a quota as the forwarding process would have, word for word.
func TestForwardedQuotaRefusal(t *testing.T) {
	url := pgtest.NewURL(t)
	a, _ := openRouted(t, url)
	b, _ := openRouted(t, url)
	ctx := context.Background()
	setupSubnet(t, a, "10.42.1.0/24")
	setQuota(t, a, "acme/*", map[QuotaKind]int64{QuotaAddresses: 1})
	if _, err := attachVM(ctx, a, 0); err != nil { // a owns the pool
		t.Fatal(err)
	}
	_, local := attachVM(ctx, a, 1)
	_, forwarded := attachVM(ctx, b, 1)
	wantQuotaRefusal(t, "a claim here", local, "namespace acme/prod has reached its quota of 1 address (set for acme/*)")
	if forwarded == nil || !reflect.DeepEqual(refusal.Classify(forwarded), refusal.Classify(local)) {
		t.Errorf("forwarded: %v, want the refusal made here, %v", forwarded, local)
	}
	if s := b.router.Stats(); s.Forwarded != 1 || s.Fallbacks != 0 {
		t.Errorf("b's claim was not forwarded: %+v", s)
	}
}

// TestSetQuota: who may set, read and unset quotas, what each change
// keeps, the refusals of wrong limits, the audit entries; what a
// namespace's quotas say of it; how the namespaces use each limit.
func TestSetQuota(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	q, err := svc.SetQuota(ctx, operator, QuotaChange{Pattern: "acme/*", Set: map[QuotaKind]int64{QuotaVPCs: 2, QuotaAddresses: 100}})
	if err != nil || fmt.Sprint(q.Limits) != "map[addresses:100 vpcs:2]" || q.UpdatedBy != "op" {
		t.Fatalf("SetQuota = %+v, %v", q, err)
	}
	q, err = svc.SetQuota(ctx, operator, QuotaChange{Pattern: "acme/*", Set: map[QuotaKind]int64{QuotaFloatingIPs: 3}, Lift: []QuotaKind{QuotaVPCs}})
	if err != nil || fmt.Sprint(q.Limits) != "map[addresses:100 floating_ips:3]" {
		t.Errorf("a change keeps the limits it does not name: %+v, %v", q, err)
	}
	for _, tt := range []struct {
		change QuotaChange
		field  string
		want   string
	}{
		{QuotaChange{Pattern: "", Set: map[QuotaKind]int64{QuotaVPCs: 1}}, "pattern", "pattern is required: a namespace such as acme/prod, or acme/* for every namespace under acme"},
		{QuotaChange{Pattern: "Acme/*", Set: map[QuotaKind]int64{QuotaVPCs: 1}}, "pattern", `pattern "Acme/*" is not a namespace pattern such as acme/prod or acme/*`},
		{QuotaChange{Pattern: "acme/*/x", Set: map[QuotaKind]int64{QuotaVPCs: 1}}, "pattern", `pattern "acme/*/x" is not a namespace pattern such as acme/prod or acme/*`},
		{QuotaChange{Pattern: "acme/*"}, "limits", "give at least one limit to set (vpcs, subnets, floating_ips, addresses)"},
		{QuotaChange{Pattern: "acme/*", Set: map[QuotaKind]int64{QuotaVPCs: -1}}, "vpcs", "a limit of -1 VPCs is out of range: 0 to 2147483647"},
		{QuotaChange{Pattern: "acme/*", Set: map[QuotaKind]int64{QuotaSubnets: 1 << 31}}, "subnets", "a limit of 2147483648 subnets is out of range: 0 to 2147483647"},
		{QuotaChange{Pattern: "acme/*", Set: map[QuotaKind]int64{QuotaVPCs: 1}, Lift: []QuotaKind{QuotaVPCs}}, "vpcs", "the limit of VPCs is both set and lifted: give one"},
		{QuotaChange{Pattern: "acme/*", Set: map[QuotaKind]int64{"routers": 1}}, "limits", `"routers" is no kind of quota: vpcs, subnets, floating_ips, addresses`},
		{QuotaChange{Pattern: "acme/*", Lift: []QuotaKind{QuotaAddresses, QuotaFloatingIPs}}, "limits", "the quota of acme/* would have no limit left: unset it instead"},
	} {
		_, err := svc.SetQuota(ctx, operator, tt.change)
		if r := refusal.Classify(err); r.Code != refusal.CodeInvalidArgument || r.Field != tt.field || r.Message != tt.want {
			t.Errorf("SetQuota(%+v) = %+v, want INVALID_ARGUMENT on %s: %q", tt.change, r, tt.field, tt.want)
		}
	}
	for what, err := range map[string]error{
		"set": func() error {
			_, err := svc.SetQuota(ctx, acme, QuotaChange{Pattern: "acme/*", Set: map[QuotaKind]int64{QuotaVPCs: 9}})
			return err
		}(),
		"unset": func() error { _, err := svc.UnsetQuota(ctx, acme, "acme/*"); return err }(),
		"list":  func() error { _, err := svc.Quotas(ctx, acme); return err }(),
	} {
		if !errors.Is(err, refusal.ErrForbidden) {
			t.Errorf("a tenant may %s quotas: %v", what, err)
		}
	}

	setupSubnet(t, svc, "10.42.1.0/24")
	for i := range 3 {
		if _, err := attachVM(ctx, svc, i); err != nil {
			t.Fatal(err)
		}
	}
	setQuota(t, svc, "acme/prod", map[QuotaKind]int64{QuotaAddresses: 3, QuotaSubnets: 4})
	got, err := svc.NamespaceQuotas(ctx, acme, "acme/prod")
	if err != nil || len(got) != 2 || got[0].Pattern != "acme/*" || got[1].Pattern != "acme/prod" ||
		fmt.Sprint(got[1].Used) != "map[addresses:3 floating_ips:0 subnets:1 vpcs:1]" {
		t.Errorf("NamespaceQuotas(acme/prod) = %+v, %v", got, err)
	}
	if got, err := svc.NamespaceQuotas(ctx, auth.Actor{Name: "globex", Role: auth.Tenant, Namespaces: []string{"globex/*"}}, "acme/prod"); err != nil || len(got) != 0 {
		t.Errorf("another tenant's NamespaceQuotas(acme/prod) = %+v, %v; want none", got, err)
	}
	uses, err := svc.QuotaUses(ctx, operator)
	want := "[{acme/* floating_ips 3 1 0 0} {acme/* addresses 100 1 3 0} {acme/prod subnets 4 1 1 0} {acme/prod addresses 3 1 3 1}]"
	if err != nil || fmt.Sprint(uses) != want {
		t.Errorf("QuotaUses = %v, %v; want %s", uses, err, want)
	}

	if _, err := svc.UnsetQuota(ctx, operator, "acme/prod"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UnsetQuota(ctx, operator, "acme/prod"); !errors.Is(err, refusal.ErrNotFound) || err.Error() != "quota acme/prod not found" {
		t.Errorf("unsetting a quota twice: %v, want NOT_FOUND", err)
	}
	var audit []string
	if err := db.Select(&audit, `SELECT action || ' ' || object_name || ' ' || coalesce(after->>'limits', '-') FROM audit_log WHERE object_kind = 'Quota' ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if want := []string{
		`create acme/* {"vpcs": 2, "addresses": 100}`, `update acme/* {"addresses": 100, "floating_ips": 3}`,
		`create acme/prod {"subnets": 4, "addresses": 3}`, `delete acme/prod -`,
	}; fmt.Sprint(audit) != fmt.Sprint(want) {
		t.Errorf("audit entries %q, want %q", audit, want)
	}
}
