package candidates

import (
	"net/netip"
	"testing"
)

// TestPrivatePoolName: a VPC's private pool's name and back.
func TestPrivatePoolName(t *testing.T) {
	if got := PrivatePoolName("main"); got != "vpc-main" {
		t.Errorf("PrivatePoolName(main) = %q, want vpc-main", got)
	}
	for _, c := range []struct {
		pool, vpc string
		ok        bool
	}{{"vpc-main", "main", true}, {"vpc-", "", true}, {"public-zone-a", "public-zone-a", false}, {"vpc-main-v6", "main-v6", true}} {
		if vpc, ok := PrivatePoolVPC(c.pool); vpc != c.vpc || ok != c.ok {
			t.Errorf("PrivatePoolVPC(%q) = %q, %v; want %q, %v", c.pool, vpc, ok, c.vpc, c.ok)
		}
	}
}

// TestPrivatePoolNameV6: a VPC's IPv6 private pool's name and back.
func TestPrivatePoolNameV6(t *testing.T) {
	if got := PrivatePoolNameV6("main"); got != "vpc-main-v6" {
		t.Errorf("PrivatePoolNameV6(main) = %q, want vpc-main-v6", got)
	}
	for _, c := range []struct {
		pool, vpc string
		ok        bool
	}{{"vpc-main-v6", "main", true}, {"vpc-main-v6-v6", "main-v6", true}, {"vpc-main", "vpc-main", false}, {"public-v6", "public-v6", false}} {
		if vpc, ok := PrivatePoolVPCV6(c.pool); vpc != c.vpc || ok != c.ok {
			t.Errorf("PrivatePoolVPCV6(%q) = %q, %v; want %q, %v", c.pool, vpc, ok, c.vpc, c.ok)
		}
	}
}

func TestAllocationName(t *testing.T) {
	for _, c := range []struct{ pool, addr, want string }{
		{"vpc-main", "10.42.1.7", "vpc-main-10-42-1-7"},
		{"public-zone-a", "203.0.113.4", "public-zone-a-203-0-113-4"},
		{"vpc-main-v6", "fd12:3456:789a:1::7", "vpc-main-v6-fd12-3456-789a-1--7"},
		{"vpc-main-v6", "fd12:3456:789a:0001:0:0:0:0007", "vpc-main-v6-fd12-3456-789a-1--7"},
		{"uplinks", "2001:db8:0:1:2:3:4:5", "uplinks-2001-db8-0-1-2-3-4-5"},
		{"p", "fe80::1%eth0", "p-fe80--1"},
		{"uplinks", "2001:db8:1::", "uplinks-2001-db8-1--"},
	} {
		if got := AllocationName(c.pool, netip.MustParseAddr(c.addr)); got != c.want {
			t.Errorf("AllocationName(%s, %s) = %s, want %s", c.pool, c.addr, got, c.want)
		}
	}
}
