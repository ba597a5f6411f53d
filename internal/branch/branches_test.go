package branch

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/refusal"
)

// read returns the object as the branch shows it, failing on an error.
func read(t testing.TB, svc *Service, branch, id string) Object {
	t.Helper()
	o, err := svc.Object(t.Context(), operator, branch, id)
	if err != nil {
		t.Fatalf("Object(%s, %s): %v", branch, id, err)
	}
	return o
}

// absent fails unless the branch shows no object id.
func absent(t testing.TB, svc *Service, branch, id string) {
	t.Helper()
	if _, err := svc.Object(t.Context(), operator, branch, id); !errors.Is(err, refusal.ErrNotFound) {
		t.Fatalf("Object(%s, %s) = %v, want not found", branch, id, err)
	}
}

// update changes attributes of an object, failing on an error.
func update(t testing.TB, svc *Service, branch, id string, attrs map[string]any, rels map[string][]string) Object {
	t.Helper()
	o, err := svc.UpdateObject(t.Context(), operator, branch, id, ObjectInput{Attributes: attrs, Relationships: rels})
	if err != nil {
		t.Fatalf("UpdateObject(%s, %s): %v", branch, id, err)
	}
	return o
}

// newBranch creates a branch, failing on an error.
func newBranch(t testing.TB, svc *Service, name string) Branch {
	t.Helper()
	b, err := svc.CreateBranch(t.Context(), operator, name)
	if err != nil {
		t.Fatalf("CreateBranch(%s): %v", name, err)
	}
	return b
}

