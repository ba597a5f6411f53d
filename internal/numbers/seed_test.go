package numbers

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// TestSitesShareNumbers: a pool scoped by site. A VLAN in site A
// and a VLAN in site B can both receive 100; two VLANs in site A never
// receive the same number.
func TestSitesShareNumbers(t *testing.T) {
	e := newEnv(t)
	a, b := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b")
	p := e.pool("VLAN IDs per site", []Range{{Start: 100, End: 199, Weight: 1}}, "site")
	want := []struct {
		name, site string
		n          int64
	}{{"users-site-a", a.ID, 100}, {"users-site-b", b.ID, 100}, {"voice-site-a", a.ID, 101}, {"mgmt-site-a", a.ID, 102}, {"voice-site-b", b.ID, 101}}
	for _, w := range want {
		if _, n := e.fromPool(branch.Main, p.ID, w.name, w.site, "user"); n != w.n {
			t.Errorf("%s got %d, want %d", w.name, n, w.n)
		}
	}
}

// TestScopeBySiteAndRole: each combination of a site and a role is a
// division.
func TestScopeBySiteAndRole(t *testing.T) {
	e := newEnv(t)
	a := e.site(branch.Main, "site-a")
	p := e.pool("VLAN IDs per site and role", []Range{{Start: 100, End: 199, Weight: 1}}, "site", "role")
	for _, w := range []struct {
		name, role string
		n          int64
	}{{"users", "user", 100}, {"phones", "voice", 100}, {"guests", "user", 101}, {"fax", "voice", 101}} {
		if _, n := e.fromPool(branch.Main, p.ID, w.name, a.ID, w.role); n != w.n {
			t.Errorf("%s (%s) got %d, want %d", w.name, w.role, n, w.n)
		}
	}
	d, err := e.svc.Divisions(t.Context(), operator, p.ID)
	if err != nil || d.Count != 2 {
		t.Fatalf("Divisions = %+v, %v", d, err)
	}
	if got := d.Divisions[0].DisplayLabel; got != "site-a / user" {
		t.Errorf("first division %q, want site-a / user (ties by label)", got)
	}
	entries := d.Divisions[1].Entries
	if len(entries) != 2 || entries[0] != (Entry{Path: "site", Value: a.ID, DisplayLabel: "site-a"}) ||
		entries[1] != (Entry{Path: "role", Value: "voice", DisplayLabel: "voice"}) {
		t.Errorf("entries = %+v", entries)
	}
}

// TestWeights: ranges are tried by descending weight, ties in the order
// given, the lowest free number first within a range.
func TestWeights(t *testing.T) {
	e := newEnv(t)
	a := e.site(branch.Main, "site-a")
	p := e.pool("weighted", []Range{{Start: 100, End: 101, Weight: 10}, {Start: 1000, End: 1001, Weight: 1}, {Start: 10, End: 10, Weight: 1}, {Start: 2000, End: 2000, Weight: 10}}, "site")
	if p.Ranges[1].Weight != 1 {
		t.Errorf("a range without weight has weight %d, want 1", p.Ranges[1].Weight)
	}
	e.given(branch.Main, "given", a.ID, "user", 100)
	var got []int64
	for range 5 {
		_, n := e.fromPool(branch.Main, p.ID, "v", a.ID, "user")
		got = append(got, n)
	}
	if want := []int64{101, 2000, 1000, 1001, 10}; !slices.Equal(got, want) {
		t.Fatalf("numbers = %v, want %v", got, want)
	}
	_, err := e.svc.CreateObject(t.Context(), operator, branch.Main, "IpamVLAN", e.vlanInput("full", a.ID, "user", nil),
		[]FromPool{{Attribute: "vlan_id", Pool: p.ID}})
	wantRefusal(t, err, refusal.ErrPoolExhausted, "pool weighted has no free number in site-a")
}

// TestExhausted: no free number is POOL_EXHAUSTED, naming the division's
// display label, or the pool alone without a scope.
func TestExhausted(t *testing.T) {
	e := newEnv(t)
	a := e.site(branch.Main, "site-a")
	scoped := e.pool("tiny", []Range{{Start: 1, End: 2, Weight: 1}}, "site", "role")
	plain := e.pool("tiny unscoped", []Range{{Start: 5, End: 5, Weight: 1}})
	e.fromPool(branch.Main, scoped.ID, "v1", a.ID, "user")
	e.fromPool(branch.Main, scoped.ID, "v2", a.ID, "user")
	e.fromPool(branch.Main, plain.ID, "v3", a.ID, "user")
	for _, tt := range []struct {
		pool, msg string
	}{{scoped.ID, "pool tiny has no free number in site-a / user"}, {plain.ID, "pool tiny unscoped has no free number"}} {
		_, err := e.svc.CreateObject(t.Context(), operator, branch.Main, "IpamVLAN", e.vlanInput("full", a.ID, "user", nil),
			[]FromPool{{Attribute: "vlan_id", Pool: tt.pool}})
		wantRefusal(t, err, refusal.ErrPoolExhausted, tt.msg)
		if r := refusal.Classify(err); r.Code != refusal.CodePoolExhausted {
			t.Errorf("code %s, want POOL_EXHAUSTED", r.Code)
		}
	}
	// Another division of the scoped pool still has numbers.
	if _, n := e.fromPool(branch.Main, scoped.ID, "v4", a.ID, "voice"); n != 1 {
		t.Errorf("voice got %d, want 1", n)
	}
}

