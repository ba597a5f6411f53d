package branch

import (
	"testing"

	"pivirt.hu/ipam/internal/refusal"
)

// TestExampleSchema: the example schema, through the domain: sites and
// VLANs created, read, listed, filtered, refused, deleted.
func TestExampleSchema(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)

	a, b := site(t, svc, Main, "site-a"), site(t, svc, Main, "site-b")
	users := vlan(t, svc, Main, "users-site-a", 100, a.ID)
	if users.DisplayLabel != "users-site-a" || users.Attributes["vlan_id"] != int64(100) || users.Relationships["site"][0] != a.ID {
		t.Fatalf("created %+v", users)
	}
	got, err := svc.Object(ctx, operator, Main, users.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.DisplayLabel != "users-site-a" || got.Kind != "IpamVLAN" {
		t.Fatalf("read %+v", got)
	}
	vlan(t, svc, Main, "users-site-b", 100, b.ID)

	_, err = svc.CreateObject(ctx, operator, Main, "IpamVLAN", ObjectInput{Attributes: map[string]any{"name": "again", "vlan_id": 100},
		Relationships: map[string][]string{"site": {a.ID}}})
	wantRefusal(t, err, refusal.ErrConflict, "")
	if err.(*refusal.ConflictError).Constraint != "site-vlan_id" {
		t.Fatalf("err = %v", err)
	}
	_, err = svc.CreateObject(ctx, operator, Main, "LocationSite", ObjectInput{Attributes: map[string]any{"name": "site-a"}})
	wantRefusal(t, err, refusal.ErrConflict, "")
	t.Log(err)

	page, err := svc.Objects(ctx, operator, Main, "IpamVLAN", Filter{Peers: map[string][]string{"site": {a.ID}}}, 50, 0)
	if err != nil || page.Count != 1 || page.Objects[0].ID != users.ID {
		t.Fatalf("page %+v, %v", page, err)
	}
	page, err = svc.Objects(ctx, operator, Main, "IpamVLAN", Filter{Values: map[string]any{"name": "users-site-b"}}, 50, 0)
	if err != nil || page.Count != 1 {
		t.Fatalf("page %+v, %v", page, err)
	}
	_, err = svc.DeleteObject(ctx, operator, Main, a.ID)
	t.Log(err)
	wantRefusal(t, err, refusal.ErrConflict, "")
	if _, err := svc.DeleteObject(ctx, operator, Main, users.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.DeleteObject(ctx, operator, Main, a.ID); err != nil {
		t.Fatal(err)
	}
	_, err = svc.Object(ctx, operator, Main, a.ID)
	wantRefusal(t, err, refusal.ErrNotFound, "")
}
