package store_test

import (
	"slices"
	"testing"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// TestAuditHistory reads the histories of objects (AuditFilter.Object):
// each its own entries and those of what it holds, newest first, and no
// other object's, however alike their names; with the other filters, a
// limit and a cursor.
func TestAuditHistory(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := t.Context()
	// Each entry is named by its tag, its object_name unless given.
	entries := []struct {
		tag, actor, kind, namespace, name, after string
		branch                                   string
	}{
		{"vpc", "op", "VPC", "acme/prod", "main", `{}`, ""},
		{"vpc2", "op", "VPC", "acme/prod", "main2", `{}`, ""},
		{"web", "op", "Subnet", "acme/prod", "main/web", `{}`, ""},
		{"web2", "op", "Subnet", "acme/prod", "main2/web", `{}`, ""},
		{"dash", "op", "Subnet", "acme/prod", "main-x/web", `{}`, ""},
		{"corp-web", "op", "Subnet", "acme-corp/prod", "main/web", `{}`, ""},
		{"claim-web", "acme", "IPAllocation", "acme/prod", "a1", `{"pool": "vpc-main", "subnet": "web"}`, ""},
		{"claim-db", "acme", "IPAllocation", "acme/prod", "a2", `{"pool": "vpc-main", "subnet": "db"}`, ""},
		{"claim-old", "op", "IPAllocation", "acme/prod", "a3", `{"pool": "vpc-main"}`, ""},
		{"claim-main2", "acme", "IPAllocation", "acme/prod", "a4", `{"pool": "vpc-main2", "subnet": "web"}`, ""},
		{"claim-corp", "corp", "IPAllocation", "acme-corp/prod", "a5", `{"pool": "vpc-main", "subnet": "web"}`, ""},
		{"public", "op", "IPAMPool", "", "public-a", `{}`, ""},
		{"floating", "acme", "IPAllocation", "", "f1", `{"pool": "public-a"}`, ""},
		{"other-public", "acme", "IPAllocation", "", "f2", `{"pool": "public-b"}`, ""},
		{"numbers", "op", "CoreNumberPool", "", "VLAN IDs", `{"id": "p1"}`, ""},
		{"number", "op", "CoreNumberPool", "", "VLAN IDs", `{"pool_id": "p1", "number": 100}`, ""},
		{"other-number", "op", "CoreNumberPool", "", "VLAN IDs", `{"pool_id": "p2", "number": 100}`, ""},
		{"vlan", "op", "IpamVLAN", "", "o1", `{}`, ""},
		{"vlan-changed", "acme", "IpamVLAN", "", "o1", `{}`, ""},
		{"other-vlan", "op", "IpamVLAN", "", "o2", `{}`, ""},
		{"branch", "op", "Branch", "", "b1", `{}`, "b1"},
		{"branch-schema", "op", "Schema", "", "b1", `{}`, "b1"},
		{"branch-vlan", "op", "IpamVLAN", "", "o3", `{}`, "b1"},
		{"branch-number", "op", "CoreNumberPool", "", "VLAN IDs", `{"pool_id": "p1", "number": 101}`, "b1"},
		{"main-vlan", "op", "IpamVLAN", "", "o4", `{}`, "main"},
		{"other-branch-vlan", "op", "IpamVLAN", "", "o5", `{}`, "b10"},
		{"branch-merged", "op", "Branch", "", "b1", `{}`, "main"},
		{"main-schema", "op", "Schema", "", "main", `{}`, "main"},
	}
	ids := map[int64]string{}
	for _, e := range entries {
		if err := store.InsertAudit(ctx, db, store.AuditEntry{Actor: e.actor, Action: "create", ObjectKind: e.kind, Namespace: e.namespace,
			ObjectName: e.name, After: store.RawJSON(e.after), Branch: e.branch}); err != nil {
			t.Fatal(err)
		}
		var id int64
		if err := db.GetContext(ctx, &id, `SELECT max(id) FROM audit_log`); err != nil {
			t.Fatal(err)
		}
		ids[id] = e.tag
	}
	tags := func(f store.AuditFilter) []string {
		t.Helper()
		got, err := store.AuditEntries(ctx, db, f)
		if err != nil {
			t.Fatalf("AuditEntries(%+v): %v", f.Object, err)
		}
		out := []string{}
		for _, e := range got {
			out = append(out, ids[e.ID])
		}
		return out
	}
	idOfTag := func(tag string) int64 {
		for id, t := range ids {
			if t == tag {
				return id
			}
		}
		return 0
	}
	vpc := &audit.Ref{Kind: audit.KindVPC, Namespace: "acme/prod", Name: "main"}
	for _, tt := range []struct {
		name   string
		filter store.AuditFilter
		want   []string
	}{
		{"a VPC: its own, its subnets', its addresses'", store.AuditFilter{Object: vpc}, []string{"claim-old", "claim-db", "claim-web", "web", "vpc"}},
		{"a subnet: its own and its addresses'", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindSubnet, Namespace: "acme/prod", Name: "main/web"}}, []string{"claim-web", "web"}},
		{"a private pool: its addresses'", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindPool, Namespace: "acme/prod", Name: "vpc-main"}}, []string{"claim-old", "claim-db", "claim-web"}},
		{"a public pool", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindPool, Name: "public-a"}}, []string{"floating", "public"}},
		{"a number pool, by its id", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindNumberPool, Name: "p1"}}, []string{"branch-number", "number", "numbers"}},
		{"an object of a kind", store.AuditFilter{Object: &audit.Ref{Kind: "IpamVLAN", Name: "o1"}}, []string{"vlan-changed", "vlan"}},
		{"another namespace's VPC of the same name", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindVPC, Namespace: "acme-corp/prod", Name: "main"}}, []string{"claim-corp", "corp-web"}},
		{"a VPC's history by actor", store.AuditFilter{Object: vpc, Actor: "acme"}, []string{"claim-db", "claim-web"}},
		{"a VPC's history by kind", store.AuditFilter{Object: vpc, Kind: "Subnet"}, []string{"web"}},
		{"a page of a VPC's history", store.AuditFilter{Object: vpc, Limit: 2}, []string{"claim-old", "claim-db"}},
		{"the next page", store.AuditFilter{Object: vpc, Limit: 2, Before: idOfTag("claim-db")}, []string{"claim-web", "web"}},
		{"the last page", store.AuditFilter{Object: vpc, Limit: 2, Before: idOfTag("web")}, []string{"vpc"}},
		{"a branch: its own, its schema's, its changes'", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindBranch, Name: "b1"}},
			[]string{"branch-merged", "branch-number", "branch-vlan", "branch-schema", "branch"}},
		{"main: its own and its schema's", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindBranch, Name: "main"}}, []string{"main-schema"}},
		{"a subnet named without its VPC", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindSubnet, Namespace: "acme/prod", Name: "web"}}, []string{}},
		{"an address", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindAllocation, Namespace: "acme/prod", Name: "a1"}}, []string{}},
		{"a VPC named with a LIKE wildcard", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindVPC, Namespace: "acme/prod", Name: "mai_"}}, []string{}},
		{"a NUL", store.AuditFilter{Object: &audit.Ref{Kind: audit.KindVPC, Namespace: "acme/prod", Name: "main\x00"}}, []string{}},
	} {
		if got := tags(tt.filter); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
