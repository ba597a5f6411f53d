package branch

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// TestForNumberPools: what number pools ask of objects. A hook fills a
// value in the write's transaction before the required values are
// checked; ElementValue and HoldsNumber read an object's value on a
// branch; Holdings reads them on every branch.
func TestForNumberPools(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a := site(t, svc, Main, "site-a")
	s, _ := svc.Schema(ctx, Main)
	_, elems := ids(t, s, "IpamVLAN")

	var seen *Write
	fromPool := func(ctx context.Context, w *Write) error {
		seen = w
		if w.Tx == nil || w.After.Relationships["site"][0] != a.ID {
			t.Errorf("the hook sees %+v", w.After)
		}
		return w.SetAttribute("vlan_id", 100)
	}
	v, err := svc.CreateObject(ctx, operator, Main, "IpamVLAN", ObjectInput{Attributes: map[string]any{"name": "users"},
		Relationships: map[string][]string{"site": {a.ID}}, Hook: fromPool})
	if err != nil {
		t.Fatal(err)
	}
	if v.Attributes["vlan_id"] != int64(100) || seen.Before != nil || seen.Branch.Name != Main {
		t.Fatalf("created %+v (hook saw %+v)", v, seen)
	}
	refused := errors.New("pool exhausted")
	_, err = svc.CreateObject(ctx, operator, Main, "IpamVLAN", ObjectInput{Attributes: map[string]any{"name": "voice"},
		Relationships: map[string][]string{"site": {a.ID}}, Hook: func(context.Context, *Write) error { return refused }})
	if !errors.Is(err, refused) {
		t.Fatalf("err = %v, want the hook's", err)
	}
	_, err = svc.CreateObject(ctx, operator, Main, "IpamVLAN", ObjectInput{Attributes: map[string]any{"name": "voice"},
		Relationships: map[string][]string{"site": {a.ID}}, Hook: func(_ context.Context, w *Write) error { return w.SetAttribute("vlan_id", "x") }})
	refusal(t, err, ErrInvalid, "")

	newBranch(t, svc, "b1")
	update(t, svc, "b1", v.ID, map[string]any{"vlan_id": 200}, nil)
	for _, tt := range []struct {
		branch string
		n      int64
		holds  bool
	}{{Main, 100, true}, {Main, 200, false}, {"b1", 200, true}, {"b1", 100, false}} {
		got, err := svc.HoldsNumber(ctx, tt.branch, v.ID, elems["vlan_id"], tt.n)
		if err != nil || got != tt.holds {
			t.Errorf("HoldsNumber(%s, %d) = %v, %v, want %v", tt.branch, tt.n, got, err, tt.holds)
		}
	}
	peers, ok, err := svc.ElementValue(ctx, "b1", v.ID, elems["site"])
	if err != nil || !ok || peers.([]string)[0] != a.ID {
		t.Fatalf("ElementValue(site) = %v, %v, %v", peers, ok, err)
	}
	if _, ok, err := svc.ElementValue(ctx, "b1", v.ID, elems["role"]); ok || err != nil {
		t.Fatalf("ElementValue(role) = %v, %v, want none", ok, err)
	}
	holdings, err := svc.Holdings(ctx, []string{v.ID, "not-an-id"})
	if err != nil || len(holdings) != 2 {
		t.Fatalf("Holdings = %+v, %v", holdings, err)
	}
	for i, want := range []struct{ branch, vlan string }{{Main, "100"}, {"b1", "200"}} {
		h := holdings[i]
		if h.Branch != want.branch || h.Kind != "IpamVLAN" || string(h.Values[elems["vlan_id"]]) != want.vlan ||
			string(h.Values[elems["site"]]) != string(must(json.Marshal(a.ID))) {
			t.Errorf("holding %d = %+v", i, h)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
