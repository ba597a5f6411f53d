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
	s := subnet{base: base}
	for _, o := range offsets {
		b.Add(s.addr(o))
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
	taken      int // addresses taken in the /16 (60 000; config.previewTaken)
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

// preview times, in node, the next 8 candidates of a /16 with 60 000
// (config.previewTaken) taken in fragments, as the page asks for them, in each form this tree
// offers: the taken ranges as a JSON list (the page's first form), as one takenRanges string in the JSON, and as the page passes them
// now, one string beside the JSON that the module parses once and keeps.
func preview(ctx context.Context, cfg config, m *wasmModule) (previewResult, error) {
	out := previewResult{taken: cfg.previewTaken, wasmBytes: m.size}
	base := netip.MustParseAddr("10.0.0.0")
	ranges := rangesOf(base, fragmented(out.taken))
	out.rangeCount = len(ranges)
	list := strings.Join(ranges, ",")
	pool := map[string]any{"cidr": "10.0.0.0/16", "gateway": "10.0.0.1"}
	type namedInput struct {
		Name        string         `json:"name"`
		Input       map[string]any `json:"input"`
		TakenRanges *string        `json:"takenRanges,omitempty"`
	}
	inputs := []namedInput{{Name: "list", Input: map[string]any{"pool": pool, "taken": ranges, "next": 8}}}
	out.forms = append(out.forms, previewForm{key: "list", name: "`taken` as a JSON list of ranges"})
	if field, ok := takenRangesField(); ok {
		inputs = append(inputs,
			namedInput{Name: "field", Input: map[string]any{"pool": pool, field: list, "next": 8}},
			namedInput{Name: "apart", Input: map[string]any{"pool": pool, "next": 8}, TakenRanges: &list})
		out.forms = append(out.forms,
			previewForm{key: "field", name: "`takenRanges`, one string in the JSON"},
			previewForm{key: "apart", name: "`takenRanges` passed beside the JSON, parsed once (the page's call)"})
	}
	for i, in := range inputs {
		b, _ := json.Marshal(in.Input)
		out.forms[i].bytes = len(b)
		if in.TakenRanges != nil {
			out.forms[i].bytes += len(*in.TakenRanges)
		}
	}
	// The Go package's answer, which the module's must equal.
	wantJSON, _ := json.Marshal(inputs[0].Input)
	var want struct {
		Next []string `json:"next"`
	}
	json.Unmarshal(candidates.PreviewJSON(wantJSON), &want)
	if len(want.Next) != 8 {
		return out, fmt.Errorf("the Go preview found %d candidates, want 8", len(want.Next))
	}
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
			return out, fmt.Errorf("node %s: %v\n%s", m.harness, err, stderr.String())
		}
		var answers map[string]struct {
			First  float64   `json:"first"`
			Ms     []float64 `json:"ms"`
			Answer struct {
				Valid  bool     `json:"valid"`
				Next   []string `json:"next"`
				Errors []struct {
					Message string `json:"message"`
				} `json:"errors"`
			} `json:"answer"`
		}
		if err := json.Unmarshal(b, &answers); err != nil {
			return out, fmt.Errorf("reading node's answer: %v: %.300s", err, b)
		}
		for _, in := range inputs {
			a := answers[in.Name]
			if !a.Answer.Valid || !slices.Equal(a.Answer.Next, want.Next) {
				return out, fmt.Errorf("the WASM preview (%s) answered %+v, want next %v", in.Name, a.Answer, want.Next)
			}
			rr := run{ops: len(a.Ms)}
			for _, v := range a.Ms {
				rr.lat = append(rr.lat, time.Duration(v*float64(time.Millisecond)))
			}
			runs[in.Name] = append(runs[in.Name], rr)
			firsts[in.Name] = append(firsts[in.Name], a.First)
			progress("  run %d, %s: p50 %.2f ms, p99 %.2f ms per call (first call %.2f ms)", r+1, in.Name, rr.stats().p50, rr.stats().p99, a.First)
		}
	}
	for i := range out.forms {
		k := out.forms[i].key
		out.forms[i].f, out.forms[i].firstMs = figureOf(runs[k]), median(firsts[k])
	}
	return out, nil
}
