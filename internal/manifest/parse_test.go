package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/ipam"
)

// The three example manifests, in testdata (the command's tests read them
// too).
var (
	seedPublicPool  = readTestdata("seed-public-pool.yaml")
	seedPrivatePool = readTestdata("seed-private-pool.yaml")
	seedAllocation  = readTestdata("seed-allocation.yaml")
)

// readTestdata returns a file of testdata as text.
func readTestdata(name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return string(b)
}

var seedPublicInput = ipam.CreatePublicPoolInput{
	Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1",
	Exclude: []string{"203.0.113.2", "203.0.113.3"}, Zone: "zone-a",
}

// pool is a public pool document named name with the spec lines given.
func pool(name string, spec ...string) string {
	return "apiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata:\n  name: " + name + "\nspec:\n  " + strings.Join(spec, "\n  ") + "\n"
}

// labelled is a public pool document edge with the labels given.
func labelled(labels string) string {
	return "apiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata:\n  name: edge\n  labels: " + labels + "\nspec:\n  cidr: 198.51.100.0/24\n  kind: public\n"
}

// vpcDoc is a VPC document main of acme/prod with the spec lines given.
func vpcDoc(spec ...string) string {
	return "apiVersion: pivirt.hu/v1\nkind: VPC\nmetadata:\n  name: main\n  namespace: acme/prod\nspec:\n  " + strings.Join(spec, "\n  ") + "\n"
}

// The uid of the VPC of the examples, and its private pool as ipam get
// prints it.
const (
	mainUID     = "5b0e8f4a-1c2d-4e3f-8a9b-0c1d2e3f4a5b"
	privatePool = "apiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata:\n  name: vpc-main\n  namespace: acme/prod\n  uid: 9a7f\n" +
		"  ownerRefs: [{kind: VPC, uid: " + mainUID + ", controller: true}]\nspec:\n  cidr: 10.42.0.0/16\n  kind: private\n"
)

// public, private and vpcObject wrap an input as an object of a manifest.
func public(in ipam.CreatePublicPoolInput) ipam.ApplyObject { return ipam.ApplyObject{PublicPool: &in} }

func private(in ipam.PrivatePoolInput) ipam.ApplyObject { return ipam.ApplyObject{PrivatePool: &in} }

func vpcObject(in ipam.ApplyVPCInput) ipam.ApplyObject { return ipam.ApplyObject{VPC: &in} }

var (
	mainVPC = ipam.ApplyVPCInput{
		CreateVPCInput: ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"}, UID: mainUID,
		Subnets: []ipam.CreateSubnetInput{{Name: "web", CIDR: "10.42.1.0/24", Gateway: "10.42.1.1"}, {Name: "db", CIDR: "10.42.2.0/24"}},
	}
	mainPool = ipam.PrivatePoolInput{Namespace: "acme/prod", Name: "vpc-main", CIDR: "10.42.0.0/16", VPCUID: mainUID}
)

