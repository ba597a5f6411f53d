package audit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/audit/audittest"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var (
	operator = auth.Actor{Name: "op", Role: auth.Operator}
	acme     = auth.Actor{Name: "acme", Role: auth.Tenant, Namespaces: []string{"acme/*"}}
)

// kinds is a schema of kinds with a VLAN whose number a pool allocates per
// site.
const kinds = `version: "1.0"
nodes:
  - name: Site
    namespace: Location
    display_label: "{{ name__value }}"
    attributes:
      - {name: name, kind: Text, unique: true}
  - name: VLAN
    namespace: Ipam
    display_label: "{{ name__value }}"
    attributes:
      - {name: name, kind: Text}
      - {name: vlan_id, kind: Number, optional: true}
      - {name: note, kind: Text, optional: true}
    relationships:
      - {name: site, peer: LocationSite, cardinality: one, optional: false}
      - {name: backup, peer: LocationSite, cardinality: one, optional: true}
`

// TestEveryWriterWritesItsType makes every kind of change through the
// services (and the store's SQL under them) and reads the audit log back:
// each entry is of a known shape, holds the documents its shape has, each
// exactly of its type (no key the type lacks, every key it has), and
// reads as a sentence of its own with no id in its words.
func TestEveryWriterWritesItsType(t *testing.T) {
	ctx := t.Context()
	url := pgtest.NewURL(t)
	db, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ip, err := ipam.New(ctx, ipam.Config{DB: db, URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ip.Close)
	nums, err := numbers.New(ctx, numbers.Config{DB: db, URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nums.Close)
	writeEveryChange(t, ip, nums, auth.NewService(db))

	entries, err := ip.AuditLog(ctx, operator, ipam.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		what := e.Action + " " + e.Kind + " " + e.Name
		shape, ok := audit.ShapeOf(e.Kind, e.Action)
		if !ok {
			t.Errorf("%s has no shape", what)
			continue
		}
		if audit.IsObjectKind(e.Kind) {
			seen[e.Action+" an object"] = true
		} else {
			seen[e.Action+" "+e.Kind] = true
		}
		for _, d := range []struct {
			name  string
			raw   json.RawMessage
			proto audit.Payload
		}{{"before", e.Before, shape.Before}, {"after", e.After, shape.After}} {
			_, optional := d.proto.(audit.ObjectDeletion)
			switch {
			case d.proto == nil && d.raw != nil:
				t.Errorf("%s has a %s its shape has not: %s", what, d.name, d.raw)
			case d.proto != nil && d.raw == nil && !optional:
				t.Errorf("%s has no %s", what, d.name)
			case d.raw != nil:
				if err := audittest.Exact(d.raw, d.proto); err != nil {
					t.Errorf("the %s of %s: %v", d.name, what, err)
				}
			}
		}
		s := audit.Describe(e)
		if strings.HasPrefix(s.Text(), e.Action+" "+e.Kind+" ") || uuidLike(s.String()) {
			t.Errorf("%s reads %q", what, s)
		}
	}
	for _, want := range []string{"allocate IPAllocation", "release IPAllocation", "rename IPAllocation", "create IPAMPool", "update IPAMPool", "delete IPAMPool", "set-labels IPAMPool",
		"create VPC", "delete VPC", "create Subnet", "delete Subnet", "create FloatingIP", "delete FloatingIP", "create Quota", "update Quota", "delete Quota",
		"create Branch", "delete Branch", "merge Branch", "rebase Branch", "load Schema", "create an object", "update an object", "delete an object", "resolve an object",
		"create CoreNumberPool", "update CoreNumberPool", "delete CoreNumberPool", "allocate CoreNumberPool", "release CoreNumberPool",
		"create User", "set-password User", "end-sessions User", "create APIToken", "revoke APIToken", "rotate ClusterSecret"} {
		if !seen[want] {
			t.Errorf("no writer wrote %s", want)
		}
	}
}

// uuidLike reports whether s holds something like an id: 8 hexadecimal
// digits and a dash.
func uuidLike(s string) bool {
	for f := range strings.FieldsFuncSeq(s, func(r rune) bool { return !strings.ContainsRune("0123456789abcdef-", r) }) {
		if len(f) >= 9 && f[8] == '-' {
			return true
		}
	}
	return false
}

// writeEveryChange makes a change of every kind the audit log records.
func writeEveryChange(t *testing.T, ip *ipam.Service, nums *numbers.Service, users *auth.Service) {
	ctx := t.Context()
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	done := func(err error) { must(nil, err) }
	pool := ipam.CreatePublicPoolInput{Name: "public-1", CIDR: "192.0.2.0/24", Gateway: "192.0.2.1", Exclude: []string{"192.0.2.10"}, Zone: "zone-a",
		Labels: map[string]string{"tier": "gold"}}
	must(ip.CreatePublicPool(ctx, operator, pool))
	must(ip.CreatePublicPool(ctx, operator, ipam.CreatePublicPoolInput{Name: "spare", CIDR: "198.51.100.0/24"}))
	pool.Labels = map[string]string{"tier": "silver"}
	must(ip.Apply(ctx, operator, []ipam.ApplyObject{{PublicPool: &pool}}))
	zone := "zone-b"
	must(ip.UpdatePublicPool(ctx, operator, ipam.UpdatePublicPoolInput{Name: "spare", Zone: &zone}))
	must(ip.CreateVPC(ctx, acme, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"}))
	must(ip.CreateSubnet(ctx, acme, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"}))
	vm := ipam.VMRef{UID: "vm-1", Hostname: "web-01"}
	must(ip.AttachInterface(ctx, acme, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: vm}))
	vm.Hostname = "web-99"
	must(ip.AttachInterface(ctx, acme, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: vm}))
	must(ip.AttachNode(ctx, acme, ipam.AttachNodeInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", Node: ipam.NodeRef{UID: "node-1", Name: "host-1"}}))
	must(ip.ClaimFloatingIP(ctx, acme, ipam.ClaimFloatingIPInput{Namespace: "acme/prod", Name: "fip-1", Zone: "zone-a"}))
	done(ip.ReleaseFloatingIP(ctx, acme, "acme/prod", "fip-1"))
	must(ip.SetQuota(ctx, operator, ipam.QuotaChange{Pattern: "acme/*", Set: map[ipam.QuotaKind]int64{ipam.QuotaVPCs: 3}}))
	must(ip.SetQuota(ctx, operator, ipam.QuotaChange{Pattern: "acme/*", Set: map[ipam.QuotaKind]int64{ipam.QuotaSubnets: 5}}))
	must(ip.UnsetQuota(ctx, operator, "acme/*"))
	must(ip.CreateSubnet(ctx, acme, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "db", CIDR: "10.42.2.0/24"}))
	done(ip.DeleteSubnet(ctx, acme, "acme/prod", "main", "db"))
	must(ip.DetachInterface(ctx, acme, ipam.DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: vm}))
	done(ip.DeleteVPC(ctx, acme, "acme/prod", "main"))
	done(ip.DeletePublicPool(ctx, operator, "spare"))
	done(ip.RotateClusterSecret(ctx, operator))
	done(users.AddUser(ctx, operator, "acme-admin", auth.Tenant, []string{"acme/*"}, "a long enough password"))
	done(users.SetPassword(ctx, operator, "acme-admin", "another long password"))
	done(users.EndSessions(ctx, operator, "acme-admin"))
	must(users.CreateToken(ctx, operator, "acme-admin"))
	must(users.RevokeTokens(ctx, operator, "acme-admin"))

	b := nums.Branches()
	load := func(name, text string) {
		f, err := schema.Parse("kinds.yaml", []byte(text))
		done(err)
		must(b.LoadSchema(ctx, operator, name, f))
	}
	load(branch.Main, kinds)
	site, err := b.CreateObject(ctx, operator, branch.Main, "LocationSite", branch.ObjectInput{Attributes: map[string]any{"name": "site-a"}})
	done(err)
	p, err := nums.CreatePool(ctx, operator, numbers.PoolInput{Name: "VLAN IDs", Node: "IpamVLAN", NodeAttribute: "vlan_id",
		Ranges: []numbers.Range{{Start: 100, End: 199, Weight: 1}}, AllocationScope: []string{"site"}})
	done(err)
	vlan, err := nums.CreateObject(ctx, operator, branch.Main, "IpamVLAN", branch.ObjectInput{Attributes: map[string]any{"name": "users"},
		Relationships: map[string][]string{"site": {site.ID}}}, []numbers.FromPool{{Attribute: "vlan_id", Pool: p.ID}})
	done(err)
	must(b.CreateBranch(ctx, operator, "add-vlans"))
	load("add-vlans", strings.Replace(kinds, "      - {name: note, kind: Text, optional: true}\n",
		"      - {name: note, kind: Text, optional: true}\n      - {name: extra, kind: Text, optional: true}\n", 1))
	must(b.UpdateObject(ctx, operator, "add-vlans", vlan.ID, branch.ObjectInput{Attributes: map[string]any{"note": "on branch"}}))
	backup, err := b.CreateObject(ctx, operator, branch.Main, "LocationSite", branch.ObjectInput{Attributes: map[string]any{"name": "site-b"}})
	done(err)
	must(b.UpdateObject(ctx, operator, branch.Main, vlan.ID, branch.ObjectInput{Relationships: map[string][]string{"backup": {backup.ID}}}))
	must(b.RebaseBranch(ctx, operator, "add-vlans"))
	must(b.UpdateObject(ctx, operator, branch.Main, vlan.ID, branch.ObjectInput{Attributes: map[string]any{"note": "on main"}}))
	must(b.ResolveConflict(ctx, operator, "add-vlans", vlan.ID, "note", branch.SideBranch))
	must(b.MergeBranch(ctx, operator, "add-vlans"))
	must(b.DeleteBranch(ctx, operator, "add-vlans"))
	must(b.DeleteObject(ctx, operator, branch.Main, backup.ID))
	name := "VLANs"
	must(nums.UpdatePool(ctx, operator, p.ID, numbers.PoolUpdate{Name: &name, Ranges: []numbers.Range{{Start: 100, End: 299, Weight: 1}}}))
	must(b.DeleteObject(ctx, operator, branch.Main, vlan.ID))
	must(nums.DeletePool(ctx, operator, p.ID))
}
