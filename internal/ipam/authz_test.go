package ipam

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// The authorization matrix of the domain: every operation of the service
// against the objects of one tenant, as that tenant, as another tenant and
// as an operator. The console, GraphQL and the command line all go through
// these methods, so this one proof covers them all.

// An outcome is what a cell of the matrix answers.
type outcome string

const (
	allowed         outcome = "allowed"   // done, or the object is in the answer
	hidden          outcome = "hidden"    // no error, and nothing of the object in the answer
	hiddenAsMissing outcome = "NOT_FOUND" // as if the object did not exist
	refused         outcome = "FORBIDDEN"
)

// A target names the objects of one namespace an operation acts on.
type target struct {
	ns, vpc, subnet, spare, empty, fip, host, node string
}

// theirs are the objects authzData makes in ns; ghosts do not exist.
func theirs(ns string) target {
	return target{ns: ns, vpc: "vpcx", subnet: "snx", spare: "sparex", empty: "emptyx", fip: "fipx", host: "hostx", node: "nodex"}
}

func ghosts(ns string) target {
	return target{ns: ns, vpc: "gvpc", subnet: "gsn", spare: "gspare", empty: "gempty", fip: "gfip", host: "ghost", node: "gnode"}
}

func (t target) vpcRef() VPC { return VPC{Namespace: t.ns, Name: t.vpc} }

func (t target) subnetRef() Subnet { return Subnet{Namespace: t.ns, VPC: t.vpc, Name: t.subnet} }

func (t target) poolRef() Pool { return Pool{Namespace: t.ns, Name: "vpc-" + t.vpc, Kind: Private} }

// An authzOp is a row of the matrix: what the tenant who owns the target
// gets and what another tenant gets (operators always get allowed). call
// reports whether the target's objects are in its answer. public
// operations act on public objects only and run once, as acme; audit
// lists the entries ("action kind") an allowed call writes.
type authzOp struct {
	name           string
	call           func(ctx context.Context, svc *Service, a auth.Actor, t target) (seen bool, err error)
	owner, foreign outcome
	public         bool
	audit          []string
}

// done makes a mutation's answer a cell's.
func done[T any](_ T, err error) (bool, error) { return true, err }

func doneErr(err error) (bool, error) { return true, err }

// any of returns whether some item of xs is in namespace ns.
func anyIn[T any](xs []T, err error, ns func(T) string, want string) (bool, error) {
	return slices.ContainsFunc(xs, func(x T) bool { return ns(x) == want }), err
}

