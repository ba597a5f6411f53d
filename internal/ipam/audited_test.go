package ipam_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// objectOf names what e changed as ipam.AuditEntry.Object does.
func objectOf(e store.AuditEntry) string {
	return ipam.AuditEntry{Namespace: e.Namespace, Name: e.ObjectName}.Object()
}

// wantEntry is an audit entry a change must write: its actor, action,
// kind and object, and whether it has a before and an after.
type wantEntry struct {
	actor, action, kind, object string
	before, after               bool
}

func (w wantEntry) String() string {
	return fmt.Sprintf("%s %s %s %s before=%v after=%v", w.actor, w.action, w.kind, w.object, w.before, w.after)
}

// made and gone are the entries of a creation (an allocation) and of a
// deletion (a release).
func made(actor, action, kind, object string) wantEntry {
	return wantEntry{actor: actor, action: action, kind: kind, object: object, after: true}
}

func gone(actor, action, kind, object string) wantEntry {
	return wantEntry{actor: actor, action: action, kind: kind, object: object, before: true}
}

// changedTables are the tables a change of the ipam and auth services
// writes.
var changedTables = []string{"pools", "vpcs", "subnets", "allocations", "floating_ips", "users", "api_tokens", "audit_log"}

func rowCounts(t *testing.T, db *store.DB) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range changedTables {
		var n int
		if err := db.GetContext(t.Context(), &n, "SELECT count(*) FROM "+table); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

// TestEveryChangeIsAudited makes every kind of change through the ipam
// and auth services, each refused in several ways first: a refused
// request changes no row and writes no audit entry, a confirmed one writes
// exactly the entries of what it changed (one per object), with its actor
// and a before and an after as the action has them, and asking again for
// what is done already writes nothing.
func TestEveryChangeIsAudited(t *testing.T) {
	db := pgtest.NewDB(t)
	svc, err := ipam.New(t.Context(), ipam.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	users := auth.NewService(db)
	op := auth.Actor{Name: "op", Role: auth.Operator}
	acme := auth.Actor{Name: "acme", Role: auth.Tenant, Namespaces: []string{"acme/*"}}
	corp := auth.Actor{Name: "corp", Role: auth.Tenant, Namespaces: []string{"acme-corp/*"}}
	alice := auth.Actor{Name: "alice", Role: auth.Tenant, Namespaces: []string{"acme/*"}}
	excludes := make([]string, 10000)
	for i := range excludes {
		excludes[i] = fmt.Sprintf("198.18.%d.%d", i/256, i%256)
	}
	var nodeAddress, uplink, fipAddress string
	ctx := context.Background()

	steps := []struct {
		name string
		do   func() error
		// want: nil for a refusal (an error and nothing stored), the
		// entries otherwise (none for a repeat).
		want []wantEntry
	}{
		{"the first operator", func() error {
			_, created, err := users.EnsureAdmin(ctx)
			if err == nil && !created {
				err = errors.New("EnsureAdmin created no admin")
			}
			return err
		}, []wantEntry{made("system", "create", "User", "admin")}},
		{"the first operator again", func() error { _, _, err := users.EnsureAdmin(ctx); return err }, []wantEntry{}},

		{"a public pool by a tenant", func() error {
			_, err := svc.CreatePublicPool(ctx, acme, ipam.CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24"})
			return err
		}, nil},
		{"a public pool of 10 000 excludes", func() error {
			_, err := svc.CreatePublicPool(ctx, op, ipam.CreatePublicPoolInput{Name: "big", CIDR: "198.18.0.0/15", Exclude: excludes})
			return err
		}, nil},
		{"a public pool named with SQL", func() error {
			_, err := svc.CreatePublicPool(ctx, op, ipam.CreatePublicPoolInput{Name: "'; DROP TABLE pools; --", CIDR: "198.51.100.0/24"})
			return err
		}, nil},
		{"a public pool", func() error {
			_, err := svc.CreatePublicPool(ctx, op, ipam.CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Zone: "zone-a"})
			return err
		}, []wantEntry{made("op", "create", "IPAMPool", "public-zone-a")}},
		{"the same public pool again", func() error {
			_, err := svc.CreatePublicPool(ctx, op, ipam.CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Zone: "zone-a"})
			return err
		}, []wantEntry{}},
		{"a public pool of that name with another spec", func() error {
			_, err := svc.CreatePublicPool(ctx, op, ipam.CreatePublicPoolInput{Name: "public-zone-a", CIDR: "198.51.100.0/24"})
			return err
		}, nil},
		{"an overlapping public pool", func() error {
			_, err := svc.CreatePublicPool(ctx, op, ipam.CreatePublicPoolInput{Name: "other", CIDR: "203.0.113.128/25"})
			return err
		}, nil},
		{"a public pool of one address", func() error {
			_, err := svc.CreatePublicPool(ctx, op, ipam.CreatePublicPoolInput{Name: "public-zone-x", CIDR: "198.18.0.0/30", Gateway: "198.18.0.1", Zone: "zone-x"})
			return err
		}, []wantEntry{made("op", "create", "IPAMPool", "public-zone-x")}},

		{"a VPC in another tenant's namespace", func() error {
			_, err := svc.CreateVPC(ctx, corp, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16"})
			return err
		}, nil},
		{"a VPC named with control characters", func() error {
			_, err := svc.CreateVPC(ctx, acme, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "ma\tin\x00", CIDR: "10.42.0.0/16"})
			return err
		}, nil},
		{"a VPC named in unicode", func() error {
			_, err := svc.CreateVPC(ctx, acme, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "mäin", CIDR: "10.42.0.0/16"})
			return err
		}, nil},
		{"a VPC", func() error {
			v, err := svc.CreateVPC(ctx, acme, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"})
			if err == nil {
				uplink = routerOf(ctx, svc, acme, v)
			}
			return err
		}, []wantEntry{made("acme", "create", "VPC", "acme/prod/main"), made("acme", "allocate", "IPAllocation", "public-zone-a-203-0-113-2")}},
		{"the same VPC again", func() error {
			_, err := svc.CreateVPC(ctx, acme, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"})
			return err
		}, nil},
		{"a VPC taking the last address of its zone", func() error {
			_, err := svc.CreateVPC(ctx, acme, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "edge", CIDR: "10.1.0.0/16", Zone: "zone-x"})
			return err
		}, []wantEntry{made("acme", "create", "VPC", "acme/prod/edge"), made("acme", "allocate", "IPAllocation", "public-zone-x-198-18-0-2")}},
		{"a VPC in an exhausted zone (refused after its rows were written)", func() error {
			_, err := svc.CreateVPC(ctx, acme, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "late", CIDR: "10.2.0.0/16", Zone: "zone-x"})
			return err
		}, nil},

		{"a subnet of another tenant's VPC", func() error {
			_, err := svc.CreateSubnet(ctx, corp, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"})
			return err
		}, nil},
		{"a subnet outside its VPC", func() error {
			_, err := svc.CreateSubnet(ctx, acme, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.43.1.0/24"})
			return err
		}, nil},
		{"a subnet", func() error {
			_, err := svc.CreateSubnet(ctx, acme, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"})
			return err
		}, []wantEntry{made("acme", "create", "Subnet", "acme/prod/main/web")}},
		{"an overlapping subnet", func() error {
			_, err := svc.CreateSubnet(ctx, acme, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web2", CIDR: "10.42.1.128/25"})
			return err
		}, nil},

		{"an interface in another tenant's VPC", func() error {
			_, err := svc.AttachInterface(ctx, corp, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: ipam.VMRef{UID: "vm-1", Hostname: "web-01"}})
			return err
		}, nil},
		{"an interface of a bad hostname", func() error {
			_, err := svc.AttachInterface(ctx, acme, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: ipam.VMRef{UID: "vm-1", Hostname: "web 01'--"}})
			return err
		}, nil},
		{"an interface", func() error {
			_, err := svc.AttachInterface(ctx, acme, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: ipam.VMRef{UID: "vm-1", Hostname: "web-01"}})
			return err
		}, []wantEntry{made("acme", "allocate", "IPAllocation", "acme/prod/vpc-main-10-42-1-2")}},
		{"the same interface again", func() error {
			_, err := svc.AttachInterface(ctx, acme, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: ipam.VMRef{UID: "vm-1", Hostname: "web-01"}})
			return err
		}, []wantEntry{}},
		{"a node address in another tenant's VPC", func() error {
			_, err := svc.AttachNode(ctx, corp, ipam.AttachNodeInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", Node: ipam.NodeRef{UID: "node-1", Name: "hv-1"}})
			return err
		}, nil},
		{"a node address", func() error {
			a, err := svc.AttachNode(ctx, acme, ipam.AttachNodeInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", Node: ipam.NodeRef{UID: "node-1", Name: "hv-1"}})
			nodeAddress = a.Address.String()
			return err
		}, []wantEntry{made("acme", "allocate", "IPAllocation", "acme/prod/vpc-main-10-42-1-3")}},

		{"a floating IP in another tenant's namespace", func() error {
			_, err := svc.ClaimFloatingIP(ctx, corp, ipam.ClaimFloatingIPInput{Namespace: "acme/prod", Name: "web", Zone: "zone-a"})
			return err
		}, nil},
		{"a floating IP of an exhausted zone", func() error {
			_, err := svc.ClaimFloatingIP(ctx, acme, ipam.ClaimFloatingIPInput{Namespace: "acme/prod", Name: "web", Zone: "zone-x"})
			return err
		}, nil},
		{"a floating IP", func() error {
			f, err := svc.ClaimFloatingIP(ctx, acme, ipam.ClaimFloatingIPInput{Namespace: "acme/prod", Name: "web", Zone: "zone-a"})
			fipAddress = f.Address.String()
			return err
		}, []wantEntry{made("acme", "create", "FloatingIP", "acme/prod/web"), made("acme", "allocate", "IPAllocation", "public-zone-a-203-0-113-3")}},
		{"the same floating IP again", func() error {
			_, err := svc.ClaimFloatingIP(ctx, acme, ipam.ClaimFloatingIPInput{Namespace: "acme/prod", Name: "web", Zone: "zone-a"})
			return err
		}, []wantEntry{}},
		{"the same floating IP from another zone", func() error {
			_, err := svc.ClaimFloatingIP(ctx, acme, ipam.ClaimFloatingIPInput{Namespace: "acme/prod", Name: "web", Zone: "zone-x"})
			return err
		}, nil},

		{"an allocation in a public pool by a tenant", func() error {
			_, err := svc.Allocate(ctx, acme, ipam.AllocateInput{Pool: "public-zone-a", Owner: ipam.Owner{Kind: "Node", UID: "n2", Name: "x"}, OwnerNamespace: "acme/prod"})
			return err
		}, nil},
		{"an allocation in another tenant's pool", func() error {
			_, err := svc.Allocate(ctx, corp, ipam.AllocateInput{Namespace: "acme/prod", Pool: "vpc-main", Owner: ipam.Owner{Kind: "Node", UID: "n2", Name: "x"}})
			return err
		}, nil},
		{"an allocation outside the pool", func() error {
			_, err := svc.Allocate(ctx, acme, ipam.AllocateInput{Namespace: "acme/prod", Pool: "vpc-main", Within: "10.43.0.0/24", Owner: ipam.Owner{Kind: "Node", UID: "n2", Name: "x"}})
			return err
		}, nil},
		{"an allocation outside every subnet", func() error {
			_, err := svc.Allocate(ctx, acme, ipam.AllocateInput{Namespace: "acme/prod", Pool: "vpc-main", Within: "10.42.7.0/24", Owner: ipam.Owner{Kind: "VirtualMachine", UID: "n2", Name: "x/0"}})
			return err
		}, nil},
		{"an allocation for a node by a tenant", func() error {
			_, err := svc.Allocate(ctx, acme, ipam.AllocateInput{Namespace: "acme/prod", Pool: "vpc-main", Within: "10.42.1.0/24", Owner: ipam.Owner{Kind: "Node", UID: "n2", Name: "x"}})
			return err
		}, nil},
		{"an allocation", func() error {
			_, err := svc.Allocate(ctx, acme, ipam.AllocateInput{Namespace: "acme/prod", Pool: "vpc-main", Within: "10.42.1.0/28", Owner: ipam.Owner{Kind: "VirtualMachine", UID: "n2", Name: "x/0"}})
			return err
		}, []wantEntry{made("acme", "allocate", "IPAllocation", "acme/prod/vpc-main-10-42-1-4")}},
		{"a release in another tenant's pool", func() error {
			_, err := svc.Release(ctx, corp, ipam.ReleaseInput{Namespace: "acme/prod", Pool: "vpc-main", Address: "10.42.1.4"})
			return err
		}, nil},
		{"a release of a bad address", func() error {
			_, err := svc.Release(ctx, acme, ipam.ReleaseInput{Namespace: "acme/prod", Pool: "vpc-main", Address: "10.42.1.4'; --"})
			return err
		}, nil},
		{"a release", func() error {
			return released(svc.Release(ctx, acme, ipam.ReleaseInput{Namespace: "acme/prod", Pool: "vpc-main", Address: "10.42.1.4"}))
		},
			[]wantEntry{gone("acme", "release", "IPAllocation", "acme/prod/vpc-main-10-42-1-4")}},
		{"the same release again", func() error {
			_, err := svc.Release(ctx, acme, ipam.ReleaseInput{Namespace: "acme/prod", Pool: "vpc-main", Address: "10.42.1.4"})
			return err
		}, []wantEntry{}},
		{"a release of an uplink by a tenant", func() error {
			_, err := svc.Release(ctx, acme, ipam.ReleaseInput{Pool: "public-zone-a", Address: uplink})
			return err
		}, nil},

		{"a subnet that still has an interface", func() error { return svc.DeleteSubnet(ctx, acme, "acme/prod", "main", "web") }, nil},
		{"a VPC that still has an interface", func() error { return svc.DeleteVPC(ctx, acme, "acme/prod", "main") }, nil},
		{"an interface detached by another tenant", func() error {
			_, err := svc.DetachInterface(ctx, corp, ipam.DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: ipam.VMRef{UID: "vm-1", Hostname: "web-01"}})
			return err
		}, nil},
		{"an interface detached", func() error {
			return released(svc.DetachInterface(ctx, acme, ipam.DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: ipam.VMRef{UID: "vm-1", Hostname: "web-01"}}))
		}, []wantEntry{gone("acme", "release", "IPAllocation", "acme/prod/vpc-main-10-42-1-2")}},
		{"the same interface detached again", func() error {
			_, err := svc.DetachInterface(ctx, acme, ipam.DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: ipam.VMRef{UID: "vm-1", Hostname: "web-01"}})
			return err
		}, []wantEntry{}},
		{"a floating IP released by another tenant", func() error { return svc.ReleaseFloatingIP(ctx, corp, "acme/prod", "web") }, nil},
		{"a floating IP released", func() error { return svc.ReleaseFloatingIP(ctx, acme, "acme/prod", "web") },
			[]wantEntry{gone("acme", "delete", "FloatingIP", "acme/prod/web"), gone("acme", "release", "IPAllocation", "public-zone-a-203-0-113-3")}},
		{"the same floating IP released again", func() error { return svc.ReleaseFloatingIP(ctx, acme, "acme/prod", "web") }, nil},
		{"a public pool that holds addresses", func() error { return svc.DeletePublicPool(ctx, op, "public-zone-a") }, nil},
		{"a subnet deleted by another tenant", func() error { return svc.DeleteSubnet(ctx, corp, "acme/prod", "main", "web") }, nil},
		{"a subnet deleted with its node address", func() error { return svc.DeleteSubnet(ctx, acme, "acme/prod", "main", "web") },
			[]wantEntry{gone("acme", "delete", "Subnet", "acme/prod/main/web"), gone("acme", "release", "IPAllocation", "acme/prod/vpc-main-10-42-1-3")}},
		{"a VPC deleted by another tenant", func() error { return svc.DeleteVPC(ctx, corp, "acme/prod", "main") }, nil},
		{"a subnet its VPC takes along", func() error {
			_, err := svc.CreateSubnet(ctx, acme, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "db", CIDR: "10.42.2.0/24"})
			return err
		}, []wantEntry{made("acme", "create", "Subnet", "acme/prod/main/db")}},
		{"a VPC deleted with its subnet, its pool and its uplink", func() error { return svc.DeleteVPC(ctx, acme, "acme/prod", "main") },
			[]wantEntry{gone("acme", "delete", "VPC", "acme/prod/main"), gone("acme", "delete", "Subnet", "acme/prod/main/db"),
				gone("acme", "delete", "IPAMPool", "acme/prod/vpc-main"), gone("acme", "release", "IPAllocation", "public-zone-a-203-0-113-2")}},
		{"a public pool deleted by a tenant", func() error { return svc.DeletePublicPool(ctx, acme, "public-zone-a") }, nil},
		{"a public pool deleted", func() error { return svc.DeletePublicPool(ctx, op, "public-zone-a") },
			[]wantEntry{gone("op", "delete", "IPAMPool", "public-zone-a")}},

		{"a user added by a tenant", func() error {
			return users.AddUser(ctx, acme, "alice", auth.Tenant, []string{"acme/*"}, "a long enough secret")
		}, nil},
		{"a user of a bad name", func() error {
			return users.AddUser(ctx, op, "al'; DROP TABLE users; --", auth.Tenant, []string{"acme/*"}, "a long enough secret")
		}, nil},
		{"a user of a bad namespace", func() error {
			return users.AddUser(ctx, op, "alice", auth.Tenant, []string{"acme/\x00"}, "a long enough secret")
		}, nil},
		{"a user", func() error {
			return users.AddUser(ctx, op, "alice", auth.Tenant, []string{"acme/*"}, "a long enough secret")
		},
			[]wantEntry{made("op", "create", "User", "alice")}},
		{"the same user again", func() error {
			return users.AddUser(ctx, op, "alice", auth.Tenant, []string{"acme/*"}, "a long enough secret")
		}, nil},
		{"a password set by another tenant", func() error { return users.SetPassword(ctx, corp, "alice", "another long secret") }, nil},
		{"a password of an unknown user", func() error { return users.SetPassword(ctx, op, "bob", "another long secret") }, nil},
		{"a password too short", func() error { return users.SetPassword(ctx, alice, "alice", "short") }, nil},
		{"a password", func() error { return users.SetPassword(ctx, alice, "alice", "another long secret") },
			[]wantEntry{{actor: "alice", action: "set-password", kind: "User", object: "alice", before: true, after: true}}},
		{"a token of another user", func() error { _, err := users.CreateToken(ctx, corp, "alice"); return err }, nil},
		{"a token of an unknown user", func() error { _, err := users.CreateToken(ctx, op, "bob"); return err }, nil},
		{"a token", func() error { _, err := users.CreateToken(ctx, alice, "alice"); return err },
			[]wantEntry{made("alice", "create", "APIToken", "alice")}},
		{"tokens revoked by another user", func() error { _, err := users.RevokeTokens(ctx, corp, "alice"); return err }, nil},
		{"tokens of an unknown user", func() error { _, err := users.RevokeTokens(ctx, op, "bob"); return err }, nil},
		{"tokens revoked", func() error { _, err := users.RevokeTokens(ctx, op, "alice"); return err },
			[]wantEntry{gone("op", "revoke", "APIToken", "alice")}},
		{"no token left to revoke", func() error { _, err := users.RevokeTokens(ctx, op, "alice"); return err }, []wantEntry{}},
	}
	var last int64
	for _, step := range steps {
		before := rowCounts(t, db)
		err := step.do()
		got, lerr := store.AuditEntries(ctx, db, store.AuditFilter{})
		if lerr != nil {
			t.Fatal(lerr)
		}
		var written []wantEntry
		for _, e := range got {
			if e.ID <= last {
				break
			}
			written = append(written, wantEntry{actor: e.Actor, action: e.Action, kind: e.ObjectKind, object: objectOf(e), before: e.Before != nil, after: e.After != nil})
		}
		if len(got) > 0 {
			last = got[0].ID
		}
		if step.want == nil {
			if err == nil {
				t.Errorf("%s: succeeded, want a refusal", step.name)
			}
			if after := rowCounts(t, db); !reflect.DeepEqual(before, after) {
				t.Errorf("%s: refused (%v) but changed rows: %v, then %v", step.name, err, before, after)
			}
			if len(written) > 0 {
				t.Errorf("%s: refused (%v) but wrote audit entries %v", step.name, err, written)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		sortEntries(written)
		sortEntries(step.want)
		if !slices.Equal(written, step.want) {
			t.Errorf("%s: wrote the audit entries\n%v\nwant\n%v", step.name, written, step.want)
		}
	}
	if nodeAddress != "10.42.1.3" || fipAddress != "203.0.113.3" || uplink != "203.0.113.2" {
		t.Errorf("the walk-through gave node %s, floating IP %s, uplink %s", nodeAddress, fipAddress, uplink)
	}
}

// released turns a release that found nothing into an error.
func released(ok bool, err error) error {
	if err == nil && !ok {
		return errors.New("nothing was released")
	}
	return err
}

// routerOf returns the address of v's uplink.
func routerOf(ctx context.Context, svc *ipam.Service, actor auth.Actor, v ipam.VPC) string {
	a, _, _, err := svc.Router(ctx, actor, v)
	if err != nil {
		return err.Error()
	}
	return a.Address.String()
}

func sortEntries(es []wantEntry) {
	slices.SortFunc(es, func(a, b wantEntry) int { return strings.Compare(a.String(), b.String()) })
}
