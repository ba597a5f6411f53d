package graphql

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/store"
)

// nicType is the type Nic as the API gives it, word for word.
const nicType = `type Nic { namespace: String! vpc: String! subnet: String! vm: ObjectReference! nic: Int! ipv4: IPAllocation ipv6: IPAllocation }`

// TestNicType finds the type Nic in the snapshot with exactly the fields
// of nicType, no more.
func TestNicType(t *testing.T) {
	sdl, err := os.ReadFile(schemaSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	block, ok := definitions(string(sdl))["type Nic {"]
	if !ok {
		t.Fatalf("%s has no type Nic", schemaSnapshot)
	}
	var fields []string
	for _, line := range block {
		if line = strings.TrimSpace(line); !strings.HasPrefix(line, `"`) && line != "type Nic {" && line != "}" {
			fields = append(fields, line)
		}
	}
	want := strings.Split(strings.TrimSuffix(strings.TrimPrefix(nicType, "type Nic { "), " }"), " ")
	var wantFields []string
	for i := 0; i+1 < len(want); i += 2 {
		wantFields = append(wantFields, want[i]+" "+want[i+1])
	}
	slices.Sort(wantFields)
	if !reflect.DeepEqual(fields, wantFields) {
		t.Errorf("type Nic has the fields %q, want those of %s", fields, nicType)
	}
}

// The requests of the dual-stack tests.
const (
	createPoolV6 = `mutation($name: String!, $cidr: String!, $gateway: String, $exclude: [String!], $zone: String, $delegated: Int) {
		createPublicPool(input: {name: $name, cidr: $cidr, gateway: $gateway, exclude: $exclude, zone: $zone, delegatedPrefixLength: $delegated}) {
			name cidr family delegatedPrefixLength gateway usage { sizeExact usedExact freeExact unit }
		}
	}`
	createVpcV6 = `mutation($namespace: String!, $name: String!, $cidr: String!, $zone: String, $ipv6Cidr: String, $ipv6PrefixLength: Int, $ipv6Addressing: IPv6Addressing) {
		createVpc(input: {namespace: $namespace, name: $name, cidr: $cidr, zone: $zone, ipv6Cidr: $ipv6Cidr, ipv6PrefixLength: $ipv6PrefixLength, ipv6Addressing: $ipv6Addressing}) {
			name cidr ipv6Cidr ipv6Delegated ipv6Addressing ipv6Pool { name namespace kind cidr family }
			router { address } ipv6Router { name pool address owner { kind name } } ipv6DefaultRoute
		}
	}`
	createSubnetV6 = `mutation($namespace: String!, $vpc: String!, $name: String!, $cidr: String!, $ipv6Cidr: String, $ipv6PrefixLength: Int) {
		createSubnet(input: {namespace: $namespace, vpc: $vpc, name: $name, cidr: $cidr, ipv6Cidr: $ipv6Cidr, ipv6PrefixLength: $ipv6PrefixLength}) {
			name cidr gateway ipv6Cidr ipv6Gateway
		}
	}`
	attachNic = `mutation($namespace: String!, $vpc: String!, $subnet: String!, $uid: String!, $hostname: String!, $nic: Int!) {
		attachNic(input: {namespace: $namespace, vpc: $vpc, subnet: $subnet, vm: {uid: $uid, hostname: $hostname}, nic: $nic}) {
			namespace vpc subnet vm { kind uid name } nic
			ipv4 { name namespace pool address owner { kind uid name } }
			ipv6 { name namespace pool address owner { kind uid name } }
		}
	}`
	attachFamily = `mutation($namespace: String!, $vpc: String!, $subnet: String!, $uid: String!, $hostname: String!, $nic: Int!, $family: IPFamily) {
		attachInterface(input: {namespace: $namespace, vpc: $vpc, subnet: $subnet, vm: {uid: $uid, hostname: $hostname}, nic: $nic, family: $family}) {
			name pool address
		}
	}`
)

// The answers of the dual-stack tests.
type (
	usageV6 struct {
		SizeExact string `json:"sizeExact"`
		UsedExact string `json:"usedExact"`
		FreeExact string `json:"freeExact"`
		Unit      string `json:"unit"`
	}
	poolV6 struct {
		Name                  string  `json:"name"`
		CIDR                  string  `json:"cidr"`
		Family                string  `json:"family"`
		DelegatedPrefixLength *int    `json:"delegatedPrefixLength"`
		Gateway               *string `json:"gateway"`
		Usage                 usageV6 `json:"usage"`
	}
	vpcV6 struct {
		Name           string                    `json:"name"`
		CIDR           string                    `json:"cidr"`
		IPv6CIDR       *string                   `json:"ipv6Cidr"`
		IPv6Delegated  bool                      `json:"ipv6Delegated"`
		IPv6Addressing *string                   `json:"ipv6Addressing"`
		Router         *struct{ Address string } `json:"router"`
		IPv6Router     *allocation               `json:"ipv6Router"`
		IPv6Default    *string                   `json:"ipv6DefaultRoute"`
		IPv6Pool       *struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
			Kind      string `json:"kind"`
			CIDR      string `json:"cidr"`
			Family    string `json:"family"`
		} `json:"ipv6Pool"`
	}
	subnetV6 struct {
		Name        string  `json:"name"`
		CIDR        string  `json:"cidr"`
		Gateway     string  `json:"gateway"`
		IPv6CIDR    *string `json:"ipv6Cidr"`
		IPv6Gateway *string `json:"ipv6Gateway"`
	}
	nicAnswer struct {
		Namespace string      `json:"namespace"`
		VPC       string      `json:"vpc"`
		Subnet    string      `json:"subnet"`
		VM        ownerRef    `json:"vm"`
		NIC       int         `json:"nic"`
		IPv4      *allocation `json:"ipv4"`
		IPv6      *allocation `json:"ipv6"`
	}
)

