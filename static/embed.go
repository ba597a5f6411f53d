// Package static holds the console's files: its stylesheet, the vendored
// htmx, and the candidate preview compiled to WebAssembly with Go's loader.
// The preview (wasm/preview.wasm) is built by `make wasm`, never committed.
package static

import "embed"

// Files are the files under css/, js/ and wasm/.
//
//go:embed css js wasm
var Files embed.FS

// HTMXIntegrity is the Subresource Integrity value of js/htmx.min.js.
//
//go:embed js/htmx.min.js.sha384
var HTMXIntegrity string
