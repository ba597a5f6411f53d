package branch

import (
	"context"
	"errors"
	"testing"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/refusal"
)

// resolve chooses a side, failing on an error.
func resolve(t testing.TB, svc *Service, branch, id, field string, side Side) Resolution {
	t.Helper()
	r, err := svc.ResolveConflict(t.Context(), operator, branch, id, field, side)
	if err != nil {
		t.Fatalf("ResolveConflict(%s, %s, %q, %s): %v", branch, id, field, side, err)
	}
	return r
}

// fieldConflicts returns the conflicts of fields CheckMerge lists, as
// "label field: main → branch".
func fieldConflicts(t testing.TB, svc *Service, branch string) []string {
	t.Helper()
	err := svc.CheckMerge(t.Context(), operator, branch)
	if err == nil {
		return nil
	}
	var me *MergeError
	if !errors.As(err, &me) {
		t.Fatalf("CheckMerge(%s) = %v", branch, err)
	}
	var out []string
	for _, c := range me.Fields {
		if c.Field == "" {
			out = append(out, c.Label+": deleted on one side")
			continue
		}
		out = append(out, c.Label+" "+c.Field+": "+c.Main.Text+" → "+c.Branch.Text)
	}
	return out
}

// TestResolveConflict: each side chosen for a conflict is what the merge
// keeps: main's name, the branch's VLAN ID, the branch's deletion of an
// object main changed; the other changes of those objects merge as ever. A
// choice holds while both sides hold what they held when it was made: a
// side that changes again is a conflict again, until chosen anew. What is
// not in conflict cannot be resolved. The merge applies the choices,
// audited, and drops them.
func TestResolveConflict(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a := site(t, svc, Main, "site-a")
	users := vlan(t, svc, Main, "users", 100, a.ID)
	voice := vlan(t, svc, Main, "voice", 200, a.ID)
	guests := vlan(t, svc, Main, "guests", 300, a.ID)
	newBranch(t, svc, "b1")
	update(t, svc, "b1", users.ID, map[string]any{"name": "users-b1"}, nil)
	update(t, svc, Main, users.ID, map[string]any{"name": "users-main"}, nil)
	update(t, svc, "b1", voice.ID, map[string]any{"name": "voice-b1", "vlan_id": 201}, nil)
	update(t, svc, Main, voice.ID, map[string]any{"vlan_id": 202, "role": "voice"}, nil)
	if _, err := svc.DeleteObject(ctx, operator, "b1", guests.ID); err != nil {
		t.Fatal(err)
	}
	update(t, svc, Main, guests.ID, map[string]any{"name": "guests-main"}, nil)

	if got := fieldConflicts(t, svc, "b1"); len(got) != 3 {
		t.Fatalf("conflicts %q, want users' name, voice's vlan_id and guests", got)
	}
	// Nothing to resolve, and what is not there.
	_, err := svc.ResolveConflict(ctx, operator, "b1", users.ID, "vlan_id", SideMain)
	wantRefusal(t, err, refusal.ErrInvalid, "IpamVLAN users-b1: vlan_id was not changed on both sides since the branch point: there is no conflict to resolve")
	_, err = svc.ResolveConflict(ctx, operator, "b1", users.ID, "", SideMain)
	wantRefusal(t, err, refusal.ErrInvalid, "IpamVLAN users-b1 was not deleted on one side and changed on the other since the branch point: there is no conflict to resolve")
	_, err = svc.ResolveConflict(ctx, operator, "b1", a.ID, "name", SideMain)
	wantRefusal(t, err, refusal.ErrInvalid, "LocationSite site-a: name was not changed on both sides since the branch point: there is no conflict to resolve")
	_, err = svc.ResolveConflict(ctx, operator, "b1", users.ID, "colour", SideMain)
	wantRefusal(t, err, refusal.ErrNotFound, "field colour of IpamVLAN on branch b1 not found")
	_, err = svc.ResolveConflict(ctx, operator, "b1", users.ID, "name", Side("both"))
	wantRefusal(t, err, refusal.ErrInvalid, `side must be main or branch, not "both"`)
	_, err = svc.ResolveConflict(ctx, operator, Main, users.ID, "name", SideMain)
	wantRefusal(t, err, refusal.ErrInvalid, "")
	_, err = svc.ResolveConflict(ctx, acme, "b1", users.ID, "name", SideMain)
	wantRefusal(t, err, refusal.ErrNotFound, "branch b1 not found")
	_, err = svc.ResolveConflict(ctx, operator, "nope", users.ID, "name", SideMain)
	wantRefusal(t, err, refusal.ErrNotFound, "branch nope not found")

	if r := resolve(t, svc, "b1", users.ID, "name", SideMain); r.Kept.Text != "users-main" || r.Object.Label != "users-b1" || r.Object.Kind != "IpamVLAN" {
		t.Errorf("main's name kept: %+v", r)
	}
	if r := resolve(t, svc, "b1", voice.ID, "vlan_id", SideBranch); r.Kept.Text != "201" {
		t.Errorf("the branch's VLAN ID kept: %+v", r)
	}
	if r := resolve(t, svc, "b1", guests.ID, "", SideBranch); !r.Kept.Deleted {
		t.Errorf("the branch's deletion kept: %+v", r)
	}
	if got := fieldConflicts(t, svc, "b1"); len(got) != 0 {
		t.Fatalf("conflicts %q after choosing every side", got)
	}
	d, err := svc.BranchDiff(ctx, operator, "b1")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Resolutions) != 3 || d.Resolutions[0].Object.Label == d.Resolutions[0].Object.ID {
		t.Errorf("the diff lists the resolutions %+v", d.Resolutions)
	}

	// main changes users' name again: its conflict is back, with the new
	// value, until a side is chosen anew.
	update(t, svc, Main, users.ID, map[string]any{"name": "users-main-2"}, nil)
	if got := fieldConflicts(t, svc, "b1"); len(got) != 1 || got[0] != "users-b1 name: users-main-2 → users-b1" {
		t.Fatalf("after main's new name, conflicts %q", got)
	}
	resolve(t, svc, "b1", users.ID, "name", SideMain)

	if _, err := svc.MergeBranch(ctx, operator, "b1"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, svc, Main, users.ID); got.Attributes["name"] != "users-main-2" {
		t.Errorf("main's users is %+v, want main's name users-main-2", got)
	}
	if got := read(t, svc, Main, voice.ID); got.Attributes["name"] != "voice-b1" || got.Attributes["vlan_id"] != int64(201) || got.Attributes["role"] != "voice" {
		t.Errorf("main's voice is %+v, want the branch's name and VLAN ID, main's role", got)
	}
	absent(t, svc, Main, guests.ID)
	var audited int
	if err := db.GetContext(ctx, &audited, `SELECT count(*) FROM audit_log WHERE action = 'resolve' AND branch = 'b1'`); err != nil || audited != 4 {
		t.Errorf("%d resolve entries in the audit log (%v), want 4", audited, err)
	}
	if d, err := svc.BranchDiff(ctx, operator, "b1"); err != nil || len(d.Resolutions) != 0 {
		t.Errorf("after the merge, resolutions %+v (%v)", d.Resolutions, err)
	}
}