// wantError runs a request that must fail with one error of code and the
// message want, word for word.
func (e *env) wantError(token, code, want, query string, vars ...any) {
	e.t.Helper()
	if got := e.fails(token, code, query, vars...); got.Message != want {
		e.t.Errorf("%s\nanswered %q, want %q", query, got.Message, want)
	}
}

// dualStackPools makes the public pools of zone z1: IPv4 192.0.2.0/24, an
// IPv6 pool of addresses and a /48 delegating /56s.
func (e *env) dualStackPools() {
	e.t.Helper()
	e.ok("op", createPoolV6, nil, "name", "public", "cidr", "192.0.2.0/24", "zone", "z1")
	e.ok("op", createPoolV6, nil, "name", "v6-uplinks", "cidr", "2001:db8::/64", "zone", "z1")
	e.ok("op", createPoolV6, nil, "name", "v6-delegated", "cidr", "2001:db8:100::/48", "zone", "z1", "delegated", 56)
}

// TestIPv6Pools: public IPv6 pools through the API, their refusals word
// for word, their figures exact in BigInt fields, and the Int fields
// refusing a figure past 2^31 − 1 rather than answering a wrong one.
func TestIPv6Pools(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct{ cidr, want string }{
		{"2001:DB8:0::/32", "cidr 2001:DB8:0::/32 is not in canonical form; did you mean 2001:db8::/32?"},
		{"2001:db8::1/32", "cidr 2001:db8::1/32 has host bits set; did you mean 2001:db8::/32?"},
	} {
		e.wantError("op", codeInvalidArgument, c.want, createPoolV6, "name", "p", "cidr", c.cidr)
	}
	e.wantError("op", codeInvalidArgument, "delegatedPrefixLength is for IPv6 pools: cidr 192.0.2.0/24 is an IPv4 prefix; leave delegatedPrefixLength out",
		createPoolV6, "name", "p", "cidr", "192.0.2.0/24", "delegated", 28)
	e.wantError("op", codeInvalidArgument, "delegatedPrefixLength 40 is out of range for cidr 2001:db8:100::/48: 48 to 64",
		createPoolV6, "name", "p", "cidr", "2001:db8:100::/48", "delegated", 40)

	var created struct{ CreatePublicPool poolV6 }
	e.ok("op", createPoolV6, &created, "name", "v6-uplinks", "cidr", "2001:db8::/64", "zone", "z1")
	// 2^64 addresses less the subnet-router anycast address.
	all := usageV6{SizeExact: "18446744073709551615", UsedExact: "0", FreeExact: "18446744073709551615", Unit: "addresses"}
	if p := created.CreatePublicPool; p.Family != "IPV6" || p.DelegatedPrefixLength != nil || p.Usage != all {
		t.Errorf("createPublicPool of an IPv6 /64 = %+v, want family IPV6, no delegation, usage %+v", p, all)
	}
	res := e.query("op", `{ pool(name: "v6-uplinks") { name usage { used size } } }`)
	if len(res.Errors) != 1 || compact(t, res.Data) != `{"pool":null}` {
		t.Fatalf("usage { size } of a /64 answered %s, want one error and the pool null", res.body)
	}
	err := res.Errors[0]
	if want := "size is 18446744073709551615, more than GraphQL's Int holds (2^31 − 1): select sizeExact, a BigInt, instead"; err.Message != want ||
		err.Extensions.Code != codeInvalidArgument || !reflect.DeepEqual(err.Path, []any{"pool", "usage", "size"}) {
		t.Errorf("the error of usage { size } of a /64 is %+v, want %q at pool.usage.size", err, want)
	}
	var fits struct {
		Pool struct {
			Usage struct {
				Used        int     `json:"used"`
				Utilization float64 `json:"utilization"`
			} `json:"usage"`
		} `json:"pool"`
	}
	e.ok("op", `{ pool(name: "v6-uplinks") { usage { used utilization } } }`, &fits)
	if fits.Pool.Usage.Used != 0 || fits.Pool.Usage.Utilization != 0 {
		t.Errorf("used and utilization of an empty /64 = %+v, want 0 and 0", fits.Pool.Usage)
	}

	// A point of the history of an IPv6 pool: its size, past GraphQL's Int,
	// is refused as usage's, and sizeExact gives it.
	var uid string
	if err := e.db.Get(&uid, `SELECT uid FROM pools WHERE name = 'v6-uplinks'`); err != nil {
		t.Fatal(err)
	}
	size, parseErr := candidates.ParseCount("18446744073709551615")
	if parseErr != nil {
		t.Fatal(parseErr)
	}
	hour := time.Now().UTC().Truncate(time.Hour).Add(-time.Hour)
	if err := store.RecordUsage(context.Background(), e.db, []store.UsageRecord{{ObjectUID: uid, ObjectKind: "pool", UsedCount: candidates.CountOf(1), SizeCount: size}}, hour, time.Time{}); err != nil {
		t.Fatal(err)
	}
	res = e.query("op", `{ pool(name: "v6-uplinks") { usage { history { size } } } }`)
	if len(res.Errors) != 1 || res.Errors[0].Message != "size is 18446744073709551615, more than GraphQL's Int holds (2^31 − 1): select sizeExact, a BigInt, instead" {
		t.Errorf("history { size } of a /64 answered %s, want the error of size", res.body)
	}
	res = e.query("op", `{ pool(name: "v6-uplinks") { usage { history { sizeExact used usedExact } } } }`)
	if want := `{"pool":{"usage":{"history":[{"sizeExact":"18446744073709551615","used":1,"usedExact":"1"}]}}}`; len(res.Errors) > 0 || compact(t, res.Data) != want {
		t.Errorf("history { sizeExact used usedExact } of a /64 answered %s, want %s", res.body, want)
	}

	var preview struct{ PreviewAllocation []string }
	e.ok("op", `{ previewAllocation(pool: "v6-uplinks", count: 2) }`, &preview)
	if want := []string{"2001:db8::1", "2001:db8::2"}; !reflect.DeepEqual(preview.PreviewAllocation, want) {
		t.Errorf("previewAllocation of a /64 = %v, want %v", preview.PreviewAllocation, want)
	}
	var claimed struct{ Allocate allocation }
	e.ok("op", allocate, &claimed, "pool", "v6-uplinks", "kind", "Node", "uid", "n1", "name", "eth0", "ownerNamespace", "infra")
	if a := claimed.Allocate; a.Address != "2001:db8::1" || a.Name != "v6-uplinks-2001-db8--1" {
		t.Errorf("allocate in a /64 = %+v, want 2001:db8::1 named v6-uplinks-2001-db8--1", a)
	}

	e.ok("op", createPoolV6, &created, "name", "v6-delegated", "cidr", "2001:db8:100::/48", "zone", "z1", "delegated", 56)
	prefixes := usageV6{SizeExact: "256", UsedExact: "0", FreeExact: "256", Unit: "/56s"}
	if p := created.CreatePublicPool; p.DelegatedPrefixLength == nil || *p.DelegatedPrefixLength != 56 || p.Usage != prefixes {
		t.Errorf("createPublicPool of a delegation pool = %+v, want delegatedPrefixLength 56, usage %+v", p, prefixes)
	}
	var counted struct {
		Pool struct{ Usage struct{ Size, Free int } } `json:"pool"`
	}
	e.ok("op", `{ pool(name: "v6-delegated") { usage { size free } } }`, &counted)
	if counted.Pool.Usage.Size != 256 || counted.Pool.Usage.Free != 256 {
		t.Errorf("the Int figures of a /48 delegating /56s = %+v, want 256 and 256", counted.Pool.Usage)
	}
}

