package ipam

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestAuditChange(t *testing.T) {
	tests := []struct {
		name          string
		before, after string
		want          string
	}{
		{"nothing", "", "", ""},
		{"made", "", `{"uid": "u1", "cidr": "10.0.0.0/16", "zone": "", "pool": "vpc-main"}`, "+ cidr=10.0.0.0/16 pool=vpc-main uid=u1"},
		{"gone", `{"address": "10.0.0.2", "owner": {"kind": "Node", "uid": "n1", "name": "web"}}`, "", "- address=10.0.0.2 owner={kind=Node name=web uid=n1}"},
		{"changed", `{"role": "tenant", "namespaces": ["acme/*"], "name": "alice"}`, `{"role": "operator", "namespaces": [], "name": "alice"}`,
			"namespaces: [acme/*]→[]; role: tenant→operator"},
		{"a field added", `{"a": 1}`, `{"a": 1, "b": 2}`, "b: →2"},
		{"the same", `{"name": "alice"}`, `{"name": "alice"}`, "no field changed"},
		{"a long list", "", `{"exclude": ["a", "b", "c", "d", "e"]}`, "+ exclude=[a,b,c,+2]"},
		{"a list", `[{"id": 1, "user": "alice"}, {"id": 2, "user": "alice"}]`, "", "- [{id=1 user=alice},{id=2 user=alice}]"},
		{"numbers as written", "", `{"size": 12345678901234567890, "ratio": 0.5}`, "+ ratio=0.5 size=12345678901234567890"},
		{"quoted strings", "", `{"note": "two words", "ctl": "a\u0007b", "eq": "a=b", "empty": ""}`, `+ ctl="a\ab" eq="a=b" note="two words"`},
		{"not an object", `"old"`, `"new"`, "old → new"},
	}
	for _, tt := range tests {
		var e AuditEntry
		if tt.before != "" {
			e.Before = json.RawMessage(tt.before)
		}
		if tt.after != "" {
			e.After = json.RawMessage(tt.after)
		}
		if got := e.Change(); got != tt.want {
			t.Errorf("%s: Change() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestAuditLog checks who may read the audit log: operators, and no one
// else, not even about their own namespaces.
func TestAuditLog(t *testing.T) {
	t.Parallel()
	svc, _, _ := newService(t)
	ctx := t.Context()
	if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AuditLog(ctx, acme, AuditFilter{Namespace: "acme/prod"}); !errors.Is(err, ErrForbidden) {
		t.Errorf("AuditLog(tenant) = %v, want ErrForbidden", err)
	}
	got, err := svc.AuditLog(ctx, operator, AuditFilter{Namespace: "acme/*"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Actor != "acme" || got[0].Action != "create" || got[0].Kind != "VPC" || got[0].Object() != "acme/prod/main" ||
		got[0].Before != nil || got[0].Change() != "+ cidr=10.42.0.0/16 pool=vpc-main uid="+jsonField(t, got[0].After, "uid") {
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
