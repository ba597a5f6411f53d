package candidates

import "testing"

// TestPrivatePoolName: a VPC's private pool's name and back.
func TestPrivatePoolName(t *testing.T) {
	if got := PrivatePoolName("main"); got != "vpc-main" {
		t.Errorf("PrivatePoolName(main) = %q, want vpc-main", got)
	}
	for _, c := range []struct {
		pool, vpc string
		ok        bool
	}{{"vpc-main", "main", true}, {"vpc-", "", true}, {"public-zone-a", "public-zone-a", false}} {
		if vpc, ok := PrivatePoolVPC(c.pool); vpc != c.vpc || ok != c.ok {
			t.Errorf("PrivatePoolVPC(%q) = %q, %v; want %q, %v", c.pool, vpc, ok, c.vpc, c.ok)
		}
	}
}
