package audit

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDescribe tells each kind of change: the sentence, and the objects it
// names with what their links lead to.
func TestDescribe(t *testing.T) {
	const (
		vm     = `{"uid": "vm-1", "kind": "VirtualMachine", "name": "web-01/0"}`
		object = `{"id": "0191", "kind": "IpamVLAN", "display_label": "users", "attributes": {"name": "users", "vlan_id": 100, "tags": ["a"]}, "relationships": {"site": ["s1"], "endpoints": ["e1", "e2"]}}`
	)
	subnetWeb := &Ref{Kind: KindSubnet, Namespace: "acme/prod", Name: "main/web"}
	vpcMain := &Ref{Kind: KindVPC, Namespace: "acme/prod", Name: "main"}
	public1 := &Ref{Kind: KindPool, Name: "public-1"}
	branchMain := &Ref{Kind: KindBranch, Name: "main"}
	vlans := &Ref{Kind: KindNumberPool, Name: "p1"}
	tests := []struct {
		name string
		e    Entry
		want string
		refs map[string]*Ref
	}{
		{"an interface attached",
			Entry{Actor: "acme-admin", Action: Allocate, Namespace: "acme/prod", Kind: KindAllocation, Name: "vpc-main-10-42-1-7",
				After: doc(`{"pool": "vpc-main", "address": "10.42.1.7", "owner": ` + vm + `, "ownerNamespace": "acme/prod", "subnet": "web"}`)},
			"acme-admin attached web-01/0 to subnet web: 10.42.1.7", map[string]*Ref{"web": subnetWeb}},
		{"an interface attached, before entries named the subnet",
			Entry{Actor: "acme", Action: Allocate, Namespace: "acme/prod", Kind: KindAllocation, Name: "vpc-main-10-42-1-2",
				After: doc(`{"pool": "vpc-main", "address": "10.42.1.2", "owner": ` + vm + `, "ownerNamespace": "acme/prod"}`)},
			"acme attached web-01/0 to VPC main: 10.42.1.2", map[string]*Ref{"main": vpcMain}},
		{"an interface detached",
			Entry{Actor: "acme", Action: Release, Namespace: "acme/prod", Kind: KindAllocation, Name: "vpc-main-10-42-1-7",
				Before: doc(`{"pool": "vpc-main", "address": "10.42.1.7", "owner": ` + vm + `, "ownerNamespace": "acme/prod", "subnet": "web"}`)},
			"acme detached web-01/0 from subnet web: 10.42.1.7", map[string]*Ref{"web": subnetWeb}},
		{"a host's address, named after its subnet",
			Entry{Actor: "acme", Action: Allocate, Namespace: "acme/prod", Kind: KindAllocation, Name: "vpc-main-10-42-1-4",
				After: doc(`{"pool": "vpc-main", "address": "10.42.1.4", "owner": {"uid": "n1", "kind": "Node", "name": "web"}, "ownerNamespace": "acme/prod"}`)},
			"acme gave a node an address in subnet web: 10.42.1.4", map[string]*Ref{"web": subnetWeb}},
		{"a router's uplink",
			Entry{Actor: "acme", Action: Allocate, Kind: KindAllocation, Name: "public-1-192-0-2-2",
				After: doc(`{"pool": "public-1", "address": "192.0.2.2", "owner": {"uid": "v1", "kind": "VPC", "name": "router"}, "ownerNamespace": "acme/prod", "subnet": null}`)},
			"acme claimed 192.0.2.2 from pool public-1 as a router uplink of acme/prod", map[string]*Ref{"public-1": public1}},
		{"a floating IP's address released",
			Entry{Actor: "acme", Action: Release, Kind: KindAllocation, Name: "public-1-192-0-2-3",
				Before: doc(`{"pool": "public-1", "address": "192.0.2.3", "owner": {"uid": "f1", "kind": "FloatingIP", "name": "fip-1"}, "ownerNamespace": "acme/prod"}`)},
			"acme released 192.0.2.3 of floating IP fip-1 in acme/prod to pool public-1", map[string]*Ref{"public-1": public1}},
		{"a VM renamed",
			Entry{Actor: "acme", Action: Rename, Namespace: "acme/prod", Kind: KindAllocation, Name: "vpc-main-10-42-1-2",
				Before: doc(`{"pool": "vpc-main", "address": "10.42.1.2", "owner": ` + vm + `, "ownerNamespace": "acme/prod", "subnet": "web"}`),
				After:  doc(`{"pool": "vpc-main", "address": "10.42.1.2", "owner": {"uid": "vm-1", "kind": "VirtualMachine", "name": "web-99/0"}, "ownerNamespace": "acme/prod", "subnet": "web"}`)},
			"acme renamed web-01/0 to web-99/0: 10.42.1.2", nil},
		{"a VM renamed, before entries named the address",
			Entry{Actor: "acme", Action: Rename, Namespace: "acme/prod", Kind: KindAllocation, Name: "vpc-main-10-42-1-2",
				Before: doc(`{"owner": ` + vm + `}`), After: doc(`{"owner": {"uid": "vm-1", "kind": "VirtualMachine", "name": "web-99/0"}}`)},
			"acme renamed web-01/0 to web-99/0 (vpc-main-10-42-1-2)", nil},
		{"a public pool created",
			Entry{Actor: "op", Action: Create, Kind: KindPool, Name: "public-1",
				After: doc(`{"uid": "u", "cidr": "192.0.2.0/24", "kind": "public", "name": "public-1", "zone": "zone-a", "exclude": ["192.0.2.10"], "gateway": "192.0.2.1", "namespace": ""}`)},
			"op created public pool public-1: 192.0.2.0/24, gateway 192.0.2.1, excluding 192.0.2.10, zone zone-a", map[string]*Ref{"public-1": public1}},
		{"a public pool changed",
			Entry{Actor: "op", Action: Update, Kind: KindPool, Name: "public-1",
				Before: doc(`{"uid": "u", "cidr": "192.0.2.0/24", "kind": "public", "name": "public-1", "zone": "zone-a", "exclude": [], "gateway": "192.0.2.1", "namespace": ""}`),
				After:  doc(`{"uid": "u", "cidr": "192.0.2.0/24", "kind": "public", "name": "public-1", "zone": "zone-b", "exclude": ["192.0.2.10", "192.0.2.11"], "gateway": "192.0.2.1", "namespace": ""}`)},
			"op changed public pool public-1; exclude: — → 192.0.2.10, 192.0.2.11; zone: zone-a → zone-b", map[string]*Ref{"public-1": public1}},
		{"a private pool deleted, with its VPC",
			Entry{Actor: "acme", Action: Delete, Namespace: "acme/prod", Kind: KindPool, Name: "vpc-main",
				Before: doc(`{"uid": "u", "cidr": "10.42.0.0/16", "kind": "private", "name": "vpc-main", "zone": "", "exclude": [], "namespace": "acme/prod"}`)},
			"acme deleted private pool vpc-main: 10.42.0.0/16", nil},
		{"labels set",
			Entry{Actor: "op", Action: SetLabels, Kind: KindPool, Name: "public-1",
				Before: doc(`{"uid": "u", "labels": {"tier": "gold", "old": "x"}}`), After: doc(`{"uid": "u", "labels": {"tier": "silver", "new": "y"}}`)},
			"op set the labels of pool public-1; label new: — → y; label old: x → —; label tier: gold → silver", map[string]*Ref{"public-1": public1}},
		{"a VPC created with an uplink",
			Entry{Actor: "acme", Action: Create, Namespace: "acme/prod", Kind: KindVPC, Name: "main",
				After: doc(`{"uid": "u", "cidr": "10.42.0.0/16", "pool": "vpc-main", "zone": "zone-a", "router": "192.0.2.2"}`)},
			"acme created VPC main: 10.42.0.0/16, zone zone-a, router uplink 192.0.2.2", map[string]*Ref{"main": vpcMain}},
		{"a VPC deleted",
			Entry{Actor: "acme", Action: Delete, Namespace: "acme/prod", Kind: KindVPC, Name: "main", Before: doc(`{"uid": "u", "cidr": "10.42.0.0/16", "zone": ""}`)},
			"acme deleted VPC main: 10.42.0.0/16", nil},
		{"a subnet created",
			Entry{Actor: "acme", Action: Create, Namespace: "acme/prod", Kind: KindSubnet, Name: "main/web", After: doc(`{"uid": "u", "cidr": "10.42.1.0/24", "gateway": "10.42.1.1"}`)},
			"acme created subnet web in VPC main: 10.42.1.0/24, gateway 10.42.1.1", map[string]*Ref{"web": subnetWeb, "main": vpcMain}},
		{"a subnet deleted",
			Entry{Actor: "acme", Action: Delete, Namespace: "acme/prod", Kind: KindSubnet, Name: "main/web", Before: doc(`{"uid": "u", "cidr": "10.42.1.0/24", "gateway": "10.42.1.1"}`)},
			"acme deleted subnet web of VPC main: 10.42.1.0/24", map[string]*Ref{"main": vpcMain}},
		{"a floating IP claimed",
			Entry{Actor: "acme", Action: Create, Namespace: "acme/prod", Kind: KindFloatingIP, Name: "fip-1", After: doc(`{"uid": "u", "pool": "public-1", "address": "192.0.2.3"}`)},
			"acme claimed floating IP fip-1: 192.0.2.3 from pool public-1", map[string]*Ref{"public-1": public1}},
		{"a quota set",
			Entry{Actor: "op", Action: Create, Kind: KindQuota, Name: "acme/*", After: doc(`{"pattern": "acme/*", "limits": {"addresses": 100, "vpcs": 1}}`)},
			"op set a quota on acme/*: 1 VPC, 100 addresses", map[string]*Ref{"acme/*": {Kind: KindQuota, Name: "acme/*"}}},
		{"a quota changed",
			Entry{Actor: "op", Action: Update, Kind: KindQuota, Name: "acme/*",
				Before: doc(`{"pattern": "acme/*", "limits": {"vpcs": 3}}`), After: doc(`{"pattern": "acme/*", "limits": {"vpcs": 3, "subnets": 5}}`)},
			"op changed the quota on acme/*; subnets: — → 5", nil},
		{"a quota unset",
			Entry{Actor: "op", Action: Delete, Kind: KindQuota, Name: "acme/*", Before: doc(`{"pattern": "acme/*", "limits": {"floating_ips": 2}}`)},
			"op unset the quota on acme/*: 2 floating IPs", nil},
		{"a branch created",
			Entry{Actor: "op", Action: Create, Kind: KindBranch, Name: "add-vlans", Branch: "add-vlans", After: doc(`{"id": 2, "name": "add-vlans", "point": 6}`)},
			"op created branch add-vlans", map[string]*Ref{"add-vlans": {Kind: KindBranch, Name: "add-vlans"}}},
		{"a branch merged",
			Entry{Actor: "op", Action: Merge, Kind: KindBranch, Name: "add-vlans", Branch: "main",
				After: doc(`{"branch": "add-vlans", "schema": ["added attribute IpamVLAN.extra (id 0192)"], "objects": ["a", "b"], "branched_from": 12}`)},
			"op merged branch add-vlans into main: 2 objects, 1 schema change; added attribute IpamVLAN.extra", nil},
		{"a schema loaded",
			Entry{Actor: "op", Action: Load, Kind: KindSchema, Name: "main", Branch: "main",
				After: doc(`["added node IpamVLAN (id 01)", "changed attribute IpamVLAN.note (id 02): optional false → true"]`)},
			"op loaded a schema on branch main: 2 changes; added node IpamVLAN; changed attribute IpamVLAN.note: optional false → true", map[string]*Ref{"main": branchMain}},
		{"an object created",
			Entry{Actor: "op", Action: Create, Kind: "IpamVLAN", Name: "0191", Branch: "main", After: doc(object)},
			"op created IpamVLAN users on branch main", map[string]*Ref{"users": {Kind: "IpamVLAN", Name: "0191", Branch: "main"}, "main": branchMain}},
		{"an object changed",
			Entry{Actor: "op", Action: Update, Kind: "IpamVLAN", Name: "0191", Branch: "add-vlans", Before: doc(object),
				After: doc(`{"id": "0191", "kind": "IpamVLAN", "display_label": "users-a", "attributes": {"name": "users-a", "vlan_id": 100, "note": "x"}, "relationships": {"site": ["s2"], "endpoints": ["e1", "e2"]}}`)},
			"op changed IpamVLAN users-a on branch add-vlans; display label: users → users-a; name: users → users-a; note: — → x; site: 1 object → another object; tags: [\"a\"] → —",
			map[string]*Ref{"users-a": {Kind: "IpamVLAN", Name: "0191", Branch: "add-vlans"}}},
		{"a conflict resolved",
			Entry{Actor: "op", Action: Resolve, Kind: "IpamVLAN", Name: "0191", Branch: "add-vlans",
				After: doc(`{"display_label": "users", "field": "note", "side": "branch", "main": "\"on main\"", "branch": "\"on branch\""}`)},
			"op chose branch's side of IpamVLAN users (note) for the merge of branch add-vlans: on branch",
			map[string]*Ref{"users": {Kind: "IpamVLAN", Name: "0191", Branch: "add-vlans"}, "add-vlans": {Kind: KindBranch, Name: "add-vlans"}}},
		{"an object deleted, clearing relationships",
			Entry{Actor: "op", Action: Delete, Kind: "LocationSite", Name: "0193", Branch: "main",
				Before: doc(`{"id": "0193", "kind": "LocationSite", "display_label": "site-b", "attributes": {"name": "site-b"}, "relationships": {}}`),
				After:  doc(`{"deleted": true, "relationships_cleared": ["0191"]}`)},
			"op deleted LocationSite site-b on branch main, removing it from the relationships of 1 object", nil},
		{"a number pool created",
			Entry{Actor: "op", Action: Create, Kind: KindNumberPool, Name: "VLAN IDs",
				After: doc(`{"id": "p1", "name": "VLAN IDs", "node": "IpamVLAN", "node_attribute": "vlan_id", "ranges": [{"start": 100, "end": 199, "weight": 1}, {"start": 300, "end": 399, "weight": 2}], "allocation_scope": [{"id": "x", "name": "site", "relationship": true}]}`)},
			"op created number pool VLAN IDs of IpamVLAN.vlan_id: 100-199, 300-399 (weight 2), per site", map[string]*Ref{"VLAN IDs": vlans}},
		{"a number pool renamed",
			Entry{Actor: "op", Action: Update, Kind: KindNumberPool, Name: "VLANs",
				Before: doc(`{"id": "p1", "name": "VLAN IDs", "description": "", "ranges": [{"start": 100, "end": 199, "weight": 1}]}`),
				After:  doc(`{"id": "p1", "name": "VLANs", "description": "", "ranges": [{"start": 100, "end": 299, "weight": 1}]}`)},
			"op changed number pool VLANs; name: VLAN IDs → VLANs; ranges: 100-199 → 100-299", map[string]*Ref{"VLANs": vlans}},
		{"a number allocated",
			Entry{Actor: "op", Action: Allocate, Kind: KindNumberPool, Name: "VLAN IDs", Branch: "main",
				After: doc(`{"pool": "VLAN IDs", "pool_id": "p1", "division": ["s1"], "number": 100, "identifier": "o1", "object": "o1"}`)},
			"op allocated 100 from number pool VLAN IDs on branch main", map[string]*Ref{"VLAN IDs": vlans, "main": branchMain}},
		{"a number released",
			Entry{Actor: "op", Action: Release, Kind: KindNumberPool, Name: "VLAN IDs", Branch: "main",
				Before: doc(`{"pool": "VLAN IDs", "pool_id": "p1", "division": ["s1"], "number": 100, "identifier": "o1", "object": "o1", "allocated_on": "main"}`)},
			"op released 100 of number pool VLAN IDs on branch main", nil},
		{"a user added",
			Entry{Actor: "op", Action: Create, Kind: KindUser, Name: "alice", After: doc(`{"name": "alice", "role": "tenant", "namespaces": ["acme/*"]}`)},
			"op added user alice, tenant of acme/*", nil},
		{"a password set",
			Entry{Actor: "op", Action: SetPassword, Kind: KindUser, Name: "alice", Before: doc(`{"name": "alice"}`), After: doc(`{"name": "alice"}`)},
			"op set the password of user alice", nil},
		{"tokens revoked",
			Entry{Actor: "op", Action: Revoke, Kind: KindToken, Name: "alice", Before: doc(`[{"id": 1, "user": "alice"}, {"id": 2, "user": "alice"}]`)},
			"op revoked 2 API tokens of alice", nil},
		{"the cluster secret rotated",
			Entry{Actor: "op", Action: Rotate, Kind: KindClusterSecret, Name: "cluster secret"},
			"op rotated the cluster secret", nil},
		{"a change of no known kind",
			Entry{Actor: "op", Action: "reticulate", Kind: "Spline", Name: "s1", Namespace: "acme/prod"},
			"op reticulate Spline acme/prod/s1", nil},
		{"a document that does not fit",
			Entry{Actor: "op", Action: Create, Kind: KindVPC, Name: "main", Namespace: "acme/prod", After: doc(`{"cidr": 42}`)},
			"op create VPC acme/prod/main", nil},
	}
	for _, tt := range tests {
		s := Describe(tt.e)
		if got := s.String(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
		refs := map[string]*Ref{}
		for _, p := range s.Parts {
			if p.Ref != nil {
				refs[p.Text] = p.Ref
			}
		}
		for label, want := range tt.refs {
			if got := refs[label]; got == nil || *got != *want {
				t.Errorf("%s: %q links %v, want %v", tt.name, label, got, *want)
			}
		}
	}
}

func doc(s string) json.RawMessage { return json.RawMessage(s) }

// uuid matches an id of the kind objects, pools and their elements have.
var uuid = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestEntriesOfMigration20 reads the entries of every kind of change as
// the writers wrote them up to migration 0020 (testdata, written by
// ipam.Service, branch.Service, numbers.Service, auth.Service and the
// store's SQL of that time): each document decodes as its type with no
// field the type lacks, and each entry reads as a sentence of its own, no
// id in its words.
func TestEntriesOfMigration20(t *testing.T) {
	raw, err := os.ReadFile("testdata/entries-0020.json")
	if err != nil {
		t.Fatal(err)
	}
	var entries []struct {
		Actor, Action, Namespace, Kind, Name, Branch string
		Before, After                                json.RawMessage
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		t.Fatal(err)
	}
	seen := map[change]bool{}
	for _, r := range entries {
		e := Entry{Actor: r.Actor, Action: r.Action, Namespace: r.Namespace, Kind: r.Kind, Name: r.Name, Branch: r.Branch, Before: r.Before, After: r.After}
		shape, ok := ShapeOf(e.Kind, e.Action)
		if !ok {
			t.Errorf("%s %s has no shape", e.Action, e.Kind)
			continue
		}
		seen[change{e.Kind, e.Action}] = true
		for _, d := range []struct {
			raw   json.RawMessage
			proto Payload
		}{{e.Before, shape.Before}, {e.After, shape.After}} {
			if len(d.raw) == 0 {
				continue
			}
			if d.proto == nil {
				t.Errorf("%s %s %s has a document its shape has not: %s", e.Action, e.Kind, e.Name, d.raw)
				continue
			}
			dec := json.NewDecoder(bytes.NewReader(d.raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(reflect.New(reflect.TypeOf(d.proto)).Interface()); err != nil {
				t.Errorf("%s %s %s: %s does not decode as %T: %v", e.Action, e.Kind, e.Name, d.raw, d.proto, err)
			}
		}
		s := Describe(e)
		text := s.String()
		if strings.HasPrefix(s.Text(), e.Action+" "+e.Kind+" ") || uuid.MatchString(text) {
			t.Errorf("%s %s %s reads %q", e.Action, e.Kind, e.Name, text)
		}
	}
	for c := range shapes {
		if !seen[c] && c != (change{KindPool, Update}) {
			t.Errorf("the entries of migration 0020 hold no %s of %s", c.action, c.kind)
		}
	}
}

// TestLabel names an entry's object as people know it.
func TestLabel(t *testing.T) {
	for _, tt := range []struct {
		e    Entry
		want string
	}{
		{Entry{Action: Update, Kind: "IpamVLAN", Name: "0191", Before: doc(`{"display_label": "users"}`), After: doc(`{"display_label": "users-a"}`)}, "users-a"},
		{Entry{Action: Delete, Kind: "IpamVLAN", Name: "0191", Before: doc(`{"display_label": "users"}`), After: doc(`{"deleted": true}`)}, "users"},
		{Entry{Action: Allocate, Kind: KindNumberPool, Name: "VLAN IDs", After: doc(`{"pool": "VLAN IDs", "pool_id": "p1"}`)}, "VLAN IDs"},
		{Entry{Action: Update, Kind: KindNumberPool, Name: "VLANs", Before: doc(`{"name": "VLAN IDs"}`), After: doc(`{"name": "VLANs"}`)}, "VLANs"},
		{Entry{Action: Create, Kind: KindVPC, Name: "main", After: doc(`{"cidr": "10.0.0.0/16"}`)}, "main"},
		{Entry{Action: "reticulate", Kind: "Spline", Name: "s1"}, "s1"},
	} {
		if got := Label(tt.e); got != tt.want {
			t.Errorf("Label(%s %s %s) = %q, want %q", tt.e.Action, tt.e.Kind, tt.e.Name, got, tt.want)
		}
	}
}

// TestKindsAndActions: the filters offer every kind and action the log
// records, each built-in kind in words.
func TestKindsAndActions(t *testing.T) {
	for _, k := range Kinds() {
		if _, ok := kindWords[k]; !ok {
			t.Errorf("kind %s has no words", k)
		}
	}
	if got := KindWords(KindAllocation); got != "address" {
		t.Errorf("KindWords(%s) = %q, want address", KindAllocation, got)
	}
	if got := KindWords("IpamVLAN"); got != "IpamVLAN" {
		t.Errorf("KindWords(IpamVLAN) = %q, want the kind's name", got)
	}
	actions := Actions()
	for _, a := range []string{Allocate, Release, Create, Update, Delete, Merge, Load, Rotate} {
		if !slices.Contains(actions, a) {
			t.Errorf("Actions() = %v lacks %s", actions, a)
		}
	}
	if !slices.IsSorted(actions) {
		t.Errorf("Actions() = %v, not sorted", actions)
	}
}

// TestDescribeWith names the holder of a number by its label, linked to
// it on the branch it was allocated on, when the reader knows it.
func TestDescribeWith(t *testing.T) {
	allocated := Entry{Actor: "op", Action: Allocate, Kind: KindNumberPool, Name: "VLAN IDs", Branch: "b1",
		After: doc(`{"pool": "VLAN IDs", "pool_id": "p1", "division": ["s1"], "number": 100, "identifier": "o1", "object": "o1"}`)}
	released := Entry{Actor: "op", Action: Release, Kind: KindNumberPool, Name: "VLAN IDs", Branch: "main",
		Before: doc(`{"pool": "VLAN IDs", "pool_id": "p1", "division": ["s1"], "number": 100, "identifier": "o1", "object": "o1", "allocated_on": "b1"}`)}
	holders := map[HolderKey]Holder{{Branch: "b1", ID: "o1"}: {Kind: "IpamVLAN", Label: "guests"}}
	for _, tt := range []struct {
		e       Entry
		holders map[HolderKey]Holder
		want    string
	}{
		{allocated, holders, "op allocated 100 from number pool VLAN IDs to IpamVLAN guests on branch b1"},
		{released, holders, "op released 100 of number pool VLAN IDs held by IpamVLAN guests on branch main"},
		{allocated, nil, "op allocated 100 from number pool VLAN IDs on branch b1"},
		{allocated, map[HolderKey]Holder{{Branch: "main", ID: "o1"}: {Kind: "IpamVLAN", Label: "guests"}}, "op allocated 100 from number pool VLAN IDs on branch b1"},
	} {
		s := DescribeWith(tt.e, tt.holders)
		if got := s.Actor + " " + s.Text(); got != tt.want {
			t.Errorf("DescribeWith(%s) = %q, want %q", tt.e.Action, got, tt.want)
		}
		for _, p := range s.Parts {
			if p.Text == "guests" && (p.Ref == nil || *p.Ref != (Ref{Kind: "IpamVLAN", Name: "o1", Branch: "b1"})) {
				t.Errorf("DescribeWith(%s) links the holder to %+v", tt.e.Action, p.Ref)
			}
		}
	}
	if key, pool, ok := HolderOf(released); !ok || key != (HolderKey{Branch: "b1", ID: "o1"}) || pool != "p1" {
		t.Errorf("HolderOf(a release) = %+v, %q, %v", key, pool, ok)
	}
	if _, _, ok := HolderOf(Entry{Action: Create, Kind: KindVPC, Name: "main", After: doc(`{}`)}); ok {
		t.Errorf("HolderOf(a VPC's creation) names a holder")
	}
}
