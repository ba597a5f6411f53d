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

// The seed's three example manifests, verbatim, in testdata (the command's
// tests read them too).
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

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name     string
		manifest string
		want     []ipam.CreatePublicPoolInput
	}{
		{"the seed's public pool", seedPublicPool, []ipam.CreatePublicPoolInput{seedPublicInput}},
		{
			"block sequence, ranges, comments, no gateway or zone",
			"apiVersion: pivirt.hu/v1 # the only version\nkind: IPAMPool\nmetadata:\n  name: edge\n" +
				"spec:\n  # a /28\n  cidr: 198.51.100.0/28\n  kind: public\n  exclude:\n    - 198.51.100.2\n    - 198.51.100.5-198.51.100.7\n    - '198.51.100.9 - 198.51.100.10'\n",
			[]ipam.CreatePublicPoolInput{{Name: "edge", CIDR: "198.51.100.0/28", Exclude: []string{"198.51.100.2", "198.51.100.5-198.51.100.7", "198.51.100.9 - 198.51.100.10"}}},
		},
		{
			"a flow sequence with a range",
			pool("edge", "cidr: 203.0.113.0/24", "kind: public", "exclude: [203.0.113.10-203.0.113.20, 203.0.113.30]"),
			[]ipam.CreatePublicPoolInput{{Name: "edge", CIDR: "203.0.113.0/24", Exclude: []string{"203.0.113.10-203.0.113.20", "203.0.113.30"}}},
		},
		{
			"several documents, empty ones between and around",
			"---\n---\n" + seedPublicPool + "---\n# nothing here\n---\n" + pool("edge", "cidr: 198.51.100.0/24", "kind: public") + "...\n---\n",
			[]ipam.CreatePublicPoolInput{seedPublicInput, {Name: "edge", CIDR: "198.51.100.0/24"}},
		},
		{
			"null and empty optional fields, a uid, no labels, no namespace",
			"apiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata:\n  name: edge\n  namespace: ''\n  uid: 3f1c\n  labels: {}\n  ownerRefs: []\n" +
				"spec:\n  cidr: 198.51.100.0/24\n  kind: public\n  gateway: ~\n  exclude:\n  zone: ''\n",
			[]ipam.CreatePublicPoolInput{{Name: "edge", CIDR: "198.51.100.0/24"}},
		},
		{
			"flow mappings, quoted strings and an alias",
			`{apiVersion: "pivirt.hu/v1", kind: IPAMPool, metadata: {name: edge}, spec: {cidr: &c "198.51.100.0/24", kind: public, zone: 'zone-b'}}` +
				"\n---\n" + pool("edge2", "cidr: 192.0.2.0/24", "kind: public", "gateway: &g 192.0.2.1", "exclude: [*g]"),
			[]ipam.CreatePublicPoolInput{
				{Name: "edge", CIDR: "198.51.100.0/24", Zone: "zone-b"},
				{Name: "edge2", CIDR: "192.0.2.0/24", Gateway: "192.0.2.1", Exclude: []string{"192.0.2.1"}},
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
				t.Errorf("Parse = %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	second := "apiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata:\n  name: edge\nspec:\n  kind: public\n"
	tests := []struct {
		name     string
		manifest string
		want     string // the whole message
	}{
		{"the seed's private pool", seedPrivatePool, "private pools are created for each VPC; create a VPC instead"},
		{"the seed's allocation", seedAllocation, "allocations are made by Allocate, never applied"},
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
			"spec.cidrr: unknown field; the fields of spec are cidr, kind, gateway, exclude, zone\nspec.cidr: required"},
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
		{"another kind", strings.Replace(seedPublicPool, "kind: IPAMPool", "kind: VPC", 1),
			"kind: ipam apply accepts only IPAMPool (public pools), got VPC"},
		{"an unknown spec.kind", pool("edge", "cidr: 198.51.100.0/24", "kind: shared"),
			"spec.kind: must be public or private, got shared"},
		{"no spec.kind", pool("edge", "cidr: 198.51.100.0/24"), "spec.kind: required"},
		{"no metadata", "apiVersion: pivirt.hu/v1\nkind: IPAMPool\nspec: {cidr: 198.51.100.0/24, kind: public}\n", "metadata: required"},
		{"no name", "apiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata: {uid: x}\nspec: {cidr: 198.51.100.0/24, kind: public}\n", "metadata.name: required"},
		{"spec a list", "apiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata: {name: edge}\nspec: [cidr]\n", "spec: must be a mapping, got a list"},
		{"a number for a name", pool("123", "cidr: 198.51.100.0/24", "kind: public"), `metadata.name: must be a string; quote it: "123"`},
		{"labels", strings.Replace(seedPublicPool, "  name: public-zone-a\n", "  name: public-zone-a\n  labels: {team: net}\n", 1),
			"metadata.labels: an IPAMPool keeps no labels; remove them"},
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
		{"host bits in the seed's first document of two", strings.Replace(seedPublicPool, "203.0.113.0/24", "10.0.0.5/24", 1) + "---\n" + pool("edge", "cidr: 198.51.100.0/24", "kind: public"),
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
