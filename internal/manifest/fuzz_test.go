package manifest

import (
	"bytes"
	"errors"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/ipam"
)

// FuzzParse checks that Parse never panics, that it either refuses with
// Errors or accepts objects the domain accepts (public pools with a name
// and a cidr, private pools, VPCs), and that what WritePoolsYAML and
// WriteVPCsYAML print of them Parse reads back as the same objects.
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
		labelled("{team: net, pivirt.hu/tier: gold, empty: '', on: 'true'}"),
		labelled("{Bad Key: v, a/b/c: d, x: -y, n: 3}"),
		vpcAsPrinted,
		privatePool + "---\n" + vpcAsPrinted,
		vpcDoc("cidr: 10.42.0.0/16", "subnets:", "  - {name: web, cidr: 10.42.1.0/24}", "  - {name: web, cidr: 10.42.1.5/24, gateway: x}", "  - db"),
		pool("v6", "cidr: 2001:db8::/48", "kind: public", "zone: z1", "delegatedPrefixLength: 56"),
		pool("v6", "cidr: 2001:DB8::/48", "kind: public", "gateway: 2001:db8::1", "exclude: ['2001:db8::2-2001:db8::ff']"),
		vpcDoc("cidr: 10.42.0.0/16", "ipv6Cidr: fd12:3456:789a::/48", "ipv6Addressing: STABLE_OPAQUE",
			"subnets: [{name: web, cidr: 10.42.1.0/24, ipv6Cidr: 'fd12:3456:789a::/64'}, {name: db, cidr: 10.42.2.0/24, ipv6PrefixLength: 60}]"),
		vpcDoc("cidr: 10.42.0.0/16", "zone: z1", "ipv6PrefixLength: 56", "ipv6Addressing: LOWEST_FREE"),
		dualStackPrinted,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		objects, err := Parse(bytes.NewReader(data))
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
			if objects != nil {
				t.Fatalf("Parse returned objects with its error %v", err)
			}
			return
		}
		if len(objects) == 0 {
			t.Fatal("Parse accepted a manifest without an object")
		}
		var (
			pools     []ipam.Pool
			vpcs      []VPCItem
			wantPools []ipam.ApplyObject
			wantVPCs  []ipam.ApplyObject
		)
		names := map[string]bool{}
		for _, o := range objects {
			switch {
			case o.PublicPool != nil && o.PrivatePool == nil && o.VPC == nil:
				p := *o.PublicPool
				if p.Name == "" || p.CIDR == "" || names["pool /"+p.Name] {
					t.Fatalf("Parse accepted %+v: no name, no cidr or the name twice", p)
				}
				names["pool /"+p.Name] = true
				if err := ipam.ValidatePublicPool(p); err != nil {
					t.Fatalf("Parse accepted %+v, which the domain refuses: %v", p, err)
				}
				printed := ipam.Pool{Name: p.Name, UID: "uid-" + p.Name, Kind: ipam.Public, CIDR: netip.MustParsePrefix(p.CIDR), Exclude: p.Exclude, Zone: p.Zone, Labels: p.Labels,
					DelegatedPrefixLength: p.DelegatedPrefixLength}
				if p.Gateway != "" {
					printed.Gateway = netip.MustParseAddr(p.Gateway)
				}
				p.CIDR = printed.CIDR.String()
				if len(p.Exclude) == 0 {
					p.Exclude = nil
				}
				pools, wantPools = append(pools, printed), append(wantPools, ipam.ApplyObject{PublicPool: &p})
			case o.PrivatePool != nil && o.PublicPool == nil && o.VPC == nil:
				p := *o.PrivatePool
				if names["pool "+p.Namespace+"/"+p.Name] {
					t.Fatalf("Parse accepted %+v twice", p)
				}
				names["pool "+p.Namespace+"/"+p.Name] = true
				if err := ipam.ValidatePrivatePool(p); err != nil {
					t.Fatalf("Parse accepted %+v, which the domain refuses: %v", p, err)
				}
				printed := ipam.Pool{Namespace: p.Namespace, Name: p.Name, UID: "uid", Kind: ipam.Private, CIDR: netip.MustParsePrefix(p.CIDR), VPCUID: p.VPCUID, Labels: p.Labels}
				p.CIDR = printed.CIDR.String()
				pools, wantPools = append(pools, printed), append(wantPools, ipam.ApplyObject{PrivatePool: &p})
			case o.VPC != nil && o.PublicPool == nil && o.PrivatePool == nil:
				v := *o.VPC
				if names["vpc "+v.Namespace+"/"+v.Name] {
					t.Fatalf("Parse accepted %+v twice", v)
				}
				names["vpc "+v.Namespace+"/"+v.Name] = true
				if err := ipam.ValidateVPC(v); err != nil {
					t.Fatalf("Parse accepted %+v, which the domain refuses: %v", v, err)
				}
				item := VPCItem{VPC: ipam.VPC{UID: v.UID, Namespace: v.Namespace, Name: v.Name, CIDR: netip.MustParsePrefix(v.CIDR), Zone: v.Zone}}
				v.CIDR = item.VPC.CIDR.String()
				printIPv6(&item.VPC, &v.CreateVPCInput)
				v.Subnets = slices.Clone(v.Subnets)
				for i, s := range v.Subnets {
					sub := ipam.Subnet{Name: s.Name, CIDR: netip.MustParsePrefix(s.CIDR)}
					if s.Gateway != "" {
						sub.Gateway = netip.MustParseAddr(s.Gateway)
					}
					// A subnet is printed with the IPv6 prefix it has: one
					// of the length asked for, read back as given.
					switch {
					case s.IPv6CIDR != "":
						sub.IPv6CIDR = netip.MustParsePrefix(s.IPv6CIDR)
					case s.IPv6PrefixLength > 0 && s.IPv6PrefixLength <= 128:
						sub.IPv6CIDR = netip.PrefixFrom(netip.IPv6Unspecified(), s.IPv6PrefixLength)
					}
					v.Subnets[i].IPv6CIDR, v.Subnets[i].IPv6PrefixLength = "", 0
					if sub.IPv6CIDR.IsValid() {
						v.Subnets[i].IPv6CIDR = sub.IPv6CIDR.String()
					}
					item.Subnets = append(item.Subnets, sub)
					v.Subnets[i].CIDR = sub.CIDR.String()
				}
				vpcs, wantVPCs = append(vpcs, item), append(wantVPCs, ipam.ApplyObject{VPC: &v})
			default:
				t.Fatalf("Parse returned an object of none or several kinds: %+v", o)
			}
		}
		var b strings.Builder
		if err := WritePoolsYAML(&b, pools); err != nil {
			t.Fatal(err)
		}
		checkReread(t, b.String(), wantPools)
		b.Reset()
		if err := WriteVPCsYAML(&b, vpcs); err != nil {
			t.Fatal(err)
		}
		checkReread(t, b.String(), wantVPCs)
	})
}

