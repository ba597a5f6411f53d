package graphql

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// searchQuery asks for every field of a search's hits.
const searchQuery = `query($q: String!, $first: Int) { search(query: $q, first: $first) {
	query form more
	hits { kind match namespace pool poolKind vpc subnet address cidr gateway owner { kind uid name } ownerNamespace since createdBy state explanation }
} }`

// searchHit is a hit of an answer.
type searchHit struct {
	Kind, Match                                                    string
	Namespace, Pool, PoolKind, VPC, Subnet, Address, CIDR, Gateway *string
	Owner                                                          *struct{ Kind, UID, Name string }
	OwnerNamespace, Since, CreatedBy, State, Explanation           *string
}

// line writes the hit in one line, its null fields left out.
func (h searchHit) line() string {
	parts := []string{h.Kind, h.Match}
	for _, f := range []struct {
		name string
		v    *string
	}{{"ns", h.Namespace}, {"pool", h.Pool}, {"kind", h.PoolKind}, {"vpc", h.VPC}, {"subnet", h.Subnet}, {"address", h.Address},
		{"cidr", h.CIDR}, {"gateway", h.Gateway}, {"owner ns", h.OwnerNamespace}, {"by", h.CreatedBy}, {"state", h.State}, {"why", h.Explanation}} {
		if f.v != nil {
			parts = append(parts, f.name+" "+*f.v)
		}
	}
	if h.Owner != nil {
		parts = append(parts, "owner "+h.Owner.Kind+" "+h.Owner.Name+" "+h.Owner.UID)
	}
	return strings.Join(parts, " | ")
}

type searchAnswer struct {
	Search struct {
		Query, Form string
		More        bool
		Hits        []searchHit
	}
}

func (e *env) search(token, q string, first any) searchAnswer {
	e.t.Helper()
	var out searchAnswer
	e.ok(token, searchQuery, &out, "q", q, "first", first)
	for _, h := range out.Search.Hits {
		if h.Kind == "ADDRESS" {
			continue
		}
		if h.Since == nil {
			e.t.Errorf("search(%q) as %s: %s has no since", q, token, h.line())
		} else if _, err := time.Parse(time.RFC3339, *h.Since); err != nil {
			e.t.Errorf("search(%q) as %s: since %q is not RFC 3339: %v", q, token, *h.Since, err)
		}
	}
	return out
}

