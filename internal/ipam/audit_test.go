package ipam

import (
	"encoding/json"
	"errors"
	"testing"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/refusal"
)

// TestAuditLog checks who may read the audit log: operators, and no one
// else, not even about their own namespaces.
func TestAuditLog(t *testing.T) {
	t.Parallel()
	svc, _, _ := newService(t)
	ctx := t.Context()
	if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AuditLog(ctx, acme, AuditFilter{Namespace: "acme/prod"}); !errors.Is(err, refusal.ErrForbidden) {
		t.Errorf("AuditLog(tenant) = %v, want refusal.ErrForbidden", err)
	}
	got, err := svc.AuditLog(ctx, operator, AuditFilter{Namespace: "acme/*"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Actor != "acme" || got[0].Action != "create" || got[0].Kind != "VPC" || got[0].Object() != "acme/prod/main" ||
		got[0].Before != nil || audit.Describe(got[0]).String() != "acme created VPC main: 10.42.0.0/16" || jsonField(t, got[0].After, "pool") != "vpc-main" {
		t.Errorf("AuditLog(operator, acme/*) = %+v, want the VPC's creation by acme", got)
	}
	if got, err := svc.AuditLog(ctx, operator, AuditFilter{Namespace: "globex/*"}); err != nil || len(got) != 0 {
		t.Errorf("AuditLog(operator, globex/*) = %+v, %v, want nothing", got, err)
	}
}

// jsonField returns the string field name of the JSON object doc.
func jsonField(t *testing.T, doc json.RawMessage, name string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	s, _ := m[name].(string)
	return s
}
