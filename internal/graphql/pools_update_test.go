package graphql

import (
	"reflect"
	"testing"
)

// TestUpdatePublicPool: updatePublicPool changes the fields given and keeps
// the others, null removes one, and a gateway over a held address is
// refused with CONFLICT, naming it; nothing is stored then.
func TestUpdatePublicPool(t *testing.T) {
	e := newEnv(t)
	e.ok("op", createPublicPool, nil, "name", "public-zone-b", "cidr", "198.18.0.0/29", "gateway", "198.18.0.1", "zone", "zone-b")
	e.ok("acme", claimFloatingIp, nil, "namespace", "acme/prod", "name", "web", "zone", "zone-b") // 198.18.0.2

	const update = `mutation($in: UpdatePublicPoolInput!) { updatePublicPool(input: $in) { name cidr gateway exclude zone } }`
	type pool struct {
		Name, CIDR string
		Gateway    *string
		Exclude    []string
		Zone       *string
	}
	var got struct{ UpdatePublicPool pool }
	e.ok("op", update, &got, "in", map[string]any{"name": "public-zone-b", "exclude": []string{"198.18.0.5-198.18.0.6"}})
	gw, zone := "198.18.0.1", "zone-b"
	if want := (pool{Name: "public-zone-b", CIDR: "198.18.0.0/29", Gateway: &gw, Exclude: []string{"198.18.0.5-198.18.0.6"}, Zone: &zone}); !reflect.DeepEqual(got.UpdatePublicPool, want) {
		t.Errorf("updating the excludes answered %+v, want %+v", got.UpdatePublicPool, want)
	}
	e.ok("op", update, &got, "in", map[string]any{"name": "public-zone-b", "gateway": nil, "exclude": []string{}})
	if p := got.UpdatePublicPool; p.Gateway != nil || len(p.Exclude) != 0 || p.Zone == nil || *p.Zone != "zone-b" {
		t.Errorf("removing the gateway and the excludes answered %+v", p)
	}

	before := e.counts()
	err := e.fails("op", codeConflict, update, "in", map[string]any{"name": "public-zone-b", "gateway": "198.18.0.2"})
	if want := "public pool public-zone-b holds 1 address that gateway 198.18.0.2 would cover: 198.18.0.2 (FloatingIP acme/prod/web); release it first, or leave it out"; err.Message != want {
		t.Errorf("a gateway over a floating IP answered %q, want %q", err.Message, want)
	}
	if after := e.counts(); !reflect.DeepEqual(before, after) {
		t.Errorf("the refused update changed the database: %v → %v", before, after)
	}
	e.fails("acme", codeForbidden, update, "in", map[string]any{"name": "public-zone-b", "zone": "zone-c"})
	e.fails("op", codeNotFound, update, "in", map[string]any{"name": "public-zone-x", "zone": "zone-c"})
}