// TestIdentifier: asking again under one identifier in a division gives
// the same number; from_pool alone on an object that holds a number keeps
// it.
func TestIdentifier(t *testing.T) {
	e := newEnv(t)
	a := e.site(branch.Main, "site-a")
	p := e.pool("ids", []Range{{Start: 1, End: 100, Weight: 1}}, "site")
	req := []FromPool{{Attribute: "vlan_id", Pool: p.ID, Identifier: "vlan-users"}}
	v1, err := e.svc.CreateObject(t.Context(), operator, branch.Main, "IpamVLAN", e.vlanInput("users", a.ID, "user", nil), req)
	if err != nil {
		t.Fatal(err)
	}
	e.fromPool(branch.Main, p.ID, "other", a.ID, "user") // 2
	v2, err := e.svc.CreateObject(t.Context(), operator, branch.Main, "IpamVLAN", e.vlanInput("users again", a.ID, "user", nil), req)
	if err != nil {
		t.Fatal(err)
	}
	if v1.Attributes["vlan_id"] != int64(1) || v2.Attributes["vlan_id"] != int64(1) {
		t.Fatalf("identified claims got %v and %v, want 1 twice", v1.Attributes["vlan_id"], v2.Attributes["vlan_id"])
	}
	kept, err := e.svc.UpdateObject(t.Context(), operator, branch.Main, v1.ID, branch.ObjectInput{Attributes: map[string]any{"note": "x"}},
		[]FromPool{{Attribute: "vlan_id", Pool: p.ID}})
	if err != nil || kept.Attributes["vlan_id"] != int64(1) {
		t.Fatalf("from_pool alone on a holder: %v, %v; want it kept", kept.Attributes["vlan_id"], err)
	}
}

// TestGivenNumbers: a number given is recorded under the object's division
// even when another object of the division holds it, and the pool skips
// it; objects made before the pool are recorded when it is created.
func TestGivenNumbers(t *testing.T) {
	e := newEnv(t)
	a, b := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b")
	e.given(branch.Main, "before", a.ID, "user", 100)
	p := e.pool("given", []Range{{Start: 100, End: 110, Weight: 1}}, "site")
	e.given(branch.Main, "dup-1", a.ID, "user", 101)
	e.given(branch.Main, "dup-2", a.ID, "user", 101)
	e.given(branch.Main, "outside", a.ID, "user", 5000)
	if _, n := e.fromPool(branch.Main, p.ID, "v", a.ID, "user"); n != 102 {
		t.Errorf("site A got %d, want 102 (100 and 101 given)", n)
	}
	if _, n := e.fromPool(branch.Main, p.ID, "w", b.ID, "user"); n != 100 {
		t.Errorf("site B got %d, want 100", n)
	}
	u, err := e.svc.Utilization(t.Context(), operator, p.ID, []EntryInput{{Path: "site", Value: a.ID}})
	if err != nil || u.Figures != (Figures{Size: 11, Used: 3, Utilization: 100 * 3.0 / 11}) {
		t.Fatalf("site A figures = %+v, %v (100, 101 twice, 102; 5000 outside)", u.Figures, err)
	}
	// 5000, outside the ranges and not allocated from the pool, is not
	// the pool's: it is recorded (and skipped), not listed.
	all, err := e.svc.Allocations(t.Context(), operator, p.ID, []EntryInput{{Path: "site", Value: a.ID}}, 0, 0)
	if err != nil || all.Count != 4 {
		t.Fatalf("site A allocations = %+v, %v; want the 4 holders in the ranges", all, err)
	}
	for i, want := range []int64{100, 101, 101, 102} {
		if all.Allocations[i].Value != want {
			t.Errorf("allocation %d = %d, want %d", i, all.Allocations[i].Value, want)
		}
	}
	if all.Allocations[3].Identifier == "" || all.Allocations[0].Identifier != "" {
		t.Errorf("identifiers: %q for the pool's, %q for a given one", all.Allocations[3].Identifier, all.Allocations[0].Identifier)
	}
}

