package graphql

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// TestWalkthrough follows the example manifests through the API: a public
// pool, a VPC with its router uplink, a floating IP, a subnet, VM
// interfaces reused after a detach, an exhausted subnet, previews, usage
// and pagination.
func TestWalkthrough(t *testing.T) {
	e := newEnv(t)

	var created struct{ CreatePublicPool pool }
	e.ok("op", createPublicPool, &created, "name", "public-zone-a", "cidr", "203.0.113.0/24", "gateway", "203.0.113.1",
		"exclude", []string{"203.0.113.2", "203.0.113.3"}, "zone", "zone-a")
	p := created.CreatePublicPool
	if p.Name != "public-zone-a" || p.Namespace != nil || p.Kind != "PUBLIC" || p.CIDR != "203.0.113.0/24" ||
		deref(p.Gateway) != "203.0.113.1" || !reflect.DeepEqual(p.Exclude, []string{"203.0.113.2", "203.0.113.3"}) ||
		deref(p.Zone) != "zone-a" || p.UID == "" {
		t.Errorf("createPublicPool = %+v", p)
	}
	// 254 hosts less the gateway and two excludes.
	if want := (usageAnswer{Size: 251, Used: 0, Free: 251}); p.Usage != want {
		t.Errorf("usage of the new pool = %+v, want %+v", p.Usage, want)
	}

	var preview struct{ PreviewAllocation []string }
	e.ok("op", `{ previewAllocation(pool: "public-zone-a", count: 2) }`, &preview)
	if want := []string{"203.0.113.4", "203.0.113.5"}; !reflect.DeepEqual(preview.PreviewAllocation, want) {
		t.Errorf("previewAllocation before the VPC = %v, want %v", preview.PreviewAllocation, want)
	}

	var v struct{ CreateVpc vpc }
	e.ok("acme", createVpc, &v, "namespace", "acme/prod", "name", "main", "cidr", "10.42.0.0/16", "zone", "zone-a")
	main := v.CreateVpc
	if main.Namespace != "acme/prod" || main.Name != "main" || main.CIDR != "10.42.0.0/16" || deref(main.Zone) != "zone-a" {
		t.Errorf("createVpc = %+v", main)
	}
	if deref(main.DefaultRoute) != "203.0.113.1" {
		t.Errorf("defaultRoute = %s, want 203.0.113.1", deref(main.DefaultRoute))
	}
	want := allocation{
		Name: "public-zone-a-203-0-113-4", Pool: "public-zone-a", Address: "203.0.113.4",
		Owner: ownerRef{Kind: "VPC", UID: main.UID, Name: "router"},
	}
	if r := main.Router; r == nil {
		t.Errorf("router is null")
	} else {
		if _, err := time.Parse(time.RFC3339, r.CreatedAt); err != nil {
			t.Errorf("router.createdAt %q is not RFC 3339: %v", r.CreatedAt, err)
		}
		got := *r
		got.CreatedAt = ""
		if !reflect.DeepEqual(got, want) {
			t.Errorf("router = %+v, want %+v", got, want)
		}
	}
	if main.Pool.Name != "vpc-main" || deref(main.Pool.Namespace) != "acme/prod" || main.Pool.Kind != "PRIVATE" || main.Pool.CIDR != "10.42.0.0/16" {
		t.Errorf("the VPC's pool = %+v", main.Pool)
	}
	if len(main.Subnets) != 0 {
		t.Errorf("subnets of a new VPC = %+v", main.Subnets)
	}

	e.ok("acme", `{ previewAllocation(pool: "public-zone-a") }`, &preview)
	if want := []string{"203.0.113.5"}; !reflect.DeepEqual(preview.PreviewAllocation, want) {
		t.Errorf("previewAllocation before the claim = %v, want %v", preview.PreviewAllocation, want)
	}
	var fip struct{ ClaimFloatingIp floatingIP }
	e.ok("acme", claimFloatingIp, &fip, "namespace", "acme/prod", "name", "web", "zone", "zone-a")
	if f := fip.ClaimFloatingIp; f.Address != "203.0.113.5" || f.Pool != "public-zone-a" || f.Zone != "zone-a" ||
		f.Namespace != "acme/prod" || f.Name != "web" || f.UID == "" {
		t.Errorf("claimFloatingIp = %+v, want 203.0.113.5 of public-zone-a", f)
	}

	var sub struct{ CreateSubnet subnet }
	e.ok("acme", createSubnet, &sub, "namespace", "acme/prod", "vpc", "main", "name", "web", "cidr", "10.42.1.0/24")
	if s := sub.CreateSubnet; s.Gateway != "10.42.1.1" || s.CIDR != "10.42.1.0/24" || s.Name != "web" ||
		s.Usage != (usageAnswer{Size: 253, Used: 0, Free: 253}) {
		t.Errorf("createSubnet = %+v, want gateway 10.42.1.1 and 253 free", s)
	}

	e.ok("acme", `{ previewAllocation(namespace: "acme/prod", pool: "vpc-main", within: "10.42.1.0/24", reserved: ["10.42.1.1"], count: 3) }`, &preview)
	if want := []string{"10.42.1.2", "10.42.1.3", "10.42.1.4"}; !reflect.DeepEqual(preview.PreviewAllocation, want) {
		t.Errorf("previewAllocation in web = %v, want %v", preview.PreviewAllocation, want)
	}

	attach := func(uid, hostname string) allocation {
		t.Helper()
		var out struct{ AttachInterface allocation }
		e.ok("acme", attachInterface, &out, "namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", uid, "hostname", hostname, "nic", 0)
		return out.AttachInterface
	}
	for i, want := range []string{"10.42.1.2", "10.42.1.3", "10.42.1.4"} {
		host := fmt.Sprintf("web-%02d", i+1)
		a := attach("uid-"+host, host)
		if a.Address != want || a.Pool != "vpc-main" || deref(a.Namespace) != "acme/prod" ||
			a.Owner != (ownerRef{Kind: "VirtualMachine", UID: "uid-" + host, Name: host + "/0"}) {
			t.Errorf("attachInterface %s = %+v, want %s", host, a, want)
		}
	}
	if a := attach("uid-web-02", "web-02"); a.Address != "10.42.1.3" {
		t.Errorf("attachInterface web-02 again = %s, want the same 10.42.1.3", a.Address)
	}

	var detached struct{ DetachInterface bool }
	e.ok("acme", detachInterface, &detached, "namespace", "acme/prod", "vpc", "main", "uid", "uid-web-02", "hostname", "web-02", "nic", 0)
	if !detached.DetachInterface {
		t.Errorf("detachInterface web-02 = false, want true")
	}
	e.ok("acme", detachInterface, &detached, "namespace", "acme/prod", "vpc", "main", "uid", "uid-web-02", "hostname", "web-02", "nic", 0)
	if detached.DetachInterface {
		t.Errorf("detachInterface web-02 twice = true, want false (not held)")
	}
	e.ok("acme", `{ previewAllocation(namespace: "acme/prod", pool: "vpc-main", within: "10.42.1.0/24", reserved: ["10.42.1.1"]) }`, &preview)
	if want := []string{"10.42.1.3"}; !reflect.DeepEqual(preview.PreviewAllocation, want) {
		t.Errorf("previewAllocation after the detach = %v, want %v", preview.PreviewAllocation, want)
	}
	if a := attach("uid-web-04", "web-04"); a.Address != "10.42.1.3" {
		t.Errorf("attachInterface web-04 = %s, want 10.42.1.3 reused", a.Address)
	}

	var node struct{ AttachNode allocation }
	e.ok("acme", attachNode, &node, "namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", "node-1", "name", "hv-1")
	if a := node.AttachNode; a.Address != "10.42.1.5" || a.Owner != (ownerRef{Kind: "Node", UID: "node-1", Name: "web"}) {
		t.Errorf("attachNode = %+v, want 10.42.1.5 owned by Node web", a)
	}

	e.ok("acme", createSubnet, nil, "namespace", "acme/prod", "vpc", "main", "name", "tiny", "cidr", "10.42.9.0/30")
	var tiny struct{ AttachInterface allocation }
	e.ok("acme", attachInterface, &tiny, "namespace", "acme/prod", "vpc", "main", "subnet", "tiny", "uid", "uid-db-01", "hostname", "db-01", "nic", 0)
	if tiny.AttachInterface.Address != "10.42.9.2" {
		t.Errorf("attachInterface in tiny = %s, want 10.42.9.2", tiny.AttachInterface.Address)
	}
	before := e.counts()
	err := e.fails("acme", codePoolExhausted, attachInterface, "namespace", "acme/prod", "vpc", "main", "subnet", "tiny", "uid", "uid-db-02", "hostname", "db-02", "nic", 0)
	if want := "pool vpc-main has no free address in 10.42.9.0/30"; err.Message != want {
		t.Errorf("exhausted message = %q, want %q", err.Message, want)
	}
	if after := e.counts(); !reflect.DeepEqual(before, after) {
		t.Errorf("an exhausted claim changed the database: %v, then %v", before, after)
	}

	var got struct{ Vpc vpc }
	e.ok("acme", `{ vpc(namespace: "acme/prod", name: "main") {
		name defaultRoute router { address }
		pool { name usage { size used free utilization } }
		subnets { name cidr gateway usage { size used free utilization } }
	} }`, &got)
	// vpc-main is a /16: 65534 hosts; it holds web-01, -03, -04, hv-1 and db-01.
	if want := (usageAnswer{Size: 65534, Used: 5, Free: 65529, Utilization: 100 * 5.0 / 65534}); got.Vpc.Pool.Usage != want {
		t.Errorf("usage of vpc-main = %+v, want %+v", got.Vpc.Pool.Usage, want)
	}
	wantSubnets := []subnet{
		{Name: "web", CIDR: "10.42.1.0/24", Gateway: "10.42.1.1", Usage: usageAnswer{Size: 253, Used: 4, Free: 249, Utilization: 100 * 4.0 / 253}},
		{Name: "tiny", CIDR: "10.42.9.0/30", Gateway: "10.42.9.1", Usage: usageAnswer{Size: 1, Used: 1, Free: 0, Utilization: 100}},
	}
	if !reflect.DeepEqual(got.Vpc.Subnets, wantSubnets) {
		t.Errorf("subnets = %+v, want %+v", got.Vpc.Subnets, wantSubnets)
	}
	if got.Vpc.Router == nil || got.Vpc.Router.Address != "203.0.113.4" || deref(got.Vpc.DefaultRoute) != "203.0.113.1" {
		t.Errorf("router %+v, defaultRoute %s", got.Vpc.Router, deref(got.Vpc.DefaultRoute))
	}

	var pub struct{ Pool pool }
	e.ok("op", `{ pool(name: "public-zone-a") { name usage { size used free utilization } } }`, &pub)
	if want := (usageAnswer{Size: 251, Used: 2, Free: 249, Utilization: 100 * 2.0 / 251}); pub.Pool.Usage != want {
		t.Errorf("usage of public-zone-a = %+v, want %+v", pub.Pool.Usage, want)
	}

	// Pagination of web's four allocations, two at a time.
	const page = `query($after: String) { vpc(namespace: "acme/prod", name: "main") { subnets { name
		allocations(first: 2, after: $after) { edges { cursor node { address owner { name } } } nodes { address } pageInfo { endCursor hasNextPage } totalCount }
	} } }`
	var addresses []string
	var after any
	for range 3 {
		var out struct {
			Vpc struct {
				Subnets []struct{ Allocations connection }
			}
		}
		e.ok("acme", page, &out, "after", after)
		c := out.Vpc.Subnets[0].Allocations
		if c.TotalCount != 4 {
			t.Errorf("totalCount = %d, want 4", c.TotalCount)
		}
		if len(c.Edges) != len(c.Nodes) {
			t.Errorf("%d edges but %d nodes", len(c.Edges), len(c.Nodes))
		}
		for i, edge := range c.Edges {
			addresses = append(addresses, edge.Node.Address)
			if edge.Cursor != edge.Node.Address || c.Nodes[i].Address != edge.Node.Address {
				t.Errorf("edge %+v, node %+v", edge, c.Nodes[i])
			}
		}
		if !c.PageInfo.HasNextPage {
			if c.PageInfo.EndCursor == nil || *c.PageInfo.EndCursor != "10.42.1.5" {
				t.Errorf("endCursor of the last page = %s, want 10.42.1.5", deref(c.PageInfo.EndCursor))
			}
			break
		}
		if len(c.Edges) != 2 || c.PageInfo.EndCursor == nil || *c.PageInfo.EndCursor != c.Edges[1].Cursor {
			t.Fatalf("a full page: %+v", c)
		}
		after = *c.PageInfo.EndCursor
	}
	if want := []string{"10.42.1.2", "10.42.1.3", "10.42.1.4", "10.42.1.5"}; !reflect.DeepEqual(addresses, want) {
		t.Errorf("paginated addresses = %v, want %v", addresses, want)
	}

	var searched struct {
		Pool struct{ Allocations connection }
	}
	e.ok("acme", `{ pool(namespace: "acme/prod", name: "vpc-main") { allocations(search: "web-0") { totalCount nodes { owner { name } } } } }`, &searched)
	if c := searched.Pool.Allocations; c.TotalCount != 3 || len(c.Nodes) != 3 {
		t.Errorf("allocations matching web-0: %+v, want 3", c)
	}
}