// vpcAsPrinted is mainVPC as ipam get vpcs -o yaml prints it, status
// included.
const vpcAsPrinted = `apiVersion: pivirt.hu/v1
kind: VPC
metadata:
  name: main
  namespace: acme/prod
  uid: ` + mainUID + `
spec:
  cidr: 10.42.0.0/16
  zone: zone-a
  subnets:
    - {name: web, cidr: 10.42.1.0/24, gateway: 10.42.1.1}
    - {name: db, cidr: 10.42.2.0/24}
status:
  pool: vpc-main
  router: 203.0.113.4
  defaultRoute: 203.0.113.1
`

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name     string
		manifest string
		want     []ipam.ApplyObject
	}{
		{"the example public pool", seedPublicPool, []ipam.ApplyObject{public(seedPublicInput)}},
		{
			"block sequence, ranges, comments, no gateway or zone",
			"apiVersion: pivirt.hu/v1 # the only version\nkind: IPAMPool\nmetadata:\n  name: edge\n" +
				"spec:\n  # a /28\n  cidr: 198.51.100.0/28\n  kind: public\n  exclude:\n    - 198.51.100.2\n    - 198.51.100.5-198.51.100.7\n    - '198.51.100.9 - 198.51.100.10'\n",
			[]ipam.ApplyObject{public(ipam.CreatePublicPoolInput{Name: "edge", CIDR: "198.51.100.0/28", Exclude: []string{"198.51.100.2", "198.51.100.5-198.51.100.7", "198.51.100.9 - 198.51.100.10"}})},
		},
		{
			"a flow sequence with a range",
			pool("edge", "cidr: 203.0.113.0/24", "kind: public", "exclude: [203.0.113.10-203.0.113.20, 203.0.113.30]"),
			[]ipam.ApplyObject{public(ipam.CreatePublicPoolInput{Name: "edge", CIDR: "203.0.113.0/24", Exclude: []string{"203.0.113.10-203.0.113.20", "203.0.113.30"}})},
		},
		{
			"several documents, empty ones between and around",
			"---\n---\n" + seedPublicPool + "---\n# nothing here\n---\n" + pool("edge", "cidr: 198.51.100.0/24", "kind: public") + "...\n---\n",
			[]ipam.ApplyObject{public(seedPublicInput), public(ipam.CreatePublicPoolInput{Name: "edge", CIDR: "198.51.100.0/24"})},
		},
		{
			"null and empty optional fields, a uid, no labels, no namespace",
			"apiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata:\n  name: edge\n  namespace: ''\n  uid: 3f1c\n  labels: {}\n  ownerRefs: []\n" +
				"spec:\n  cidr: 198.51.100.0/24\n  kind: public\n  gateway: ~\n  exclude:\n  zone: ''\n",
			[]ipam.ApplyObject{public(ipam.CreatePublicPoolInput{Name: "edge", CIDR: "198.51.100.0/24"})},
		},
		{
			"flow mappings, quoted strings and an alias",
			`{apiVersion: "pivirt.hu/v1", kind: IPAMPool, metadata: {name: edge}, spec: {cidr: &c "198.51.100.0/24", kind: public, zone: 'zone-b'}}` +
				"\n---\n" + pool("edge2", "cidr: 192.0.2.0/24", "kind: public", "gateway: &g 192.0.2.1", "exclude: [*g]"),
			[]ipam.ApplyObject{
				public(ipam.CreatePublicPoolInput{Name: "edge", CIDR: "198.51.100.0/24", Zone: "zone-b"}),
				public(ipam.CreatePublicPoolInput{Name: "edge2", CIDR: "192.0.2.0/24", Gateway: "192.0.2.1", Exclude: []string{"192.0.2.1"}}),
			},
		},
		{
			"labels, a prefixed key, an empty and a quoted value",
			"apiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata:\n  name: edge\n  labels:\n    team: net\n    pivirt.hu/tier: gold\n    empty: ''\n    on: 'true'\n" +
				"spec:\n  cidr: 198.51.100.0/24\n  kind: public\n",
			[]ipam.ApplyObject{public(ipam.CreatePublicPoolInput{Name: "edge", CIDR: "198.51.100.0/24",
				Labels: map[string]string{"team": "net", "pivirt.hu/tier": "gold", "empty": "", "on": "true"}})},
		},
		{"a VPC as ipam get prints it, its status ignored", vpcAsPrinted, []ipam.ApplyObject{vpcObject(mainVPC)}},
		{
			"a VPC without uid, zone or subnets, and a status of any form",
			vpcDoc("cidr: 10.42.0.0/16") + "status: [whatever]\n",
			[]ipam.ApplyObject{vpcObject(ipam.ApplyVPCInput{CreateVPCInput: ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16"}})},
		},
		{
			"a VPC of 59 characters",
			strings.Replace(vpcDoc("cidr: 10.42.0.0/16", "subnets: []"), "name: main", "name: "+strings.Repeat("a", 59), 1),
			[]ipam.ApplyObject{vpcObject(ipam.ApplyVPCInput{CreateVPCInput: ipam.CreateVPCInput{Namespace: "acme/prod", Name: strings.Repeat("a", 59), CIDR: "10.42.0.0/16"}})},
		},
		{"a VPC's private pool as ipam get prints it", privatePool, []ipam.ApplyObject{private(mainPool)}},
		{
			"a private pool with labels, a block owner reference and empty optional fields",
			"apiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata:\n  name: vpc-main\n  namespace: acme/prod\n  labels: {team: net}\n  ownerRefs:\n    - kind: VPC\n      uid: " + mainUID + "\n      controller: true\n" +
				"spec:\n  cidr: 10.42.0.0/16\n  kind: private\n  gateway: ''\n  exclude: []\n  zone:\n",
			[]ipam.ApplyObject{private(ipam.PrivatePoolInput{Namespace: "acme/prod", Name: "vpc-main", CIDR: "10.42.0.0/16", VPCUID: mainUID, Labels: map[string]string{"team": "net"}})},
		},
		{
			"ipam get pools then ipam get vpcs: every kind, in document order",
			seedPublicPool + "---\n" + privatePool + "---\n" + vpcAsPrinted,
			[]ipam.ApplyObject{public(seedPublicInput), private(mainPool), vpcObject(mainVPC)},
		},
		{
			"a VPC named as a public pool, and two VPCs of one name in two namespaces",
			pool("main", "cidr: 198.51.100.0/24", "kind: public") + "---\n" + vpcDoc("cidr: 10.42.0.0/16") + "---\n" +
				strings.Replace(vpcDoc("cidr: 10.42.0.0/16"), "acme/prod", "acme/dev", 1),
			[]ipam.ApplyObject{
				public(ipam.CreatePublicPoolInput{Name: "main", CIDR: "198.51.100.0/24"}),
				vpcObject(ipam.ApplyVPCInput{CreateVPCInput: ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16"}}),
				vpcObject(ipam.ApplyVPCInput{CreateVPCInput: ipam.CreateVPCInput{Namespace: "acme/dev", Name: "main", CIDR: "10.42.0.0/16"}}),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.manifest))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse = %s\nwant %s", objectsString(got), objectsString(tt.want))
			}
		})
	}
}

// objectsString writes objects for a test's message.
func objectsString(objects []ipam.ApplyObject) string {
	var b strings.Builder
	for _, o := range objects {
		switch {
		case o.PublicPool != nil:
			fmt.Fprintf(&b, "\n  public %#v", *o.PublicPool)
		case o.PrivatePool != nil:
			fmt.Fprintf(&b, "\n  private %#v", *o.PrivatePool)
		case o.VPC != nil:
			fmt.Fprintf(&b, "\n  VPC %#v", *o.VPC)
		}
	}
	return b.String()
}

func TestParseRefuses(t *testing.T) {
	second := "apiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata:\n  name: edge\nspec:\n  kind: public\n"
	tests := []struct {
		name     string
		manifest string
		want     string // the whole message
	}{
		{"the example private pool", seedPrivatePool, "private pools are created for each VPC; create a VPC instead"},
		{"the example allocation", seedAllocation, "allocations are made by Allocate, never applied"},
		{"a namespace", strings.Replace(seedPublicPool, "  name: public-zone-a\n", "  name: public-zone-a\n  namespace: ops\n", 1),
			"private pools are created for each VPC; create a VPC instead"},
		{"an owner", strings.Replace(seedPublicPool, "  name: public-zone-a\n", "  name: public-zone-a\n  ownerRefs:\n    - {kind: VPC, uid: x, controller: true}\n", 1),
			"private pools are created for each VPC; create a VPC instead"},
		{"spec.kind private", pool("edge", "cidr: 198.51.100.0/24", "kind: private"),
			"private pools are created for each VPC; create a VPC instead"},
		{"an allocation among pools", seedPublicPool + "---\n" + seedAllocation,
			"document 2 (line 16): allocations are made by Allocate, never applied"},
		{"a missing cidr", pool("edge", "kind: public"), "spec.cidr: required"},
		{"an empty cidr", pool("edge", "cidr: ''", "kind: public"), "spec.cidr: required"},
		{"a misspelt field", pool("edge", "cidrr: 198.51.100.0/24", "kind: public"),
			"spec.cidrr: unknown field; the fields of spec are cidr, kind, gateway, exclude, zone, delegatedPrefixLength\nspec.cidr: required"},
		{"an unknown metadata field", strings.Replace(seedPublicPool, "  name: public-zone-a\n", "  name: public-zone-a\n  annotations: {}\n", 1),
			"metadata.annotations: unknown field; the fields of metadata are name, namespace, uid, labels, ownerRefs"},
		{"an unknown top-level field", seedPublicPool + "status: {}\n",
			"status: unknown field; the fields of an object are apiVersion, kind, metadata, spec"},
		{"a field given twice", pool("edge", "cidr: 198.51.100.0/24", "kind: public", "cidr: 198.51.101.0/24"),
			"spec.cidr: given twice; give it once"},
		{"another apiVersion", strings.Replace(seedPublicPool, "pivirt.hu/v1", "pivirt.hu/v2", 1),
			"apiVersion: must be pivirt.hu/v1, got pivirt.hu/v2"},
		{"no apiVersion", strings.Replace(seedPublicPool, "apiVersion: pivirt.hu/v1\n", "", 1), "apiVersion: required"},
		{"no kind", strings.Replace(seedPublicPool, "kind: IPAMPool\n", "", 1), "kind: required"},
		{"another kind", strings.Replace(seedPublicPool, "kind: IPAMPool", "kind: Subnet", 1),
			"kind: ipam apply accepts IPAMPool and VPC documents, got Subnet"},
		{"an unknown spec.kind", pool("edge", "cidr: 198.51.100.0/24", "kind: shared"),
			"spec.kind: must be public or private, got shared"},
		{"no spec.kind", pool("edge", "cidr: 198.51.100.0/24"), "spec.kind: required"},
		{"no metadata", "apiVersion: pivirt.hu/v1\nkind: IPAMPool\nspec: {cidr: 198.51.100.0/24, kind: public}\n", "metadata: required"},
		{"no name", "apiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata: {uid: x}\nspec: {cidr: 198.51.100.0/24, kind: public}\n", "metadata.name: required"},
		{"spec a list", "apiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata: {name: edge}\nspec: [cidr]\n", "spec: must be a mapping, got a list"},
		{"a number for a name", pool("123", "cidr: 198.51.100.0/24", "kind: public"), `metadata.name: must be a string; quote it: "123"`},
		{"a number among the excludes", pool("edge", "cidr: 198.51.100.0/24", "kind: public", "exclude: [198.51.100.7, 5]"),
			"spec.exclude[1]: must be a string, got 5"},
		{"a mapping among the excludes", pool("edge", "cidr: 198.51.100.0/24", "kind: public", "exclude:", "  - 198.51.100.7", "  - {from: 198.51.100.8}"),
			"spec.exclude[1]: must be a string, got a mapping"},
		{"exclude a string", pool("edge", "cidr: 198.51.100.0/24", "kind: public", "exclude: 198.51.100.7"),
			"spec.exclude: must be a list of addresses and ranges such as [203.0.113.2, 203.0.113.10-203.0.113.20], got 198.51.100.7"},
		{"too many excludes", pool("edge", "cidr: 10.0.0.0/8", "kind: public", "exclude: ["+strings.Repeat("10.0.0.1,", MaxExcludes)+"10.0.0.2]"),
			"spec.exclude: 4097 entries, more than 4096; write runs of addresses as ranges such as 203.0.113.10-203.0.113.20"},
		{"a document not a mapping", "- apiVersion: pivirt.hu/v1\n", "must be a mapping of apiVersion, kind, metadata and spec, got a list"},

		// The domain's checks, under the field's path.
		{"host bits", pool("edge", "cidr: 10.0.0.5/24", "kind: public"),
			"spec.cidr: cidr 10.0.0.5/24 has host bits set; did you mean 10.0.0.0/24?"},
		{"host bits in the example's first document of two", strings.Replace(seedPublicPool, "203.0.113.0/24", "10.0.0.5/24", 1) + "---\n" + pool("edge", "cidr: 198.51.100.0/24", "kind: public"),
			"document 1 (line 3): spec.cidr: cidr 10.0.0.5/24 has host bits set; did you mean 10.0.0.0/24?"},
		{"a bad name", pool("Edge", "cidr: 198.51.100.0/24", "kind: public"),
			`metadata.name: name "Edge" is not a valid name: use lower-case letters, digits and '-', starting and ending with a letter or digit`},
		{"a bad zone", pool("edge", "cidr: 198.51.100.0/24", "kind: public", "zone: Zone_A"),
			`spec.zone: zone "Zone_A" is not a valid zone: use lower-case letters, digits and '-'`},
		{"a gateway outside", pool("edge", "cidr: 198.51.100.0/24", "kind: public", "gateway: 198.51.101.1"),
			"spec.gateway: gateway 198.51.101.1 is outside cidr 198.51.100.0/24"},
		{"every mistake of the excludes", pool("edge", "cidr: 198.51.100.0/24", "kind: public", "exclude: [198.51.100.9-198.51.100.1, 7, 10.0.0.1, nope]"),
			"spec.exclude[1]: must be a string, got 7\n" +
				`spec.exclude[0]: exclude[0] "198.51.100.9-198.51.100.1" is a descending range; write 198.51.100.1-198.51.100.9` + "\n" +
				"spec.exclude[2]: exclude[2] 10.0.0.1 is outside cidr 198.51.100.0/24\n" +
				`spec.exclude[3]: exclude[3] "nope" is not an IPv4 address such as 10.0.0.1`},

		// Labels, by Kubernetes' rules.
		{"a label value not a string", labelled("{team: net, replicas: 3}"), `metadata.labels.replicas: must be a string; quote it: "3"`},
		{"a label value a list", labelled("{team: [net]}"), "metadata.labels.team: must be a string, got a list"},
		{"a label given twice", labelled("{team: net, team: ops}"), "metadata.labels.team: given twice; give it once"},
		{"labels a list", labelled("[team]"), "metadata.labels: must be a mapping of keys to values such as {pivirt.hu/tier: gold}, got a list"},
		{"a label key a mapping", labelled("{{a: b}: c}"), "metadata.labels: a label key must be a word, got a mapping on line 5"},
		{"a label key with a space", labelled(`{"my team": net}`),
			`metadata.labels."my team": label key "my team" is not valid: its name must be 1 to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, after an optional prefix and '/' such as pivirt.hu/tier`},
		{"a label key of two slashes", labelled("{a/b/c: d}"),
			`metadata.labels.a/b/c: label key "a/b/c" is not valid: its name must be 1 to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, after an optional prefix and '/' such as pivirt.hu/tier`},
		{"a label key too long", labelled("{" + strings.Repeat("k", 64) + ": v}"),
			`metadata.labels.` + strings.Repeat("k", 64) + `: label key "` + strings.Repeat("k", 64) + `" is not valid: its name must be 1 to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, after an optional prefix and '/' such as pivirt.hu/tier`},
		{"a label prefix in upper case", labelled("{Pivirt.hu/tier: gold}"),
			`metadata.labels.Pivirt.hu/tier: label key "Pivirt.hu/tier" is not valid: its prefix, before '/', must be a DNS subdomain in lower case of at most 253 characters, such as pivirt.hu`},
		{"an empty label prefix", labelled("{/tier: gold}"),
			`metadata.labels./tier: label key "/tier" is not valid: its prefix, before '/', must be a DNS subdomain in lower case of at most 253 characters, such as pivirt.hu`},
		{"label values not valid", labelled("{a: -x, b: x y, c: ok, d: " + strings.Repeat("v", 64) + "}"),
			`metadata.labels.a: label value "-x" is not valid: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, or empty` + "\n" +
				`metadata.labels.b: label value "x y" is not valid: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, or empty` + "\n" +
				`metadata.labels.d: label value "` + strings.Repeat("v", 64) + `" is not valid: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, or empty`},
		{"too many labels", labelled("{" + manyLabels(65) + "}"), "metadata.labels: labels holds 65 entries, more than 64"},

		// VPCs.
		{"a VPC name too long for its pool", strings.Replace(vpcDoc("cidr: 10.42.0.0/16"), "name: main", "name: "+strings.Repeat("a", 60), 1),
			`metadata.name: name "` + strings.Repeat("a", 60) + `" is too long for a VPC: at most 59 characters, since its pool is named vpc-<name>`},
		{"a VPC without namespace", strings.Replace(vpcDoc("cidr: 10.42.0.0/16"), "  namespace: acme/prod\n", "", 1), "metadata.namespace: required"},
		{"a VPC without cidr", vpcDoc("zone: zone-a"), "spec.cidr: required"},
		{"a VPC's uid not a UUID", strings.Replace(vpcDoc("cidr: 10.42.0.0/16"), "  namespace: acme/prod\n", "  namespace: acme/prod\n  uid: 5b0e\n", 1),
			`metadata.uid: uid "5b0e" is not a UUID such as 5b0e8f4a-1c2d-4e3f-8a9b-0c1d2e3f4a5b`},
		{"a VPC's labels", strings.Replace(vpcDoc("cidr: 10.42.0.0/16"), "  namespace: acme/prod\n", "  namespace: acme/prod\n  labels: {team: net}\n", 1),
			"metadata.labels: unknown field; the fields of a VPC's metadata are name, namespace, uid"},
		{"a VPC's gateway", vpcDoc("cidr: 10.42.0.0/16", "gateway: 10.42.0.1"), "spec.gateway: unknown field; the fields of a VPC's spec are cidr, zone, ipv6Cidr, ipv6PrefixLength, ipv6Addressing, subnets"},
		{"a VPC's unknown top-level field", vpcDoc("cidr: 10.42.0.0/16") + "statuses: {}\n",
			"statuses: unknown field; the fields of a VPC are apiVersion, kind, metadata, spec, status"},
		{"every mistake of a VPC's fields", "apiVersion: pivirt.hu/v1\nkind: VPC\nmetadata: {name: Main, namespace: Acme}\nspec: {cidr: 10.42.0.0/30, zone: Zone_A}\n",
			`metadata.namespace: namespace "Acme" is not a valid namespace: names of lower-case letters, digits and '-', separated by '/', such as acme/prod` + "\n" +
				`metadata.name: name "Main" is not a valid name: use lower-case letters, digits and '-', starting and ending with a letter or digit` + "\n" +
				"spec.cidr: cidr 10.42.0.0/30 is not a VPC prefix: use /8 to /28\n" +
				`spec.zone: zone "Zone_A" is not a valid zone: use lower-case letters, digits and '-'`},
		{"subnets a mapping", vpcDoc("cidr: 10.42.0.0/16", "subnets: {web: 10.42.1.0/24}"),
			"spec.subnets: must be a list of subnets such as [{name: web, cidr: 10.42.1.0/24}], got a mapping"},
		{"every mistake of the subnets", vpcDoc("cidr: 10.42.0.0/16", "subnets:",
			"  - {name: web, cidr: 10.42.1.0/24}", "  - {name: web, cidr: 10.42.1.5/24}", "  - {cidr: 10.42.3.0/24, prefixLength: 24}",
			"  - {name: Db, cidr: 10.42.4.0/24}", "  - {name: dns, cidr: 10.42.5.0/24, gateway: 10.42.5.256}", "  - web"),
			"spec.subnets[1].name: web is also the name of spec.subnets[0]; name each subnet once\n" +
				"spec.subnets[2].prefixLength: unknown field; the fields of a subnet are name, cidr, gateway, ipv6Cidr, ipv6PrefixLength\n" +
				"spec.subnets[2].name: required\n" +
				"spec.subnets[5]: must be a mapping, got web\n" +
				"spec.subnets[1].cidr: cidr 10.42.1.5/24 has host bits set; did you mean 10.42.1.0/24?\n" +
				`spec.subnets[3].name: name "Db" is not a valid name: use lower-case letters, digits and '-', starting and ending with a letter or digit` + "\n" +
				`spec.subnets[4].gateway: gateway "10.42.5.256" is not an IPv4 address such as 10.0.0.1`},
		{"one VPC twice", vpcAsPrinted + "---\n" + strings.Replace(vpcAsPrinted, "  uid: "+mainUID+"\n", "", 1),
			"document 2 (line 18): metadata.name: main is also the name of document 1; name each VPC of a namespace once"},
		{"one uid for two VPCs", vpcAsPrinted + "---\n" + strings.Replace(vpcAsPrinted, "name: main", "name: lab", 1),
			"document 2 (line 18): metadata.uid: " + mainUID + " is also the uid of document 1; give each VPC its own"},
		{"an allocation among VPCs", vpcAsPrinted + "---\n" + seedAllocation,
			"document 2 (line 20): allocations are made by Allocate, never applied"},

		// Private pools: refused, but for one a VPC made.
		{"a private pool with a gateway", strings.Replace(privatePool, "kind: private", "kind: private\n  gateway: 10.42.0.1", 1),
			"private pools are created for each VPC; create a VPC instead"},
		{"a private pool with a zone", strings.Replace(privatePool, "kind: private", "kind: private\n  zone: zone-a", 1),
			"private pools are created for each VPC; create a VPC instead"},
		{"a private pool not named vpc-", strings.Replace(privatePool, "name: vpc-main", "name: main", 1),
			"private pools are created for each VPC; create a VPC instead"},
		{"a private pool owned by no controller", strings.Replace(privatePool, "controller: true", "controller: false", 1),
			"private pools are created for each VPC; create a VPC instead"},
		{"a private pool owned by a node", strings.Replace(privatePool, "kind: VPC", "kind: Node", 1),
			"private pools are created for each VPC; create a VPC instead"},
		{"a private pool with two owners", strings.Replace(privatePool, "controller: true}", "controller: true}, {kind: VPC, uid: "+mainUID+"}", 1),
			"private pools are created for each VPC; create a VPC instead"},
		{"a private pool of an owner whose uid is no UUID", strings.Replace(privatePool, mainUID, "5b0e", 1),
			"private pools are created for each VPC; create a VPC instead"},
		{"a private pool with a bad cidr and an unknown owner field", strings.Replace(strings.Replace(privatePool, "10.42.0.0/16", "10.42.0.1/16", 1), "controller: true", "controller: true, name: main", 1),
			"metadata.ownerRefs[0].name: unknown field; the fields of an owner reference are kind, uid, controller\n" +
				"spec.cidr: cidr 10.42.0.1/16 has host bits set; did you mean 10.42.0.0/16?"},
		{"one private pool twice", privatePool + "---\n" + privatePool,
			"document 2 (line 12): metadata.name: vpc-main is also the name of document 1; name each pool once"},

		// Several documents: each mistake names its document and line.
		{"the second of two documents", seedPublicPool + "---\n" + second,
			"document 2 (line 14): spec.cidr: required"},
		{"one name twice", seedPublicPool + "---\n" + seedPublicPool,
			"document 2 (line 16): metadata.name: public-zone-a is also the name of document 1; name each pool once"},
		{"mistakes in several documents", pool("a", "kind: public") + "---\n---\n" + pool("b", "cidr: 198.51.100.0/24", "kind: public", "zone: 7"),
			"document 1 (line 1): spec.cidr: required\n" + `document 3 (line 9): spec.zone: must be a string; quote it: "7"`},

		// The manifest as a whole.
		{"an empty manifest", "", "the manifest holds no object; write an IPAMPool with apiVersion: pivirt.hu/v1, kind: IPAMPool, metadata and spec"},
		{"only comments and empty documents", "# nothing\n---\n---\n...\n", "the manifest holds no object; write an IPAMPool with apiVersion: pivirt.hu/v1, kind: IPAMPool, metadata and spec"},
		{"a null document", "~\n", "the manifest holds no object; write an IPAMPool with apiVersion: pivirt.hu/v1, kind: IPAMPool, metadata and spec"},
		{"not YAML", seedPublicPool + "---\nspec: 1\n  cidr: 2\n", "not valid YAML: line 15: mapping values are not allowed in this context"},
		{"an unknown alias", pool("edge", "cidr: *c", "kind: public"), "not valid YAML: unknown anchor 'c' referenced"},
		{"too large", seedPublicPool + "# " + strings.Repeat("x", MaxBytes) + "\n", "the manifest is larger than 4 MiB; split it into several files"},
		{"too many documents", strings.Repeat("---\n", MaxDocuments+1), "the manifest holds more than 10000 documents; split it into several files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.manifest))
			if err == nil {
				t.Fatalf("Parse = %#v, want the error %q", got, tt.want)
			}
			if got != nil {
				t.Errorf("Parse returned pools %#v with its error", got)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse: %v\nwant: %s", err, tt.want)
			}
			var errs Errors
			if !errors.As(err, &errs) {
				t.Errorf("Parse: %T, want Errors", err)
			}
		})
	}
}

