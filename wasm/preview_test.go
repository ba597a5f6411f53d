//go:build !js

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/candidates"
)

// previewInputs is the differential table: each input is answered by the
// WASM module in node and by the Go package, and the answers must match
// byte for byte.
var previewInputs = []string{
	`{"pool":{"cidr":"203.0.113.0/24","gateway":"203.0.113.1","exclude":["203.0.113.2","203.0.113.3"]},"next":8,"map":true}`,
	`{"pool":{"cidr":"203.0.113.0/24","gateway":"203.0.113.1","exclude":["203.0.113.2","203.0.113.3"]},"taken":["203.0.113.4-203.0.113.5"],"explain":["203.0.113.1","203.0.113.4","203.0.113.6","198.51.100.1"]}`,
	`{"pool":{"cidr":"10.42.0.0/16"},"request":{"within":"10.42.1.0/24","reserved":["10.42.1.1"]},"taken":["10.42.1.2-10.42.1.40","10.42.1.42"],"next":4,"map":true}`,
	`{"pool":{"cidr":"10.42.0.0/16","gateway":"10.42.0.1"},"taken":["10.42.0.0-10.42.3.255"],"map":true,"next":3}`,
	`{"pool":{"cidr":"10.0.0.0/31"},"next":3}`,
	`{"pool":{"cidr":"10.0.0.7/32"},"taken":["10.0.0.7"]}`,
	`{"pool":{"cidr":"10.42.0.0/16"},"request":{"within":"10.42.9.0/30","reserved":["10.42.9.1"]},"taken":["10.42.9.2"]}`,
	`{"pool":{"cidr":"10.0.0.5/24"}}`,
	`{"pool":{"cidr":"10.0.0.0/24","gateway":"10.0.0.0","exclude":["10.0.0.9-10.0.0.3","10.0.1.1","x"]}}`,
	`{"pool":{"cidr":""},"taken":["nope"],"explain":["::1"],"next":1000}`,
	`{"pool":{"cidr":"2001:db8::/64"}}`,
	`{"pool":{"cidr":"10.0.0.0/24"},"request":{"within":"10.0.1.0/24"}}`,
	`{"pool":{"cidr":"10.0.0.0/24"},"surprise":true}`,
	`not json`,
	``,
	`{"pool":{"cidr":"10.0.0.0/8"},"map":true}`,
	`{"pool":{"cidr":"10.0.0.0/24","exclude":["10.0.0.1 - 10.0.0.9"]},"next":2,"explain":["10.0.0.5"]}`,
	`{"pool":{"cidr":"10.0.0.0/24","gateway":"10.0.0.1","exclude":["Ω"]}}`,
}