// count returns how many objects of the kind the branch shows.
func count(t testing.TB, svc *Service, branch, kind string) int {
	t.Helper()
	page, err := svc.Objects(t.Context(), operator, branch, kind, Filter{}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return page.Count
}

// TestBranchNames: names are checked, main is neither created, deleted,
// merged nor rebased, a name in use is a conflict, an unknown one not
// found.
func TestBranchNames(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	for _, bad := range []string{"", "-x", "a b", "a/../b", "a//b", "ü", "a/", strings.Repeat("a", 65)} {
		_, err := svc.CreateBranch(ctx, operator, bad)
		wantRefusal(t, err, refusal.ErrInvalid, "")
	}
	newBranch(t, svc, "feature/add-vlans_2.0")
	_, err := svc.CreateBranch(ctx, operator, "feature/add-vlans_2.0")
	wantRefusal(t, err, refusal.ErrConflict, "branch feature/add-vlans_2.0 exists")
	_, err = svc.CreateBranch(ctx, operator, Main)
	wantRefusal(t, err, refusal.ErrConflict, "branch main exists")
	_, err = svc.DeleteBranch(ctx, operator, Main)
	wantRefusal(t, err, refusal.ErrInvalid, "branch main is the default branch; it cannot be deleted")
	_, err = svc.MergeBranch(ctx, operator, Main)
	wantRefusal(t, err, refusal.ErrInvalid, "branch main is the default branch; it cannot be merged")
	_, err = svc.RebaseBranch(ctx, operator, Main)
	wantRefusal(t, err, refusal.ErrInvalid, "branch main is the default branch; it cannot be rebased")
	for _, op := range []func() error{
		func() error { _, err := svc.Branch(ctx, operator, "nope"); return err },
		func() error { _, err := svc.DeleteBranch(ctx, operator, "nope"); return err },
		func() error { _, err := svc.MergeBranch(ctx, operator, "nope"); return err },
		func() error { _, err := svc.Schema(ctx, "nope"); return err },
	} {
		wantRefusal(t, op(), refusal.ErrNotFound, "branch nope not found")
	}
	all, err := svc.Branches(ctx, operator)
	if err != nil || len(all) != 2 || !all[0].IsDefault || all[0].Name != Main || all[1].Point == 0 {
		t.Fatalf("Branches = %+v, %v", all, err)
	}
}

// TestBranchIsolation: a branch sees main as it was at its branch point
// and its own changes; main sees none of the branch's; RebaseBranch shows
// the branch main's later changes.
func TestBranchIsolation(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a := site(t, svc, Main, "site-a")
	users := vlan(t, svc, Main, "users", 100, a.ID)
	newBranch(t, svc, "b1")

	// The branch's changes stay on the branch.
	b := site(t, svc, "b1", "site-b")
	update(t, svc, "b1", users.ID, map[string]any{"name": "users-b1"}, map[string][]string{"site": {b.ID}})
	absent(t, svc, Main, b.ID)
	if got := read(t, svc, Main, users.ID); got.Attributes["name"] != "users" || got.Relationships["site"][0] != a.ID {
		t.Fatalf("main sees the branch's change: %+v", got)
	}
	if got := read(t, svc, "b1", users.ID); got.Attributes["name"] != "users-b1" {
		t.Fatalf("the branch does not see its change: %+v", got)
	}
	// main's later changes stay on main until a rebase.
	c := site(t, svc, Main, "site-c")
	update(t, svc, Main, users.ID, map[string]any{"vlan_id": 101}, nil)
	absent(t, svc, "b1", c.ID)
	if got := read(t, svc, "b1", users.ID); got.Attributes["vlan_id"] != int64(100) {
		t.Fatalf("the branch sees main's later change: %+v", got)
	}
	if n := count(t, svc, "b1", "LocationSite"); n != 2 {
		t.Fatalf("the branch shows %d sites, want site-a and site-b", n)
	}
	// A deletion on the branch hides main's object on the branch only.
	voice := vlan(t, svc, "b1", "voice", 200, a.ID)
	if _, err := svc.DeleteObject(ctx, operator, "b1", voice.ID); err != nil {
		t.Fatal(err)
	}
	d := site(t, svc, Main, "site-d")
	newBranch(t, svc, "b2")
	if _, err := svc.DeleteObject(ctx, operator, "b2", d.ID); err != nil {
		t.Fatal(err)
	}
	absent(t, svc, "b2", d.ID)
	read(t, svc, Main, d.ID)

	before, _ := svc.Branch(ctx, operator, "b1")
	after, err := svc.RebaseBranch(ctx, operator, "b1")
	if err != nil {
		t.Fatal(err)
	}
	if after.Point <= before.Point {
		t.Fatalf("the branch point moved from %d to %d", before.Point, after.Point)
	}
	read(t, svc, "b1", c.ID)
	got := read(t, svc, "b1", users.ID)
	if got.Attributes["vlan_id"] != int64(101) || got.Attributes["name"] != "users-b1" || got.Relationships["site"][0] != b.ID {
		t.Fatalf("after the rebase the branch shows %+v: want main's vlan_id and its own name and site", got)
	}
	absent(t, svc, Main, b.ID)
}

// TestMerge: a merge brings the branch's objects and changes to main,
// deletions included, field by field over main's own later changes, and
// leaves the branch rebased on the result with no change of its own.
func TestMerge(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a := site(t, svc, Main, "site-a")
	users := create(t, svc, Main, "IpamVLAN", map[string]any{"name": "users", "vlan_id": 100, "tags": []any{"x"}}, map[string][]string{"site": {a.ID}})
	old := vlan(t, svc, Main, "old", 300, a.ID)
	newBranch(t, svc, "b1")

	b := site(t, svc, "b1", "site-b")
	voice := vlan(t, svc, "b1", "voice", 200, b.ID)
	update(t, svc, "b1", users.ID, map[string]any{"name": "users-renamed"}, nil)
	if _, err := svc.DeleteObject(ctx, operator, "b1", old.ID); err != nil {
		t.Fatal(err)
	}
	update(t, svc, Main, users.ID, map[string]any{"role": "user"}, nil) // another field on main

	merged, err := svc.MergeBranch(ctx, operator, "b1")
	if err != nil {
		t.Fatal(err)
	}
	read(t, svc, Main, b.ID)
	read(t, svc, Main, voice.ID)
	absent(t, svc, Main, old.ID)
	got := read(t, svc, Main, users.ID)
	if got.Attributes["name"] != "users-renamed" || got.Attributes["role"] != "user" {
		t.Fatalf("main after the merge: %+v, want the branch's name and main's role", got)
	}
	if main, _ := svc.Branch(ctx, operator, "b1"); main.Point != merged.Point || merged.OwnSchema {
		t.Fatalf("the branch after the merge: %+v", merged)
	}
	var own int
	if err := db.Get(&own, `SELECT count(*) FROM object_versions WHERE branch_id = $1`, merged.ID); err != nil || own != 0 {
		t.Fatalf("the branch keeps %d versions after the merge (%v)", own, err)
	}
	// The branch goes on: it sees the merge, and its new changes merge too.
	if got := read(t, svc, "b1", users.ID); got.Attributes["role"] != "user" {
		t.Fatalf("the branch after the merge: %+v", got)
	}
	update(t, svc, "b1", voice.ID, map[string]any{"vlan_id": 201}, nil)
	if _, err := svc.MergeBranch(ctx, operator, "b1"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, svc, Main, voice.ID); got.Attributes["vlan_id"] != int64(201) {
		t.Fatalf("the second merge: %+v", got)
	}
	// The unique values merged hold on main.
	_, err = svc.CreateObject(ctx, operator, Main, "LocationSite", ObjectInput{Attributes: map[string]any{"name": "site-b"}})
	wantRefusal(t, err, refusal.ErrConflict, "Violates uniqueness constraint 'name'")
	var entries []string
	if err := db.Select(&entries, `SELECT action || ' ' || object_kind || ' ' || coalesce(branch, '-') FROM audit_log ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"create Branch b1", "update IpamVLAN b1", "delete IpamVLAN b1", "merge Branch main", "load Schema main"} {
		if !slices.Contains(entries, want) {
			t.Errorf("no audit entry %q in %q", want, entries)
		}
	}
}

// TestMergeConflicts: a field changed on both sides, an object deleted on
// one side and changed on the other, a relationship to an object the
// other side deleted are refused, all listed, and nothing changes.
func TestMergeConflicts(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a, b := site(t, svc, Main, "site-a"), site(t, svc, Main, "site-b")
	users := vlan(t, svc, Main, "users", 100, a.ID)
	voice := vlan(t, svc, Main, "voice", 200, a.ID)
	newBranch(t, svc, "b1")

	update(t, svc, "b1", users.ID, map[string]any{"name": "users-b1", "vlan_id": 110}, nil)
	update(t, svc, Main, users.ID, map[string]any{"name": "users-main", "role": "user"}, nil)
	if _, err := svc.DeleteObject(ctx, operator, "b1", voice.ID); err != nil {
		t.Fatal(err)
	}
	update(t, svc, Main, voice.ID, map[string]any{"vlan_id": 201}, nil)
	vlan(t, svc, "b1", "on-b", 300, b.ID)
	if _, err := svc.DeleteObject(ctx, operator, Main, b.ID); err != nil {
		t.Fatal(err)
	}

	for _, op := range []func() (Branch, error){
		func() (Branch, error) { return svc.MergeBranch(ctx, operator, "b1") },
		func() (Branch, error) { return svc.RebaseBranch(ctx, operator, "b1") },
	} {
		_, err := op()
		var me *MergeError
		if !errors.As(err, &me) {
			t.Fatalf("err = %v, want a *MergeError", err)
		}
		t.Log(err)
		// Each names its object by its label, with both sides' values.
		want := []FieldConflict{
			{Object: users.ID, Kind: "IpamVLAN", Field: "name", Label: "users-b1", Main: Value{Set: true, Text: "users-main"}, Branch: Value{Set: true, Text: "users-b1"}},
			{Object: voice.ID, Kind: "IpamVLAN", Label: "voice", Branch: Value{Deleted: true}},
		}
		for _, w := range want {
			if !slices.ContainsFunc(me.Fields, func(f FieldConflict) bool { return reflect.DeepEqual(f, w) }) {
				t.Errorf("conflicts %+v lack %+v", me.Fields, w)
			}
		}
		if len(me.Fields) != 2 {
			t.Errorf("conflicts %+v, want 2", me.Fields)
		}
	}
	if got := read(t, svc, Main, users.ID); got.Attributes["name"] != "users-main" || got.Attributes["vlan_id"] != int64(100) {
		t.Fatalf("main changed: %+v", got)
	}
	read(t, svc, Main, voice.ID)

	// Resolved (the branch's name set to main's, the VLAN deleted on main
	// too), the relationship to the site main deleted remains.
	update(t, svc, "b1", users.ID, map[string]any{"name": "users-main"}, nil)
	if _, err := svc.DeleteObject(ctx, operator, Main, voice.ID); err != nil {
		t.Fatal(err)
	}
	_, err := svc.MergeBranch(ctx, operator, "b1")
	var me *MergeError
	if !errors.As(err, &me) || len(me.References) != 1 || me.References[0].Peer != b.ID {
		t.Fatalf("err = %v, want the relationship to the site main deleted", err)
	}
}

// TestUniquenessAtMerge: the case of docs/numbers.md, "Merges can still
// leave duplicates". One branch changes a VLAN's
// number, another moves the VLAN of that number to the same site: each
// branch holds its constraint, the second merge would break it on main and
// is refused naming the constraint and both VLANs.
func TestUniquenessAtMerge(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a, b := site(t, svc, Main, "site-a"), site(t, svc, Main, "site-b")
	v1 := vlan(t, svc, Main, "v1", 100, a.ID)
	v2 := vlan(t, svc, Main, "v2", 200, b.ID)
	newBranch(t, svc, "renumber")
	newBranch(t, svc, "move")
	update(t, svc, "renumber", v1.ID, map[string]any{"vlan_id": 200}, nil)
	update(t, svc, "move", v2.ID, nil, map[string][]string{"site": {a.ID}})
	// Each is fine on its branch: site-a 200 and site-b 200; site-a 100 and site-a 200.
	if _, err := svc.MergeBranch(ctx, operator, "renumber"); err != nil {
		t.Fatal(err)
	}
	_, err := svc.MergeBranch(ctx, operator, "move")
	var me *MergeError
	if !errors.As(err, &me) || len(me.Unique) != 1 {
		t.Fatalf("err = %v, want the uniqueness constraint", err)
	}
	u := me.Unique[0]
	if u.Constraint != "site-vlan_id" || u.Kind != "IpamVLAN" || !slices.Contains(u.Objects, v1.ID) || !slices.Contains(u.Objects, v2.ID) {
		t.Fatalf("conflict %+v", u)
	}
	t.Log(err)
	if got := read(t, svc, Main, v2.ID); got.Relationships["site"][0] != b.ID {
		t.Fatalf("main changed: %+v", got)
	}
	// A rebase of the branch meets the same duplicate, on the branch.
	_, err = svc.RebaseBranch(ctx, operator, "move")
	if !errors.As(err, &me) || len(me.Unique) != 1 || me.Unique[0].Constraint != "site-vlan_id" {
		t.Fatalf("rebase: %v, want the uniqueness constraint", err)
	}
}

// TestDeleteBranch: deleting a branch discards its objects, changes and
// schema; main keeps its own.
func TestDeleteBranch(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a := site(t, svc, Main, "site-a")
	newBranch(t, svc, "b1")
	b := site(t, svc, "b1", "site-b")
	update(t, svc, "b1", a.ID, map[string]any{"name": "renamed"}, nil)
	load(t, svc, "b1", `version: "1.0"
nodes:
  - {name: Device, namespace: Dcim, attributes: [{name: name, kind: Text}]}
`)
	deleted, err := svc.DeleteBranch(ctx, operator, "b1")
	if err != nil || deleted.Name != "b1" {
		t.Fatalf("DeleteBranch = %+v, %v", deleted, err)
	}
	_, err = svc.Object(ctx, operator, "b1", a.ID)
	wantRefusal(t, err, refusal.ErrNotFound, "branch b1 not found")
	absent(t, svc, Main, b.ID)
	if got := read(t, svc, Main, a.ID); got.Attributes["name"] != "site-a" {
		t.Fatalf("main after the deletion: %+v", got)
	}
	for _, table := range []string{"object_versions", "unique_values", "schema_versions"} {
		var n int
		if err := db.Get(&n, `SELECT count(*) FROM `+table+` WHERE branch_id = $1`, deleted.ID); err != nil || n != 0 {
			t.Errorf("%s holds %d rows of the deleted branch (%v)", table, n, err)
		}
	}
	// A branch of the same name starts afresh.
	newBranch(t, svc, "b1")
	absent(t, svc, "b1", b.ID)
	if s, _ := svc.Schema(ctx, "b1"); func() bool { _, ok := s.Kind("DcimDevice"); return ok }() {
		t.Fatal("the new branch has the deleted one's schema")
	}
}

// TestTenantsSeeNothing: tenants see no branch, schema or object, and
// change none: every answer is not found.
func TestTenantsSeeNothing(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a := site(t, svc, Main, "site-a")
	newBranch(t, svc, "b1")
	if all, err := svc.Branches(ctx, acme); err != nil || len(all) != 0 {
		t.Fatalf("Branches = %+v, %v", all, err)
	}
	for _, op := range []func() error{
		func() error { _, err := svc.Branch(ctx, acme, Main); return err },
		func() error { _, err := svc.CreateBranch(ctx, acme, "b2"); return err },
		func() error { _, err := svc.DeleteBranch(ctx, acme, "b1"); return err },
		func() error { _, err := svc.MergeBranch(ctx, acme, "b1"); return err },
		func() error { _, err := svc.RebaseBranch(ctx, acme, "b1"); return err },
		func() error { _, err := svc.LoadSchema(ctx, acme, Main, file(t, vlans)); return err },
		func() error { _, err := svc.Object(ctx, acme, Main, a.ID); return err },
		func() error { _, err := svc.Objects(ctx, acme, Main, "LocationSite", Filter{}, 0, 0); return err },
		func() error {
			_, err := svc.CreateObject(ctx, acme, Main, "LocationSite", ObjectInput{Attributes: map[string]any{"name": "x"}})
			return err
		},
		func() error { _, err := svc.UpdateObject(ctx, acme, Main, a.ID, ObjectInput{}); return err },
		func() error { _, err := svc.DeleteObject(ctx, acme, Main, a.ID); return err },
	} {
		wantRefusal(t, op(), refusal.ErrNotFound, "")
	}
	if n := count(t, svc, Main, "LocationSite"); n != 1 {
		t.Fatalf("%d sites", n)
	}
}

// TestEveryChangeAudited: each change is one audit entry naming its
// branch; a refused one leaves none.
func TestEveryChangeAudited(t *testing.T) {
	svc, db, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a := site(t, svc, Main, "site-a")
	newBranch(t, svc, "b1")
	e := create(t, svc, "b1", "DcimInterface", map[string]any{"name": "eth0"}, nil)
	v := create(t, svc, "b1", "IpamVLAN", map[string]any{"name": "v", "vlan_id": 1}, map[string][]string{"site": {a.ID}, "endpoints": {e.ID}})
	update(t, svc, "b1", v.ID, map[string]any{"vlan_id": 2}, nil)
	if _, err := svc.DeleteObject(ctx, operator, "b1", e.ID); err != nil { // clears v's endpoints
		t.Fatal(err)
	}
	if got := read(t, svc, "b1", v.ID); len(got.Relationships["endpoints"]) != 0 {
		t.Fatalf("the deleted endpoint is still pointed at: %+v", got)
	}
	if _, err := svc.CreateObject(ctx, operator, "b1", "LocationSite", ObjectInput{Attributes: map[string]any{"name": "site-a"}}); err == nil {
		t.Fatal("a duplicate was created")
	}
	for _, op := range []func() (Branch, error){
		func() (Branch, error) { return svc.RebaseBranch(ctx, operator, "b1") },
		func() (Branch, error) { return svc.MergeBranch(ctx, operator, "b1") },
		func() (Branch, error) { return svc.DeleteBranch(ctx, operator, "b1") },
	} {
		if _, err := op(); err != nil {
			t.Fatal(err)
		}
	}
	var entries []string
	if err := db.Select(&entries, `SELECT action || ' ' || object_kind || ' ' || branch FROM audit_log ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	want := []string{"load Schema main", "create LocationSite main", "create Branch b1", "create DcimInterface b1", "create IpamVLAN b1",
		"update IpamVLAN b1", "delete DcimInterface b1", "rebase Branch b1", "merge Branch main", "delete Branch b1"}
	if !slices.Equal(entries, want) {
		t.Fatalf("audit log:\n%q\nwant\n%q", entries, want)
	}
}

// TestMergeListsEveryKindOfConflict: a branch with a field changed on both
// sides and a VLAN moved into a site where main has since given its number
// to a new VLAN is refused with both listed, by a merge and by a rebase,
// and main is unchanged.
func TestMergeListsEveryKindOfConflict(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a, b := site(t, svc, Main, "site-a"), site(t, svc, Main, "site-b")
	v1 := vlan(t, svc, Main, "v1", 100, a.ID)
	v2 := vlan(t, svc, Main, "v2", 200, b.ID)
	newBranch(t, svc, "move")
	update(t, svc, "move", v1.ID, map[string]any{"name": "v1-move"}, nil)
	update(t, svc, Main, v1.ID, map[string]any{"name": "v1-main"}, nil)
	update(t, svc, "move", v2.ID, nil, map[string][]string{"site": {a.ID}})
	v3 := vlan(t, svc, Main, "v3", 200, a.ID)

	for _, action := range []string{"merge", "rebase"} {
		var err error
		if action == "merge" {
			_, err = svc.MergeBranch(ctx, operator, "move")
		} else {
			_, err = svc.RebaseBranch(ctx, operator, "move")
		}
		var me *MergeError
		if !errors.As(err, &me) {
			t.Fatalf("%s: err = %v, want a *MergeError", action, err)
		}
		if want := []FieldConflict{{Object: v1.ID, Kind: "IpamVLAN", Field: "name", Label: "v1-move",
			Main: Value{Set: true, Text: "v1-main"}, Branch: Value{Set: true, Text: "v1-move"}}}; !reflect.DeepEqual(me.Fields, want) {
			t.Errorf("%s: field conflicts %+v, want %+v", action, me.Fields, want)
		}
		if len(me.Unique) != 1 || me.Unique[0].Constraint != "site-vlan_id" || !slices.Contains(me.Unique[0].Objects, v2.ID) || !slices.Contains(me.Unique[0].Objects, v3.ID) {
			t.Errorf("%s: uniqueness conflicts %+v, want site-vlan_id held by v2 and v3", action, me.Unique)
		} else if labels := slices.Sorted(slices.Values(me.Unique[0].Labels)); !slices.Equal(labels, []string{"v2", "v3"}) {
			t.Errorf("%s: the uniqueness conflict names %v, want v2 and v3", action, me.Unique[0].Labels)
		}
		for _, part := range []string{`IpamVLAN v1-move (id ` + v1.ID + `): name changed on both sides (main: "v1-main", branch: "v1-move")`,
			"IpamVLAN: Violates uniqueness constraint 'site-vlan_id'", "(/branches/move) or change one side, then " + action + " again"} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("%s: %q lacks %q", action, err, part)
			}
		}
		// The message names the object by its label and says both
		// values, not "IpamVLAN <id>: name changed on both sides".
		if bare := "IpamVLAN " + v1.ID + ": name changed on both sides"; strings.Contains(err.Error(), bare) {
			t.Errorf("%s: %q still says %q", action, err, bare)
		}
	}
	if got := read(t, svc, Main, v2.ID); got.Relationships["site"][0] != b.ID {
		t.Fatalf("main changed: %+v", got)
	}
	if got := read(t, svc, Main, v1.ID); got.Attributes["name"] != "v1-main" {
		t.Fatalf("main changed: %+v", got)
	}
}
