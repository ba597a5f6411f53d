package ipam

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/candidates"
)

func TestMaps(t *testing.T) {
	svc, _, _ := newService(t)
	setupSubnet(t, svc, "10.42.1.0/28")
	ctx := context.Background()
	for i := range 3 {
		if _, err := attachVM(ctx, svc, i); err != nil {
			t.Fatal(err)
		}
	}
	vpc, err := svc.VPC(ctx, acme, "acme/prod", "main")
	if err != nil {
		t.Fatal(err)
	}
	subs, err := svc.Subnets(ctx, acme, vpc)
	if err != nil || len(subs) != 1 {
		t.Fatalf("Subnets = %v, %v", subs, err)
	}
	m, err := svc.SubnetMap(ctx, acme, subs[0])
	if err != nil {
		t.Fatal(err)
	}
	var codes []byte
	for _, c := range m.Cells {
		codes = append(codes, c.State.Code())
	}
	// The gateway is drawn as the gateway, not as a reserved address.
	if string(codes) != "ngttt..........b" {
		t.Errorf("SubnetMap cells = %q, want ngttt..........b", codes)
	}
	if h := m.Cells[2].Holder; h == nil || h.Owner.Name != "vm-0/0" {
		t.Errorf("holder of 10.42.1.2 = %+v, want vm-0/0", h)
	}
	if m.Cells[1].Explain != "10.42.1.1 is the gateway of subnet web" {
		t.Errorf("explain of the gateway = %q", m.Cells[1].Explain)
	}

	pool, err := svc.VPCPool(ctx, acme, vpc)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := svc.PoolMap(ctx, acme, pool, netip.Prefix{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pm.Blocks) != 256 || pm.Blocks[1].Size-pm.Blocks[1].Free != 3 {
		t.Errorf("PoolMap of the /16: %d blocks, block 1 %+v; want 256 blocks, 3 used in 10.42.1.0/24", len(pm.Blocks), pm.Blocks[1])
	}
	// A block of the VPC's pool is drawn as its subnets are: subnet web's
	// network, gateway, VMs and broadcast, and the addresses in no subnet
	// as outside.
	block, err := svc.PoolMap(ctx, acme, pool, netip.MustParsePrefix("10.42.1.0/24"))
	if err != nil || len(block.Cells) != 256 {
		t.Fatalf("PoolMap of 10.42.1.0/24: %d cells, %v", len(block.Cells), err)
	}
	codes = codes[:0]
	for _, c := range block.Cells {
		codes = append(codes, c.State.Code())
	}
	if want := "ngttt..........b" + strings.Repeat("o", 240); string(codes) != want {
		t.Errorf("PoolMap cells of 10.42.1.0/24 = %q, want %q", codes, want)
	}
	if got := block.Cells[1].Explain; got != "10.42.1.1 is the gateway of subnet web" {
		t.Errorf("PoolMap explains the subnet's gateway as %q", got)
	}
	if got := block.Cells[16].Explain; got != "10.42.1.16 is in no subnet of VPC main: addresses are handed out in subnets only" {
		t.Errorf("PoolMap explains an address in no subnet as %q", got)
	}
	// A /24 block of a public /16 is a part of the pool: its first and
	// last addresses are candidates, not a network and a broadcast.
	big, err := svc.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "public-big", CIDR: "100.64.0.0/16"})
	if err != nil {
		t.Fatal(err)
	}
	bm, err := svc.PoolMap(ctx, operator, big, netip.MustParsePrefix("100.64.1.0/24"))
	if err != nil || len(bm.Cells) != 256 {
		t.Fatalf("PoolMap of 100.64.1.0/24: %d cells, %v", len(bm.Cells), err)
	}
	if first, last := bm.Cells[0], bm.Cells[255]; first.State != candidates.Free || last.State != candidates.Free {
		t.Errorf("PoolMap of 100.64.1.0/24 draws its first and last addresses %v (%s) and %v (%s), want free", first.State, first.Explain, last.State, last.Explain)
	}
	if _, err := svc.PoolMap(ctx, operator, big, netip.MustParsePrefix("100.64.0.0/20")); err == nil {
		t.Error("PoolMap of a /20 block of a /16 succeeded")
	}
	if _, err := svc.PoolMap(ctx, acme, pool, netip.MustParsePrefix("10.43.0.0/24")); err == nil {
		t.Error("PoolMap of a block outside the pool succeeded")
	}
	ranges, err := svc.TakenRanges(ctx, acme, pool, netip.MustParsePrefix("10.42.1.0/28"))
	if err != nil || fmt.Sprint(ranges) != "[10.42.1.2-10.42.1.4]" {
		t.Errorf("TakenRanges = %v, %v", ranges, err)
	}
	if _, err := svc.SubnetMap(ctx, operator, Subnet{Namespace: "acme/prod", VPC: "main", Name: "nope"}); err == nil {
		t.Error("SubnetMap of a missing subnet succeeded")
	}
}
