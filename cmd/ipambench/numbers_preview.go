package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"pivirt.hu/ipam/internal/candidates"
)

// numbersPreviewResult is what the module's next number cost, in each way
// of passing the taken numbers.
type numbersPreviewResult struct {
	forms    []previewForm
	taken    int // numbers taken of the division's 4 094
	runCount int // runs they make
}

// numbersPreviewKey is the form numbers_preview_ms_p50 reports: the taken
// numbers as the compact takenRanges string in the JSON, read on every
// call (a page that switches between divisions passes another list each
// time, which the module cannot keep). A JSON list of 4 000 numbers is
// measured too: encoding/json reads it about 50 times slower.
const numbersPreviewKey = "field"

// keyForm returns the form numbers_preview_ms_p50 reports.
func (p numbersPreviewResult) keyForm() previewForm {
	i := slices.IndexFunc(p.forms, func(f previewForm) bool { return f.key == numbersPreviewKey })
	return p.forms[i]
}

// numbersPreview times, in node, the page's call
// JSON.parse(ipamNextNumber(JSON.stringify(input), takenRanges)) for a
// VLAN division (one range, 1-4094) with 4 000 numbers taken
// (config.numbersTaken), spread so that the 94 free ones split them into
// 95 runs: the taken numbers as a
// JSON list in the input, as one takenRanges string in it, and as that
// string passed beside it, which the module parses once and keeps. Each
// answer is compared with the Go package's.
func numbersPreview(ctx context.Context, cfg config, m *wasmModule) (numbersPreviewResult, error) {
	const size = 4094
	count := int64(cfg.numbersTaken)
	var b candidates.NumberSetBuilder
	var taken []int64
	next := int64(1)
	for i := range size - count {
		hole := (i + 1) * size / (size - count + 1)
		for ; next < hole; next++ {
			b.Add(next)
			taken = append(taken, next)
		}
		next = hole + 1
	}
	for ; next <= size; next++ {
		b.Add(next)
		taken = append(taken, next)
	}
	list := b.Set().String()
	out := numbersPreviewResult{taken: len(taken), runCount: strings.Count(list, ",") + 1}
	ranges := []map[string]int64{{"start": 1, "end": size}}
	inputs := []harnessInput{
		{Name: "list", Function: "ipamNextNumber", Input: map[string]any{"ranges": ranges, "taken": taken}},
		{Name: "field", Function: "ipamNextNumber", Input: map[string]any{"ranges": ranges, "takenRanges": list}},
		{Name: "apart", Function: "ipamNextNumber", Input: map[string]any{"ranges": ranges}, TakenRanges: &list},
	}
	out.forms = []previewForm{
		{key: "list", name: "`taken` as a JSON list of numbers"},
		{key: "field", name: "`takenRanges`, one string in the JSON"},
		{key: "apart", name: "`takenRanges` passed beside the JSON, parsed once"},
	}
	for i, in := range inputs {
		out.forms[i].bytes = in.bytes()
	}
	// The Go package's answer, which the module's must equal.
	wantJSON, _ := json.Marshal(inputs[0].Input)
	var want candidates.NumberPreviewOutput
	if err := json.Unmarshal(candidates.NumberPreviewJSON(wantJSON), &want); err != nil || want.First == nil {
		return out, fmt.Errorf("the Go package found no next number (%v)", err)
	}
	runs, firsts, err := inNode(ctx, cfg, m, inputs, func(name string, answer json.RawMessage) error {
		var a candidates.NumberPreviewOutput
		if err := json.Unmarshal(answer, &a); err != nil || !a.Valid || a.First == nil || *a.First != *want.First || a.Free != want.Free {
			return fmt.Errorf("the WASM module (%s) answered %.300s, want the next number %d of %d free", name, answer, *want.First, want.Free)
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	for i := range out.forms {
		k := out.forms[i].key
		out.forms[i].f, out.forms[i].firstMs = figureOf(runs[k]), median(firsts[k])
	}
	return out, nil
}
