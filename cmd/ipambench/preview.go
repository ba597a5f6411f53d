package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/candidates"
)

//go:embed harness.js
var harnessJS []byte

// A wasmModule is the preview built as make wasm builds it, with what node
// needs to run it.
type wasmModule struct {
	node, execJS, wasm, harness string
	size                        int64
}

// buildWasm builds pivirt.hu/ipam/wasm for the browser into dir.
func buildWasm(ctx context.Context, root, dir string) (*wasmModule, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("node is not installed (the WASM preview runs in it): run scripts/setup.sh or apt-get install nodejs")
	}
	goroot, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	m := &wasmModule{
		node:    node,
		execJS:  filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"),
		wasm:    filepath.Join(dir, "preview.wasm"),
		harness: filepath.Join(dir, "harness.js"),
	}
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s", "-o", m.wasm, "./wasm")
	build.Dir = root
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the WASM preview: %v\n%s", err, out)
	}
	if fi, err := os.Stat(m.wasm); err == nil {
		m.size = fi.Size()
	}
	if err := os.WriteFile(m.harness, harnessJS, 0o644); err != nil {
		return nil, err
	}
	return m, nil
}

// repoRoot finds the main module's folder: two up from this file when
// run from source (go run .), else the nearest folder up from the working
// directory whose go.mod is pivirt.hu/ipam's.
func repoRoot() (string, error) {
	isRoot := func(dir string) bool {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		return err == nil && bytes.HasPrefix(b, []byte("module pivirt.hu/ipam\n"))
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		if dir := filepath.Join(filepath.Dir(file), "..", ".."); isRoot(dir) {
			return filepath.Clean(dir), nil
		}
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isRoot(dir) {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("the pivirt.hu/ipam source tree is not above %s: run the bench from it (cd cmd/ipambench && go run .)", dir)
		}
		dir = up
	}
}

// fragmented returns the offsets of n taken addresses of a /16 in
// fragments: runs of 1 to 21 taken addresses (11 on average) between
// single free ones, from offset 2 (after the network address and the
// gateway). 60 000 taken make 5 455 ranges.
func fragmented(n int) []int {
	var out []int
	o := 2
	for k := 0; len(out) < n; k++ {
		for range k%21 + 1 {
			if len(out) == n {
				break
			}
			out = append(out, o)
			o++
		}
		o++ // one free address
	}
	return out
}

// rangesOf writes the offsets after base as a-b ranges.
func rangesOf(base netip.Addr, offsets []int) []string {
	var b candidates.SetBuilder
	for _, o := range offsets {
		b.Add(offsetAddr(base, o))
	}
	var out []string
	for _, r := range b.Set().Ranges() {
		out = append(out, r.String())
	}
	return out
}

// takenRangesField returns the JSON name of candidates.PreviewInput's
// compact taken field (one string "a-b,c,d-e"), if this tree has it.
func takenRangesField() (string, bool) {
	t := reflect.TypeFor[candidates.PreviewInput]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if strings.EqualFold(name, "takenRanges") && f.Type.Kind() == reflect.String {
			return name, true
		}
	}
	return "", false
}

type previewResult struct {
	taken      int // addresses taken in the pool (60 000 of a /16; config.previewTaken)
	forms      []previewForm
	rangeCount int
	wasmBytes  int64
}

// A previewForm is one way of passing the taken set, and what it cost.
type previewForm struct {
	key, name string
	f         figure
	firstMs   float64 // the first call of a run (median), which parses a list passed apart
	bytes     int     // the input's JSON, and the list passed apart
}

// page returns the form the page uses: the last measured.
func (p previewResult) page() previewForm { return p.forms[len(p.forms)-1] }

// A previewPool is the pool whose next candidates the preview is asked
// for, and how many of its addresses are taken, in fragments from its
// first address.
type previewPool struct {
	cidr, gateway string
	taken         int
}

// v4PreviewPool is preview_ms_p50's pool: a /16 with 60 000 taken
// (config.previewTaken).
func v4PreviewPool(cfg config) previewPool {
	return previewPool{cidr: "10.0.0.0/16", gateway: "10.0.0.1", taken: cfg.previewTaken}
}

// A harnessInput is one call harness.js times: ipamPreview, or the
// module's function named, with its input and the taken list passed
// beside it, or after the claims (ipamPredictClaim's).
type harnessInput struct {
	Name        string  `json:"name"`
	Function    string  `json:"function,omitempty"`
	Input       any     `json:"input"`
	TakenRanges *string `json:"takenRanges,omitempty"`
	Claims      *string `json:"claims,omitempty"`
}

// bytes is the size of what the page passes: the input's JSON and the
// list beside it or the claims before it.
func (in harnessInput) bytes() int {
	b, _ := json.Marshal(in.Input)
	n := len(b)
	for _, s := range []*string{in.TakenRanges, in.Claims} {
		if s != nil {
			n += len(*s)
		}
	}
	return n
}

