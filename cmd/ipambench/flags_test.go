package main

import (
	"strings"
	"testing"
)

// TestDocumentedCommands parses the commands docs/benchmarks.md and the
// notes give, word for word: each selects what it says.
func TestDocumentedCommands(t *testing.T) {
	for _, tt := range []struct {
		command, only string
		runs          int
	}{
		{"cd cmd/ipambench && go run . --quick --only numbers --json", "numbers", 3},
		{"cd cmd/ipambench && go run . --quick --only v6 --json", "v6", 3},
		{"cd cmd/ipambench && go run . --quick --only v6 --runs 5 --json", "v6", 5},
	} {
		_, args, _ := strings.Cut(tt.command, "go run . ")
		c, err := parseFlags(strings.Fields(args))
		if err != nil {
			t.Fatalf("%s: %v", tt.command, err)
		}
		others := 0
		for _, s := range scenarios {
			if s != tt.only && c.want(s) {
				others++
			}
		}
		if !c.quick || !c.json || c.smoke || !c.want(tt.only) || others != 0 || c.runs != tt.runs {
			t.Errorf("%s: quick %v, json %v, %s %v, %d others, runs %d; want %s alone, quick, in JSON, %d runs",
				tt.command, c.quick, c.json, tt.only, c.want(tt.only), others, c.runs, tt.only, tt.runs)
		}
	}
}
