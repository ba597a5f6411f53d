package ipam

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// The uids of the VPCs of the Apply tests.
const (
	mainUID = "5b0e8f4a-1c2d-4e3f-8a9b-0c1d2e3f4a5b"
	labUID  = "77d0c3b2-5e4f-4a6b-9c8d-7e6f5a4b3c2d"
)

// applyMain is a manifest of a public pool with labels, VPC main of zone-a
// with two subnets, and main's private pool, in the order ipam get prints
// them but for the VPC put before its zone's pool.
func applyMain() []ApplyObject {
	return []ApplyObject{
		{VPC: &ApplyVPCInput{
			CreateVPCInput: CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"}, UID: mainUID,
			Subnets: []CreateSubnetInput{{Name: "web", CIDR: "10.42.1.0/24"}, {Name: "db", CIDR: "10.42.2.0/24", Gateway: "10.42.2.254"}},
		}},
		{PublicPool: &CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Exclude: []string{"203.0.113.2"}, Zone: "zone-a",
			Labels: map[string]string{"pivirt.hu/tier": "gold", "team": "net"}}},
		{PrivatePool: &PrivatePoolInput{Namespace: "acme/prod", Name: "vpc-main", CIDR: "10.42.0.0/16", VPCUID: mainUID}},
	}
}