// TestDualStack: dual-stack VPCs (given and delegated prefixes), their
// subnets, attachNic giving both families at once and again, attachInterface
// of one family, detach releasing both, and the refusals word for word.
func TestDualStack(t *testing.T) {
	e := newEnv(t)
	e.dualStackPools()
	var made struct{ CreateVpc vpcV6 }
	e.ok("acme", createVpcV6, &made, "namespace", "acme/prod", "name", "main", "cidr", "10.42.0.0/16", "zone", "z1", "ipv6Cidr", "fd12:3456:789a::/48")
	if v := made.CreateVpc; deref(v.IPv6CIDR) != "fd12:3456:789a::/48" || v.IPv6Delegated || deref(v.IPv6Addressing) != "LOWEST_FREE" ||
		v.IPv6Pool == nil || v.IPv6Pool.Name != "vpc-main-v6" || v.IPv6Pool.Namespace != "acme/prod" || v.IPv6Pool.Kind != "PRIVATE" ||
		v.IPv6Pool.CIDR != "fd12:3456:789a::/48" || v.IPv6Pool.Family != "IPV6" {
		t.Errorf("createVpc with ipv6Cidr = %+v", v)
	}
	if v := made.CreateVpc; v.Router == nil || v.Router.Address != "192.0.2.1" || v.IPv6Router == nil || v.IPv6Router.Address != "2001:db8::1" ||
		v.IPv6Router.Pool != "v6-uplinks" || v.IPv6Router.Name != "v6-uplinks-2001-db8--1" || v.IPv6Router.Owner != (ownerRef{Kind: "VPC", Name: "router"}) || v.IPv6Default != nil {
		t.Errorf("the routers of a dual-stack VPC = %s and %s (default route %s), want 192.0.2.1 and 2001:db8::1 of v6-uplinks, which has no gateway",
			jsonOf(t, v.Router), jsonOf(t, v.IPv6Router), deref(v.IPv6Default))
	}
	e.ok("acme", createVpcV6, &made, "namespace", "acme/prod", "name", "lab", "cidr", "10.43.0.0/16", "zone", "z1", "ipv6PrefixLength", 56)
	if v := made.CreateVpc; deref(v.IPv6CIDR) != "2001:db8:100::/56" || !v.IPv6Delegated {
		t.Errorf("createVpc with ipv6PrefixLength 56 = %+v, want 2001:db8:100::/56 delegated", v)
	}
	e.ok("acme", createVpcV6, &made, "namespace", "acme/prod", "name", "old", "cidr", "10.0.0.0/16")
	if v := made.CreateVpc; v.IPv6CIDR != nil || v.IPv6Delegated || v.IPv6Addressing != nil || v.IPv6Pool != nil {
		t.Errorf("createVpc of IPv4 only = %+v, want no IPv6", v)
	}

	var sub struct{ CreateSubnet subnetV6 }
	e.ok("acme", createSubnetV6, &sub, "namespace", "acme/prod", "vpc", "main", "name", "web", "cidr", "10.42.1.0/24")
	if s := sub.CreateSubnet; deref(s.IPv6CIDR) != "fd12:3456:789a::/64" || deref(s.IPv6Gateway) != "fd12:3456:789a::1" || s.Gateway != "10.42.1.1" {
		t.Errorf("createSubnet in a dual-stack VPC = %+v, want fd12:3456:789a::/64 by fd12:3456:789a::1", s)
	}
	e.wantError("acme", codeInvalidArgument, "ipv6Cidr fd00::/64 is outside VPC main's fd12:3456:789a::/48",
		createSubnetV6, "namespace", "acme/prod", "vpc", "main", "name", "x", "cidr", "10.42.2.0/24", "ipv6Cidr", "fd00::/64")
	e.wantError("acme", codeInvalidArgument, "VPC acme/prod/old has no IPv6 prefix, so its subnets have none: leave ipv6PrefixLength out",
		createSubnetV6, "namespace", "acme/prod", "vpc", "old", "name", "web", "cidr", "10.0.1.0/24", "ipv6PrefixLength", 64)
	e.ok("acme", createSubnetV6, nil, "namespace", "acme/prod", "vpc", "old", "name", "web", "cidr", "10.0.1.0/24")

	var nic struct{ AttachNic nicAnswer }
	e.ok("acme", attachNic, &nic, "namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", "vm-1", "hostname", "web-01", "nic", 0)
	owner := ownerRef{Kind: "VirtualMachine", UID: "vm-1", Name: "web-01/0"}
	ns := "acme/prod"
	want := nicAnswer{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: owner, NIC: 0,
		IPv4: &allocation{Name: "vpc-main-10-42-1-2", Namespace: &ns, Pool: "vpc-main", Address: "10.42.1.2", Owner: owner},
		IPv6: &allocation{Name: "vpc-main-v6-fd12-3456-789a--2", Namespace: &ns, Pool: "vpc-main-v6", Address: "fd12:3456:789a::2", Owner: owner}}
	if !reflect.DeepEqual(nic.AttachNic, want) {
		t.Errorf("attachNic = %s, want %s", jsonOf(t, nic.AttachNic), jsonOf(t, want))
	}
	e.ok("acme", attachNic, &nic, "namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", "vm-1", "hostname", "web-01", "nic", 0)
	if !reflect.DeepEqual(nic.AttachNic, want) {
		t.Errorf("attachNic again = %s, want the same %s", jsonOf(t, nic.AttachNic), jsonOf(t, want))
	}
	var one struct{ AttachInterface allocation }
	for family, address := range map[string]string{"IPV6": "fd12:3456:789a::2", "IPV4": "10.42.1.2", "": "10.42.1.2"} {
		vars := []any{"namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", "vm-1", "hostname", "web-01", "nic", 0}
		if family != "" {
			vars = append(vars, "family", family)
		}
		e.ok("acme", attachFamily, &one, vars...)
		if one.AttachInterface.Address != address {
			t.Errorf("attachInterface of family %q = %+v, want %s", family, one.AttachInterface, address)
		}
	}
	e.wantError("acme", codeInvalidArgument, "subnet web of VPC acme/prod/old has no IPv6 prefix: attach its IPv4 address (family IPV4)",
		attachFamily, "namespace", "acme/prod", "vpc", "old", "subnet", "web", "uid", "vm-2", "hostname", "old-01", "nic", 0, "family", "IPV6")
	e.ok("acme", attachNic, &nic, "namespace", "acme/prod", "vpc", "old", "subnet", "web", "uid", "vm-2", "hostname", "old-01", "nic", 0)
	if n := nic.AttachNic; n.IPv4 == nil || n.IPv4.Address != "10.0.1.2" || n.IPv6 != nil {
		t.Errorf("attachNic in a subnet of IPv4 only = %s, want 10.0.1.2 and ipv6 null", jsonOf(t, n))
	}

	var usages struct {
		VPC struct {
			IPv6Usage usageV6 `json:"ipv6Usage"`
			Subnets   []struct {
				Usage     struct{ Size, Used int } `json:"usage"`
				IPv6Usage struct {
					usageV6
					History  []any `json:"history"`
					Forecast struct{ Basis string }
				} `json:"ipv6Usage"`
			} `json:"subnets"`
		} `json:"vpc"`
	}
	e.ok("acme", `{ vpc(namespace: "acme/prod", name: "main") { ipv6Usage { sizeExact usedExact freeExact unit }
		subnets { usage { size used } ipv6Usage { sizeExact usedExact freeExact unit history { at } forecast { basis } } } } }`, &usages)
	if u, want := usages.VPC.IPv6Usage, (usageV6{SizeExact: "65536", UsedExact: "1", FreeExact: "65535", Unit: "/64s"}); u != want {
		t.Errorf("the VPC's ipv6Usage = %+v, want %+v", u, want)
	}
	web := usages.VPC.Subnets[0]
	if want := (usageV6{SizeExact: "18446744073709551614", UsedExact: "1", FreeExact: "18446744073709551613", Unit: "addresses"}); web.IPv6Usage.usageV6 != want ||
		len(web.IPv6Usage.History) != 0 || web.IPv6Usage.Forecast.Basis != "not enough history yet" || web.Usage.Size != 253 || web.Usage.Used != 1 {
		t.Errorf("subnet web's usage = %+v, ipv6Usage %+v; want 253 and 1, and %+v without history", web.Usage, web.IPv6Usage, want)
	}

	// Once the history is written, the IPv6 sides have theirs: the VPC's in
	// /64s, at the history's length alone; the subnet's in addresses,
	// apart from its IPv4 side's.
	if err := e.svc.RecordUsage(context.Background(), time.Now(), time.Time{}); err != nil {
		t.Fatal(err)
	}
	var histories struct {
		VPC struct {
			IPv6Usage struct {
				History []struct{ SizeExact, UsedExact string }
			} `json:"ipv6Usage"`
			IPv6Usage56 struct{ History []struct{ SizeExact string } } `json:"ipv6Usage56"`
			Subnets     []struct {
				Usage     struct{ History []struct{ Size, Used int } } `json:"usage"`
				IPv6Usage struct {
					History []struct {
						SizeExact, UsedExact string
						Claims               int
					}
				} `json:"ipv6Usage"`
			} `json:"subnets"`
		} `json:"vpc"`
	}
	e.ok("acme", `{ vpc(namespace: "acme/prod", name: "main") { ipv6Usage { history { sizeExact usedExact } } ipv6Usage56: ipv6Usage(prefixLength: 56) { history { sizeExact } }
		subnets { usage { history { size used } } ipv6Usage { history { sizeExact usedExact claims } } } } }`, &histories)
	if h := histories.VPC.IPv6Usage.History; len(h) != 1 || h[0].SizeExact != "65536" || h[0].UsedExact != "1" {
		t.Errorf("the VPC's ipv6Usage history = %+v, want 1 of 65536 (/64s)", h)
	}
	if h := histories.VPC.IPv6Usage56.History; len(h) != 0 {
		t.Errorf("the VPC's ipv6Usage history in /56s = %+v, want none: the history counts /64s", h)
	}
	if sub := histories.VPC.Subnets[0]; len(sub.Usage.History) != 1 || sub.Usage.History[0].Size != 253 || len(sub.IPv6Usage.History) != 1 ||
		sub.IPv6Usage.History[0].SizeExact != "18446744073709551614" || sub.IPv6Usage.History[0].UsedExact != "1" || sub.IPv6Usage.History[0].Claims != 1 {
		t.Errorf("subnet web's histories = %+v, want 1 of 253 and 1 of 18446744073709551614 with its claim", sub)
	}

	var node struct{ AttachNode allocation }
	e.ok("acme", `mutation { attachNode(input: {namespace: "acme/prod", vpc: "main", subnet: "web", node: {uid: "n-1", name: "host-1"}, family: IPV6}) {
		name pool address owner { kind uid name } } }`, &node)
	if a := node.AttachNode; a.Address != "fd12:3456:789a::3" || a.Pool != "vpc-main-v6" || a.Owner != (ownerRef{Kind: "Node", UID: "n-1", Name: "web"}) {
		t.Errorf("attachNode of family IPV6 = %+v, want fd12:3456:789a::3 of vpc-main-v6, owner Node web", a)
	}

	found := e.search("acme", "FD12:3456:789A:0:0:0:0:2", nil)
	if h := found.Search.Hits; found.Search.Form != "ADDRESS" || len(h) != 1 || h[0].Kind != "ALLOCATION" || deref(h[0].Address) != "fd12:3456:789a::2" {
		t.Errorf("search of fd12:3456:789a::2 spelt out = %s, want its allocation", jsonOf(t, found.Search))
	}
	found = e.search("acme", "fd12:3456:789a::", nil)
	if h := found.Search.Hits; len(h) != 1 || deref(h[0].State) != "ANYCAST" ||
		deref(h[0].Explanation) != "fd12:3456:789a:: is the subnet-router anycast address of fd12:3456:789a::/48" {
		t.Errorf("search of the subnet-router anycast address = %s, want it explained, state ANYCAST", jsonOf(t, found.Search))
	}

	var detached struct{ DetachInterface bool }
	e.ok("acme", detachInterface, &detached, "namespace", "acme/prod", "vpc", "main", "uid", "vm-1", "hostname", "web-01", "nic", 0)
	var held int
	if err := e.db.Get(&held, `SELECT count(*) FROM allocations WHERE owner_uid = 'vm-1'`); err != nil || !detached.DetachInterface || held != 0 {
		t.Errorf("detachInterface = %v, and the NIC holds %d addresses (%v); want true and none", detached.DetachInterface, held, err)
	}

	// A delegated prefix goes back to its pool with its VPC.
	e.ok("acme", deleteVpc, nil, "namespace", "acme/prod", "name", "lab")
	e.ok("acme", createVpcV6, &made, "namespace", "acme/prod", "name", "lab2", "cidr", "10.44.0.0/16", "zone", "z1", "ipv6PrefixLength", 56)
	if v := made.CreateVpc; deref(v.IPv6CIDR) != "2001:db8:100::/56" {
		t.Errorf("a VPC delegated a /56 after lab went = %+v, want lab's 2001:db8:100::/56 again", v)
	}
}