var authzOps = []authzOp{
	// Reads.
	{name: "Pools", owner: allowed, foreign: hidden, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		ps, err := svc.Pools(ctx, a, "", t.ns)
		return anyIn(ps, err, func(p Pool) string { return p.Namespace }, t.ns)
	}},
	{name: "Pool", owner: allowed, foreign: hiddenAsMissing, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.Pool(ctx, a, t.ns, "vpc-"+t.vpc))
	}},
	{name: "PoolUsage", owner: allowed, foreign: hiddenAsMissing, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.PoolUsage(ctx, a, t.poolRef()))
	}},
	{name: "PoolAllocations", owner: allowed, foreign: hiddenAsMissing, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.PoolAllocations(ctx, a, t.poolRef(), Page{}))
	}},
	{name: "PoolMap", owner: allowed, foreign: hiddenAsMissing, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.PoolMap(ctx, a, t.poolRef(), netip.Prefix{}))
	}},
	{name: "TakenRanges", owner: allowed, foreign: hiddenAsMissing, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.TakenRanges(ctx, a, t.poolRef(), netip.Prefix{}))
	}},
	{name: "public pool allocations", owner: allowed, foreign: hidden, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		page, err := svc.PoolAllocations(ctx, a, Pool{Name: "public-zone-a", Kind: Public}, Page{})
		return anyIn(page.Allocations, err, func(al Allocation) string { return al.OwnerNamespace }, t.ns)
	}},
	{name: "VPCs", owner: allowed, foreign: hidden, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		vs, err := svc.VPCs(ctx, a, t.ns)
		return anyIn(vs, err, func(v VPC) string { return v.Namespace }, t.ns)
	}},
	{name: "VPC", owner: allowed, foreign: hiddenAsMissing, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.VPC(ctx, a, t.ns, t.vpc))
	}},
	{name: "VPCPool", owner: allowed, foreign: hiddenAsMissing, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.VPCPool(ctx, a, t.vpcRef()))
	}},
	{name: "Router", owner: allowed, foreign: hiddenAsMissing, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		v, err := svc.VPC(ctx, auth.System, t.ns, t.vpc)
		if errors.Is(err, refusal.ErrNotFound) {
			v = t.vpcRef()
		}
		_, _, ok, err := svc.Router(ctx, a, v)
		return ok, err
	}},
	{name: "Subnets", owner: allowed, foreign: hiddenAsMissing, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		v, err := svc.VPC(ctx, auth.System, t.ns, t.vpc)
		if errors.Is(err, refusal.ErrNotFound) {
			v = t.vpcRef()
		}
		subs, err := svc.Subnets(ctx, a, v)
		return len(subs) > 0, err
	}},
	{name: "SubnetUsage", owner: allowed, foreign: hiddenAsMissing, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.SubnetUsage(ctx, a, t.subnetRef()))
	}},
	{name: "SubnetAllocations", owner: allowed, foreign: hiddenAsMissing, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.SubnetAllocations(ctx, a, t.subnetRef(), Page{}))
	}},
	{name: "SubnetMap", owner: allowed, foreign: hiddenAsMissing, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.SubnetMap(ctx, a, t.subnetRef()))
	}},
	{name: "FloatingIPs", owner: allowed, foreign: hidden, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		fs, err := svc.FloatingIPs(ctx, a, t.ns)
		return anyIn(fs, err, func(f FloatingIP) string { return f.Namespace }, t.ns)
	}},
	{name: "Preview", owner: allowed, foreign: hiddenAsMissing, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.Preview(ctx, a, t.ns, "vpc-"+t.vpc, "10.42.1.0/24", nil, 1))
	}},
	{name: "PreviewSubnet", owner: allowed, foreign: hiddenAsMissing, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.PreviewSubnet(ctx, a, t.ns, t.vpc, 24, 1))
	}},
	{name: "public Pools", public: true, owner: allowed, call: func(ctx context.Context, svc *Service, a auth.Actor, _ target) (bool, error) {
		ps, err := svc.Pools(ctx, a, Public, "")
		return len(ps) > 0, err
	}},
	{name: "public Pool", public: true, owner: allowed, call: func(ctx context.Context, svc *Service, a auth.Actor, _ target) (bool, error) {
		return done(svc.Pool(ctx, a, "", "public-zone-a"))
	}},
	{name: "public PoolMap", public: true, owner: refused, call: func(ctx context.Context, svc *Service, a auth.Actor, _ target) (bool, error) {
		return done(svc.PoolMap(ctx, a, Pool{Name: "public-zone-a", Kind: Public}, netip.Prefix{}))
	}},

	// Changes.
	{name: "CreatePublicPool", public: true, owner: refused, audit: []string{"create IPAMPool"}, call: func(ctx context.Context, svc *Service, a auth.Actor, _ target) (bool, error) {
		return done(svc.CreatePublicPool(ctx, a, CreatePublicPoolInput{Name: "newpub", CIDR: "198.51.100.0/24"}))
	}},
	{name: "DeletePublicPool", public: true, owner: refused, audit: []string{"delete IPAMPool"}, call: func(ctx context.Context, svc *Service, a auth.Actor, _ target) (bool, error) {
		return doneErr(svc.DeletePublicPool(ctx, a, "spare"))
	}},
	{name: "Allocate in a public pool", public: true, owner: refused, audit: []string{"allocate IPAllocation"}, call: func(ctx context.Context, svc *Service, a auth.Actor, _ target) (bool, error) {
		return done(svc.Allocate(ctx, a, AllocateInput{Pool: "public-zone-a", Owner: Owner{Kind: OwnerVirtualMachine, UID: "vm-9", Name: "h9/0"}, OwnerNamespace: "acme/prod"}))
	}},
	{name: "Release in a public pool", public: true, owner: refused, audit: []string{"release IPAllocation"}, call: func(ctx context.Context, svc *Service, a auth.Actor, _ target) (bool, error) {
		return done(svc.Release(ctx, a, ReleaseInput{Pool: "public-zone-a", Address: publicAddress}))
	}},
	{name: "CreateVPC", owner: allowed, foreign: refused, audit: []string{"allocate IPAllocation", "create VPC"}, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.CreateVPC(ctx, a, CreateVPCInput{Namespace: t.ns, Name: "newvpc", CIDR: "10.50.0.0/16", Zone: "zone-a"}))
	}},
	{name: "Apply a VPC", owner: allowed, foreign: refused, audit: []string{"create VPC", "create Subnet"}, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.Apply(ctx, a, []ApplyObject{{VPC: &ApplyVPCInput{
			CreateVPCInput: CreateVPCInput{Namespace: t.ns, Name: "newvpc", CIDR: "10.50.0.0/16"},
			Subnets:        []CreateSubnetInput{{Name: "web", CIDR: "10.50.1.0/24"}},
		}}}))
	}},
	{name: "DeleteVPC", owner: allowed, foreign: hiddenAsMissing, audit: []string{"delete IPAMPool", "delete VPC"}, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return doneErr(svc.DeleteVPC(ctx, a, t.ns, t.empty))
	}},
	{name: "CreateSubnet", owner: allowed, foreign: hiddenAsMissing, audit: []string{"create Subnet"}, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.CreateSubnet(ctx, a, CreateSubnetInput{Namespace: t.ns, VPC: t.vpc, Name: "newsn", CIDR: "10.42.5.0/24"}))
	}},
	{name: "CreateSubnet by size", owner: allowed, foreign: hiddenAsMissing, audit: []string{"create Subnet"}, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.CreateSubnet(ctx, a, CreateSubnetInput{Namespace: t.ns, VPC: t.vpc, Name: "newsn", PrefixLength: 24}))
	}},
	{name: "DeleteSubnet", owner: allowed, foreign: hiddenAsMissing, audit: []string{"delete Subnet"}, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return doneErr(svc.DeleteSubnet(ctx, a, t.ns, t.vpc, t.spare))
	}},
	{name: "AttachInterface", owner: allowed, foreign: hiddenAsMissing, audit: []string{"allocate IPAllocation"}, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.AttachInterface(ctx, a, AttachInterfaceInput{Namespace: t.ns, VPC: t.vpc, Subnet: t.subnet, VM: VMRef{UID: "vm-new", Hostname: "newhost"}}))
	}},
	{name: "DetachInterface", owner: allowed, foreign: hiddenAsMissing, audit: []string{"release IPAllocation"}, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.DetachInterface(ctx, a, DetachInterfaceInput{Namespace: t.ns, VPC: t.vpc, VM: VMRef{UID: "vm-x", Hostname: t.host}}))
	}},
	{name: "AttachNode", owner: allowed, foreign: hiddenAsMissing, audit: []string{"allocate IPAllocation"}, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.AttachNode(ctx, a, AttachNodeInput{Namespace: t.ns, VPC: t.vpc, Subnet: t.subnet, Node: NodeRef{UID: "node-new", Name: "newnode"}}))
	}},
	{name: "ClaimFloatingIP", owner: allowed, foreign: refused, audit: []string{"allocate IPAllocation", "create FloatingIP"}, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.ClaimFloatingIP(ctx, a, ClaimFloatingIPInput{Namespace: t.ns, Name: "newfip", Zone: "zone-a"}))
	}},
	{name: "ReleaseFloatingIP", owner: allowed, foreign: hiddenAsMissing, audit: []string{"delete FloatingIP", "release IPAllocation"}, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return doneErr(svc.ReleaseFloatingIP(ctx, a, t.ns, t.fip))
	}},
	{name: "Allocate", owner: allowed, foreign: hiddenAsMissing, audit: []string{"allocate IPAllocation"}, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.Allocate(ctx, a, AllocateInput{Namespace: t.ns, Pool: "vpc-" + t.vpc, Within: "10.42.9.0/24", Owner: Owner{Kind: OwnerVirtualMachine, UID: "vm-9", Name: "h9/0"}}))
	}},
	{name: "Release", owner: allowed, foreign: hiddenAsMissing, audit: []string{"release IPAllocation"}, call: func(ctx context.Context, svc *Service, a auth.Actor, t target) (bool, error) {
		return done(svc.Release(ctx, a, ReleaseInput{Namespace: t.ns, Pool: "vpc-" + t.vpc, Address: "10.42.1.3"}))
	}},
}

