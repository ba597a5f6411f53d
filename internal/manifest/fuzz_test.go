package manifest

import (
	"bytes"
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/ipam"
)

// FuzzParse checks that Parse never panics, that it either refuses with
// Errors or accepts valid public pools with a name and a cidr, and that
// what WritePoolsYAML prints of them Parse reads back as the same pools.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		seedPublicPool, seedPrivatePool, seedAllocation,
		seedPublicPool + "---\n" + seedAllocation,
		"---\n---\n" + seedPublicPool + "...\n",
		pool("edge", "cidr: 198.51.100.0/28", "kind: public", "exclude:", "  - 198.51.100.2", "  - 198.51.100.5 - 198.51.100.7"),
		pool("edge", "cidr: &c 192.0.2.0/24", "kind: public", "gateway: 192.0.2.1", "zone: *c"),
		`{apiVersion: pivirt.hu/v1, kind: IPAMPool, metadata: {name: a, uid: "1"}, spec: {cidr: 10.0.0.0/8, kind: public}}`,
		pool("edge", "cidr: 10.0.0.5/24", "kind: shared", "cidrr: x", "exclude: [1, {a: b}]"),
		pool("edge", "cidr: 198.51.100.0/24", "kind: public", `exclude: ["\t198.51.100.2 ", "198.51.100.3 -198.51.100.4", "\u0085198.51.100.9"]`),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pools, err := Parse(bytes.NewReader(data))
		if err != nil {
			var errs Errors
			if !errors.As(err, &errs) || len(errs) == 0 || len(errs) > MaxErrors+1 {
				t.Fatalf("Parse: %v (%T), want Errors of 1 to %d", err, err, MaxErrors+1)
			}
			for _, e := range errs {
				if e.Message == "" {
					t.Fatalf("Parse: an Error without a message: %+v", e)
				}
			}
			if pools != nil {
				t.Fatalf("Parse returned pools with its error %v", err)
			}
			return
		}
		if len(pools) == 0 {
			t.Fatal("Parse accepted a manifest without a pool")
		}
		names := map[string]bool{}
		printed := make([]ipam.Pool, len(pools))
		want := make([]ipam.CreatePublicPoolInput, len(pools))
		for i, p := range pools {
			if p.Name == "" || p.CIDR == "" || names[p.Name] {
				t.Fatalf("Parse accepted %+v: no name, no cidr or the name twice", p)
			}
			names[p.Name] = true
			if err := ipam.ValidatePublicPool(p); err != nil {
				t.Fatalf("Parse accepted %+v, which the domain refuses: %v", p, err)
			}
			printed[i] = ipam.Pool{Name: p.Name, UID: "uid-" + p.Name, Kind: ipam.Public, CIDR: netip.MustParsePrefix(p.CIDR), Exclude: p.Exclude, Zone: p.Zone}
			if p.Gateway != "" {
				printed[i].Gateway = netip.MustParseAddr(p.Gateway)
			}
			want[i] = p
			want[i].CIDR = printed[i].CIDR.String()
			if len(p.Exclude) == 0 {
				want[i].Exclude = nil
			}
		}
		var b strings.Builder
		if err := WritePoolsYAML(&b, printed); err != nil {
			t.Fatal(err)
		}
		again, err := Parse(strings.NewReader(b.String()))
		if err != nil {
			t.Fatalf("Parse(what WritePoolsYAML printed): %v\n%s", err, b.String())
		}
		if !reflect.DeepEqual(again, want) {
			t.Fatalf("Parse(what WritePoolsYAML printed) = %#v\nwant %#v", again, want)
		}
	})
}
