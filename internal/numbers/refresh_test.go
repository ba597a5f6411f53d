package numbers

import (
	"context"
	"testing"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/store"
)

// TestRefreshFindsANumberFreedUnseen is the refresh policy of
// docs/allocation.md ("How the views stay fresh") for numbers: a number
// freed by another process, whose notification this process missed, is
// no candidate here until the next refresh of the views, and the first
// candidate after it (ipam.TestRefreshFindsAnAddressFreedUnseen is the
// same for addresses).
func TestRefreshFindsANumberFreedUnseen(t *testing.T) {
	e := newEnv(t)
	db, err := store.Open(context.Background(), e.url)
	if err != nil {
		t.Fatal(err)
	}
	// deaf follows no notification.
	svc, err := New(context.Background(), Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		svc.Close()
		db.Close()
	})
	deaf := &env{t: t, svc: svc, branches: svc.Branches(), db: db, url: e.url}
	ctx := t.Context()
	a := e.site(branch.Main, "site-a")
	p := e.pool("refreshed", []Range{{Start: 1, End: 10, Weight: 1}}, "site")
	v, n1 := deaf.fromPool(branch.Main, p.ID, "v1", a.ID, "user")
	if _, n2 := deaf.fromPool(branch.Main, p.ID, "v2", a.ID, "user"); n1 != 1 || n2 != 2 {
		t.Fatalf("the claims got %d and %d, want 1 and 2", n1, n2)
	}
	if _, err := e.branches.DeleteObject(ctx, operator, branch.Main, v.ID); err != nil {
		t.Fatal(err)
	}
	if _, n := deaf.fromPool(branch.Main, p.ID, "v3", a.ID, "user"); n != 3 {
		t.Fatalf("before the refresh, the claim got %d, want 3: the view missed the release", n)
	}
	deaf.svc.views.divisions.RefreshAll(ctx)
	if _, n := deaf.fromPool(branch.Main, p.ID, "v4", a.ID, "user"); n != 1 {
		t.Errorf("after the refresh, the claim got %d, want 1", n)
	}
}
