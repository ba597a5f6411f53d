package main

import (
	"strings"
	"testing"
)

// TestDocumentedCommands parses the commands docs/benchmarks.md and the
// notes give, word for word: each selects what it says.
func TestDocumentedCommands(t *testing.T) {
	const numbers = "cd cmd/ipambench && go run . --quick --only numbers --json"
	_, args, _ := strings.Cut(numbers, "go run . ")
	c, err := parseFlags(strings.Fields(args))
	if err != nil {
		t.Fatalf("%s: %v", numbers, err)
	}
	if !c.quick || !c.json || c.smoke || !c.want("numbers") || c.want("seq") || c.want("v6") || c.runs != 3 {
		t.Errorf("%s: quick %v, json %v, numbers %v, seq %v, runs %d; want the number measurement alone, quick, in JSON, 3 runs",
			numbers, c.quick, c.json, c.want("numbers"), c.want("seq"), c.runs)
	}
}
