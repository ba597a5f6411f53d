package numbers

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/search"
)

// searchEnv is an env with the IP half's service on the same database,
// holding the demo's numbers: sites site-a and site-b, the pool "VLAN IDs
// per site" (100-199 by site), VLANs of both sites from it, one with a
// number of no pool, and a branch b1 with a VLAN of its own and a VLAN
// renamed.
type searchEnv struct {
	*env
	ip    *ipam.Service
	pool  Pool
	sites map[string]branch.Object
	vlans map[string]branch.Object
}

func newSearchEnv(t *testing.T) *searchEnv {
	t.Helper()
	e := &searchEnv{env: newEnv(t), sites: map[string]branch.Object{}, vlans: map[string]branch.Object{}}
	ip, err := ipam.New(t.Context(), ipam.Config{DB: e.db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ip.Close)
	e.ip = ip
	for _, name := range []string{"site-a", "site-b"} {
		e.sites[name] = e.site(branch.Main, name)
	}
	e.pool = e.env.pool("VLAN IDs per site", []Range{{Start: 100, End: 199, Weight: 1}}, "site")
	for _, v := range []struct{ name, site string }{{"users-site-a", "site-a"}, {"voice-site-a", "site-a"}, {"users-site-b", "site-b"}} {
		e.vlans[v.name], _ = e.fromPool(branch.Main, e.pool.ID, v.name, e.sites[v.site].ID, "user")
	}
	if e.vlans["users-site-a"], err = e.branches.UpdateObject(t.Context(), operator, branch.Main, e.vlans["users-site-a"].ID,
		branch.ObjectInput{Attributes: map[string]any{"note": "Uplink to rack 7"}}); err != nil {
		t.Fatal(err)
	}
	e.vlans["legacy"] = e.given(branch.Main, "legacy", e.sites["site-b"].ID, "user", 4000)
	if _, err := e.branches.CreateBranch(t.Context(), operator, "b1"); err != nil {
		t.Fatal(err)
	}
	e.vlans["guests-site-a"], _ = e.fromPool("b1", e.pool.ID, "guests-site-a", e.sites["site-a"].ID, "user")
	if _, err := e.branches.UpdateObject(t.Context(), operator, "b1", e.vlans["voice-site-a"].ID,
		branch.ObjectInput{Attributes: map[string]any{"name": "voice-site-a-new"}}); err != nil {
		t.Fatal(err)
	}
	return e
}

// lines searches as actor, on main and branchName, and writes the hits of
// the number pools, numbers and objects found, one a line.
func (e *searchEnv) lines(t *testing.T, actor string, query, branchName string, first int) ([]string, bool) {
	t.Helper()
	a := operator
	if actor == "acme" {
		a = acme
	}
	res, err := e.ip.Search(t.Context(), a, query, ipam.SearchOptions{First: first, Branch: branchName, Finder: e.svc})
	if err != nil {
		t.Fatalf("Search(%q) as %s: %v", query, actor, err)
	}
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, searchLine(h))
	}
	return out, res.More
}

// searchLine writes a hit of the number pools, numbers or objects found.
func searchLine(h ipam.SearchHit) string {
	switch h.Kind {
	case search.HitNumberPool:
		return fmt.Sprintf("pool %s | %s %s | by %s", h.NumberPool.Name, h.NumberPool.Kind, h.NumberPool.Attribute, h.Match)
	case search.HitNumber:
		var objects []string
		for _, o := range h.Division.Objects {
			objects = append(objects, o.Kind+" "+o.Label)
		}
		return fmt.Sprintf("number %d | %s | %s (%s) | held by %s %s on %s", h.Number, h.NumberPool.Name, h.Division.Label,
			strings.Join(objects, ", "), h.Object.Kind, h.Object.Label, h.Object.Branch)
	case search.HitObject:
		return fmt.Sprintf("object %s %s on %s | by %s %q", h.Object.Kind, h.Object.Label, h.Object.Branch, h.Match, h.Value)
	}
	return string(h.Kind)
}