// TestResolveThenRebase: the branch's side chosen, a rebase keeps the
// branch's value over main's (the branch's change is then relative to
// main's head), and the merge brings it to main; main's side chosen for a
// relationship names main's peer; the choice of main's side for an object
// the branch deleted keeps main's object.
func TestResolveThenRebase(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a, b := site(t, svc, Main, "site-a"), site(t, svc, Main, "site-b")
	users := vlan(t, svc, Main, "users", 100, a.ID)
	voice := vlan(t, svc, Main, "voice", 200, a.ID)
	newBranch(t, svc, "b2")
	c := site(t, svc, Main, "site-c")
	update(t, svc, "b2", users.ID, map[string]any{"vlan_id": 150}, map[string][]string{"site": {b.ID}})
	update(t, svc, Main, users.ID, map[string]any{"vlan_id": 160}, map[string][]string{"site": {c.ID}})
	if _, err := svc.DeleteObject(ctx, operator, "b2", voice.ID); err != nil {
		t.Fatal(err)
	}
	update(t, svc, Main, voice.ID, map[string]any{"name": "voice-main"}, nil)

	resolve(t, svc, "b2", users.ID, "vlan_id", SideBranch)
	if r := resolve(t, svc, "b2", users.ID, "site", SideMain); r.Kept.Text != "site-c" || len(r.Kept.Peers) != 1 || r.Kept.Peers[0].ID != c.ID {
		t.Errorf("main's site kept: %+v, want site-c", r.Kept)
	}
	resolve(t, svc, "b2", voice.ID, "", SideMain)
	if _, err := svc.RebaseBranch(ctx, operator, "b2"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, svc, "b2", users.ID); got.Attributes["vlan_id"] != int64(150) || got.Relationships["site"][0] != c.ID {
		t.Errorf("rebased, the branch's users is %+v, want its VLAN ID 150 on main's site-c", got)
	}
	if got := read(t, svc, "b2", voice.ID); got.Attributes["name"] != "voice-main" {
		t.Errorf("rebased, the branch's voice is %+v, want main's", got)
	}
	if got := read(t, svc, Main, users.ID); got.Attributes["vlan_id"] != int64(160) {
		t.Errorf("the rebase changed main: %+v", got)
	}
	if _, err := svc.MergeBranch(ctx, operator, "b2"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, svc, Main, users.ID); got.Attributes["vlan_id"] != int64(150) || got.Relationships["site"][0] != c.ID {
		t.Errorf("merged, main's users is %+v, want VLAN ID 150 on site-c", got)
	}
	read(t, svc, Main, voice.ID)
}

