package ipam

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/search"
)

// hitLine writes a hit in one line: its kind, what matched, where it is
// and what it says.
func hitLine(h SearchHit) string {
	var parts []string
	add := func(label, v string) {
		if v != "" {
			parts = append(parts, label+v)
		}
	}
	add("", string(h.Kind))
	add("by ", h.Match)
	add("ns ", h.Namespace)
	add("pool ", h.Pool)
	add("vpc ", h.VPC)
	add("subnet ", h.Subnet)
	if h.CIDR.IsValid() {
		add("", h.CIDR.String())
	}
	if h.Address.IsValid() {
		add("", h.Address.String())
	}
	if h.Owner.Kind != "" {
		add("", string(h.Owner.Kind)+" "+h.Owner.Name+" uid "+h.Owner.UID+" of "+h.OwnerNamespace)
	}
	add(h.State.String()+": ", h.Explain)
	return strings.Join(parts, " | ")
}

// searchLines searches as actor and writes the hits, failing the test on
// an error.
func searchLines(t *testing.T, svc *Service, actor auth.Actor, query string) []string {
	t.Helper()
	res, err := svc.Search(context.Background(), actor, query, SearchOptions{})
	if err != nil {
		t.Fatalf("Search(%q) as %s: %v", query, actor.Name, err)
	}
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, hitLine(h))
		if h.Kind != search.HitAddress && h.Since.IsZero() {
			t.Errorf("Search(%q) as %s: %s has no since", query, actor.Name, hitLine(h))
		}
	}
	return out
}

// setupSearch is setupOverview with a public pool with excludes.
func setupSearch(t *testing.T) *Service {
	t.Helper()
	svc, _, _ := newService(t)
	setupOverview(t, svc)
	if _, err := svc.CreatePublicPool(context.Background(), operator, CreatePublicPoolInput{
		Name: "public-x", CIDR: "198.18.0.0/24", Exclude: []string{"198.18.0.10-198.18.0.20"},
	}); err != nil {
		t.Fatal(err)
	}
	return svc
}

