package graphql

import (
	"reflect"
	"slices"
	"testing"
)

// tenancyEnv is acme's walk-through (VPC main in acme/prod, subnet web, a
// VM, a floating IP), globex's VPC edge in globex/prod and acme-corp's VPC
// main in acme-corp/prod, each with an uplink from public-zone-a.
func tenancyEnv(t *testing.T) *env {
	e := newEnv(t)
	e.seed()
	e.ok("acme", attachInterface, nil, "namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", "vm-1", "hostname", "web-01", "nic", 0)
	e.ok("acme", attachNode, nil, "namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", "node-1", "name", "hv-1")
	e.ok("acme", claimFloatingIp, nil, "namespace", "acme/prod", "name", "web", "zone", "zone-a")
	e.ok("globex", createVpc, nil, "namespace", "globex/prod", "name", "edge", "cidr", "10.42.0.0/16", "zone", "zone-a")
	e.ok("acmecorp", createVpc, nil, "namespace", "acme-corp/prod", "name", "main", "cidr", "10.42.0.0/16", "zone", "zone-a")
	e.ok("acmecorp", createSubnet, nil, "namespace", "acme-corp/prod", "vpc", "main", "name", "web", "cidr", "10.42.1.0/24")
	return e
}

// visible is what one tenant sees of everything.
type visible struct {
	VPCs        []string
	Pools       []string
	FloatingIPs []string
	Public      []string // the addresses of public-zone-a's allocations
}

func (e *env) visible(token string) visible {
	e.t.Helper()
	var out struct {
		Vpcs []struct {
			Namespace, Name string
		}
		Pools []struct {
			Namespace *string
			Name      string
		}
		FloatingIps []struct{ Namespace, Name string }
		Pool        struct{ Allocations connection }
	}
	e.ok(token, `{
		vpcs { namespace name }
		pools { namespace name }
		floatingIps { namespace name }
		pool(name: "public-zone-a") { allocations { nodes { address } } }
	}`, &out)
	var v visible
	for _, x := range out.Vpcs {
		v.VPCs = append(v.VPCs, x.Namespace+"/"+x.Name)
	}
	for _, x := range out.Pools {
		v.Pools = append(v.Pools, deref(x.Namespace)+"/"+x.Name)
	}
	for _, x := range out.FloatingIps {
		v.FloatingIPs = append(v.FloatingIPs, x.Namespace+"/"+x.Name)
	}
	for _, a := range out.Pool.Allocations.Nodes {
		v.Public = append(v.Public, a.Address)
	}
	for _, list := range [][]string{v.VPCs, v.Pools, v.FloatingIPs, v.Public} {
		slices.Sort(list)
	}
	return v
}