func TestPreviewMatchesServer(t *testing.T) {
	inputs := make([]any, 0, len(previewInputs)+8)
	for _, in := range previewInputs {
		inputs = append(inputs, in)
	}
	list := fragmentedList(60000)
	big := fragmentedInput(60000)
	inputs = append(inputs,
		big,
		[2]string{`{"pool":{"cidr":"10.0.0.0/16","gateway":"10.0.0.1"},"next":8}`, list},
		[2]string{`{"pool":{"cidr":"10.0.0.0/16","gateway":"10.0.0.1"},"next":8}`, list},
		[2]string{`{"pool":{"cidr":"10.0.0.0/16","gateway":"10.0.0.1"},"next":8,"explain":["10.0.0.2","10.0.0.3"]}`, list},
		[2]string{`{"pool":{"cidr":"10.0.0.0/24"},"takenRanges":"10.0.0.1"}`, "10.0.0.2-10.0.0.3,10.0.0.9"},
		[2]string{`{"pool":{"cidr":"10.0.0.0/24"}}`, "10.0.0.2-10.0.0.1,nope"},
		[2]string{`{"pool":{"cidr":"10.0.0.5/24"}}`, "10.0.0.2"},
		[2]string{`{"pool":{"cidr":"10.0.0.0/24"}}`, ""},
	)
	subnetsAt := len(inputs)
	for _, in := range subnetPreviewInputs {
		inputs = append(inputs, call{"ipamPreviewSubnet", []any{in}})
	}
	inputs = append(inputs,
		call{"ipamPreviewSubnet", []any{manySubnetsInput(10000, 30)}},
		call{"ipamPreviewSubnet", []any{manySubnetsInput(10000, 16)}},
		call{"ipamPreviewSubnet", []any{}},
		call{"ipamPreviewSubnet", []any{42}},
	)
	claimsAt := len(inputs)
	for _, in := range claimInputs {
		inputs = append(inputs, call{"ipamPredictClaim", []any{in[0], in[1]}})
	}
	bigVPC := bigClaims(60000)
	inputs = append(inputs,
		call{"ipamPredictClaim", []any{bigVPC, `{"interface":{"subnet":"big"}}`}},
		call{"ipamPredictClaim", []any{bigVPC, `{"interface":{"subnet":"big"}}`}},
		call{"ipamPredictClaim", []any{bigVPC, `{"subnet":{"prefixLength":24}}`}},
		call{"ipamPredictClaim", []any{claimInputs[0][0]}},
		call{"ipamPredictClaim", []any{}},
	)
	answers := runInNode(t, inputs)
	checkAnswers(t, inputs, answers)
	n := len(previewInputs)
	t.Logf("next 8 of a /16 with 60000 taken in fragments, in wasm: %.2f ms in the JSON, %.2f ms passed apart, then %.2f ms per call",
		answers[n].Ms, answers[n+1].Ms, answers[n+2].Ms)
	n = subnetsAt + len(subnetPreviewInputs)
	t.Logf("next 8 free /30s and /16s of a /8 with 10000 subnets, in wasm: %.2f ms and %.2f ms", answers[n].Ms, answers[n+1].Ms)
	n = claimsAt + len(claimInputs)
	t.Logf("an interface in a /16 subnet with 60000 taken in fragments, in wasm: %.2f ms parsing the claims, then %.2f ms per call",
		answers[n].Ms, answers[n+1].Ms)
}

// checkAnswers checks that the module's answers to inputs are the Go
// package's, byte for byte.
func checkAnswers(t *testing.T, inputs []any, answers []nodeAnswer) {
	t.Helper()
	for i, in := range inputs {
		var want string
		switch in := in.(type) {
		case string:
			want = string(candidates.PreviewJSON([]byte(in)))
		case [2]string:
			want = string(candidates.PreviewJSON(withTakenRanges(t, in[0], in[1])))
		case call:
			// What the module answers when its arguments are not strings.
			var args [2][]byte
			for i, a := range in.Args {
				if s, ok := a.(string); ok {
					args[i] = []byte(s)
				}
			}
			switch {
			case in.Function == "ipamPreviewSubnet":
				want = string(candidates.SubnetPreviewJSON(args[0]))
			case len(in.Args) == 2:
				want = string(candidates.PredictClaimJSON(args[0], args[1]))
			default:
				want = string(candidates.PredictClaimJSON(nil, nil))
			}
		}
		if answers[i].Output != want {
			t.Errorf("input %d %.120v:\nwasm %s\n  go %s", i, in, answers[i].Output, want)
		}
	}
}

// claimsMain is the claims of a VPC page: subnets web and tiny (full),
// zones a (its first pool full) and b (full).
const claimsMain = `{"namespace":"acme/prod","vpc":"main","pool":{"name":"vpc-main","cidr":"10.42.0.0/16"},` +
	`"subnets":[{"name":"web","cidr":"10.42.1.0/24","gateway":"10.42.1.1","taken":"10.42.1.2-10.42.1.4"},{"name":"tiny","cidr":"10.42.2.0/30","gateway":"10.42.2.1","taken":"10.42.2.2"}],` +
	`"zones":[{"name":"zone-a","pools":[{"name":"public-a1","cidr":"203.0.113.0/30","gateway":"203.0.113.1","taken":"203.0.113.2"},{"name":"public-a2","cidr":"198.51.100.0/24","taken":"198.51.100.0-198.51.100.9"}]},` +
	`{"name":"zone-b","pools":[{"name":"public-b","cidr":"192.0.2.0/31","taken":"192.0.2.0-192.0.2.1"}]}]}`