func TestSearch(t *testing.T) {
	e := tenancyEnv(t)
	lines := func(token, q string) []string {
		t.Helper()
		out := []string{}
		for _, h := range e.search(token, q, nil).Search.Hits {
			out = append(out, h.line())
		}
		return out
	}
	vmUID := "vm-1"
	tests := []struct {
		token, query string
		want         []string
	}{
		{"acme", "10.42.1.2", []string{"ALLOCATION | address | ns acme/prod | pool vpc-main | kind PRIVATE | vpc main | subnet web | address 10.42.1.2 | owner ns acme/prod | by acme | owner VirtualMachine web-01/0 " + vmUID}},
		{"acmecorp", "10.42.1.2", []string{"ADDRESS | address | ns acme-corp/prod | pool vpc-main | kind PRIVATE | vpc main | subnet web | address 10.42.1.2 | cidr 10.42.1.0/24 | gateway 10.42.1.1 | state FREE | why 10.42.1.2 is free"}},
		{"globex", "10.42.1.2", []string{"ADDRESS | address | ns globex/prod | pool vpc-edge | kind PRIVATE | vpc edge | address 10.42.1.2 | cidr 10.42.0.0/16 | state OUTSIDE | why 10.42.1.2 is in no subnet of VPC edge: addresses are handed out in subnets only"}},
		{"acme", "10.42.1.1", []string{"ADDRESS | address | ns acme/prod | pool vpc-main | kind PRIVATE | vpc main | subnet web | address 10.42.1.1 | cidr 10.42.1.0/24 | gateway 10.42.1.1 | state GATEWAY | why 10.42.1.1 is the gateway of subnet web"}},
		{"acme", "203.0.113.3", []string{"ADDRESS | address | pool public-zone-a | kind PUBLIC | address 203.0.113.3 | cidr 203.0.113.0/24 | gateway 203.0.113.1 | state EXCLUDED | why 203.0.113.3 is excluded by exclude 203.0.113.2-203.0.113.3"}},
		{"acme", "192.0.2.1", []string{"ADDRESS | address | address 192.0.2.1 | state OUTSIDE_POOL | why 192.0.2.1 is in no pool you may see"}},
		{"acme", "web-01", []string{"ALLOCATION | hostname | ns acme/prod | pool vpc-main | kind PRIVATE | vpc main | subnet web | address 10.42.1.2 | owner ns acme/prod | by acme | owner VirtualMachine web-01/0 " + vmUID}},
		{"globex", "web-01", []string{}},
	}
	for _, tt := range tests {
		if got := lines(tt.token, tt.query); !slices.Equal(got, tt.want) {
			t.Errorf("search(%q) as %s:\n%s\nwant\n%s", tt.query, tt.token, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}

	// The forms and what each kind of hit carries.
	for _, tt := range []struct {
		token, query, form string
		kinds              []string
	}{
		{"op", "10.42.1.0/24", "PREFIX", []string{"POOL", "POOL", "POOL", "VPC", "VPC", "VPC", "SUBNET", "SUBNET", "ALLOCATION", "ALLOCATION"}},
		{"acme", "10.42.1.0/24", "PREFIX", []string{"POOL", "VPC", "SUBNET", "ALLOCATION", "ALLOCATION"}},
		{"acme", "203.0.113.0/24", "PREFIX", []string{"POOL", "ALLOCATION", "ALLOCATION"}},
		{"acme", "acme/prod", "TEXT", []string{"POOL", "VPC", "SUBNET", "ALLOCATION", "ALLOCATION", "ALLOCATION", "ALLOCATION"}},
		{"acmecorp", "acme/prod", "TEXT", []string{}},
		{"acme", "10.42.1.77", "ADDRESS", []string{"ADDRESS"}},
	} {
		a := e.search(tt.token, tt.query, nil)
		kinds := []string{}
		for _, h := range a.Search.Hits {
			kinds = append(kinds, h.Kind)
			if (h.Owner != nil) != (h.Kind == "ALLOCATION") || (h.State != nil) != (h.Kind == "ADDRESS") ||
				(h.CIDR != nil) == (h.Kind == "ALLOCATION") || (h.Address != nil) != (h.Kind == "ALLOCATION" || h.Kind == "ADDRESS") {
				t.Errorf("search(%q) as %s: %s", tt.query, tt.token, h.line())
			}
		}
		if a.Search.Form != tt.form || a.Search.Query != tt.query || a.Search.More || !slices.Equal(kinds, tt.kinds) {
			t.Errorf("search(%q) as %s = form %s, query %q, more %v, kinds %v; want %s, %v", tt.query, tt.token, a.Search.Form, a.Search.Query, a.Search.More, kinds, tt.form, tt.kinds)
		}
	}

	// first bounds the hits; more says there were more.
	if a := e.search("acme", "acme/prod", 2); len(a.Search.Hits) != 2 || !a.Search.More {
		t.Errorf("search(acme/prod, first: 2) = %d hits, more %v; want 2, more", len(a.Search.Hits), a.Search.More)
	}
}

func TestSearchRefused(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct {
		query       string
		first       any
		field, want string
	}{
		{"", nil, "query", "query is empty: give an address (10.42.1.7), a prefix (10.42.0.0/16 or 10.42.), a VM's hostname or uid, a floating IP's name, a namespace, an object's label or value, or a number"},
		{strings.Repeat("x", 300), nil, "query", "query is too long: at most 253 characters"},
		{"vm", 0, "first", "first 0 is out of range: 1 to 500"},
		{"vm", 501, "first", "first 501 is out of range: 1 to 500"},
		{"vm", -3, "first", "first -3 is out of range: 1 to 500"},
	} {
		err := e.fails("acme", codeInvalidArgument, searchQuery, "q", tt.query, "first", tt.first)
		if err.Message != tt.want || err.Extensions.Field != tt.field || fmt.Sprint(err.Path) != "[search]" {
			t.Errorf("search(%q, first: %v) = %q (field %q, path %v), want %q (field %q)", tt.query, tt.first, err.Message, err.Extensions.Field, err.Path, tt.want, tt.field)
		}
	}
	// No query at all is the request's error.
	if res := e.query("acme", `{ search { form } }`); res.code(t) != codeInvalidArgument || res.Data != nil && string(res.Data) != "null" {
		t.Errorf("search without a query = %s", res.body)
	}
}

// kindsSearchQuery asks for what the hits of number pools, numbers and
// objects carry.
const kindsSearchQuery = `query($q: String!) { search(query: $q) {
	form prefix more
	hits { kind match number value
		object { id kind label branch }
		numberPool { id name description kind attribute }
		division { label key objects { id kind label branch } }
		since createdBy
	}
} }`

// kindsHit is a hit of kindsSearchQuery's answer.
type kindsHit struct {
	Kind, Match string
	Number      *int64
	Value       *string
	Object      *struct{ ID, Kind, Label, Branch string }
	NumberPool  *struct{ ID, Name, Description, Kind, Attribute string }
	Division    *struct {
		Label, Key string
		Objects    []struct{ ID, Kind, Label, Branch string }
	}
	Since, CreatedBy *string
}

// TestSearchNumbersAndObjects: search answers operators, on main and on
// the branch of the request, the number pools (NUMBER_POOL), their numbers
// in each division with their holders (NUMBER) and the objects of kinds
// (OBJECT); a tenant none of them; the start of an address reads as a
// PREFIX.
func TestSearchNumbersAndObjects(t *testing.T) {
	e := newEnv(t)
	e.load(vlanSchema)
	siteA, siteB := e.site("site-a"), e.site("site-b")
	pool := e.createPool(`{name: {value: "VLAN IDs per site"}, description: {value: "per site"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"},
		ranges: [{start: 100, end: 199}], allocation_scope: {value: ["site"]}}`)
	usersA, _ := e.vlan(fromPool(pool, "users-site-a", siteA))
	e.vlan(fromPool(pool, "users-site-b", siteB))
	e.branchMutation("Create", "b1")
	guests, n := e.at("b1").vlan(fromPool(pool, "guests-site-a", siteA))

	search := func(e *env, token, q string) []kindsHit {
		t.Helper()
		var out struct {
			Search struct {
				Form   string
				Prefix *string
				More   bool
				Hits   []kindsHit
			}
		}
		e.ok(token, kindsSearchQuery, &out, "q", q)
		return out.Search.Hits
	}
	hits := search(e, "op", "100")
	if len(hits) != 2 {
		t.Fatalf("search(100) = %d hits, want 2: %+v", len(hits), hits)
	}
	for i, site := range []struct{ id, label, holder string }{{siteA, "site-a", "users-site-a"}, {siteB, "site-b", "users-site-b"}} {
		h := hits[i]
		if h.Kind != "NUMBER" || h.Match != "number" || h.Number == nil || *h.Number != 100 || h.NumberPool == nil ||
			*h.NumberPool != (struct{ ID, Name, Description, Kind, Attribute string }{pool, "VLAN IDs per site", "per site", "IpamVLAN", "vlan_id"}) ||
			h.Division == nil || h.Division.Label != site.label || h.Division.Key != `["`+site.id+`"]` || len(h.Division.Objects) != 1 ||
			h.Division.Objects[0] != (struct{ ID, Kind, Label, Branch string }{site.id, "LocationSite", site.label, "main"}) ||
			h.Object == nil || h.Object.Label != site.holder || h.Object.Kind != "IpamVLAN" || h.Object.Branch != "main" {
			t.Errorf("search(100) hit %d = %+v, want 100 of the pool in %s held by %s", i, h, site.label, site.holder)
		}
	}
	if hits[0].Object.ID != usersA {
		t.Errorf("search(100) names %s as the holder in site-a, want %s", hits[0].Object.ID, usersA)
	}
	// An object by its label; on the branch of the request, the branch's
	// own besides main's.
	for _, tt := range []struct {
		e     *env
		q     string
		kinds []string
		want  []string
	}{
		{e, "users-site-a", []string{"OBJECT"}, []string{"IpamVLAN users-site-a main display label users-site-a"}},
		{e, "guests", []string{}, []string{}},
		{e.at("b1"), "guests", []string{"OBJECT"}, []string{"IpamVLAN guests-site-a b1 display label guests-site-a"}},
		{e.at("b1"), fmt.Sprint(n), []string{"NUMBER"}, []string{"IpamVLAN guests-site-a b1 number " + fmt.Sprint(n)}},
		{e, "site-a", []string{"OBJECT", "OBJECT"}, []string{"LocationSite site-a main display label site-a", "IpamVLAN users-site-a main display label users-site-a"}},
		{e, "vlan ids", []string{"NUMBER_POOL"}, []string{"NUMBER_POOL name"}},
	} {
		kinds, lines := []string{}, []string{}
		for _, h := range search(tt.e, "op", tt.q) {
			kinds = append(kinds, h.Kind)
			switch {
			case h.Kind == "NUMBER_POOL" && h.NumberPool != nil && h.NumberPool.ID == pool && h.Since != nil && h.CreatedBy != nil && h.Object == nil:
				lines = append(lines, h.Kind+" "+h.Match)
			case h.Object != nil && h.Value != nil:
				lines = append(lines, fmt.Sprintf("%s %s %s %s %s", h.Object.Kind, h.Object.Label, h.Object.Branch, h.Match, *h.Value))
			default:
				lines = append(lines, fmt.Sprintf("%+v", h))
			}
		}
		if !slices.Equal(kinds, tt.kinds) || !slices.Equal(lines, tt.want) {
			t.Errorf("search(%q) at %s = %v %q, want %v %q", tt.q, tt.e.path, kinds, lines, tt.kinds, tt.want)
		}
	}
	if hits := search(e.at("b1"), "op", "guests"); len(hits) != 1 || hits[0].Object.ID != guests {
		t.Errorf("search(guests) on b1 = %+v, want the VLAN %s", hits, guests)
	}
	// A tenant finds none of them.
	for _, q := range []string{"100", "site-a", "users-site-a", "vlan ids", pool} {
		if hits := search(e, "acme", q); len(hits) != 0 {
			t.Errorf("search(%q) as a tenant = %+v, want nothing", q, hits)
		}
	}
	// The start of an address is a prefix.
	var out struct{ Search struct{ Form, Prefix string } }
	e.ok("acme", kindsSearchQuery, &out, "q", "10.42.1.")
	if out.Search.Form != "PREFIX" || out.Search.Prefix != "10.42.1.0/24" {
		t.Errorf("search(10.42.1.) = %+v, want the PREFIX 10.42.1.0/24", out.Search)
	}
}
