//go:build race

package schema

// The race detector makes the code some ten times slower.
func init() { slowdown = 10 }