// TestDualStackRefusals: createVpc's refusals of IPv6 fields, word for word.
func TestDualStackRefusals(t *testing.T) {
	e := newEnv(t)
	e.ok("op", createPoolV6, nil, "name", "public", "cidr", "192.0.2.0/24", "zone", "z1")
	for _, c := range []struct {
		vars []any
		want string
	}{
		{[]any{"ipv6Cidr", "fd00::/48", "ipv6PrefixLength", 56}, "ipv6Cidr and ipv6PrefixLength both name the VPC's IPv6 prefix: give one of them"},
		{[]any{"ipv6Cidr", "10.1.0.0/16"}, "ipv6Cidr 10.1.0.0/16 is not an IPv6 prefix: give the VPC's IPv4 prefix as cidr"},
		{[]any{"ipv6Cidr", "FD00::/48"}, "ipv6Cidr FD00::/48 is not in canonical form; did you mean fd00::/48?"},
		{[]any{"ipv6PrefixLength", 56}, "ipv6PrefixLength takes the VPC's IPv6 prefix from its zone's delegation pools: give a zone, or give the prefix as ipv6Cidr"},
		{[]any{"ipv6Addressing", "STABLE_OPAQUE"}, "ipv6Addressing is for a VPC with an IPv6 prefix: give ipv6Cidr or ipv6PrefixLength, or leave ipv6Addressing out"},
		{[]any{"zone", "z1", "ipv6PrefixLength", 56},
			"zone z1 has no delegation pool of /56 prefixes: give the VPC's IPv6 prefix as ipv6Cidr, or ask an operator for a public IPv6 pool with delegatedPrefixLength 56"},
	} {
		vars := append([]any{"namespace", "acme/prod", "name", "main", "cidr", "10.42.0.0/16"}, c.vars...)
		e.wantError("acme", codeInvalidArgument, c.want, createVpcV6, vars...)
	}
}

