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
		{"", nil, "query", "query is empty: give an address (10.42.1.7), a prefix (10.42.0.0/16), a VM's hostname or uid, a floating IP's name or a namespace"},
		{"2001:db8::1", nil, "query", "query 2001:db8::1 is IPv6: pools hold IPv4 addresses only"},
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
