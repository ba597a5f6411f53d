package views

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/ipam"
)

// The console's links: every path a page links to, a form posts to or a
// handler leads to is built here, each part escaped (links_test.go), so
// that a name with a space, a '?' or a '#' opens its own page.

// The console's lists.
const (
	PoolsPath            = "/pools"
	VPCsPath             = "/vpcs"
	QuotasPath           = "/quotas"
	SchemaPath           = "/schema"
	BranchesPath         = "/branches"
	ResourceManagersPath = "/resource-managers"
	AuditPath            = "/audit"
	SearchPath           = "/search"
)

// segments escapes each part of a name that holds slashes (a namespace,
// a branch's name), keeping the slashes between them.
func segments(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

// withQuery is href with the query v, if any.
func withQuery(href string, v url.Values) string {
	if len(v) == 0 {
		return href
	}
	return href + "?" + v.Encode()
}

// BranchHref returns href on the branch: ?branch=<name> added (or &branch=
// when href has a query already) unless the branch is main, the default,
// so that a link keeps the branch in use and can be shared.
func BranchHref(href, branch string) string {
	if branch == "" || branch == MainBranch {
		return href
	}
	sep := "?"
	if strings.Contains(href, "?") {
		sep = "&"
	}
	return href + sep + "branch=" + url.QueryEscape(branch)
}

// PoolHref is the console path of a pool's page: /pools/<name>, or
// /pools/<namespace>/<name> for a private pool.
func PoolHref(p ipam.Pool) string {
	if p.Namespace == "" {
		return PoolsPath + "/" + url.PathEscape(p.Name)
	}
	return PoolsPath + "/" + segments(p.Namespace) + "/" + url.PathEscape(p.Name)
}

// PoolEditHref is the form that changes a public pool.
func PoolEditHref(p ipam.Pool) string { return PoolHref(p) + "/edit" }

// PoolDeleteHref is the page that confirms deleting a public pool, and
// where it posts.
func PoolDeleteHref(p ipam.Pool) string { return PoolHref(p) + "/delete" }

// BlockHref is the pool page's map of one block of the pool.
func BlockHref(p ipam.Pool, block netip.Prefix) string {
	return PoolHref(p) + "?" + url.Values{"block": {block.String()}}.Encode()
}

// AddressHref is the console path of an address's own page:
// /addresses/<pool's path>/<address>, the pool's path being as in
// PoolHref.
func AddressHref(p ipam.Pool, a netip.Addr) string { return addressesOf(p) + a.String() }

// addressesOf is the path of the pages of the pool's addresses, before
// the address.
func addressesOf(p ipam.Pool) string { return "/addresses" + PoolHref(p)[len(PoolsPath):] + "/" }

// VPCHref is the console path of a VPC's page: /vpcs/<namespace>/<name>.
func VPCHref(v ipam.VPC) string {
	return VPCsPath + "/" + segments(v.Namespace) + "/" + url.PathEscape(v.Name)
}

// VPCFormHref is where the VPC page's form (a claim, or the post of a
// confirmed action: VPCForms) posts.
func VPCFormHref(v ipam.VPC, form string) string {
	return VPCHref(v) + ActionSeparator + url.PathEscape(form)
}

// SubnetHref is the console path of a subnet's page:
// /subnets/<namespace>/<vpc>/<name>.
func SubnetHref(sub ipam.Subnet) string {
	return "/subnets/" + segments(sub.Namespace) + "/" + url.PathEscape(sub.VPC) + "/" + url.PathEscape(sub.Name)
}

// QuotaUnsetHref is the path of the page that confirms unsetting the
// quota of pattern.
func QuotaUnsetHref(pattern string) string {
	return QuotasPath + "/unset?" + url.Values{"pattern": {pattern}}.Encode()
}

// quotaEditHref is the path of the quotas page with its form filled with
// the quota of pattern.
func quotaEditHref(pattern string) string {
	return QuotasPath + "?" + url.Values{"edit": {pattern}}.Encode() + "#set-quota"
}

// NumberPoolHref is the console path of a number pool's page.
func NumberPoolHref(id string) string { return ResourceManagersPath + "/" + url.PathEscape(id) }

// NumberPoolEditHref is the form that changes a number pool.
func NumberPoolEditHref(id string) string { return NumberPoolHref(id) + "/edit" }

// NumberPoolDeleteHref is the page that confirms deleting a number pool,
// and where it posts.
func NumberPoolDeleteHref(id string) string { return NumberPoolHref(id) + "/delete" }

// DivisionHref is the page of the number pool id with its division of key
// open (the division parameter: its values as a JSON array, in the
// scope's order), the pool's page when key is "".
func DivisionHref(id, key string) string {
	if key == "" {
		return NumberPoolHref(id)
	}
	return NumberPoolHref(id) + "?" + url.Values{"division": {key}}.Encode()
}

// ObjectsHref is the path of a page of the kind's objects on the branch:
// those that match query (all for ""), from offset.
func ObjectsHref(kind, query string, offset int, branch string) string {
	v := url.Values{}
	if query != "" {
		v.Set("q", query)
	}
	if offset > 0 {
		v.Set("offset", strconv.Itoa(offset))
	}
	return BranchHref(withQuery(objectsOf(kind), v), branch)
}

// objectsOf is the path of the kind's objects, on main.
func objectsOf(kind string) string { return "/objects/" + url.PathEscape(kind) }

// NewObjectHref is the form of a new object of the kind on the branch.
func NewObjectHref(kind, branch string) string { return BranchHref(objectsOf(kind)+"/new", branch) }

// objectAction is where the object form posts: the kind's objects for a
// new one, the object's path for one that exists.
func objectAction(kind, id string) string {
	if id == "" {
		return objectsOf(kind)
	}
	return objectsOf(kind) + "/" + url.PathEscape(id)
}

// ObjectHref is the path of the object's page (its form) on the branch.
func ObjectHref(kind, id, branch string) string {
	return BranchHref(objectAction(kind, id)+"/edit", branch)
}

// ObjectDeleteHref is the page that confirms deleting the object on the
// branch, and where it posts.
func ObjectDeleteHref(kind, id, branch string) string {
	return BranchHref(objectAction(kind, id)+"/delete", branch)
}

// BranchPageHref is the path of the branch's page.
func BranchPageHref(name string) string { return BranchesPath + "/" + segments(name) }

// ActionSeparator ends a branch's or a VPC's path in the paths of its
// actions: no segment of a branch's name, a namespace or a VPC's name
// starts with '-', so /branches/<name>/-/merge is never a branch's page,
// nor /vpcs/<namespace>/<name>/-/create-subnet a VPC's.
const ActionSeparator = "/-/"

// BranchMergeHref is the path of the page that confirms merging the
// branch.
func BranchMergeHref(name string) string {
	return BranchPageHref(name) + ActionSeparator + "merge"
}

// BranchDeleteHref is the path of the page that confirms deleting the
// branch.
func BranchDeleteHref(name string) string {
	return BranchPageHref(name) + ActionSeparator + "delete"
}

// SearchHref is the search page of query on the branch, its first hits
// (the page's default for 0).
func SearchHref(query string, first int, branch string) string {
	v := url.Values{"q": {query}}
	if first > 0 {
		v.Set("first", strconv.Itoa(first))
	}
	return BranchHref(withQuery(SearchPath, v), branch)
}

// AuditHref is the path of a page of the audit log with the filters v,
// before the entry of id (0 for the newest).
func AuditHref(v url.Values, before int64) string {
	if before > 0 {
		v.Set("before", strconv.FormatInt(before, 10))
	} else {
		v.Del("before")
	}
	return withQuery(AuditPath, v)
}

// AuditHistoryHref is the audit log filtered to the history of the object
// r.
func AuditHistoryHref(r audit.Ref) string {
	v := url.Values{"object_kind": {r.Kind}, "object_name": {r.Name}}
	if r.Namespace != "" {
		v.Set("object_namespace", r.Namespace)
	}
	return AuditHref(v, 0)
}
