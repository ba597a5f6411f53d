package ipam

import (
	"context"
	"fmt"
	"net/netip"
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
	if string(codes) != "nrttt..........b" {
		t.Errorf("SubnetMap cells = %q, want nrttt..........b", codes)
	}
	if h := m.Cells[2].Holder; h == nil || h.Owner.Name != "vm-0/0" {
		t.Errorf("holder of 10.42.1.2 = %+v, want vm-0/0", h)
	}
	if m.Cells[1].Explain != "10.42.1.1 is reserved" {
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
	block, err := svc.PoolMap(ctx, acme, pool, netip.MustParsePrefix("10.42.1.0/24"))
	if err != nil || len(block.Cells) != 256 || block.Cells[2].State != candidates.Taken {
		t.Errorf("PoolMap of 10.42.1.0/24: %d cells, %v", len(block.Cells), err)
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