// auditCount counts the audit log's entries.
func auditCount(t *testing.T, db *store.DB) int {
	t.Helper()
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM audit_log`); err != nil {
		t.Fatal(err)
	}
	return n
}

// states writes what Apply did, one object a line.
func states(applied []Applied) []string {
	out := make([]string, len(applied))
	for i, a := range applied {
		out[i] = fmt.Sprintf("%s %s/%s %s", a.Kind, a.Namespace, a.Name, a.State)
	}
	return out
}

func TestApplyCreatesThenFindsUnchanged(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	applied, err := svc.Apply(ctx, operator, applyMain())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"VPC acme/prod/main created", "IPAMPool /public-zone-a created", "IPAMPool acme/prod/vpc-main unchanged"}
	if got := states(applied); !reflect.DeepEqual(got, want) {
		t.Errorf("Apply = %q, want %q", got, want)
	}
	vpc, err := svc.VPC(ctx, operator, "acme/prod", "main")
	if err != nil || vpc.UID != mainUID || vpc.Zone != "zone-a" {
		t.Fatalf("VPC = %+v, %v; want uid %s in zone-a", vpc, err, mainUID)
	}
	subnets, err := svc.Subnets(ctx, operator, vpc)
	if err != nil || len(subnets) != 2 || subnets[0].Name != "web" || subnets[0].Gateway.String() != "10.42.1.1" ||
		subnets[1].Name != "db" || subnets[1].Gateway.String() != "10.42.2.254" {
		t.Fatalf("Subnets = %+v, %v; want web (gateway 10.42.1.1) and db (gateway 10.42.2.254)", subnets, err)
	}
	uplink, route, ok, err := svc.Router(ctx, operator, vpc)
	if err != nil || !ok || uplink.Address.String() != "203.0.113.3" || route.String() != "203.0.113.1" {
		t.Errorf("Router = %v, %v, %v, %v; want 203.0.113.3 (from the pool created with it) by 203.0.113.1", uplink.Address, route, ok, err)
	}
	if !uuidRe.MatchString(uplink.UID) || uplink.CreatedAt.IsZero() {
		t.Errorf("the uplink's uid is %q, created at %v; want its row's", uplink.UID, uplink.CreatedAt)
	}
	pool, err := svc.Pool(ctx, operator, "", "public-zone-a")
	if err != nil || !maps.Equal(pool.Labels, map[string]string{"pivirt.hu/tier": "gold", "team": "net"}) {
		t.Errorf("public-zone-a = %+v, %v; want its labels", pool, err)
	}

	// Again: nothing changes, nothing is audited.
	audited := auditCount(t, db)
	applied, err = svc.Apply(ctx, operator, applyMain())
	want = []string{"VPC acme/prod/main unchanged", "IPAMPool /public-zone-a unchanged", "IPAMPool acme/prod/vpc-main unchanged"}
	if got := states(applied); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Apply again = %q, %v; want %q", got, err, want)
	}
	if n := auditCount(t, db) - audited; n != 0 {
		t.Errorf("applying what is stored wrote %d audit entries", n)
	}

	// Without uid, gateways or subnets, the VPC is the same: what exists and
	// is not given stays.
	bare := []ApplyObject{{VPC: &ApplyVPCInput{CreateVPCInput: CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"},
		Subnets: []CreateSubnetInput{{Name: "db", CIDR: "10.42.2.0/24"}}}}}
	if applied, err := svc.Apply(ctx, operator, bare); err != nil || applied[0].State != Unchanged {
		t.Errorf("Apply of main without uid, web and db's gateway = %v, %v; want unchanged", applied, err)
	}
	if subnets, err := svc.Subnets(ctx, operator, vpc); err != nil || len(subnets) != 2 {
		t.Errorf("after applying main without web: %d subnets, %v; want both kept", len(subnets), err)
	}
}

func TestApplyConfigures(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	if _, err := svc.Apply(ctx, operator, applyMain()); err != nil {
		t.Fatal(err)
	}
	objects := applyMain()
	objects[0].VPC.Subnets = append(objects[0].VPC.Subnets, CreateSubnetInput{Name: "dmz", CIDR: "10.42.3.0/24"})
	objects[1].PublicPool.Labels = map[string]string{"team": "ops"}
	objects[2].PrivatePool.Labels = map[string]string{"env": "prod"}
	audited := auditCount(t, db)
	applied, err := svc.Apply(ctx, operator, objects)
	want := []string{"VPC acme/prod/main configured", "IPAMPool /public-zone-a configured", "IPAMPool acme/prod/vpc-main configured"}
	if got := states(applied); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Apply = %q, %v; want %q", got, err, want)
	}
	if n := auditCount(t, db) - audited; n != 3 {
		t.Errorf("configuring wrote %d audit entries, want 3: the subnet and two pools' labels", n)
	}
	var entry struct {
		Before string `db:"before"`
		After  string `db:"after"`
	}
	if err := db.Get(&entry, `SELECT before::text, after::text FROM audit_log WHERE action = 'set-labels' AND object_name = 'public-zone-a'`); err != nil {
		t.Fatal(err)
	}
	pool, err := svc.Pool(ctx, operator, "", "public-zone-a")
	if err != nil {
		t.Fatal(err)
	}
	if wantBefore := `{"uid": "` + pool.UID + `", "labels": {"team": "net", "pivirt.hu/tier": "gold"}}`; entry.Before != wantBefore {
		t.Errorf("the audit entry's before is %s, want %s", entry.Before, wantBefore)
	}
	if wantAfter := `{"uid": "` + pool.UID + `", "labels": {"team": "ops"}}`; entry.After != wantAfter {
		t.Errorf("the audit entry's after is %s, want %s", entry.After, wantAfter)
	}
	private, err := svc.Pool(ctx, operator, "acme/prod", "vpc-main")
	if err != nil || !maps.Equal(private.Labels, map[string]string{"env": "prod"}) || !maps.Equal(pool.Labels, map[string]string{"team": "ops"}) {
		t.Errorf("the pools' labels are %v and %v, %v; want env=prod and team=ops", private.Labels, pool.Labels, err)
	}

	// No labels: they are removed.
	objects[1].PublicPool.Labels = nil
	if applied, err := svc.Apply(ctx, operator, objects[1:2]); err != nil || applied[0].State != Configured {
		t.Errorf("Apply without labels = %v, %v; want configured", applied, err)
	}
	if pool, err := svc.Pool(ctx, operator, "", "public-zone-a"); err != nil || len(pool.Labels) != 0 {
		t.Errorf("public-zone-a's labels are %v, %v; want none", pool.Labels, err)
	}
}

// TestApplyRefuses checks each refusal's path and words, and that a
// refused manifest stores nothing of itself.
func TestApplyRefuses(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := context.Background()
	if _, err := svc.Apply(ctx, operator, applyMain()); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVPC(ctx, operator, CreateVPCInput{Namespace: "acme/dev", Name: "lab", CIDR: "172.16.0.0/20"}); err != nil {
		t.Fatal(err)
	}
	lab, err := svc.VPC(ctx, operator, "acme/dev", "lab")
	if err != nil {
		t.Fatal(err)
	}
	// main changed by change, after a new public pool and a new VPC that
	// the refusal must not leave behind.
	mainWith := func(change func(o []ApplyObject)) []ApplyObject {
		objects := append([]ApplyObject{
			{PublicPool: &CreatePublicPoolInput{Name: "public-zone-b", CIDR: "198.51.100.0/24", Zone: "zone-b"}},
			{VPC: &ApplyVPCInput{CreateVPCInput: CreateVPCInput{Namespace: "globex/dev", Name: "new", CIDR: "10.0.0.0/8", Zone: "zone-b"},
				Subnets: []CreateSubnetInput{{Name: "a", CIDR: "10.1.0.0/16"}}}},
		}, applyMain()...)
		change(objects[2:])
		return objects
	}
	tests := []struct {
		name    string
		objects []ApplyObject
		index   int
		path    string
		want    string
	}{
		{"a VPC's cidr", mainWith(func(o []ApplyObject) { o[0].VPC.CIDR = "10.43.0.0/16" }), 2, "spec.cidr",
			"VPC acme/prod/main has cidr 10.42.0.0/16; a VPC's cidr never changes: create another VPC"},
		{"a VPC's zone", mainWith(func(o []ApplyObject) { o[0].VPC.Zone = "zone-b" }), 2, "spec.zone",
			"VPC acme/prod/main is in zone zone-a; a VPC's zone never changes: create another VPC"},
		{"a VPC's zone given", []ApplyObject{{VPC: &ApplyVPCInput{CreateVPCInput: CreateVPCInput{Namespace: "acme/dev", Name: "lab", CIDR: "172.16.0.0/20", Zone: "zone-a"}}}}, 0, "spec.zone",
			"VPC acme/dev/lab has no zone; a VPC's zone never changes: create another VPC"},
		{"a VPC's uid", mainWith(func(o []ApplyObject) { o[0].VPC.UID = labUID }), 2, "metadata.uid",
			"VPC acme/prod/main has uid " + mainUID + "; a VPC's uid never changes: give that one, or none"},
		{"a new VPC with another's uid", mainWith(func(o []ApplyObject) { o[0].VPC.Name, o[2].PrivatePool.Name = "main2", "vpc-main2" }), 2, "metadata.uid",
			"uid " + mainUID + " is VPC acme/prod/main's; give another uid, or none"},
		{"a new VPC with a uid not a UUID", mainWith(func(o []ApplyObject) { o[0].VPC.UID = "5b0e" }), 2, "metadata.uid",
			`uid "5b0e" is not a UUID such as 5b0e8f4a-1c2d-4e3f-8a9b-0c1d2e3f4a5b`},
		{"a VPC name too long for its pool", mainWith(func(o []ApplyObject) { o[0].VPC.Name = "a123456789b123456789c123456789d123456789e123456789f123456789" }), 2, "metadata.name",
			`name "a123456789b123456789c123456789d123456789e123456789f123456789" is too long for a VPC: at most 59 characters, since its pool is named vpc-<name>`},
		{"a subnet's cidr", mainWith(func(o []ApplyObject) { o[0].VPC.Subnets[1].CIDR = "10.42.2.0/25" }), 2, "spec.subnets[1].cidr",
			"subnet db of VPC acme/prod/main has cidr 10.42.2.0/24; a subnet's cidr never changes: create another subnet"},
		{"a subnet's gateway", mainWith(func(o []ApplyObject) { o[0].VPC.Subnets[1].Gateway = "10.42.2.1" }), 2, "spec.subnets[1].gateway",
			"subnet db of VPC acme/prod/main has gateway 10.42.2.254; a subnet's gateway never changes: create another subnet"},
		{"a new subnet overlapping one", mainWith(func(o []ApplyObject) {
			o[0].VPC.Subnets = append(o[0].VPC.Subnets, CreateSubnetInput{Name: "dmz", CIDR: "10.42.0.0/23"})
		}), 2, "spec.subnets[2]", "cidr 10.42.0.0/23 overlaps subnet web (10.42.1.0/24) of VPC main"},
		{"a new subnet outside", mainWith(func(o []ApplyObject) {
			o[0].VPC.Subnets = append(o[0].VPC.Subnets, CreateSubnetInput{Name: "dmz", CIDR: "10.43.0.0/24"})
		}), 2, "spec.subnets[2].cidr", "cidr 10.43.0.0/24 is outside VPC main's 10.42.0.0/16"},
		{"a new subnet's bad gateway", mainWith(func(o []ApplyObject) {
			o[0].VPC.Subnets = append(o[0].VPC.Subnets, CreateSubnetInput{Name: "dmz", CIDR: "10.42.3.0/24", Gateway: "10.42.4.1"})
		}), 2, "spec.subnets[2].gateway", "gateway 10.42.4.1 is outside cidr 10.42.3.0/24"},
		{"a new VPC in a zone without pools", mainWith(func(o []ApplyObject) { o[0].VPC.Name, o[0].VPC.UID, o[0].VPC.Zone = "main2", "", "zone-c" }), 2, "spec.zone",
			"zone zone-c has no public pool"},
		{"a public pool's spec", mainWith(func(o []ApplyObject) { o[1].PublicPool.Zone = "zone-b" }), 3, "",
			"public pool public-zone-a exists already with another spec (cidr 203.0.113.0/24, gateway 203.0.113.1, exclude 203.0.113.2, zone zone-a); change its gateway, excludes or zone with updatePublicPool, or create another pool"},
		{"a label key", mainWith(func(o []ApplyObject) { o[1].PublicPool.Labels = map[string]string{"team": "net", "a b": "c"} }), 3, "metadata.labels.a b",
			`label key "a b" is not valid: its name must be 1 to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, after an optional prefix and '/' such as pivirt.hu/tier`},
		{"a private pool of no VPC, after a VPC of zone-a", mainWith(func(o []ApplyObject) {
			o[0].VPC.Name, o[0].VPC.UID = "main2", ""
			o[2].PrivatePool.VPCUID = labUID
		}), 4, "", PrivatePoolRefusal},
		{"a private pool of another VPC", mainWith(func(o []ApplyObject) { o[2].PrivatePool.VPCUID = lab.UID }), 4, "", PrivatePoolRefusal},
		{"a private pool of an owner whose uid is no UUID", mainWith(func(o []ApplyObject) { o[2].PrivatePool.VPCUID = "<vpc uid>" }), 4, "", PrivatePoolRefusal},
		{"a private pool's cidr", mainWith(func(o []ApplyObject) { o[2].PrivatePool.CIDR = "10.42.0.0/17" }), 4, "spec.cidr",
			"private pool acme/prod/vpc-main has cidr 10.42.0.0/16, its VPC's; a pool's spec never changes"},
		{"a private pool of a VPC refused", mainWith(func(o []ApplyObject) {
			o[0].VPC.Name, o[0].VPC.UID, o[0].VPC.Zone = "main2", labUID, "zone-c"
			o[2].PrivatePool.Name, o[2].PrivatePool.VPCUID = "vpc-main2", labUID
		}), 2, "spec.zone", "zone zone-c has no public pool"},
	}
	audited := auditCount(t, db)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			applied, err := svc.Apply(ctx, operator, tt.objects)
			var refused *ApplyError
			if !errors.As(err, &refused) {
				t.Fatalf("Apply = %v, %v; want an *ApplyError", applied, err)
			}
			o := tt.objects[tt.index].applied()
			if refused.Index != tt.index || refused.Kind != o.Kind || refused.Namespace != o.Namespace || refused.Name != o.Name ||
				refused.Path != tt.path || refused.Error() != tt.want {
				t.Errorf("Apply refused object %d (%s %s/%s) at %q: %v\nwant object %d (%s %s/%s) at %q: %s",
					refused.Index, refused.Kind, refused.Namespace, refused.Name, refused.Path, refused, tt.index, o.Kind, o.Namespace, o.Name, tt.path, tt.want)
			}
			for _, gone := range []struct{ namespace, name string }{{"", "public-zone-b"}, {"globex/dev", "vpc-new"}} {
				if _, err := svc.Pool(ctx, operator, gone.namespace, gone.name); !errors.Is(err, refusal.ErrNotFound) {
					t.Errorf("after the refusal, pool %s/%s: %v; want not found", gone.namespace, gone.name, err)
				}
			}
		})
	}
	if n := auditCount(t, db) - audited; n != 0 {
		t.Errorf("refused manifests wrote %d audit entries", n)
	}
	// The uplinks claimed by refused manifests were given back: the next VPC
	// of zone-a gets the next address after main's.
	vpc, err := svc.CreateVPC(ctx, operator, CreateVPCInput{Namespace: "acme/prod", Name: "next", CIDR: "10.44.0.0/16", Zone: "zone-a"})
	if err != nil {
		t.Fatal(err)
	}
	if uplink, _, _, err := svc.Router(ctx, operator, vpc); err != nil || uplink.Address.String() != "203.0.113.4" {
		t.Errorf("the next VPC's uplink is %v, %v; want 203.0.113.4", uplink.Address, err)
	}
}

func TestApplyForbidden(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		objects []ApplyObject
		want    string
	}{
		{"a public pool", []ApplyObject{{PublicPool: &CreatePublicPoolInput{Name: "edge", CIDR: "198.51.100.0/24"}}},
			"forbidden: only operators create public pools"},
		{"a VPC of another tenant", []ApplyObject{{VPC: &ApplyVPCInput{CreateVPCInput: CreateVPCInput{Namespace: "globex/dev", Name: "lab", CIDR: "10.0.0.0/8"}}}},
			"forbidden: you may not create objects in namespace globex/dev"},
		{"a private pool of another tenant", []ApplyObject{{PrivatePool: &PrivatePoolInput{Namespace: "globex/dev", Name: "vpc-lab", CIDR: "10.0.0.0/8", VPCUID: labUID}}},
			"forbidden: you may not create objects in namespace globex/dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.Apply(ctx, acme, tt.objects)
			if !errors.Is(err, refusal.ErrForbidden) || err.Error() != tt.want {
				t.Errorf("Apply as a tenant = %v, want %q", err, tt.want)
			}
		})
	}
	applied, err := svc.Apply(ctx, acme, []ApplyObject{{VPC: &ApplyVPCInput{CreateVPCInput: CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16"}}}})
	if err != nil || applied[0].State != Created {
		t.Errorf("Apply of a VPC in the tenant's namespace = %v, %v; want created", applied, err)
	}
	if _, err := svc.Apply(ctx, auth.System, []ApplyObject{{}}); err == nil {
		t.Error("Apply of an empty object succeeded")
	}
}