// TestStableOpaque: a VPC of STABLE_OPAQUE addressing gives a NIC an IPv6
// address of its own, not the lowest, and the same one after a detach.
func TestStableOpaque(t *testing.T) {
	e := newEnv(t)
	var made struct{ CreateVpc vpcV6 }
	e.ok("acme", createVpcV6, &made, "namespace", "acme/prod", "name", "main", "cidr", "10.42.0.0/16", "ipv6Cidr", "fd12:3456:789a::/48", "ipv6Addressing", "STABLE_OPAQUE")
	if deref(made.CreateVpc.IPv6Addressing) != "STABLE_OPAQUE" {
		t.Errorf("createVpc with STABLE_OPAQUE = %+v", made.CreateVpc)
	}
	e.ok("acme", createSubnetV6, nil, "namespace", "acme/prod", "vpc", "main", "name", "web", "cidr", "10.42.1.0/24")
	var first, again struct{ AttachNic nicAnswer }
	e.ok("acme", attachNic, &first, "namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", "vm-1", "hostname", "web-01", "nic", 0)
	e.ok("acme", detachInterface, nil, "namespace", "acme/prod", "vpc", "main", "uid", "vm-1", "hostname", "web-01", "nic", 0)
	e.ok("acme", attachNic, &again, "namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", "vm-1", "hostname", "web-01", "nic", 0)
	a, b := first.AttachNic.IPv6, again.AttachNic.IPv6
	if a == nil || b == nil || a.Address != b.Address || a.Address == "fd12:3456:789a::2" || !strings.HasPrefix(a.Address, "fd12:3456:789a:0:") {
		t.Errorf("the NIC's opaque address: %v, then after a detach %v; want one of its own in fd12:3456:789a::/64, the same twice", a, b)
	}
}