// claimInputs is the differential table of ipamPredictClaim: claims and a
// request. Calls with the same claims in a row reuse the parsed claims.
var claimInputs = [][2]string{
	{claimsMain, `{"interface":{"subnet":"web"}}`},
	{claimsMain, `{"interface":{"subnet":"tiny"}}`},
	{claimsMain, `{"interface":{"subnet":"gone"}}`},
	{claimsMain, `{"floatingIP":{"zone":"zone-a"}}`},
	{claimsMain, `{"floatingIP":{"zone":"zone-b"}}`},
	{claimsMain, `{"floatingIP":{"zone":""}}`},
	{claimsMain, `{"subnet":{"prefixLength":24}}`},
	{claimsMain, `{"subnet":{"prefixLength":24,"cidr":"10.42.9.0/24"}}`},
	{claimsMain, `{"subnet":{"cidr":"10.42.0.0/22"}}`},
	{claimsMain, `{"subnet":{"cidr":"10.43.0.0/24"}}`},
	{claimsMain, `{"subnet":{"cidr":"10.42.8.0/24","gateway":"10.42.8.0"}}`},
	{claimsMain, `{"subnet":{"cidr":"10.42.8.0/24","gateway":"::1"}}`},
	{claimsMain, `{"subnet":{"cidr":"10.42.8.9/32"}}`},
	{claimsMain, `{"subnet":{"prefixLength":15}}`},
	{claimsMain, `{"subnet":{"prefixLength":16}}`},
	{claimsMain, `{"subnet":{}}`},
	{claimsMain, `{}`},
	{claimsMain, `not json`},
	{`{"namespace":"acme/prod","vpc":"new","pool":{"name":"vpc-new","cidr":"10.9.0.0/16"}}`, `{"interface":{"subnet":""}}`},
	{`{"namespace":"acme/prod","vpc":"new","pool":{"name":"vpc-new","cidr":"10.9.0.5/16"},"subnets":[{"name":"s","cidr":"x","gateway":"y","taken":"z"}]}`, `{"interface":{"subnet":"s"}}`},
	{`not json`, `{"interface":{"subnet":"s"}}`},
	{claimsMain, `{"floatingIP":{"zone":"zone-a"}}`},
}

// bigClaims is a VPC whose /16 subnet big holds n addresses taken in
// fragments, every other one.
func bigClaims(n int) string {
	b, _ := json.Marshal(candidates.ClaimsSpec{
		Namespace: "acme/prod", VPC: "big",
		Pool:    candidates.ClaimPool{Name: "vpc-big", PoolSpec: candidates.PoolSpec{CIDR: "10.0.0.0/8"}},
		Subnets: []candidates.ClaimSubnet{{Name: "big", CIDR: "10.0.0.0/16", Gateway: "10.0.0.1", Taken: fragmentedList(n)}},
	})
	return string(b)
}

// subnetPreviewInputs is the differential table of ipamPreviewSubnet.
var subnetPreviewInputs = []string{
	`{"vpc":"main","cidr":"10.42.0.0/16","subnets":["10.42.0.0/24","10.42.2.0/23"],"prefixLength":24,"count":3}`,
	`{"vpc":"main","cidr":"10.42.0.0/16","subnets":["10.42.2.0/23","10.42.0.0/24","10.41.0.0/16","10.42.0.0/25"],"prefixLength":26,"count":8}`,
	`{"vpc":"main","cidr":"10.42.0.0/16","prefixLength":16}`,
	`{"vpc":"main","cidr":"10.42.0.0/16","subnets":["10.42.0.0/17","10.42.128.0/17"],"prefixLength":24}`,
	`{"vpc":"main","cidr":"10.42.0.0/28","subnets":["10.42.0.0/30"],"prefixLength":31,"count":256}`,
	`{"vpc":"main","cidr":"10.42.0.0/16","prefixLength":15}`,
	`{"vpc":"main","cidr":"10.42.0.0/16","prefixLength":32,"count":257}`,
	`{"cidr":"10.42.0.5/16","subnets":["x","10.42.0.0","2001:db8::/64"],"prefixLength":0,"count":-1}`,
	`{"vpc":"main","cidr":"10.42.0.0/16","prefixLength":24,"gateway":"10.42.0.1"}`,
	`{"vpc":"main","cidr":"10.42.0.0/16","prefixLength":"24"}`,
	`not json`,
	``,
}