// TestTenantsSeeOnlyTheirOwn lists everything as each actor.
func TestTenantsSeeOnlyTheirOwn(t *testing.T) {
	e := tenancyEnv(t)
	tests := []struct {
		token string
		want  visible
	}{
		{"op", visible{
			VPCs:        []string{"acme-corp/prod/main", "acme/prod/main", "globex/prod/edge"},
			Pools:       []string{"<null>/public-zone-a", "acme-corp/prod/vpc-main", "acme/prod/vpc-main", "globex/prod/vpc-edge"},
			FloatingIPs: []string{"acme/prod/web"},
			Public:      []string{"203.0.113.4", "203.0.113.5", "203.0.113.6", "203.0.113.7"},
		}},
		{"acme", visible{
			VPCs:        []string{"acme/prod/main"},
			Pools:       []string{"<null>/public-zone-a", "acme/prod/vpc-main"},
			FloatingIPs: []string{"acme/prod/web"},
			Public:      []string{"203.0.113.4", "203.0.113.5"},
		}},
		{"globex", visible{
			VPCs:   []string{"globex/prod/edge"},
			Pools:  []string{"<null>/public-zone-a", "globex/prod/vpc-edge"},
			Public: []string{"203.0.113.6"},
		}},
		{"acmecorp", visible{
			VPCs:   []string{"acme-corp/prod/main"},
			Pools:  []string{"<null>/public-zone-a", "acme-corp/prod/vpc-main"},
			Public: []string{"203.0.113.7"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.token, func(t *testing.T) {
			if got := e.with(t).visible(tt.token); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s sees %+v, want %+v", tt.token, got, tt.want)
			}
		})
	}
}

// TestOtherTenantsObjectsDoNotExist reads and changes acme's objects as
// globex and acme-corp: reads answer null or nothing, changes answer
// NOT_FOUND or FORBIDDEN, and nothing changes.
func TestOtherTenantsObjectsDoNotExist(t *testing.T) {
	e := tenancyEnv(t)
	for _, token := range []string{"globex", "acmecorp"} {
		t.Run(token, func(t *testing.T) {
			e := e.with(t)
			var got struct {
				Vpc         *vpc
				Pool        *pool
				Vpcs        []vpc
				Pools       []pool
				FloatingIps []floatingIP
			}
			e.ok(token, `{
				vpc(namespace: "acme/prod", name: "main") { name subnets { name } }
				pool(namespace: "acme/prod", name: "vpc-main") { name }
				vpcs(namespace: "acme/prod") { name }
				pools(namespace: "acme/prod") { name }
				floatingIps(namespace: "acme/prod") { name }
			}`, &got)
			if got.Vpc != nil || got.Pool != nil || len(got.Vpcs) != 0 || len(got.Pools) != 0 || len(got.FloatingIps) != 0 {
				t.Errorf("%s sees acme's objects: %+v", token, got)
			}
			e.fails(token, codeNotFound, `{ previewAllocation(namespace: "acme/prod", pool: "vpc-main") }`)

			before := e.counts()
			for _, m := range []struct{ code, query string }{
				{codeNotFound, `mutation { createSubnet(input: {namespace: "acme/prod", vpc: "main", name: "s2", cidr: "10.42.2.0/24"}) { name } }`},
				{codeNotFound, `mutation { deleteSubnet(namespace: "acme/prod", vpc: "main", name: "web") }`},
				{codeNotFound, `mutation { deleteVpc(namespace: "acme/prod", name: "main") }`},
				{codeNotFound, `mutation { attachInterface(input: {namespace: "acme/prod", vpc: "main", subnet: "web", vm: {uid: "x", hostname: "x"}, nic: 0}) { address } }`},
				{codeNotFound, `mutation { detachInterface(input: {namespace: "acme/prod", vpc: "main", vm: {uid: "vm-1", hostname: "web-01"}, nic: 0}) }`},
				{codeNotFound, `mutation { attachNode(input: {namespace: "acme/prod", vpc: "main", subnet: "web", node: {uid: "n", name: "x"}}) { address } }`},
				{codeNotFound, `mutation { releaseFloatingIp(namespace: "acme/prod", name: "web") }`},
				{codeNotFound, `mutation { allocate(input: {namespace: "acme/prod", pool: "vpc-main", owner: {kind: "Node", uid: "n", name: "x"}}) { address } }`},
				{codeNotFound, `mutation { release(input: {namespace: "acme/prod", pool: "vpc-main", address: "10.42.1.2"}) }`},
				{codeNotFound, `mutation { release(input: {namespace: "acme/prod", pool: "vpc-main", owner: {kind: "Node", uid: "node-1", name: "web"}}) }`},
				{codeForbidden, `mutation { createVpc(input: {namespace: "acme/prod", name: "other", cidr: "10.0.0.0/16"}) { name } }`},
				{codeForbidden, `mutation { claimFloatingIp(input: {namespace: "acme/prod", name: "web", zone: "zone-a"}) { address } }`},
				{codeForbidden, `mutation { release(input: {pool: "public-zone-a", address: "203.0.113.5"}) }`},
				{codeForbidden, `mutation { allocate(input: {pool: "public-zone-a", owner: {kind: "FloatingIP", uid: "x", name: "web"}, ownerNamespace: "acme/prod"}) { address } }`},
				{codeForbidden, `mutation { createPublicPool(input: {name: "p2", cidr: "198.51.100.0/24"}) { name } }`},
				{codeForbidden, `mutation { deletePublicPool(name: "public-zone-a") }`},
			} {
				e.fails(token, m.code, m.query)
			}
			if after := e.counts(); !reflect.DeepEqual(before, after) {
				t.Errorf("%s changed acme's objects: %v, then %v", token, before, after)
			}
		})
	}

	// acme still has everything, and cannot reach acme-corp's either.
	var got struct{ Vpc *vpc }
	e.ok("acme", `{ vpc(namespace: "acme/prod", name: "main") { name subnets { name usage { used } } } }`, &got)
	if got.Vpc == nil || len(got.Vpc.Subnets) != 1 || got.Vpc.Subnets[0].Usage.Used != 2 {
		t.Errorf("acme's VPC after the others' attempts: %+v", got.Vpc)
	}
	e.ok("acme", `{ vpc(namespace: "acme-corp/prod", name: "main") { name } }`, &got)
	if got.Vpc != nil {
		t.Errorf("acme sees acme-corp's VPC: %+v", got.Vpc)
	}
	e.fails("acme", codeNotFound, `mutation { deleteSubnet(namespace: "acme-corp/prod", vpc: "main", name: "web") }`)
	e.fails("acme", codeForbidden, `mutation { createVpc(input: {namespace: "acme-corp/prod", name: "x", cidr: "10.0.0.0/16"}) { name } }`)
}