// publicAddress is the address of public-zone-a that authzData gives the
// operator's node.
const publicAddress = "203.0.113.6"

// authzTenants are the tenants of the matrix, sharing the prefix "acme",
// and the namespace of each one's objects.
var authzTenants = map[string]auth.Actor{
	"acme/prod":      acme,
	"acme-corp/prod": {Name: "corp", Role: auth.Tenant, Namespaces: []string{"acme-corp/*"}},
}

// authzData makes the public pools public-zone-a (zone-a) and spare, and
// in each tenant's namespace VPC vpcx (zone-a) with subnets snx (VM hostx
// at 10.42.1.2, node nodex at 10.42.1.3) and sparex, VPC emptyx and
// floating IP fipx; and the operator's node at publicAddress.
func authzData(t *testing.T, svc *Service) {
	t.Helper()
	ctx := context.Background()
	sys := auth.System
	check := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	check(svc.CreatePublicPool(ctx, sys, CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Zone: "zone-a"}))
	check(svc.CreatePublicPool(ctx, sys, CreatePublicPoolInput{Name: "spare", CIDR: "192.0.2.0/24"}))
	for _, ns := range slices.Sorted(maps.Keys(authzTenants)) {
		tg := theirs(ns)
		check(svc.CreateVPC(ctx, sys, CreateVPCInput{Namespace: ns, Name: tg.vpc, CIDR: "10.42.0.0/16", Zone: "zone-a"}))
		check(svc.CreateVPC(ctx, sys, CreateVPCInput{Namespace: ns, Name: tg.empty, CIDR: "10.43.0.0/16"}))
		check(svc.CreateSubnet(ctx, sys, CreateSubnetInput{Namespace: ns, VPC: tg.vpc, Name: tg.subnet, CIDR: "10.42.1.0/24"}))
		check(svc.CreateSubnet(ctx, sys, CreateSubnetInput{Namespace: ns, VPC: tg.vpc, Name: tg.spare, CIDR: "10.42.9.0/24"}))
		check(svc.AttachInterface(ctx, sys, AttachInterfaceInput{Namespace: ns, VPC: tg.vpc, Subnet: tg.subnet, VM: VMRef{UID: "vm-x", Hostname: tg.host}}))
		check(svc.AttachNode(ctx, sys, AttachNodeInput{Namespace: ns, VPC: tg.vpc, Subnet: tg.subnet, Node: NodeRef{UID: "node-x", Name: tg.node}}))
		check(svc.ClaimFloatingIP(ctx, sys, ClaimFloatingIPInput{Namespace: ns, Name: tg.fip, Zone: "zone-a"}))
	}
	a, err := svc.Allocate(ctx, sys, AllocateInput{Pool: "public-zone-a", Owner: Owner{Kind: OwnerNode, UID: "node-op", Name: "edge"}, OwnerNamespace: "acme/prod"})
	if err != nil || a.Address.String() != publicAddress {
		t.Fatalf("the operator's node got %v, %v; want %s", a.Address, err, publicAddress)
	}
}