// A call is an input of the harness for any function of the module.
type call struct {
	Function string `json:"function"`
	Args     []any  `json:"args"`
}

// manySubnetsInput asks for the next 8 free prefixes of length bits in a /8
// VPC holding n /24 subnets, every other one, and a /12.
func manySubnetsInput(n, bits int) string {
	in := candidates.SubnetPreviewInput{VPC: "big", CIDR: "10.0.0.0/8", PrefixLength: bits, Count: 8}
	for i := range n {
		in.Subnets = append(in.Subnets, fmt.Sprintf("10.%d.%d.0/24", 2*i>>8, 2*i&255))
	}
	in.Subnets = append(in.Subnets, "10.64.0.0/12")
	b, _ := json.Marshal(in)
	return string(b)
}

// withTakenRanges adds list to the input's takenRanges: what the
// two-argument form must answer like.
func withTakenRanges(t *testing.T, in, list string) []byte {
	t.Helper()
	var pi candidates.PreviewInput
	if err := json.Unmarshal([]byte(in), &pi); err != nil {
		t.Fatal(err)
	}
	if list != "" {
		if pi.TakenRanges != "" {
			list = pi.TakenRanges + "," + list
		}
		pi.TakenRanges = list
	}
	b, err := json.Marshal(pi)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWasmExecMatchesToolchain(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	want, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../static/wasm/wasm_exec.js")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("static/wasm/wasm_exec.js differs from this Go's lib/wasm/wasm_exec.js: copy $(go env GOROOT)/lib/wasm/wasm_exec.js to static/wasm/ and commit it")
	}
}

// fragmentedList is n taken addresses of 10.0.0.0/16, every other one, as
// the compact list a page carries.
func fragmentedList(n int) string {
	taken := make([]string, 0, n)
	for i := range n {
		v := 2 * i
		if v >= 1<<16 {
			v = 1<<16 - 1 - 2*(i-1<<15)
		}
		taken = append(taken, fmt.Sprintf("10.0.%d.%d", v>>8, v&255))
	}
	return strings.Join(taken, ",")
}

// fragmentedInput is the same taken set inside the JSON input.
func fragmentedInput(n int) string {
	b, _ := json.Marshal(candidates.PreviewInput{
		Pool:        candidates.PoolSpec{CIDR: "10.0.0.0/16", Gateway: "10.0.0.1"},
		TakenRanges: fragmentedList(n),
		Next:        8,
	})
	return string(b)
}

type nodeAnswer struct {
	Output string  `json:"output"`
	Ms     float64 `json:"ms"`
}

// runInNode builds the WASM module as make does and answers inputs in node.
func runInNode(t *testing.T, inputs []any) []nodeAnswer {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: run scripts/setup.sh (or apt-get install nodejs)")
	}
	wasm := filepath.Join(t.TempDir(), "preview.wasm")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s", "-o", wasm, ".")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the wasm module: %v\n%s", err, out)
	}
	in, err := json.Marshal(inputs)
	if err != nil {
		t.Fatal(err)
	}
	execJS, err := filepath.Abs("../static/wasm/wasm_exec.js")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "harness.js", execJS, wasm)
	cmd.Stdin = bytes.NewReader(in)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node harness.js: %v\n%s", err, stderr.String())
	}
	var answers []nodeAnswer
	if err := json.Unmarshal(out, &answers); err != nil {
		t.Fatalf("reading node's answers: %v\n%.500s", err, out)
	}
	if len(answers) != len(inputs) {
		t.Fatalf("node answered %d inputs, want %d", len(answers), len(inputs))
	}
	return answers
}