// TestClaimMatchesPreview checks that what previewAllocation announces is
// what the claims then get, for a public pool and a subnet.
func TestClaimMatchesPreview(t *testing.T) {
	e := newEnv(t)
	e.seed()
	var preview struct{ PreviewAllocation []string }
	e.ok("acme", `{ previewAllocation(pool: "public-zone-a", count: 3) }`, &preview)
	for i, name := range []string{"a", "b", "c"} {
		var fip struct{ ClaimFloatingIp floatingIP }
		e.ok("acme", claimFloatingIp, &fip, "namespace", "acme/prod", "name", name, "pool", "public-zone-a")
		if got := fip.ClaimFloatingIp.Address; got != preview.PreviewAllocation[i] {
			t.Errorf("floating IP %s got %s, previewed %s", name, got, preview.PreviewAllocation[i])
		}
	}
	var released struct{ ReleaseFloatingIp bool }
	e.ok("acme", releaseFloatingIp, &released, "namespace", "acme/prod", "name", "b")
	if !released.ReleaseFloatingIp {
		t.Errorf("releaseFloatingIp = false")
	}
	e.ok("acme", `{ previewAllocation(pool: "public-zone-a") }`, &preview)
	var fip struct{ ClaimFloatingIp floatingIP }
	e.ok("acme", claimFloatingIp, &fip, "namespace", "acme/prod", "name", "d", "zone", "zone-a")
	if got := fip.ClaimFloatingIp.Address; got != preview.PreviewAllocation[0] || got != "203.0.113.6" {
		t.Errorf("floating IP d got %s, previewed %v, want the freed 203.0.113.6", got, preview.PreviewAllocation)
	}

	const subnetPreview = `{ previewAllocation(namespace: "acme/prod", pool: "vpc-main", within: "10.42.1.0/24", reserved: ["10.42.1.1"]) }`
	for _, host := range []string{"app-1", "app-2"} {
		e.ok("acme", subnetPreview, &preview)
		var a struct{ AttachInterface allocation }
		e.ok("acme", attachInterface, &a, "namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", host, "hostname", host, "nic", 1)
		if a.AttachInterface.Address != preview.PreviewAllocation[0] {
			t.Errorf("%s got %s, previewed %s", host, a.AttachInterface.Address, preview.PreviewAllocation[0])
		}
	}
}

