package views

import (
	"context"
	"io"
	"net/netip"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
)

// BenchmarkAddressMap draws the largest maps a page holds: a /24 address
// by address, a third of it taken, and a /16 as 256 blocks (the pool,
// subnet and VPC pages draw one per pool block or subnet).
func BenchmarkAddressMap(b *testing.B) {
	pool := ipam.Pool{Namespace: "acme/prod", Name: "vpc-main"}
	asset := func(name string) string { return "/static/" + name }
	cells := ipam.AddressMap{Scope: netip.MustParsePrefix("10.42.1.0/24")}
	a := cells.Scope.Addr()
	for i := range 256 {
		c := ipam.MapCell{Address: a, State: candidates.Free, Explain: a.String() + " is free"}
		if i%3 == 0 {
			c.State = candidates.Taken
			c.Holder = &ipam.Allocation{Owner: ipam.Owner{Kind: ipam.OwnerVirtualMachine, Name: "vm-001/0"}, CreatedAt: time.Now()}
		}
		cells.Cells = append(cells.Cells, c)
		a = a.Next()
	}
	blocks := ipam.AddressMap{Scope: netip.MustParsePrefix("10.42.0.0/16")}
	for i := range 256 {
		blocks.Blocks = append(blocks.Blocks, candidates.Block{Prefix: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 42, byte(i), 0}), 24), Size: 256, Free: 100})
	}
	for _, m := range []struct {
		name string
		m    ipam.AddressMap
	}{{"addresses of a /24", cells}, {"blocks of a /16", blocks}} {
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := AddressMapView(AddressMapProps{Map: m.m, TestID: "map", Pool: pool, Asset: asset}).Render(context.Background(), io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
