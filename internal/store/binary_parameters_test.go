package store_test

import (
	"net/netip"
	"net/url"
	"testing"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// TestBinaryParameters: with lib/pq's binary_parameters (what a connection
// pooler in transaction mode needs, docs/scaling.md), the jsonb values the store
// writes (a pool's labels, an audit entry) still go in text: as []byte
// they went in jsonb's binary format ("unsupported jsonb version number").
func TestBinaryParameters(t *testing.T) {
	dsn := pgtest.NewURL(t)
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set("binary_parameters", "yes")
		u.RawQuery = q.Encode()
		dsn = u.String()
	} else {
		dsn += " binary_parameters=yes"
	}
	db, err := store.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, err := store.InsertPool(t.Context(), db, store.PoolRow{UID: "0b8e2b4a-6a51-4c1e-8f0d-2d9b1a7c3e44", Name: "public-a", Kind: "public",
		CIDR: netip.MustParsePrefix("198.51.100.0/24"), Labels: store.Labels{"zone": "a"}, CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.Pool(t.Context(), db, "", "public-a")
	if err != nil || got.Labels["zone"] != "a" {
		t.Errorf("the pool read back: %+v, %v; want the label zone a", got, err)
	}
	if err := store.InsertAudit(t.Context(), db, store.AuditEntry{Actor: "test", Action: "create", ObjectKind: "IPPool", ObjectName: p.Name,
		After: store.RawJSON(`{"cidr": "198.51.100.0/24"}`)}); err != nil {
		t.Error(err)
	}
}
