//go:build js && wasm

// Command wasm is the browser's copy of the candidate enumerator. Loaded by
// static/wasm/wasm_exec.js, it defines one global function:
//
//	ipamPreview(json: string): string
//
// which takes a candidates.PreviewInput as JSON and returns a
// candidates.PreviewOutput as JSON, exactly as the server computes it.
package main

import (
	"syscall/js"

	"pivirt.hu/ipam/internal/candidates"
)

func main() {
	js.Global().Set("ipamPreview", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 1 || args[0].Type() != js.TypeString {
			return string(candidates.PreviewJSON(nil))
		}
		return string(candidates.PreviewJSON([]byte(args[0].String())))
	}))
	select {}
}