// TestResolveWhileTheFieldIsWritten: a side chosen while a write of the
// branch is under way waits for it (seen waiting for the branch's row),
// then records what the write left, so that the merge takes it. Choosing
// from what the branch held before the write would have recorded a value
// the branch no longer holds, and the merge would be refused.
func TestResolveWhileTheFieldIsWritten(t *testing.T) {
	other, db, url := newService(t)
	load(t, other, Main, vlans)
	a := site(t, other, Main, "site-a")
	users := vlan(t, other, Main, "users", 100, a.ID)
	newBranch(t, other, "b1")
	update(t, other, "b1", users.ID, map[string]any{"name": "users-b1"}, nil)
	update(t, other, Main, users.ID, map[string]any{"name": "users-main"}, nil)
	svc, proxy := proxiedService(t, url, true)

	hold := proxy.HoldAnswer("INSERT INTO audit_log")
	defer hold.Release()
	writtenDone, written := goDo(func() error {
		_, err := svc.UpdateObject(context.Background(), operator, "b1", users.ID, ObjectInput{Attributes: map[string]any{"name": "users-b1-again"}})
		return err
	})
	reached(t, hold, "the write of users' name")
	var r Resolution
	resolvedDone, resolved := goDo(func() error {
		var err error
		r, err = other.ResolveConflict(context.Background(), operator, "b1", users.ID, "name", SideBranch)
		return err
	})
	pgtest.WaitForLock(t, db, "the choice of a side during the write", pgtest.LockWait{}, resolvedDone)
	hold.Release()
	<-writtenDone
	if *written != nil {
		t.Fatal(*written)
	}
	<-resolvedDone
	if *resolved != nil {
		t.Fatal(*resolved)
	}
	if r.Kept.Text != "users-b1-again" {
		t.Errorf("the choice keeps %q, want what the write left, users-b1-again", r.Kept.Text)
	}
	if _, err := other.MergeBranch(t.Context(), operator, "b1"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, other, Main, users.ID); got.Attributes["name"] != "users-b1-again" {
		t.Errorf("main's users is %+v, want the branch's users-b1-again", got)
	}
}