// jsonOf is v in JSON, for messages.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDelegations: a delegation pool lists the prefixes it gave, in
// address order: every one for an operator, a tenant's own alone; a pool
// of addresses lists none.
func TestDelegations(t *testing.T) {
	e := newEnv(t)
	e.dualStackPools()
	for _, v := range []struct{ actor, namespace, name, cidr string }{
		{"acme", "acme/prod", "lab", "10.43.0.0/16"}, {"globex", "globex/dev", "mesh", "10.44.0.0/16"},
	} {
		e.ok(v.actor, createVpcV6, nil, "namespace", v.namespace, "name", v.name, "cidr", v.cidr, "zone", "z1", "ipv6PrefixLength", 56)
	}
	type delegation struct{ Prefix, Namespace, VPC, CreatedBy string }
	var pools struct {
		Delegated struct{ Delegations []delegation } `json:"delegated"`
		Uplinks   struct{ Delegations []delegation } `json:"uplinks"`
	}
	query := `{ delegated: pool(name: "v6-delegated") { delegations { prefix namespace vpc createdBy } }
		uplinks: pool(name: "v6-uplinks") { delegations { prefix } } }`
	e.ok("op", query, &pools)
	want := []delegation{{"2001:db8:100::/56", "acme/prod", "lab", "acme"}, {"2001:db8:100:100::/56", "globex/dev", "mesh", "globex"}}
	if got := pools.Delegated.Delegations; !reflect.DeepEqual(got, want) || len(pools.Uplinks.Delegations) != 0 {
		t.Errorf("the operator's delegations = %+v and %+v, want %+v and none", got, pools.Uplinks.Delegations, want)
	}
	e.ok("globex", query, &pools)
	if got := pools.Delegated.Delegations; !reflect.DeepEqual(got, want[1:]) {
		t.Errorf("globex's delegations = %+v, want its own %+v", got, want[1:])
	}
}
