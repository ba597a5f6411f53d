package schema

import (
	"fmt"
	"testing"

	"pivirt.hu/ipam/internal/schema/schematest"
)

// seedExample is the example schema of sites and VLANs.
var seedExample = []byte(schematest.Example)

// sequentialIDs returns a newID that gives id-1, id-2…
func sequentialIDs() func() string { return idsFrom("id") }

// moreIDs returns a newID that gives new-1, new-2…, for loads on a schema
// of sequentialIDs.
func moreIDs() func() string { return idsFrom("new") }

// idsFrom returns a newID that gives prefix-1, prefix-2…
func idsFrom(prefix string) func() string {
	n := 0
	return func() string {
		n++
		return fmt.Sprintf("%s-%d", prefix, n)
	}
}

// noNewID is the newID of loads that must give every id.
func noNewID() string { panic("newID called") }

// mustParse parses text named name.
func mustParse(t testing.TB, name, text string) File {
	t.Helper()
	f, err := Parse(name, []byte(text))
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return f
}

// mustApply applies the texts, named f1.yaml, f2.yaml…, to s.
func mustApply(t testing.TB, s Schema, newID func() string, texts ...string) (Schema, Changes) {
	t.Helper()
	next, changes, err := s.Apply(newID, files(t, texts...)...)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return next, changes
}

// files parses the texts, named f1.yaml, f2.yaml…
func files(t testing.TB, texts ...string) []File {
	t.Helper()
	out := make([]File, len(texts))
	for i, text := range texts {
		out[i] = mustParse(t, fmt.Sprintf("f%d.yaml", i+1), text)
	}
	return out
}

// seedSchema is seedExample loaded on an empty schema, with ids
// id-1 to id-11 in the file's order.
func seedSchema(t testing.TB) Schema {
	t.Helper()
	s, _ := mustApply(t, Schema{}, sequentialIDs(), string(seedExample))
	return s
}

// nodes is a schema file of the nodes given, one a line, in flow style.
func nodes(lines ...string) string {
	out := "version: \"1.0\"\nnodes:\n"
	for _, l := range lines {
		out += "  - " + l + "\n"
	}
	return out
}

// generics is a schema file of the generics given, then the nodes.
func generics(gs []string, ns ...string) string {
	out := "version: \"1.0\"\ngenerics:\n"
	for _, l := range gs {
		out += "  - " + l + "\n"
	}
	if len(ns) > 0 {
		out += "nodes:\n"
		for _, l := range ns {
			out += "  - " + l + "\n"
		}
	}
	return out
}
