// Package static holds the console's files: its stylesheet and icon, the vendored
// htmx, the vendored GraphiQL and React of the API's explorer, and the
// candidate preview compiled to WebAssembly with Go's loader.
// The preview (wasm/preview.wasm) is built by `make wasm`, never committed.
package static

import "embed"

// Files are the files under css/, img/, js/, graphiql/ and wasm/.
//
//go:embed css img js graphiql wasm
var Files embed.FS

// HTMXIntegrity is the Subresource Integrity value of js/htmx.min.js.
//
//go:embed js/htmx.min.js.sha384
var HTMXIntegrity string

// GraphiQLIntegrity returns the Subresource Integrity value of a file of
// graphiql/ (its .sha384, which scripts/vendor-graphiql.sh writes); "" for
// a file that has none.
func GraphiQLIntegrity(name string) string {
	b, err := Files.ReadFile("graphiql/" + name + ".sha384")
	if err != nil {
		return ""
	}
	return string(b)
}