// authzEnv is a service on a database holding authzData.
type authzEnv struct {
	svc *Service
	db  *store.DB
}

func newAuthzEnv(t *testing.T) authzEnv {
	t.Helper()
	svc, db, _ := newService(t)
	authzData(t, svc)
	return authzEnv{svc, db}
}

// outcomeOf classifies what a call answered.
func outcomeOf(seen bool, err error) outcome {
	if err == nil && seen {
		return allowed
	}
	if err == nil {
		return hidden
	}
	switch r := refusal.Classify(err); {
	case r.Code == refusal.CodeNotFound:
		return hiddenAsMissing
	case r.Code == refusal.CodeForbidden:
		return refused
	}
	return outcome("error " + err.Error())
}

// counts returns the number of rows of each table and the newest audit
// entry's id.
func (e authzEnv) counts(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"pools", "vpcs", "subnets", "allocations", "floating_ips", "audit_log"} {
		var n int
		if err := e.db.Get(&n, `SELECT count(*) FROM `+table); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

// auditAfter returns the audit entries after id, as "action kind" sorted,
// and their actors.
func (e authzEnv) auditAfter(t *testing.T, id int64) (entries, actors []string) {
	t.Helper()
	var rows []struct {
		Entry string `db:"entry"`
		Actor string `db:"actor"`
	}
	if err := e.db.Select(&rows, `SELECT action || ' ' || object_kind AS entry, actor FROM audit_log WHERE id > $1`, id); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		entries = append(entries, r.Entry)
		if !slices.Contains(actors, r.Actor) {
			actors = append(actors, r.Actor)
		}
	}
	slices.Sort(entries)
	return entries, actors
}

