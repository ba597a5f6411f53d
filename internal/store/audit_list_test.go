package store_test

import (
	"slices"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// TestAuditEntryScansNull reads back entries without a before or an
// after: NULL scans into a nil RawJSON, and nil is stored as NULL.
func TestAuditEntryScansNull(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := t.Context()
	for _, e := range []store.AuditEntry{
		{Actor: "op", Action: "create", ObjectKind: "VPC", Namespace: "acme/prod", ObjectName: "main", After: store.RawJSON(`{"cidr": "10.0.0.0/16"}`)},
		{Actor: "op", Action: "delete", ObjectKind: "VPC", Namespace: "acme/prod", ObjectName: "main", Before: store.RawJSON(`{"cidr": "10.0.0.0/16"}`)},
		{Actor: "op", Action: "revoke", ObjectKind: "APIToken", ObjectName: "alice"},
	} {
		if err := store.InsertAudit(ctx, db, e); err != nil {
			t.Fatal(err)
		}
	}
	var nulls int
	if err := db.GetContext(ctx, &nulls, `SELECT count(*) FROM audit_log WHERE before IS NULL`); err != nil {
		t.Fatal(err)
	}
	if nulls != 2 {
		t.Errorf("%d entries with a NULL before, want 2: a nil RawJSON is stored as NULL", nulls)
	}
	got, err := store.AuditEntries(ctx, db, store.AuditFilter{})
	if err != nil {
		t.Fatalf("AuditEntries: %v", err)
	}
	if len(got) != 3 {
		t.Fatalf("AuditEntries = %d entries, want 3", len(got))
	}
	// Newest first.
	if got[0].Action != "revoke" || got[0].Before != nil || got[0].After != nil {
		t.Errorf("the revoke entry = %+v, want no before and no after", got[0])
	}
	if got[1].Action != "delete" || string(got[1].Before) != `{"cidr": "10.0.0.0/16"}` || got[1].After != nil {
		t.Errorf("the delete entry: before %q, after %q", got[1].Before, got[1].After)
	}
	if got[2].Action != "create" || got[2].Before != nil || string(got[2].After) != `{"cidr": "10.0.0.0/16"}` {
		t.Errorf("the create entry: before %q, after %q", got[2].Before, got[2].After)
	}
	if got[2].ID >= got[1].ID || got[2].At.IsZero() || got[2].Namespace != "acme/prod" || got[2].ObjectName != "main" || got[0].Namespace != "" || got[0].ObjectName != "alice" {
		t.Errorf("entries %+v", got)
	}
}

// addEntry records an entry of namespace/name at the time at.
func addEntry(t *testing.T, db *store.DB, namespace, name string, at time.Time) {
	t.Helper()
	ctx := t.Context()
	if err := store.InsertAudit(ctx, db, store.AuditEntry{Actor: "op", Action: "create", Namespace: namespace, ObjectKind: "VPC", ObjectName: name}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE audit_log SET at = $1 WHERE id = (SELECT max(id) FROM audit_log)`, at); err != nil {
		t.Fatal(err)
	}
}

func TestAuditEntriesFilters(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := t.Context()
	now := time.Now()
	entries := []struct {
		namespace, name string
		age             time.Duration
	}{
		{"", "public-a", 72 * time.Hour},
		{"acme/prod", "a1", 48 * time.Hour},
		{"acme-corp/prod", "c1", 47 * time.Hour},
		{"acme", "top", 30 * time.Hour},
		{"acme/dev", "a2", 2 * time.Hour},
		{"acme/prod/eu", "a3", time.Hour},
		{"globex/prod", "g1", 30 * time.Minute},
		{"acme/prod", "a4", time.Minute},
	}
	for _, e := range entries {
		addEntry(t, db, e.namespace, e.name, now.Add(-e.age))
	}
	names := func(f store.AuditFilter) []string {
		t.Helper()
		got, err := store.AuditEntries(ctx, db, f)
		if err != nil {
			t.Fatalf("AuditEntries(%+v): %v", f, err)
		}
		out := []string{}
		for _, e := range got {
			out = append(out, e.ObjectName)
		}
		return out
	}
	all := names(store.AuditFilter{})
	tests := []struct {
		name   string
		filter store.AuditFilter
		want   []string
	}{
		{"everything, newest first", store.AuditFilter{}, []string{"a4", "g1", "a3", "a2", "top", "c1", "a1", "public-a"}},
		{"one namespace", store.AuditFilter{Namespace: "acme/prod"}, []string{"a4", "a1"}},
		{"a pattern: below acme, not acme-corp nor acme itself", store.AuditFilter{Namespace: "acme/*"}, []string{"a4", "a3", "a2", "a1"}},
		{"a pattern of one level more", store.AuditFilter{Namespace: "acme/prod/*"}, []string{"a3"}},
		{"LIKE wildcards are literal", store.AuditFilter{Namespace: "acme_prod"}, []string{}},
		{"LIKE wildcards in a pattern are literal", store.AuditFilter{Namespace: "acm%/*"}, []string{}},
		{"a quote", store.AuditFilter{Namespace: "'; DROP TABLE audit_log; --"}, []string{}},
		{"a NUL", store.AuditFilter{Namespace: "acme/prod\x00"}, []string{}},
		{"not UTF-8", store.AuditFilter{Namespace: "acme/\xff"}, []string{}},
		{"since", store.AuditFilter{Since: now.Add(-3 * time.Hour)}, []string{"a4", "g1", "a3", "a2"}},
		{"since and namespace", store.AuditFilter{Since: now.Add(-3 * time.Hour), Namespace: "acme/*"}, []string{"a4", "a3", "a2"}},
		{"since in the future", store.AuditFilter{Since: now.Add(time.Hour)}, []string{}},
		{"limit", store.AuditFilter{Limit: 3}, []string{"a4", "g1", "a3"}},
		{"the next page", store.AuditFilter{Limit: 3, Before: idOf(t, db, "a3")}, []string{"a2", "top", "c1"}},
		{"the last page", store.AuditFilter{Limit: 3, Before: idOf(t, db, "c1")}, []string{"a1", "public-a"}},
		{"a page of a namespace", store.AuditFilter{Limit: 1, Before: idOf(t, db, "a4"), Namespace: "acme/prod"}, []string{"a1"}},
	}
	for _, tt := range tests {
		if got := names(tt.filter); !slices.Equal(got, tt.want) {
			t.Errorf("%s: AuditEntries(%+v) = %v, want %v", tt.name, tt.filter, got, tt.want)
		}
	}
	if len(all) != len(entries) {
		t.Errorf("the table was changed: %d entries, want %d", len(all), len(entries))
	}
}

// idOf returns the id of the entry of name.
func idOf(t *testing.T, db *store.DB, name string) int64 {
	t.Helper()
	var id int64
	if err := db.GetContext(t.Context(), &id, `SELECT id FROM audit_log WHERE object_name = $1`, name); err != nil {
		t.Fatal(err)
	}
	return id
}
