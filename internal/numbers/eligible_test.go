package numbers

import (
	"slices"
	"testing"

	"pivirt.hu/ipam/internal/branch"
)

// TestEligibleScope: the fields a form offers as scope elements are those
// CreatePool takes, each on its own.
func TestEligibleScope(t *testing.T) {
	e := newEnv(t)
	main, err := e.branches.Schema(t.Context(), branch.Main)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kind, attribute string
		want            []string
	}{
		// Not vlan_id (allocated), tags and meta (List, JSON), note and
		// tenant_id (optional), endpoints (many), backup (optional).
		{"IpamVLAN", "vlan_id", []string{"name", "role", "level", "site"}},
		{"IpamVLAN", "level", []string{"name", "role", "site"}},
		// Unique: no scope at all.
		{"IpamVLAN", "tenant_id", nil},
		// A generic: its own attributes only, not its inheritors' (rack).
		{"DcimEndpoint", "vni", []string{"name", "fabric"}},
		// A node: what it inherits too.
		{"DcimInterface", "speed", []string{"name", "fabric", "rack"}},
		{"IpamVLAN", "name", nil},
		{"IpamVLAN", "nothing", nil},
		{"Nothing", "vlan_id", nil},
	}
	for _, tt := range tests {
		if got := EligibleScope(main, tt.kind, tt.attribute); !slices.Equal(got, tt.want) {
			t.Errorf("EligibleScope(%s, %s) = %q, want %q", tt.kind, tt.attribute, got, tt.want)
		}
		for _, name := range EligibleScope(main, tt.kind, tt.attribute) {
			k, _ := main.Kind(tt.kind)
			a, _ := main.Attribute(tt.kind, tt.attribute)
			if _, err := scopeIDs(main, k, a, []string{name}); err != nil {
				t.Errorf("EligibleScope(%s, %s) offers %s, which CreatePool refuses: %v", tt.kind, tt.attribute, name, err)
			}
		}
	}
}
