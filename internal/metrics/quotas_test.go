package metrics

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/refusal"
)

// TestQuotaSeries: the use of each quota's limits, per pattern and kind
// as the database holds it, in as many series however many namespaces the
// quotas bind; claims refused by a quota are counted apart.
func TestQuotaSeries(t *testing.T) {
	ctx := context.Background()
	svc, _, m := watched(t, pgtest.NewURL(t), false)
	for _, c := range []ipam.QuotaChange{
		{Pattern: "acme/*", Set: map[ipam.QuotaKind]int64{ipam.QuotaVPCs: 3, ipam.QuotaAddresses: 2}},
		{Pattern: "acme/prod", Set: map[ipam.QuotaKind]int64{ipam.QuotaSubnets: 1}},
	} {
		if _, err := svc.SetQuota(ctx, auth.System, c); err != nil {
			t.Fatal(err)
		}
	}
	vpc := func(ns, name string) {
		t.Helper()
		if _, err := svc.CreateVPC(ctx, acme, ipam.CreateVPCInput{Namespace: ns, Name: name, CIDR: "10.42.0.0/16"}); err != nil {
			t.Fatal(err)
		}
	}
	vpc("acme/prod", "main")
	vpc("acme/prod", "lab")
	vpc("acme/dev", "main")
	if _, err := svc.CreateSubnet(ctx, acme, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		_, err := svc.AttachInterface(ctx, acme, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: ipam.VMRef{UID: fmt.Sprint("vm-", i), Hostname: fmt.Sprint("vm-", i)}})
		if i < 2 && err != nil || i == 2 && !errors.Is(err, refusal.ErrQuotaExceeded) {
			t.Fatalf("claim %d: %v", i, err)
		}
	}

	families := scrape(t, m.Handler())
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"ipam_quota_limit", map[string]string{"pattern": "acme/*", "kind": "vpcs"}, 3},
		{"ipam_quota_used_max", map[string]string{"pattern": "acme/*", "kind": "vpcs"}, 2},
		{"ipam_quota_namespaces_at_limit", map[string]string{"pattern": "acme/*", "kind": "vpcs"}, 0},
		{"ipam_quota_limit", map[string]string{"pattern": "acme/*", "kind": "addresses"}, 2},
		{"ipam_quota_used_max", map[string]string{"pattern": "acme/*", "kind": "addresses"}, 2},
		{"ipam_quota_namespaces_at_limit", map[string]string{"pattern": "acme/*", "kind": "addresses"}, 1},
		{"ipam_quota_limit", map[string]string{"pattern": "acme/prod", "kind": "subnets"}, 1},
		{"ipam_quota_namespaces_at_limit", map[string]string{"pattern": "acme/prod", "kind": "subnets"}, 1},
		{"ipam_quota_namespaces", map[string]string{"pattern": "acme/*"}, 2},
		{"ipam_quota_namespaces", map[string]string{"pattern": "acme/prod"}, 1},
		{"ipam_quota_scrape_error", nil, 0},
		{"ipam_claims_total", map[string]string{"result": "quota_exceeded"}, 1},
	} {
		if got, ok := value(families, c.name, c.labels); !ok || got != c.want {
			t.Errorf("%s%v = %v (found %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	series := func() int {
		n := 0
		for name, f := range scrape(t, m.Handler()) {
			if len(name) > len("ipam_quota_") && name[:len("ipam_quota_")] == "ipam_quota_" {
				n += len(f.GetMetric())
			}
		}
		return n
	}
	before := series()
	for i := range 5 {
		vpc(fmt.Sprint("acme/team-", i), "main")
	}
	if after := series(); after != before {
		t.Errorf("%d series of quotas with 2 namespaces bound, %d with 7: want as many", before, after)
	}
}