func (e authzEnv) lastAuditID(t *testing.T) int64 {
	t.Helper()
	var id int64
	if err := e.db.Get(&id, `SELECT coalesce(max(id), 0) FROM audit_log`); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestAuthorizationMatrix runs every operation of the service against the
// objects of acme (acme/*) and of corp (acme-corp/*), as their owner, as
// the other tenant and as an operator. Each cell answers as authzOp says; a
// refused call changes nothing and writes no audit entry; an allowed change
// writes exactly its audit entries, as its caller. The other tenant's
// answer about an object that exists is the answer about one that does
// not, in the same namespace or in one that holds nothing, but for the
// names.
func TestAuthorizationMatrix(t *testing.T) {
	for _, op := range authzOps {
		t.Run(op.name, func(t *testing.T) {
			shared := newAuthzEnv(t)
			for _, ns := range slices.Sorted(maps.Keys(authzTenants)) {
				if op.public && ns != "acme/prod" {
					continue
				}
				tg := theirs(ns)
				owner := authzTenants[ns]
				other := authzTenants["acme/prod"]
				if ns == "acme/prod" {
					other = authzTenants["acme-corp/prod"]
				}
				cells := []struct {
					who  auth.Actor
					want outcome
				}{{owner, op.owner}, {operator, allowed}}
				if !op.public {
					cells = append(cells, struct {
						who  auth.Actor
						want outcome
					}{other, op.foreign})
				}
				for _, cell := range cells {
					name := fmt.Sprintf("%s as %s on %s", op.name, cell.who.Name, ns)
					e := shared
					if cell.want == allowed && op.audit != nil {
						e = newAuthzEnv(t)
					}
					before, lastID := e.counts(t), e.lastAuditID(t)
					if got := outcomeOf(op.call(t.Context(), e.svc, cell.who, tg)); got != cell.want {
						t.Errorf("%s: %s, want %s", name, got, cell.want)
						continue
					}
					entries, actors := e.auditAfter(t, lastID)
					if cell.want == allowed && op.audit != nil {
						if want := slices.Sorted(slices.Values(op.audit)); !slices.Equal(entries, want) || !slices.Equal(actors, []string{cell.who.Name}) {
							t.Errorf("%s wrote the audit entries %v by %v, want %v by %s", name, entries, actors, want, cell.who.Name)
						}
						continue
					}
					if after := e.counts(t); !maps.Equal(before, after) {
						t.Errorf("%s (%s) changed the database: %v, then %v; audit entries %v", name, cell.want, before, after, entries)
					}
				}
				if op.public {
					continue
				}
				// The other tenant cannot tell this object from one that
				// does not exist.
				_, theirsErr := op.call(t.Context(), shared.svc, other, tg)
				for _, missing := range []target{ghosts(ns), theirs(strings.Replace(ns, "prod", "void", 1))} {
					_, err := op.call(t.Context(), shared.svc, other, missing)
					if normalisedError(err, missing) != normalisedError(theirsErr, tg) {
						t.Errorf("%s as %s: the answer about %s/%s (%v) differs from the answer about %s/%s (%v)",
							op.name, other.Name, ns, tg.vpc, theirsErr, missing.ns, missing.vpc, err)
					}
				}
			}
		})
	}
}

// normalisedError returns err's message with t's names replaced by their
// roles, longest first.
func normalisedError(err error, t target) string {
	if err == nil {
		return "<nil>"
	}
	msg := err.Error()
	subs := [][2]string{{t.ns, "<ns>"}, {t.vpc, "<vpc>"}, {t.subnet, "<subnet>"}, {t.spare, "<spare>"}, {t.empty, "<empty>"}, {t.fip, "<fip>"}, {t.host, "<host>"}, {t.node, "<node>"}}
	slices.SortFunc(subs, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	for _, s := range subs {
		msg = strings.ReplaceAll(msg, s[0], s[1])
	}
	return msg
}
