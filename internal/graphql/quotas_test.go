package graphql

import (
	"encoding/json"
	"testing"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
)

const codeQuotaExceeded = string(refusal.CodeQuotaExceeded)

// TestQuotas: quotas(namespace:) answers each quota that binds the
// namespace, its pattern, its limits and what the namespace holds (to the
// tenant itself; another tenant sees none), and a claim past a quota is
// refused with QUOTA_EXCEEDED, word for word.
func TestQuotas(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	op := testActors["op"]
	for _, c := range []ipam.QuotaChange{
		{Pattern: "acme/*", Set: map[ipam.QuotaKind]int64{ipam.QuotaFloatingIPs: 2, ipam.QuotaAddresses: 10}},
		{Pattern: "acme/prod", Set: map[ipam.QuotaKind]int64{ipam.QuotaVPCs: 3}},
		{Pattern: "globex/*", Set: map[ipam.QuotaKind]int64{ipam.QuotaVPCs: 1}},
	} {
		if _, err := e.svc.SetQuota(ctx, op, c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.svc.CreatePublicPool(ctx, op, ipam.CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	claim := `mutation($name: String!) { claimFloatingIp(input: {namespace: "acme/prod", name: $name, zone: "zone-a"}) { address } }`
	for _, name := range []string{"web", "api"} {
		e.ok("acme", claim, nil, "name", name)
	}
	err := e.fails("acme", codeQuotaExceeded, claim, "name", "db")
	if want := "namespace acme/prod has reached its quota of 2 floating IPs (set for acme/*)"; err.Message != want {
		t.Errorf("the third floating IP was refused with %q, want %q", err.Message, want)
	}

	const query = `query($namespace: String!) { quotas(namespace: $namespace) {
		pattern namespace vpcs { limit used remaining } subnets { limit used remaining }
		floatingIps { limit used remaining } addresses { limit used remaining } } }`
	var got struct{ Quotas json.RawMessage }
	e.ok("acme", query, &got, "namespace", "acme/prod")
	want := `[{"pattern":"acme/*","namespace":"acme/prod","vpcs":null,"subnets":null,` +
		`"floatingIps":{"limit":2,"used":2,"remaining":0},"addresses":{"limit":10,"used":2,"remaining":8}},` +
		`{"pattern":"acme/prod","namespace":"acme/prod","vpcs":{"limit":3,"used":0,"remaining":3},"subnets":null,"floatingIps":null,"addresses":null}]`
	if string(got.Quotas) != want {
		t.Errorf("quotas(acme/prod) = %s\nwant %s", got.Quotas, want)
	}
	e.ok("globex", query, &got, "namespace", "acme/prod")
	if string(got.Quotas) != "[]" {
		t.Errorf("globex's quotas(acme/prod) = %s, want none", got.Quotas)
	}
	e.ok("op", query, &got, "namespace", "acme/dev")
	if want := `[{"pattern":"acme/*","namespace":"acme/dev","vpcs":null,"subnets":null,"floatingIps":{"limit":2,"used":0,"remaining":2},"addresses":{"limit":10,"used":0,"remaining":10}}]`; string(got.Quotas) != want {
		t.Errorf("quotas(acme/dev) as an operator = %s\nwant %s", got.Quotas, want)
	}
	if err := e.fails("acme", codeInvalidArgument, query, "namespace", "acme/*"); err.Extensions.Field != "namespace" {
		t.Errorf("quotas of a pattern: %+v, want the namespace refused", err)
	}
}