// inNode times the inputs' calls in node, cfg.runs times (a fresh node
// each run), checking every answer with check (the input's name, the last
// answer's JSON), and returns each input's runs and first calls by name.
func inNode(ctx context.Context, cfg config, m *wasmModule, inputs []harnessInput, check func(name string, answer json.RawMessage) error) (map[string][]run, map[string][]float64, error) {
	task, _ := json.Marshal(map[string]any{"inputs": inputs, "warmup": 3, "calls": cfg.previewCalls})
	runs := map[string][]run{}
	firsts := map[string][]float64{}
	for r := range cfg.runs {
		cmd := exec.CommandContext(ctx, m.node, m.harness, m.execJS, m.wasm)
		cmd.Stdin = bytes.NewReader(task)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		b, err := cmd.Output()
		if err != nil {
			return nil, nil, fmt.Errorf("node %s: %v\n%s", m.harness, err, stderr.String())
		}
		var answers map[string]struct {
			First  float64         `json:"first"`
			Ms     []float64       `json:"ms"`
			Answer json.RawMessage `json:"answer"`
		}
		if err := json.Unmarshal(b, &answers); err != nil {
			return nil, nil, fmt.Errorf("reading node's answer: %v: %.300s", err, b)
		}
		for _, in := range inputs {
			a := answers[in.Name]
			if err := check(in.Name, a.Answer); err != nil {
				return nil, nil, err
			}
			rr := run{ops: len(a.Ms)}
			for _, v := range a.Ms {
				rr.lat = append(rr.lat, time.Duration(v*float64(time.Millisecond)))
			}
			runs[in.Name] = append(runs[in.Name], rr)
			firsts[in.Name] = append(firsts[in.Name], a.First)
			progress("  run %d, %s: p50 %.3f ms, p99 %.3f ms per call (first call %.2f ms)", r+1, in.Name, rr.stats().p50, rr.stats().p99, a.First)
		}
	}
	return runs, firsts, nil
}

// nextAnswer is what the address and subnet previews answer that the
// bench checks: the next candidates or prefixes.
type nextAnswer struct {
	Valid  bool     `json:"valid"`
	Next   []string `json:"next"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

// sameNext returns a check of inNode: every answer valid, its next
// candidates those of want (the Go package's answer as JSON), which must
// hold n.
func sameNext(what string, want []byte, n int) (func(string, json.RawMessage) error, error) {
	var w nextAnswer
	if err := json.Unmarshal(want, &w); err != nil || !w.Valid || len(w.Next) != n {
		return nil, fmt.Errorf("the Go package's %s found not %d: %.300s", what, n, want)
	}
	return func(name string, answer json.RawMessage) error {
		var a nextAnswer
		if err := json.Unmarshal(answer, &a); err != nil || !a.Valid || !slices.Equal(a.Next, w.Next) {
			return fmt.Errorf("the WASM %s (%s) answered %.300s, want next %v", what, name, answer, w.Next)
		}
		return nil
	}, nil
}

// preview times, in node, the next 8 candidates of the pool with its
// addresses taken in fragments, as the page asks for them, in each form
// this tree offers: the taken ranges as a JSON list (the page's first
// form), as one takenRanges string in the JSON, and as the page passes
// them now, one string beside the JSON that the module parses once and
// keeps.
func preview(ctx context.Context, cfg config, m *wasmModule, p previewPool) (previewResult, error) {
	out := previewResult{taken: p.taken, wasmBytes: m.size}
	prefix := netip.MustParsePrefix(p.cidr)
	ranges := rangesOf(prefix.Addr(), fragmented(out.taken))
	out.rangeCount = len(ranges)
	list := strings.Join(ranges, ",")
	pool := map[string]any{"cidr": p.cidr, "gateway": p.gateway}
	name := func(form string) string { return p.cidr + " " + form }
	inputs := []harnessInput{{Name: name("list"), Input: map[string]any{"pool": pool, "taken": ranges, "next": 8}}}
	out.forms = append(out.forms, previewForm{key: "list", name: "`taken` as a JSON list of ranges"})
	if field, ok := takenRangesField(); ok {
		inputs = append(inputs,
			harnessInput{Name: name("field"), Input: map[string]any{"pool": pool, field: list, "next": 8}},
			harnessInput{Name: name("apart"), Input: map[string]any{"pool": pool, "next": 8}, TakenRanges: &list})
		out.forms = append(out.forms,
			previewForm{key: "field", name: "`takenRanges`, one string in the JSON"},
			previewForm{key: "apart", name: "`takenRanges` passed beside the JSON, parsed once (the page's call)"})
	}
	for i, in := range inputs {
		out.forms[i].bytes = in.bytes()
	}
	// The Go package's answer, which the module's must equal.
	wantJSON, _ := json.Marshal(inputs[0].Input)
	check, err := sameNext("preview", candidates.PreviewJSON(wantJSON), 8)
	if err != nil {
		return out, err
	}
	runs, firsts, err := inNode(ctx, cfg, m, inputs, check)
	if err != nil {
		return out, err
	}
	for i := range out.forms {
		out.forms[i].f, out.forms[i].firstMs = figureOf(runs[inputs[i].Name]), median(firsts[inputs[i].Name])
	}
	return out, nil
}