// printIPv6 gives the VPC v the IPv6 side that in asks for, as the domain
// would make it (a delegated prefix of the length asked for), and sets in
// as Parse reads back what is printed of v: LOWEST_FREE, the default, is
// not printed.
func printIPv6(v *ipam.VPC, in *ipam.CreateVPCInput) {
	switch {
	case in.IPv6CIDR != "":
		v.IPv6CIDR = netip.MustParsePrefix(in.IPv6CIDR)
		in.IPv6CIDR = v.IPv6CIDR.String()
	case in.IPv6PrefixLength != 0:
		v.IPv6CIDR, v.IPv6Delegated = netip.PrefixFrom(netip.MustParseAddr("2001:db8::"), in.IPv6PrefixLength), true
	}
	v.IPv6Addressing = ipam.IPv6Addressing(in.IPv6Addressing)
	if in.IPv6Addressing == string(ipam.LowestFree) {
		in.IPv6Addressing = ""
	}
}

// checkReread checks that Parse reads printed, what a Write function
// printed, as want.
func checkReread(t *testing.T, printed string, want []ipam.ApplyObject) {
	t.Helper()
	if len(want) == 0 {
		return
	}
	again, err := Parse(strings.NewReader(printed))
	if err != nil {
		t.Fatalf("Parse(what was printed): %v\n%s", err, printed)
	}
	if !reflect.DeepEqual(again, want) {
		t.Fatalf("Parse(what was printed) = %s\nwant %s", objectsString(again), objectsString(want))
	}
}
