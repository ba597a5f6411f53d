package web

import (
	"testing"

	"pivirt.hu/ipam/views"
)

func TestBranchHref(t *testing.T) {
	for _, tt := range []struct{ href, branch, want string }{
		{"/schema", "", "/schema"},
		{"/schema", "main", "/schema"},
		{"/schema", "add-vlans", "/schema?branch=add-vlans"},
		{"/schema", "feature/vlans", "/schema?branch=feature%2Fvlans"},
		{"/objects/IpamVLAN?q=a", "b", "/objects/IpamVLAN?q=a&branch=b"},
	} {
		if got := views.BranchHref(tt.href, tt.branch); got != tt.want {
			t.Errorf("BranchHref(%q, %q) = %q, want %q", tt.href, tt.branch, got, tt.want)
		}
	}
	if got := objectsHref("IpamVLAN", "b", "vlan 1", 50); got != "/objects/IpamVLAN?offset=50&q=vlan+1&branch=b" {
		t.Errorf("objectsHref = %q", got)
	}
}