func TestSearchNumbersAndObjects(t *testing.T) {
	e := newSearchEnv(t)
	tests := []struct {
		query, branch string
		want          []string
	}{
		// A number: in each division of the pool, with its holder.
		{"100", "", []string{
			"number 100 | VLAN IDs per site | site-a (LocationSite site-a) | held by IpamVLAN users-site-a on main",
			"number 100 | VLAN IDs per site | site-b (LocationSite site-b) | held by IpamVLAN users-site-b on main",
		}},
		// On a branch that shows main's: the same, once.
		{"100", "b1", []string{
			"number 100 | VLAN IDs per site | site-a (LocationSite site-a) | held by IpamVLAN users-site-a on main",
			"number 100 | VLAN IDs per site | site-b (LocationSite site-b) | held by IpamVLAN users-site-b on main",
		}},
		// A number the branch's object holds.
		{"102", "", []string{}},
		{"102", "b1", []string{"number 102 | VLAN IDs per site | site-a (LocationSite site-a) | held by IpamVLAN guests-site-a on b1"}},
		// A number of no pool's: the object, by its attribute.
		{"4000", "", []string{`object IpamVLAN legacy on main | by vlan_id "4000"`}},
		// A label whole, then the labels holding it.
		{"site-a", "", []string{
			`object LocationSite site-a on main | by display label "site-a"`,
			`object IpamVLAN users-site-a on main | by display label "users-site-a"`,
			`object IpamVLAN voice-site-a on main | by display label "voice-site-a"`,
		}},
		{"users-site-a", "", []string{`object IpamVLAN users-site-a on main | by display label "users-site-a"`}},
		{"USERS-site-A", "", []string{`object IpamVLAN users-site-a on main | by display label "users-site-a"`}},
		// On the branch too: its own VLAN, and its version of voice-site-a.
		{"site-a", "b1", []string{
			`object LocationSite site-a on main | by display label "site-a"`,
			`object IpamVLAN guests-site-a on b1 | by display label "guests-site-a"`,
			`object IpamVLAN users-site-a on main | by display label "users-site-a"`,
			`object IpamVLAN voice-site-a on main | by display label "voice-site-a"`,
			`object IpamVLAN voice-site-a-new on b1 | by display label "voice-site-a-new"`,
		}},
		// A Text attribute's value, or a part of it.
		{"rack 7", "", []string{`object IpamVLAN users-site-a on main | by note "Uplink to rack 7"`}},
		{"uplink to rack 7", "", []string{`object IpamVLAN users-site-a on main | by note "Uplink to rack 7"`}},
		// A Dropdown's value is no Text.
		{"user", "", []string{
			`object IpamVLAN users-site-a on main | by display label "users-site-a"`,
			`object IpamVLAN users-site-b on main | by display label "users-site-b"`,
		}},
		// A number pool, by its name or a part of it, any case.
		{"vlan ids", "", []string{"pool VLAN IDs per site | IpamVLAN vlan_id | by name"}},
		{e.pool.ID, "", []string{"pool VLAN IDs per site | IpamVLAN vlan_id | by id"}},
		// An object by its id.
		{e.sites["site-b"].ID, "", []string{fmt.Sprintf("object LocationSite site-b on main | by id %q", e.sites["site-b"].ID)}},
		// Shorter than three letters: whole labels only.
		{"a", "", []string{}},
	}
	for _, tt := range tests {
		got, _ := e.lines(t, "op", tt.query, tt.branch, 0)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Search(%q) on %q:\n%s\nwant\n%s", tt.query, tt.branch, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}

	// Main renamed a site after the branch point: the branch shows the old
	// name, on the branch; main the new one.
	if _, err := e.branches.UpdateObject(t.Context(), operator, branch.Main, e.sites["site-b"].ID,
		branch.ObjectInput{Attributes: map[string]any{"name": "site-b-east"}}); err != nil {
		t.Fatal(err)
	}
	got, _ := e.lines(t, "op", "site-b", "b1", 0)
	want := []string{
		`object LocationSite site-b on b1 | by display label "site-b"`,
		`object LocationSite site-b-east on main | by display label "site-b-east"`,
		`object IpamVLAN users-site-b on main | by display label "users-site-b"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("Search(site-b) on b1 after main's rename:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Its number's division is labelled as the branch shows the site.
	got, _ = e.lines(t, "op", "100", "", 0)
	if want := "number 100 | VLAN IDs per site | site-b-east (LocationSite site-b-east) | held by IpamVLAN users-site-b on main"; len(got) != 2 || got[1] != want {
		t.Errorf("Search(100) after the rename:\n%s\nwant second\n%s", strings.Join(got, "\n"), want)
	}

	// first bounds the hits, more says there were more.
	if got, more := e.lines(t, "op", "site", "b1", 2); len(got) != 2 || !more {
		t.Errorf("Search(site, first 2) = %q, more %v; want 2 hits and more", got, more)
	}
	// An unknown branch is not found.
	if _, err := e.ip.Search(t.Context(), operator, "site-a", ipam.SearchOptions{Branch: "nope", Finder: e.svc}); refusal.Classify(err).Code != refusal.CodeNotFound {
		t.Errorf("Search(site-a) on the branch nope = %v, want NOT_FOUND", err)
	}
}

// TestSearchNumbersAndObjectsTenant: number pools, numbers and objects of
// kinds are the operators' (internal/branch's rule): a tenant finds none of
// them, on main or on a branch.
func TestSearchNumbersAndObjectsTenant(t *testing.T) {
	e := newSearchEnv(t)
	for _, q := range []string{"100", "102", "site-a", "users-site-a", "rack 7", "VLAN IDs", e.pool.ID, e.sites["site-a"].ID, "4000"} {
		for _, b := range []string{"", "b1"} {
			if got, more := e.lines(t, "acme", q, b, 0); len(got) != 0 || more {
				t.Errorf("Search(%q) on %q as a tenant = %q, more %v; want nothing", q, b, got, more)
			}
		}
	}
	hits, more, err := e.svc.Find(t.Context(), acme, search.Query{Text: "site-a", Limit: 10})
	if len(hits) != 0 || more || err != nil {
		t.Errorf("Find(site-a) as a tenant = %d hits, more %v, %v; want none", len(hits), more, err)
	}
}

// TestSearchIPHalfFirst: a text's hits of the IP half (a VPC named after
// the site, a VM) come before the Finder's, which Search asks
// beside them; first bounds them together, and more says what was left.
func TestSearchIPHalfFirst(t *testing.T) {
	e := newSearchEnv(t)
	ctx := t.Context()
	if _, err := e.ip.CreateVPC(ctx, operator, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "site-a-net", CIDR: "10.42.0.0/16"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ip.CreateSubnet(ctx, operator, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "site-a-net", Name: "web", CIDR: "10.42.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ip.AttachInterface(ctx, operator, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "site-a-net", Subnet: "web",
		VM: ipam.VMRef{UID: "vm-1", Hostname: "site-a-01"}}); err != nil {
		t.Fatal(err)
	}
	all, more := e.lines(t, "op", "site-a", "", 0)
	want := []string{"vpc", "allocation",
		`object LocationSite site-a on main | by display label "site-a"`,
		`object IpamVLAN users-site-a on main | by display label "users-site-a"`,
		`object IpamVLAN voice-site-a on main | by display label "voice-site-a"`,
	}
	if !slices.Equal(all, want) || more {
		t.Fatalf("Search(site-a) = %q, more %v; want\n%q", all, more, want)
	}
	for first := 1; first <= len(all)+1; first++ {
		got, more := e.lines(t, "op", "site-a", "", first)
		if n := min(first, len(all)); !slices.Equal(got, all[:n]) || more != (first < len(all)) {
			t.Errorf("Search(site-a, first %d) = %q, more %v; want %q, more %v", first, got, more, all[:n], first < len(all))
		}
	}
	// The tenant of the VPC finds its part alone.
	if got, more := e.lines(t, "acme", "site-a", "", 0); !slices.Equal(got, want[:2]) || more {
		t.Errorf("Search(site-a) as acme = %q, more %v; want %q", got, more, want[:2])
	}
}
