package branch

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/refusal"
)

// diffLines writes objects' diffs one line each: "label: field before →
// after, …" (none for no value), for comparing with what a test wants.
func diffLines(objects []ObjectDiff) []string {
	text := func(v Value) string {
		if !v.Set {
			return "none"
		}
		return v.Text
	}
	var out []string
	for _, o := range objects {
		var fields []string
		for _, f := range o.Fields {
			fields = append(fields, f.Field+" "+text(f.Before)+" → "+text(f.After))
		}
		out = append(out, o.Kind+" "+o.Label+": "+strings.Join(fields, ", "))
	}
	return out
}

// TestBranchDiff: a branch's diff lists the objects it added (with their
// values), changed (each field before → after, peers by their labels) and
// removed (with the values they had), and its schema changes, and nothing
// main changed meanwhile; its state is open until a merge, merged after
// (when and by whom, in Branch and Branches too), open again once it
// changes something.
func TestBranchDiff(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a, b := site(t, svc, Main, "site-a"), site(t, svc, Main, "site-b")
	users := vlan(t, svc, Main, "users", 100, a.ID)
	voice := vlan(t, svc, Main, "voice", 200, a.ID)
	old := vlan(t, svc, Main, "old", 300, a.ID)
	newBranch(t, svc, "add-guests")

	c := site(t, svc, "add-guests", "site-c")
	guests := vlan(t, svc, "add-guests", "guests", 400, c.ID)
	update(t, svc, "add-guests", users.ID, map[string]any{"name": "users-b1"}, map[string][]string{"site": {b.ID}})
	if _, err := svc.DeleteObject(ctx, operator, "add-guests", old.ID); err != nil {
		t.Fatal(err)
	}
	// Made and deleted on the branch: no change at all.
	gone := vlan(t, svc, "add-guests", "gone", 500, c.ID)
	if _, err := svc.DeleteObject(ctx, operator, "add-guests", gone.ID); err != nil {
		t.Fatal(err)
	}
	load(t, svc, "add-guests", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: description, kind: Text, optional: true}
`)
	// main's changes since the branch point are not the branch's.
	update(t, svc, Main, voice.ID, map[string]any{"name": "voice-main"}, nil)
	site(t, svc, Main, "site-d")

	d, err := svc.BranchDiff(ctx, operator, "add-guests")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := diffLines(d.Added), []string{
		"LocationSite site-c: name none → site-c",
		"IpamVLAN guests: name none → guests, vlan_id none → 400, site none → site-c",
	}; !slices.Equal(got, want) {
		t.Errorf("added:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got, want := diffLines(d.Changed), []string{"IpamVLAN users-b1: name users → users-b1, site site-a → site-b"}; !slices.Equal(got, want) {
		t.Errorf("changed:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got, want := diffLines(d.Removed), []string{"IpamVLAN old: name old → none, vlan_id 300 → none, site site-a → none"}; !slices.Equal(got, want) {
		t.Errorf("removed:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Objects and peers are named with their ids and kinds, for links.
	if d.Added[1].ID != guests.ID || !reflect.DeepEqual(d.Added[1].Fields[2].After.Peers, []Ref{{ID: c.ID, Kind: "LocationSite", Label: "site-c"}}) {
		t.Errorf("guests is %+v", d.Added[1])
	}
	if d.Changed[0].ID != users.ID || d.Removed[0].ID != old.ID {
		t.Errorf("changed %s, removed %s; want users %s and old %s", d.Changed[0].ID, d.Removed[0].ID, users.ID, old.ID)
	}
	if got := d.Schema.String(); !strings.HasPrefix(got, "added attribute IpamVLAN.description (id ") || len(d.Schema) != 1 {
		t.Errorf("schema changes:\n%s\nwant the description added", got)
	}
	if d.Branch.Name != "add-guests" || d.Branch.State() != StateOpen || !d.Branch.Changed || d.Branch.Merged != nil {
		t.Errorf("the branch is %+v, want open with changes, never merged", d.Branch)
	}

	// Refusals: main has no branch point, a tenant sees no branch.
	_, err = svc.BranchDiff(ctx, operator, Main)
	wantRefusal(t, err, refusal.ErrInvalid, "branch main is the default branch: it has no branch point to compare with")
	_, err = svc.BranchDiff(ctx, acme, "add-guests")
	wantRefusal(t, err, refusal.ErrNotFound, "branch add-guests not found")
	_, err = svc.BranchDiff(ctx, operator, "nope")
	wantRefusal(t, err, refusal.ErrNotFound, "branch nope not found")

	// Merged: nothing left to merge, and the branch says when and by whom.
	if _, err := svc.MergeBranch(ctx, operator, "add-guests"); err != nil {
		t.Fatal(err)
	}
	d, err = svc.BranchDiff(ctx, operator, "add-guests")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Added)+len(d.Changed)+len(d.Removed)+len(d.Schema)+len(d.Numbers) != 0 {
		t.Errorf("after the merge, the diff is %+v", d)
	}
	if d.Branch.State() != StateMerged || d.Branch.Merged == nil || d.Branch.Merged.By != operator.Name || d.Branch.Merged.At.IsZero() {
		t.Errorf("after the merge the branch is %+v, want merged by %s", d.Branch, operator.Name)
	}
	state := func(name string) string {
		t.Helper()
		b, err := svc.Branch(ctx, operator, name)
		if err != nil {
			t.Fatal(err)
		}
		all, err := svc.Branches(ctx, operator)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(all, func(x Branch) bool { return x.Name == name })
		if i < 0 || all[i].State() != b.State() {
			t.Fatalf("Branches lists %s as %+v, Branch as %+v", name, all, b)
		}
		return b.State()
	}
	if got := state("add-guests"); got != StateMerged {
		t.Errorf("Branch(add-guests) is %s, want merged", got)
	}
	if got := state(Main); got != StateOpen {
		t.Errorf("main is %s", got)
	}
	// A change after the merge opens it again; a rebase that leaves it
	// nothing of its own closes it.
	update(t, svc, "add-guests", voice.ID, map[string]any{"role": "voice"}, nil)
	if got := state("add-guests"); got != StateOpen {
		t.Errorf("after a change, the merged branch is %s, want open", got)
	}
	update(t, svc, Main, voice.ID, map[string]any{"role": "voice"}, nil)
	if b, err := svc.RebaseBranch(ctx, operator, "add-guests"); err != nil || b.Changed {
		t.Fatalf("rebase = %+v, %v; want nothing of its own left", b, err)
	}
	if got := state("add-guests"); got != StateMerged {
		t.Errorf("rebased with nothing of its own, the branch is %s, want merged", got)
	}
}