// manyLabels writes n labels for a flow mapping.
func manyLabels(n int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("k%d: v", i)
	}
	return strings.Join(out, ", ")
}

// TestParseStopsAfterMaxErrors checks that a manifest full of mistakes is
// answered with MaxErrors of them and a note.
func TestParseStopsAfterMaxErrors(t *testing.T) {
	var b strings.Builder
	for i := range MaxErrors + 5 {
		fmt.Fprintf(&b, "---\n%s", pool(fmt.Sprintf("p%d", i), "kind: public"))
	}
	_, err := Parse(strings.NewReader(b.String()))
	var errs Errors
	if !errors.As(err, &errs) || len(errs) != MaxErrors+1 {
		t.Fatalf("Parse: %d mistakes (%v), want %d and a note", len(errs), err, MaxErrors)
	}
	if last := errs[len(errs)-1].Error(); last != "stopped after 20 mistakes; correct these first" {
		t.Errorf("the last line is %q", last)
	}
	if first := errs[0].Error(); first != "document 1 (line 2): spec.cidr: required" {
		t.Errorf("the first line is %q", first)
	}
}

// TestErrorFields checks the parts of an Error.
func TestErrorFields(t *testing.T) {
	_, err := Parse(strings.NewReader(seedPublicPool + "---\n" + pool("edge", "cidr: 10.0.0.5/24", "kind: public")))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Parse: %v, want an *Error", err)
	}
	want := Error{Document: 2, Line: 14, Path: "spec.cidr", Message: "cidr 10.0.0.5/24 has host bits set; did you mean 10.0.0.0/24?"}
	if *e != want {
		t.Errorf("Parse: %+v, want %+v", *e, want)
	}
}