// TestAllocateAndRelease covers Allocate and Release through
// the API, and the deletions.
func TestAllocateAndRelease(t *testing.T) {
	e := newEnv(t)
	e.seed()

	var a struct{ Allocate allocation }
	e.ok("op", allocate, &a, "pool", "public-zone-a", "kind", "Node", "uid", "n1", "name", "uplink", "ownerNamespace", "acme/prod")
	if a.Allocate.Address != "203.0.113.5" || a.Allocate.Namespace != nil || a.Allocate.Name != "public-zone-a-203-0-113-5" {
		t.Errorf("allocate in public-zone-a = %+v, want 203.0.113.5", a.Allocate)
	}
	e.ok("acme", createSubnet, nil, "namespace", "acme/prod", "vpc", "main", "name", "db", "cidr", "10.42.2.0/24")
	e.ok("acme", allocate, &a, "namespace", "acme/prod", "pool", "vpc-main", "within", "10.42.2.0/24", "reserved", []string{"10.42.2.1"},
		"kind", "VirtualMachine", "uid", "vm-1", "name", "db-01/0")
	if a.Allocate.Address != "10.42.2.2" {
		t.Errorf("allocate in vpc-main within 10.42.2.0/24 = %s, want 10.42.2.2", a.Allocate.Address)
	}

	var released struct{ Release bool }
	e.ok("acme", release, &released, "namespace", "acme/prod", "pool", "vpc-main", "address", "10.42.2.2")
	if !released.Release {
		t.Errorf("release of a held address = false")
	}
	e.ok("acme", release, &released, "namespace", "acme/prod", "pool", "vpc-main", "address", "10.42.2.2")
	if released.Release {
		t.Errorf("release of a free address = true, want false")
	}
	var byOwner struct{ Release bool }
	e.ok("op", `mutation { release(input: {pool: "public-zone-a", owner: {kind: "Node", uid: "n1", name: "uplink"}, ownerNamespace: "acme/prod"}) }`, &byOwner)
	if !byOwner.Release {
		t.Errorf("release by owner = false")
	}

	before := e.counts()
	err := e.fails("op", codeConflict, deletePublicPool, "name", "public-zone-a")
	if err.Message != "public pool public-zone-a still holds 1 address; release it first" {
		t.Errorf("deletePublicPool message = %q", err.Message)
	}
	if after := e.counts(); !reflect.DeepEqual(before, after) {
		t.Errorf("a refused delete changed the database: %v, then %v", before, after)
	}

	e.ok("acme", attachInterface, nil, "namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", "vm-2", "hostname", "web-01", "nic", 0)
	e.fails("acme", codeConflict, deleteSubnet, "namespace", "acme/prod", "vpc", "main", "name", "web")
	e.fails("acme", codeConflict, deleteVpc, "namespace", "acme/prod", "name", "main")
	e.ok("acme", detachInterface, nil, "namespace", "acme/prod", "vpc", "main", "uid", "vm-2", "hostname", "web-01", "nic", 0)
	var deleted struct {
		DeleteSubnet     bool
		DeleteVpc        bool
		DeletePublicPool bool
	}
	e.ok("acme", deleteSubnet, &deleted, "namespace", "acme/prod", "vpc", "main", "name", "web")
	e.ok("acme", deleteVpc, &deleted, "namespace", "acme/prod", "name", "main")
	e.ok("op", deletePublicPool, &deleted, "name", "public-zone-a")
	if !deleted.DeleteSubnet || !deleted.DeleteVpc || !deleted.DeletePublicPool {
		t.Errorf("deletions = %+v, want all true", deleted)
	}
	if n := e.counts(); n["pools"] != 0 || n["vpcs"] != 0 || n["subnets"] != 0 || n["allocations"] != 0 {
		t.Errorf("after deleting everything: %v", n)
	}
	var gone struct{ Vpc *vpc }
	e.ok("acme", `{ vpc(namespace: "acme/prod", name: "main") { name } }`, &gone)
	if gone.Vpc != nil {
		t.Errorf("vpc after deleteVpc = %+v, want null", gone.Vpc)
	}
}