func TestSearchAddress(t *testing.T) {
	svc := setupSearch(t)
	const (
		vm0     = "allocation | by address | ns acme/prod | pool vpc-main | vpc main | subnet web | 10.42.1.2 | VirtualMachine vm-0/0 uid uid-0 of acme/prod"
		inOther = "address | by address | ns globex/prod | pool vpc-other | vpc other | 10.42.0.0/16 | 10.42.1.2 | outside: 10.42.1.2 is in no subnet of VPC other: addresses are handed out in subnets only"
	)
	tests := []struct {
		actor auth.Actor
		query string
		want  []string
	}{
		// Held: who holds it; another tenant's VPC of the same prefix is
		// not theirs to see.
		{acme, "10.42.1.2", []string{vm0}},
		{acme, " 10.42.1.2 ", []string{vm0}},
		{operator, "10.42.1.2", []string{vm0, inOther}},
		{globex, "10.42.1.2", []string{inOther}},
		// Free, or not a candidate: why, in the words of the address map.
		{acme, "10.42.1.1", []string{"address | by address | ns acme/prod | pool vpc-main | vpc main | subnet web | 10.42.1.0/24 | 10.42.1.1 | gateway: 10.42.1.1 is the gateway of subnet web"}},
		{acme, "10.42.1.0", []string{"address | by address | ns acme/prod | pool vpc-main | vpc main | subnet web | 10.42.1.0/24 | 10.42.1.0 | network: 10.42.1.0 is the network address of 10.42.1.0/24"}},
		{acme, "10.42.1.255", []string{"address | by address | ns acme/prod | pool vpc-main | vpc main | subnet web | 10.42.1.0/24 | 10.42.1.255 | broadcast: 10.42.1.255 is the broadcast address of 10.42.1.0/24"}},
		{acme, "10.42.1.77", []string{"address | by address | ns acme/prod | pool vpc-main | vpc main | subnet web | 10.42.1.0/24 | 10.42.1.77 | free: 10.42.1.77 is free"}},
		{acme, "10.42.0.0", []string{"address | by address | ns acme/prod | pool vpc-main | vpc main | subnet db | 10.42.0.0/28 | 10.42.0.0 | network: 10.42.0.0 is the network address of 10.42.0.0/16"}},
		{acme, "10.42.200.9", []string{"address | by address | ns acme/prod | pool vpc-main | vpc main | 10.42.0.0/16 | 10.42.200.9 | outside: 10.42.200.9 is in no subnet of VPC main: addresses are handed out in subnets only"}},
		{acme, "203.0.113.1", []string{"address | by address | pool public-a1 | 203.0.113.0/29 | 203.0.113.1 | gateway: 203.0.113.1 is the pool's gateway"}},
		{acme, "203.0.113.0", []string{"address | by address | pool public-a1 | 203.0.113.0/29 | 203.0.113.0 | network: 203.0.113.0 is the network address of 203.0.113.0/29"}},
		{acme, "203.0.113.7", []string{"address | by address | pool public-a1 | 203.0.113.0/29 | 203.0.113.7 | broadcast: 203.0.113.7 is the broadcast address of 203.0.113.0/29"}},
		{acme, "198.18.0.15", []string{"address | by address | pool public-x | 198.18.0.0/24 | 198.18.0.15 | excluded: 198.18.0.15 is excluded by exclude 198.18.0.10-198.18.0.20"}},
		{acme, "198.51.100.9", []string{"address | by address | pool public-a2 | 198.51.100.0/24 | 198.51.100.9 | free: 198.51.100.9 is free"}},
		// A public address another tenant holds: taken, by nobody named.
		{acme, "203.0.113.3", []string{"address | by address | pool public-a1 | 203.0.113.0/29 | 203.0.113.3 | taken: 203.0.113.3 is taken"}},
		{globex, "203.0.113.3", []string{"allocation | by address | pool public-a1 | vpc other | 203.0.113.3 | VPC router uid " + vpcUID(t, svc, "globex/prod", "other") + " of globex/prod"}},
		// A floating IP shows with the first VPC of its namespace, whose
		// page lists it.
		{acme, "203.0.113.4", []string{"allocation | by address | pool public-a1 | vpc dark | 203.0.113.4 | FloatingIP www uid " + floatingIPUID(t, svc, "www") + " of acme/prod"}},
		// In no pool.
		{acme, "192.168.7.7", []string{"address | by address | 192.168.7.7 | outside-pool: 192.168.7.7 is in no pool you may see"}},
		{operator, "192.168.7.7", []string{"address | by address | 192.168.7.7 | outside-pool: 192.168.7.7 is in no pool"}},
		{operator, "::ffff:192.168.7.7", []string{"address | by address | 192.168.7.7 | outside-pool: 192.168.7.7 is in no pool"}},
		{auth.Actor{Name: "nobody", Role: auth.Tenant}, "10.42.1.2", []string{"address | by address | 10.42.1.2 | outside-pool: 10.42.1.2 is in no pool you may see"}},
	}
	for _, tt := range tests {
		res, err := svc.Search(context.Background(), tt.actor, tt.query, SearchOptions{})
		if err != nil || res.Form != SearchAddress || res.More {
			t.Errorf("Search(%q) as %s: form %s, more %v, %v", tt.query, tt.actor.Name, res.Form, res.More, err)
			continue
		}
		if got := searchLines(t, svc, tt.actor, tt.query); !slices.Equal(got, tt.want) {
			t.Errorf("Search(%q) as %s:\n%s\nwant\n%s", tt.query, tt.actor.Name, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

func vpcUID(t *testing.T, svc *Service, namespace, name string) string {
	t.Helper()
	v, err := svc.VPC(context.Background(), operator, namespace, name)
	if err != nil {
		t.Fatal(err)
	}
	return v.UID
}

func floatingIPUID(t *testing.T, svc *Service, name string) string {
	t.Helper()
	fs, err := svc.FloatingIPs(context.Background(), operator, "acme/prod")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.Name == name {
			return f.UID
		}
	}
	t.Fatalf("no floating IP %s", name)
	return ""
}

func TestSearchPrefixAndText(t *testing.T) {
	svc := setupSearch(t)
	mainUID := vpcUID(t, svc, "acme/prod", "main")
	vm := func(i int, match string) string {
		return fmt.Sprintf("allocation | by %s | ns acme/prod | pool vpc-main | vpc main | subnet web | 10.42.1.%d | VirtualMachine vm-%d/0 uid uid-%d of acme/prod", match, i+2, i, i)
	}
	const (
		poolMain   = "pool | by %s | ns acme/prod | pool vpc-main | vpc main | 10.42.0.0/16"
		vpcMain    = "vpc | by %s | ns acme/prod | vpc main | 10.42.0.0/16"
		subnetWeb  = "subnet | by %s | ns acme/prod | vpc main | subnet web | 10.42.1.0/24"
		subnetDB   = "subnet | by %s | ns acme/prod | vpc main | subnet db | 10.42.0.0/28"
		poolOther  = "pool | by prefix | ns globex/prod | pool vpc-other | vpc other | 10.42.0.0/16"
		vpcOther   = "vpc | by prefix | ns globex/prod | vpc other | 10.42.0.0/16"
		www        = "allocation | by %s | pool public-a1 | vpc dark | 203.0.113.4 | FloatingIP www uid %s of acme/prod"
		uplinkMain = "allocation | by %s | pool public-a1 | vpc main | 203.0.113.2 | VPC router uid %s of acme/prod"
	)
	wwwUID := floatingIPUID(t, svc, "www")
	tests := []struct {
		actor auth.Actor
		query string
		form  SearchForm
		want  []string
	}{
		{acme, "10.42.1.0/24", SearchPrefix, []string{fmt.Sprintf(poolMain, "prefix"), fmt.Sprintf(vpcMain, "prefix"), fmt.Sprintf(subnetWeb, "prefix"),
			vm(0, "prefix"), vm(1, "prefix"), vm(2, "prefix")}},
		// Masked, as a prefix is meant.
		{acme, "10.42.1.9/24", SearchPrefix, []string{fmt.Sprintf(poolMain, "prefix"), fmt.Sprintf(vpcMain, "prefix"), fmt.Sprintf(subnetWeb, "prefix"),
			vm(0, "prefix"), vm(1, "prefix"), vm(2, "prefix")}},
		{operator, "10.42.1.0/24", SearchPrefix, []string{fmt.Sprintf(poolMain, "prefix"), poolOther, fmt.Sprintf(vpcMain, "prefix"), vpcOther,
			fmt.Sprintf(subnetWeb, "prefix"), vm(0, "prefix"), vm(1, "prefix"), vm(2, "prefix")}},
		{globex, "10.42.1.0/24", SearchPrefix, []string{poolOther, vpcOther}},
		{acme, "203.0.113.0/29", SearchPrefix, []string{"pool | by prefix | pool public-a1 | 203.0.113.0/29",
			fmt.Sprintf(uplinkMain, "prefix", mainUID), fmt.Sprintf(www, "prefix", wwwUID)}},
		{acme, "172.16.0.0/12", SearchPrefix, []string{}},
		// A VM by hostname, by the start of it, by uid, in any case.
		{acme, "vm-1", SearchText, []string{vm(1, "hostname")}},
		{acme, "VM-1", SearchText, []string{vm(1, "hostname")}},
		{acme, "vm", SearchText, []string{vm(0, "hostname"), vm(1, "hostname"), vm(2, "hostname")}},
		{acme, "uid-2", SearchText, []string{vm(2, "uid")}},
		{globex, "vm-1", SearchText, []string{}},
		{globex, "uid-2", SearchText, []string{}},
		// A floating IP by name; a VPC by uid, with its router's uplink.
		{acme, "www", SearchText, []string{fmt.Sprintf(www, "floating IP name", wwwUID)}},
		{acme, mainUID, SearchText, []string{fmt.Sprintf(vpcMain, "uid"), fmt.Sprintf(uplinkMain, "uid", mainUID)}},
		{acme, strings.ToUpper(mainUID), SearchText, []string{fmt.Sprintf(vpcMain, "uid"), fmt.Sprintf(uplinkMain, "uid", mainUID)}},
		// Pools, VPCs and subnets by the start of their names; public
		// pools for everyone.
		{globex, "public-a", SearchText, []string{"pool | by name | pool public-a1 | 203.0.113.0/29", "pool | by name | pool public-a2 | 198.51.100.0/24"}},
		{acme, "we", SearchText, []string{fmt.Sprintf(subnetWeb, "name")}},
		{acme, "ma", SearchText, []string{fmt.Sprintf(vpcMain, "name")}},
		{globex, "ma", SearchText, []string{}},
		// A namespace: its objects, then what its owners hold.
		{acme, "acme", SearchText, []string{
			"pool | by namespace | ns acme/prod | pool vpc-dark | vpc dark | 10.50.0.0/16", "pool | by namespace | ns acme/prod | pool vpc-island | vpc island | 10.60.0.0/24", fmt.Sprintf(poolMain, "namespace"),
			"vpc | by namespace | ns acme/prod | vpc dark | 10.50.0.0/16", "vpc | by namespace | ns acme/prod | vpc island | 10.60.0.0/24", fmt.Sprintf(vpcMain, "namespace"),
			fmt.Sprintf(subnetDB, "namespace"), fmt.Sprintf(subnetWeb, "namespace"),
			vm(0, "namespace"), vm(1, "namespace"), vm(2, "namespace"),
			"allocation | by namespace | pool public-n | vpc dark | 192.0.2.1 | VPC router uid " + vpcUID(t, svc, "acme/prod", "dark") + " of acme/prod",
			fmt.Sprintf(uplinkMain, "namespace", mainUID), fmt.Sprintf(www, "namespace", wwwUID),
		}},
		{globex, "acme", SearchText, []string{}},
		{globex, "acme/prod", SearchText, []string{}},
		{operator, "globex/prod", SearchText, []string{"pool | by namespace | ns globex/prod | pool vpc-other | vpc other | 10.42.0.0/16", "vpc | by namespace | ns globex/prod | vpc other | 10.42.0.0/16",
			"allocation | by namespace | pool public-a1 | vpc other | 203.0.113.3 | VPC router uid " + vpcUID(t, svc, "globex/prod", "other") + " of globex/prod"}},
		// Wildcards of LIKE are plain characters.
		{operator, "vm_", SearchText, []string{}},
		{operator, "%", SearchText, []string{}},
		{operator, "nothing-at-all", SearchText, []string{}},
	}
	for _, tt := range tests {
		res, err := svc.Search(context.Background(), tt.actor, tt.query, SearchOptions{})
		if err != nil || res.Form != tt.form {
			t.Errorf("Search(%q) as %s: form %s, %v; want form %s", tt.query, tt.actor.Name, res.Form, err, tt.form)
			continue
		}
		if got := searchLines(t, svc, tt.actor, tt.query); !slices.Equal(got, tt.want) {
			t.Errorf("Search(%q) as %s:\n%s\nwant\n%s", tt.query, tt.actor.Name, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

func TestSearchFirst(t *testing.T) {
	svc := setupSearch(t)
	ctx := context.Background()
	all, err := svc.Search(ctx, acme, "acme", SearchOptions{})
	if err != nil || len(all.Hits) != 14 || all.More || all.First != DefaultSearchHits {
		t.Fatalf("Search(acme) = %d hits, more %v, first %d, %v; want 14, false, %d", len(all.Hits), all.More, all.First, err, DefaultSearchHits)
	}
	for _, first := range []int{1, 5, 13, 14, 15} {
		res, err := svc.Search(ctx, acme, "acme", SearchOptions{First: first})
		n := min(first, len(all.Hits))
		if err != nil || !reflect.DeepEqual(res.Hits, all.Hits[:n]) || res.More != (first < len(all.Hits)) {
			t.Errorf("Search(acme, first %d) = %d hits, more %v, %v; want the first %d, more %v", first, len(res.Hits), res.More, err, n, first < len(all.Hits))
		}
	}
	// Allocations of more than first, in every part of a text.
	for i := range 6 {
		if _, err := attachVM(ctx, svc, 10+i); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"vm", "10.42.1.0/24"} {
		res, err := svc.Search(ctx, operator, q, SearchOptions{First: 4})
		if err != nil || len(res.Hits) != 4 || !res.More {
			t.Errorf("Search(%q, first 4) = %d hits, more %v, %v; want 4, more", q, len(res.Hits), res.More, err)
		}
	}
}

func TestSearchRefused(t *testing.T) {
	svc := setupSearch(t)
	tests := []struct {
		query string
		first int
		field string
		want  string
	}{
		{"", 0, "query", "query is empty: give an address (10.42.1.7), a prefix (10.42.0.0/16 or 10.42.), a VM's hostname or uid, a floating IP's name, a namespace, an object's label or value, or a number"},
		{" \t", 0, "query", "query is empty: give an address (10.42.1.7), a prefix (10.42.0.0/16 or 10.42.), a VM's hostname or uid, a floating IP's name, a namespace, an object's label or value, or a number"},
		{strings.Repeat("a", 254), 0, "query", "query is too long: at most 253 characters"},
		{"vm\x00", 0, "query", `query "vm\x00" holds a NUL or is not UTF-8`},
		{"vm\xff", 0, "query", `query "vm\xff" holds a NUL or is not UTF-8`},
		{"vm", -1, "first", "first -1 is out of range: 1 to 500"},
		{"vm", 501, "first", "first 501 is out of range: 1 to 500"},
	}
	for _, tt := range tests {
		_, err := svc.Search(context.Background(), acme, tt.query, SearchOptions{First: tt.first})
		var inv *refusal.InvalidError
		if !errors.As(err, &inv) || inv.Field != tt.field || inv.Message != tt.want || refusal.Classify(err).Code != refusal.CodeInvalidArgument {
			t.Errorf("Search(%q, %d) = %v, want the invalid %s %q", tt.query, tt.first, err, tt.field, tt.want)
		}
	}
	if _, err := svc.Search(context.Background(), acme, "vm", SearchOptions{First: MaxSearchHits}); err != nil {
		t.Errorf("Search(vm, %d) = %v", MaxSearchHits, err)
	}
}

// TestSearchNamespacePatterns checks that a search shows a tenant the
// VPCs and allocations of the namespaces auth.Actor.CanAccess gives it, no
// more, by prefix and by name, uid and start of a name that every
// namespace's VM shares: the database's reading of the patterns is the Go
// one.
func TestSearchNamespacePatterns(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	namespaces := []string{"acme", "acme/prod", "acme/prod/eu", "acme-corp/prod", "acmeprod", "acme/prodx", "globex/prod"}
	for i, ns := range namespaces {
		if _, err := svc.CreateVPC(ctx, operator, CreateVPCInput{Namespace: ns, Name: "net", CIDR: fmt.Sprintf("10.%d.0.0/16", i+1)}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.CreateSubnet(ctx, operator, CreateSubnetInput{Namespace: ns, VPC: "net", Name: "s", PrefixLength: 24}); err != nil {
			t.Fatal(err)
		}
		// The same VM in every namespace.
		if _, err := svc.AttachInterface(ctx, operator, AttachInterfaceInput{Namespace: ns, VPC: "net", Subnet: "s", VM: VMRef{UID: "u", Hostname: "host"}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, patterns := range [][]string{
		{"acme/*"}, {"acme/prod"}, {"acme"}, {"acme/prod/*"}, {"acme-corp/*", "acme"}, {"*"}, {"acme/*/eu"}, {}, {"globex/*", "acme/prod/eu"},
	} {
		actor := auth.Actor{Name: "t", Role: auth.Tenant, Namespaces: patterns}
		var want []string
		for _, ns := range namespaces {
			if actor.CanAccess(ns) {
				want = append(want, ns)
			}
		}
		for _, tt := range []struct {
			query string
			kind  search.HitKind
		}{{"10.0.0.0/8", search.HitVPC}, {"net", search.HitVPC}, {"10.0.0.0/8", search.HitAllocation}, {"host", search.HitAllocation}, {"ho", search.HitAllocation}, {"u", search.HitAllocation}} {
			res, err := svc.Search(ctx, actor, tt.query, SearchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range res.Hits {
				if h.Kind == tt.kind && h.Kind == search.HitVPC {
					got = append(got, h.Namespace)
				} else if h.Kind == tt.kind {
					got = append(got, h.OwnerNamespace)
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("Search(%q) with patterns %q shows the %ss of %q, want %q", tt.query, patterns, tt.kind, got, want)
			}
		}
	}
}

// TestSearchPartialAddress: the start of an address reads as the prefix it
// begins, and lists what that prefix's search lists, the tenant's scope
// kept.
func TestSearchPartialAddress(t *testing.T) {
	svc := setupSearch(t)
	for _, tt := range []struct {
		actor         auth.Actor
		query, prefix string
	}{
		{acme, "10.42.1.", "10.42.1.0/24"},
		{acme, "10.42.1", "10.42.1.0/24"},
		{acme, "10.42.", "10.42.0.0/16"},
		{acme, "10.42", "10.42.0.0/16"},
		{acme, "203.0.113.", "203.0.113.0/24"},
		{operator, "10.42.1.", "10.42.1.0/24"},
		{globex, "10.42.1.", "10.42.1.0/24"},
		{globex, "10.", "10.0.0.0/8"},
	} {
		res, err := svc.Search(t.Context(), tt.actor, tt.query, SearchOptions{})
		if err != nil || res.Form != SearchPrefix || res.Prefix.String() != tt.prefix {
			t.Errorf("Search(%q) as %s = form %s, prefix %s, %v; want the prefix %s", tt.query, tt.actor.Name, res.Form, res.Prefix, err, tt.prefix)
			continue
		}
		got, want := searchLines(t, svc, tt.actor, tt.query), searchLines(t, svc, tt.actor, tt.prefix)
		if len(want) == 0 && tt.actor.Name != globex.Name || !slices.Equal(got, want) {
			t.Errorf("Search(%q) as %s:\n%s\nwant, as %s:\n%s", tt.query, tt.actor.Name, strings.Join(got, "\n"), tt.prefix, strings.Join(want, "\n"))
		}
		// A tenant sees nothing of another tenant's: globex's VPC other
		// holds 10.42.0.0/16 too.
		for _, h := range res.Hits {
			if !tt.actor.IsOperator() && (h.Namespace != "" && !tt.actor.CanAccess(h.Namespace) || h.OwnerNamespace != "" && !tt.actor.CanAccess(h.OwnerNamespace)) {
				t.Errorf("Search(%q) as %s found %s", tt.query, tt.actor.Name, hitLine(h))
			}
		}
	}
	// A whole address is an address, and what is not the start of one a
	// text.
	for query, form := range map[string]SearchForm{"10.42.1.7": SearchAddress, "10.42.1.7.": SearchText, "10": SearchText,
		"10..": SearchText, ".10": SearchText, "10.042.": SearchText, "256.1.": SearchText, "10.42.1.x": SearchText, "v1.2": SearchText} {
		if res, err := svc.Search(t.Context(), acme, query, SearchOptions{}); err != nil || res.Form != form {
			t.Errorf("Search(%q) = form %s, %v; want %s", query, res.Form, err, form)
		}
	}
}

// FuzzPartialAddress checks partialAddress on any text: what it reads is
// a prefix of 8, 16 or 24 bits, masked, whose address begins with the
// bytes given; and the same bytes read the same with a dot after them, or
// without one when they are two or three.
func FuzzPartialAddress(f *testing.F) {
	for _, s := range []string{"10.42.1.", "10.42.1", "10.", "10", "1.2.3.4", "1.2.3.4.", "255.255.255.", "256.", "01.2", "10..", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, ok, err := partialAddress(s)
		if err != nil {
			t.Fatalf("partialAddress(%q) = %v", s, err)
		}
		if !ok {
			return
		}
		given := strings.TrimSuffix(s, ".")
		if bits := p.Bits(); bits != 8*len(strings.Split(given, ".")) || bits > 24 || p.Masked() != p || !p.Addr().Is4() ||
			!strings.HasPrefix(p.Addr().String()+".", given+".") {
			t.Fatalf("partialAddress(%q) = %s", s, p)
		}
		again := []string{given + "."}
		if strings.Contains(given, ".") {
			again = append(again, given)
		}
		for _, again := range again {
			if q, ok, _ := partialAddress(again); !ok || q != p {
				t.Fatalf("partialAddress(%q) = %s, %v; want %s as for %q", again, q, ok, p, s)
			}
		}
	})
}