// TestMoves: a VLAN moved to another site keeps its number unchecked;
// value: null with from_pool in one update gives it the lowest free number
// of its new site and frees the old one.
func TestMoves(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a, b := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b")
	p := e.pool("moves", []Range{{Start: 100, End: 199, Weight: 1}}, "site")
	v, _ := e.fromPool(branch.Main, p.ID, "mover", a.ID, "user") // A 100
	e.fromPool(branch.Main, p.ID, "stays", b.ID, "user")         // B 100
	moved, err := e.branches.UpdateObject(ctx, operator, branch.Main, v.ID, branch.ObjectInput{Relationships: map[string][]string{"site": {b.ID}}})
	if err != nil || moved.Attributes["vlan_id"] != int64(100) {
		t.Fatalf("moved: %v, %v; want 100 kept", moved.Attributes, err)
	}
	// A's 100 is free again (nothing holds it there), B's 100 twice.
	if _, n := e.fromPool(branch.Main, p.ID, "new-a", a.ID, "user"); n != 100 {
		t.Errorf("site A got %d after the move, want 100", n)
	}
	re, err := e.svc.UpdateObject(ctx, operator, branch.Main, v.ID, branch.ObjectInput{Attributes: map[string]any{"vlan_id": nil}},
		[]FromPool{{Attribute: "vlan_id", Pool: p.ID}})
	if err != nil || re.Attributes["vlan_id"] != int64(101) {
		t.Fatalf("value null with from_pool: %v, %v; want 101 in site B", re.Attributes, err)
	}
	// The same in one division: the old number is given up, and freed.
	again, err := e.svc.UpdateObject(ctx, operator, branch.Main, v.ID, branch.ObjectInput{Attributes: map[string]any{"vlan_id": nil}},
		[]FromPool{{Attribute: "vlan_id", Pool: p.ID}})
	if err != nil || again.Attributes["vlan_id"] != int64(102) {
		t.Fatalf("value null again: %v, %v; want 102", again.Attributes, err)
	}
	if _, n := e.fromPool(branch.Main, p.ID, "reuse", b.ID, "user"); n != 101 {
		t.Errorf("site B got %d, want 101 (freed)", n)
	}
}

// TestDeletionFrees: deleting an object frees its number, which the next
// claim gets; the release is audited.
func TestDeletionFrees(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a := e.site(branch.Main, "site-a")
	p := e.pool("deletions", []Range{{Start: 1, End: 10, Weight: 1}}, "site")
	v1, _ := e.fromPool(branch.Main, p.ID, "v1", a.ID, "user")
	e.fromPool(branch.Main, p.ID, "v2", a.ID, "user")
	if _, err := e.branches.DeleteObject(ctx, operator, branch.Main, v1.ID); err != nil {
		t.Fatal(err)
	}
	if _, n := e.fromPool(branch.Main, p.ID, "v3", a.ID, "user"); n != 1 {
		t.Fatalf("got %d after the deletion, want 1", n)
	}
	entries, err := store.AuditEntries(ctx, e.db, store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var allocated, released int
	for _, en := range entries {
		if en.ObjectKind != PoolKind {
			continue
		}
		var rec struct {
			Pool     string          `json:"pool"`
			Division json.RawMessage `json:"division"`
			Number   int64           `json:"number"`
			Object   string          `json:"object"`
		}
		doc := en.After
		if en.Action == "release" {
			doc = en.Before
		}
		if en.Action == "allocate" || en.Action == "release" {
			if err := json.Unmarshal(doc, &rec); err != nil || rec.Pool != "deletions" || string(rec.Division) == "" || rec.Object == "" || en.Branch != branch.Main {
				t.Errorf("%s entry %+v (%s)", en.Action, rec, doc)
			}
		}
		switch en.Action {
		case "allocate":
			allocated++
		case "release":
			released++
			if rec.Number != 1 || rec.Object != v1.ID {
				t.Errorf("released %+v, want 1 of %s", rec, v1.ID)
			}
		}
	}
	if allocated != 3 || released != 1 {
		t.Errorf("%d allocations and %d releases audited, want 3 and 1", allocated, released)
	}
}

// TestNoPoolNoCost: objects of kinds without pools, and pools deleted, are
// none of the pools' business; a deleted pool's claims are not found.
func TestPoolDeleted(t *testing.T) {
	e := newEnv(t)
	a := e.site(branch.Main, "site-a")
	p := e.pool("gone", []Range{{Start: 1, End: 10, Weight: 1}}, "site")
	v, _ := e.fromPool(branch.Main, p.ID, "v1", a.ID, "user")
	if _, err := e.svc.DeletePool(t.Context(), operator, p.ID); err != nil {
		t.Fatal(err)
	}
	o, err := e.branches.Object(t.Context(), operator, branch.Main, v.ID)
	if err != nil || o.Attributes["vlan_id"] != int64(1) {
		t.Fatalf("after the pool's deletion the object holds %v, %v; want 1", o.Attributes["vlan_id"], err)
	}
	_, err = e.svc.CreateObject(t.Context(), operator, branch.Main, "IpamVLAN", e.vlanInput("v2", a.ID, "user", nil),
		[]FromPool{{Attribute: "vlan_id", Pool: p.ID}})
	if !errors.Is(err, refusal.ErrNotFound) {
		t.Fatalf("claim from a deleted pool: %v, want not found", err)
	}
}
