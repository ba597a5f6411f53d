package views

import (
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/ipam"
)

func TestBranchHref(t *testing.T) {
	for _, tt := range []struct{ href, branch, want string }{
		{"/schema", "", "/schema"},
		{"/schema", "main", "/schema"},
		{"/schema", "add-vlans", "/schema?branch=add-vlans"},
		{"/schema", "feature/vlans", "/schema?branch=feature%2Fvlans"},
		{"/objects/IpamVLAN?q=a", "b", "/objects/IpamVLAN?q=a&branch=b"},
	} {
		if got := BranchHref(tt.href, tt.branch); got != tt.want {
			t.Errorf("BranchHref(%q, %q) = %q, want %q", tt.href, tt.branch, got, tt.want)
		}
	}
	if got := ObjectsHref("IpamVLAN", "vlan 1", 50, "b"); got != "/objects/IpamVLAN?offset=50&q=vlan+1&branch=b" {
		t.Errorf("ObjectsHref = %q", got)
	}
}

// TestLinksEscapeTheirParts: every link of links.go keeps each part it is
// given, whatever it holds ('/', '?', '#', '%', '&', a space): read back,
// its path has the parts as its segments (a namespace's or a branch's
// slashes separate segments) and its query the values given.
func TestLinksEscapeTheirParts(t *testing.T) {
	const odd = "a b?c#d%e&f=g+h"
	ns := "acme/" + odd
	pool := ipam.Pool{Namespace: ns, Name: odd + "/x"}
	public := ipam.Pool{Name: odd}
	addr := netip.MustParseAddr("10.0.0.5")
	block := netip.MustParsePrefix("10.0.1.0/24")
	branch := "feature/" + odd
	tests := []struct {
		name  string
		href  string
		path  []string
		query url.Values
	}{
		{"PoolHref public", PoolHref(public), []string{"pools", odd}, nil},
		{"PoolHref private", PoolHref(pool), []string{"pools", "acme", odd, odd + "/x"}, nil},
		{"PoolEditHref", PoolEditHref(public), []string{"pools", odd, "edit"}, nil},
		{"PoolDeleteHref", PoolDeleteHref(pool), []string{"pools", "acme", odd, odd + "/x", "delete"}, nil},
		{"BlockHref", BlockHref(pool, block), []string{"pools", "acme", odd, odd + "/x"}, url.Values{"block": {"10.0.1.0/24"}}},
		{"AddressHref", AddressHref(pool, addr), []string{"addresses", "acme", odd, odd + "/x", "10.0.0.5"}, nil},
		{"VPCHref", VPCHref(ipam.VPC{Namespace: ns, Name: odd}), []string{"vpcs", "acme", odd, odd}, nil},
		{"VPCFormHref", VPCFormHref(ipam.VPC{Namespace: ns, Name: odd}, odd), []string{"vpcs", "acme", odd, odd, "-", odd}, nil},
		{"SubnetHref", SubnetHref(ipam.Subnet{Namespace: ns, VPC: odd, Name: odd + "/s"}), []string{"subnets", "acme", odd, odd, odd + "/s"}, nil},
		{"QuotaUnsetHref", QuotaUnsetHref(ns), []string{"quotas", "unset"}, url.Values{"pattern": {ns}}},
		{"NumberPoolHref", NumberPoolHref(odd), []string{"resource-managers", odd}, nil},
		{"NumberPoolEditHref", NumberPoolEditHref(odd), []string{"resource-managers", odd, "edit"}, nil},
		{"NumberPoolDeleteHref", NumberPoolDeleteHref(odd), []string{"resource-managers", odd, "delete"}, nil},
		{"DivisionHref", DivisionHref(odd, `["`+odd+`"]`), []string{"resource-managers", odd}, url.Values{"division": {`["` + odd + `"]`}}},
		{"ObjectsHref", ObjectsHref(odd, odd, 50, branch), []string{"objects", odd}, url.Values{"q": {odd}, "offset": {"50"}, "branch": {branch}}},
		{"NewObjectHref", NewObjectHref(odd, branch), []string{"objects", odd, "new"}, url.Values{"branch": {branch}}},
		{"objectAction", objectAction(odd, odd+"/1"), []string{"objects", odd, odd + "/1"}, nil},
		{"ObjectHref", ObjectHref(odd, odd+"/1", branch), []string{"objects", odd, odd + "/1", "edit"}, url.Values{"branch": {branch}}},
		{"ObjectDeleteHref", ObjectDeleteHref(odd, odd+"/1", branch), []string{"objects", odd, odd + "/1", "delete"}, url.Values{"branch": {branch}}},
		{"BranchPageHref", BranchPageHref(branch), []string{"branches", "feature", odd}, nil},
		{"BranchMergeHref", BranchMergeHref(branch), []string{"branches", "feature", odd, "-", "merge"}, nil},
		{"BranchDeleteHref", BranchDeleteHref(branch), []string{"branches", "feature", odd, "-", "delete"}, nil},
		{"SearchHref", SearchHref(odd, 500, branch), []string{"search"}, url.Values{"q": {odd}, "first": {"500"}, "branch": {branch}}},
		{"AuditHref", AuditHref(url.Values{"actor": {odd}}, 7), []string{"audit"}, url.Values{"actor": {odd}, "before": {"7"}}},
		{"AuditHistoryHref", AuditHistoryHref(audit.Ref{Kind: odd, Namespace: ns, Name: odd}), []string{"audit"},
			url.Values{"object_kind": {odd}, "object_namespace": {ns}, "object_name": {odd}}},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.href)
		if err != nil {
			t.Errorf("%s = %q: %v", tt.name, tt.href, err)
			continue
		}
		var path []string
		for _, s := range strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/") {
			p, err := url.PathUnescape(s)
			if err != nil {
				t.Errorf("%s = %q: segment %q: %v", tt.name, tt.href, s, err)
			}
			path = append(path, p)
		}
		if !slices.Equal(path, tt.path) || u.Fragment != "" || u.Host != "" {
			t.Errorf("%s = %q: path %q, fragment %q; want %q", tt.name, tt.href, path, u.Fragment, tt.path)
		}
		if got := u.Query(); len(got) != len(tt.query) || !queryEqual(got, tt.query) {
			t.Errorf("%s = %q: query %v, want %v", tt.name, tt.href, got, tt.query)
		}
	}
}

// queryEqual reports whether a and b hold the same values.
func queryEqual(a, b url.Values) bool {
	for k, v := range b {
		if !slices.Equal(a[k], v) {
			return false
		}
	}
	return true
}
