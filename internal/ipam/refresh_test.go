package ipam

import (
	"context"
	"fmt"
	"net/netip"
	"testing"

	"pivirt.hu/ipam/internal/store"
)

// TestRefreshFindsAnAddressFreedUnseen is the refresh policy of
// docs/allocation.md ("How the views stay fresh") for addresses: an
// address released by another process, whose notification this process
// missed, is no candidate here until the next refresh of the views, and
// the first candidate after it (numbers.TestRefreshFindsANumberFreedUnseen
// is the same for numbers).
func TestRefreshFindsAnAddressFreedUnseen(t *testing.T) {
	other, _, url := newService(t)
	// deaf follows no notification.
	deaf, _ := openServiceConfig(t, store.Open, url, Config{})
	ctx := context.Background()
	if _, err := other.CreatePublicPool(ctx, operator, CreatePublicPoolInput{Name: "edge", CIDR: "198.51.100.0/24", Gateway: "198.51.100.1"}); err != nil {
		t.Fatal(err)
	}
	allocate := func(i int) string {
		t.Helper()
		a, err := deaf.Allocate(ctx, operator, AllocateInput{Pool: "edge", OwnerNamespace: "acme/prod",
			Owner: Owner{Kind: OwnerVirtualMachine, UID: fmt.Sprintf("uid-%d", i), Name: fmt.Sprintf("vm-%d/0", i)}})
		if err != nil {
			t.Fatal(err)
		}
		return a.Address.String()
	}
	for i, want := range []string{"198.51.100.2", "198.51.100.3"} {
		if got := allocate(i); got != want {
			t.Fatalf("claim %d got %s, want %s", i, got, want)
		}
	}
	if ok, err := other.Release(ctx, operator, ReleaseInput{Pool: "edge", Address: "198.51.100.2"}); err != nil || !ok {
		t.Fatalf("release = %v, %v", ok, err)
	}
	if got := allocate(2); got != "198.51.100.4" {
		t.Fatalf("before the refresh, the claim got %s, want 198.51.100.4: the view missed the release", got)
	}
	deaf.views.taken.RefreshAll(ctx)
	if got := allocate(3); got != "198.51.100.2" {
		t.Errorf("after the refresh, the claim got %s, want 198.51.100.2", got)
	}
}

// TestOpaqueAddressAfterAnUnheardDetach: in a VPC of stable opaque
// addresses, an interface detached by another process, whose notification
// this process missed, gets its own address again here, not its next
// candidate (addressClaim.freeUnheardReleases); the view is not refreshed
// in between.
func TestOpaqueAddressAfterAnUnheardDetach(t *testing.T) {
	other, _, url := newService(t)
	deaf, _ := openServiceConfig(t, store.Open, url, Config{})
	ctx := context.Background()
	dualStack(t, other, "fd12:3456:789a::/48", StableOpaque)
	if _, err := other.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	vm := VMRef{UID: "vm-1", Hostname: "web-1"}
	attach := func() netip.Addr {
		t.Helper()
		a, err := deaf.AttachInterface(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: vm, Family: IPv6})
		if err != nil {
			t.Fatal(err)
		}
		return a.Address
	}
	first := attach()
	if _, err := other.DetachInterface(ctx, acme, DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: vm}); err != nil {
		t.Fatal(err)
	}
	if again := attach(); again != first {
		t.Errorf("attached again in the process that missed the detach: %s, want its own %s", again, first)
	}
}
