package schema

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// bounded runs f and fails when it allocates more than mib MiB: the work a
// hostile file costs, measured without a clock (BenchmarkHostileFiles times
// the same files).
func bounded(t *testing.T, mib uint64, f func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	if alloc := (after.TotalAlloc - before.TotalAlloc) >> 20; alloc > mib {
		t.Errorf("allocated %d MiB, more than %d", alloc, mib)
	}
}

// wantRefusal checks that err is Errors whose text is want.
func wantRefusal(t *testing.T, err error, want string) {
	t.Helper()
	var errs Errors
	switch {
	case err == nil:
		t.Errorf("accepted, want %s", want)
	case !errors.As(err, &errs):
		t.Errorf("%v (%T), want Errors", err, err)
	case err.Error() != want:
		t.Errorf("refused with\n%v\nwant\n%s", err, want)
	}
}

// manyKinds is a file of n nodes IpamK0, IpamK1…
func manyKinds(n int) string {
	var b strings.Builder
	b.WriteString("version: '1.0'\nnodes:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {name: K%d, namespace: Ipam, attributes: [{name: name, kind: Text}]}\n", i)
	}
	return b.String()
}

// chain is a file of n generics, DcimG1 inheriting from DcimG0, DcimG2
// from DcimG1…, and DcimG0 from the last when cycle.
func chain(n int, cycle bool) string {
	var b strings.Builder
	b.WriteString("version: '1.0'\ngenerics:\n")
	for i := range n {
		parent := i - 1
		if i == 0 && cycle {
			parent = n - 1
		}
		inherit := ""
		if parent >= 0 {
			inherit = fmt.Sprintf(", inherit_from: [DcimG%d]", parent)
		}
		fmt.Fprintf(&b, "  - {name: G%d, namespace: Dcim, attributes: [{name: a%d, kind: Text}]%s}\n", i, i, inherit)
	}
	return b.String()
}

func TestBoundsKinds(t *testing.T) {
	t.Run("10 000 kinds in a file", func(t *testing.T) {
		text := []byte(manyKinds(10000))
		bounded(t, 64, func() {
			_, err := Parse("f.yaml", text)
			wantRefusal(t, err, "f.yaml: the file declares 10000 kinds, more than 1000")
		})
	})
	t.Run("10 000 kinds given to Apply", func(t *testing.T) {
		f := File{Name: "api"}
		for i := range 10000 {
			f.Kinds = append(f.Kinds, KindSpec{Namespace: "Ipam", Name: fmt.Sprintf("K%d", i)})
		}
		bounded(t, 16, func() {
			_, _, err := Schema{}.Apply(sequentialIDs(), f)
			wantRefusal(t, err, "api: the file declares 10000 kinds, more than 1000")
		})
	})
	t.Run("1 000 kinds, then one more", func(t *testing.T) {
		var s Schema
		bounded(t, 256, func() {
			s, _ = mustApply(t, Schema{}, sequentialIDs(), manyKinds(MaxKinds))
		})
		_, _, err := s.Apply(moreIDs(), mustParse(t, "more.yaml", nodes("{name: Rack, namespace: Location}")))
		wantRefusal(t, err, "more.yaml: LocationRack: the schema would hold more than 1000 kinds")
	})
}

func TestBoundsInheritance(t *testing.T) {
	t.Run("a chain of 1 000 generics", func(t *testing.T) {
		f := mustParse(t, "f.yaml", chain(1000, false))
		bounded(t, 128, func() {
			_, _, err := Schema{}.Apply(sequentialIDs(), f)
			wantRefusal(t, err, "f.yaml: DcimG17: inherit_from is 17 generics deep, more than 16: DcimG17 → DcimG16 → DcimG15 → … 13 more … → DcimG1 → DcimG0")
		})
	})
	t.Run("a chain as deep as allowed", func(t *testing.T) {
		s, _ := mustApply(t, Schema{}, sequentialIDs(), chain(MaxDepth, false)+"nodes:\n  - {name: Leaf, namespace: Dcim, inherit_from: [DcimG15]}\n")
		if got := len(s.Attributes("DcimLeaf")); got != MaxDepth {
			t.Errorf("DcimLeaf has %d attributes, want %d", got, MaxDepth)
		}
		if got := s.Inheritors("DcimG0"); len(got) != 1 || got[0] != "DcimLeaf" {
			t.Errorf("Inheritors(DcimG0) = %v", got)
		}
	})
	t.Run("a cycle of 1 000 generics", func(t *testing.T) {
		f := mustParse(t, "f.yaml", chain(1000, true))
		bounded(t, 128, func() {
			_, _, err := Schema{}.Apply(sequentialIDs(), f)
			wantRefusal(t, err, "f.yaml: DcimG0: inherit_from makes a cycle: DcimG0 → DcimG999 → DcimG998 → … 996 more … → DcimG1 → DcimG0")
		})
	})
	t.Run("16 levels of diamonds", func(t *testing.T) {
		// Each generic inherits from both of the level above: 2^16 paths
		// to the top, each generic resolved once.
		var b strings.Builder
		b.WriteString("version: '1.0'\ngenerics:\n  - {name: L0a, namespace: Dcim, attributes: [{name: top, kind: Text}]}\n  - {name: L0b, namespace: Dcim}\n")
		for i := 1; i < MaxDepth; i++ {
			for _, side := range []string{"a", "b"} {
				fmt.Fprintf(&b, "  - {name: L%d%s, namespace: Dcim, inherit_from: [DcimL%da, DcimL%db], attributes: [{name: x%d%s, kind: Text}]}\n", i, side, i-1, i-1, i, side)
			}
		}
		fmt.Fprintf(&b, "nodes:\n  - {name: Leaf, namespace: Dcim, inherit_from: [DcimL%da, DcimL%db]}\n", MaxDepth-1, MaxDepth-1)
		var s Schema
		bounded(t, 64, func() { s, _ = mustApply(t, Schema{}, sequentialIDs(), b.String()) })
		if got := len(s.Attributes("DcimLeaf")); got != 2*MaxDepth-1 {
			t.Errorf("DcimLeaf has %d attributes, want %d", got, 2*MaxDepth-1)
		}
	})
	t.Run("too many generics", func(t *testing.T) {
		names := make([]string, MaxInheritFrom+1)
		for i := range names {
			names[i] = fmt.Sprintf("DcimG%d", i)
		}
		_, err := Parse("f.yaml", []byte(nodes("{name: Leaf, namespace: Dcim, inherit_from: ["+strings.Join(names, ", ")+"]}")))
		wantRefusal(t, err, "f.yaml: DcimLeaf: inherit_from names 33 generics, more than 32")
	})
}

func TestBoundsElements(t *testing.T) {
	attributes := func(prefix string, n int) string {
		items := make([]string, n)
		for i := range items {
			items[i] = fmt.Sprintf("{name: %s%d, kind: Text}", prefix, i)
		}
		return strings.Join(items, ", ")
	}
	_, err := Parse("f.yaml", []byte(vlan(attributes("a", MaxElements+1))))
	wantRefusal(t, err, "f.yaml: IpamVLAN: declares 257 attributes and relationships, more than 256")
	_, _, err = Schema{}.Apply(sequentialIDs(), mustParse(t, "f.yaml", generics(
		[]string{"{name: Wide, namespace: Base, attributes: [" + attributes("a", 200) + "]}"},
		"{name: VLAN, namespace: Ipam, inherit_from: [BaseWide], attributes: ["+attributes("b", 100)+"]}")))
	wantRefusal(t, err, "f.yaml: IpamVLAN: has 300 attributes and relationships with those it inherits, more than 256")

	choices := make([]string, MaxChoices+1)
	for i := range choices {
		choices[i] = fmt.Sprintf("{name: c%d}", i)
	}
	_, err = Parse("f.yaml", []byte(vlan("{name: a, kind: Dropdown, choices: ["+strings.Join(choices, ", ")+"]}")))
	wantRefusal(t, err, "f.yaml: IpamVLAN.a: choices are 257, more than 256")

	constraints := make([]string, MaxConstraints+1)
	for i := range constraints {
		constraints[i] = fmt.Sprintf("[a%d__value]", i)
	}
	_, err = Parse("f.yaml", []byte(nodes("{name: VLAN, namespace: Ipam, uniqueness_constraints: ["+strings.Join(constraints, ", ")+"]}")))
	wantRefusal(t, err, "f.yaml: IpamVLAN: uniqueness_constraints are 33, more than 32")
}

func TestBoundsNames(t *testing.T) {
	long := strings.Repeat("a", 10000)
	_, err := Parse("f.yaml", []byte(nodes(
		`{name: "VL\u00c4N", namespace: Ipam}`,
		`{name: "VLAN\u0000", namespace: Ipam}`,
		`{name: "A`+long+`", namespace: Ipam}`,
		`{name: VLAN, namespace: Ipam, attributes: [{name: "vlan id", kind: Text}, {name: "`+long+`", kind: Text}, {name: _id, kind: Text}, {name: "drop table;", kind: Text}]}`)))
	wantRefusal(t, err, `f.yaml: nodes[0]: name "VLÄN" is not a kind's name: a capital letter, then letters and digits, such as VLAN`+
		"\n"+`f.yaml: nodes[1]: name "VLAN\x00" is not a kind's name: a capital letter, then letters and digits, such as VLAN`+
		"\n"+`f.yaml: nodes[2]: name "A`+long[:63]+`…" is longer than 64 characters`+
		"\n"+`f.yaml: IpamVLAN.attributes[0]: name "vlan id" is not an attribute's name: lowercase letters and digits, in words joined by single underscores, starting with a letter, such as vlan_id`+
		"\n"+`f.yaml: IpamVLAN.attributes[1]: name "`+long[:64]+`…" is longer than 64 characters`+
		"\n"+`f.yaml: IpamVLAN.attributes[2]: name "_id" is not an attribute's name: lowercase letters and digits, in words joined by single underscores, starting with a letter, such as vlan_id`+
		"\n"+`f.yaml: IpamVLAN.attributes[3]: name "drop table;" is not an attribute's name: lowercase letters and digits, in words joined by single underscores, starting with a letter, such as vlan_id`)
}

func TestBoundsFile(t *testing.T) {
	t.Run("larger than 4 MiB", func(t *testing.T) {
		text := make([]byte, MaxBytes+1)
		bounded(t, 1, func() {
			_, err := Parse("f.yaml", text)
			wantRefusal(t, err, "f.yaml: the file is larger than 4 MiB; split it into several files")
		})
	})
	t.Run("aliases expanded", func(t *testing.T) {
		text := aliasedDropdowns()
		bounded(t, 512, func() {
			_, err := Parse("f.yaml", text)
			wantRefusal(t, err, "f.yaml: the file holds more than 1048576 values, its aliases expanded; write it without aliases or split it")
		})
	})
	t.Run("aliases in a default value", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("version: '1.0'\nx: &v0 [a, a, a, a, a, a, a, a]\n")
		for i := 1; i < 10; i++ {
			fmt.Fprintf(&b, "y%d: &v%d [*v%d, *v%d, *v%d, *v%d, *v%d, *v%d, *v%d, *v%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
		}
		text := strings.Replace(b.String(), "version: '1.0'\n", "", 1)
		// The anchors live in the default value itself, an unknown field
		// being refused without being read.
		text = "version: '1.0'\nnodes:\n  - {name: V, namespace: Ipam, attributes: [{name: a, kind: JSON, default_value: {" +
			strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", ", ") + "}}]}\n"
		bounded(t, 512, func() {
			_, err := Parse("f.yaml", []byte(text))
			wantRefusal(t, err, "f.yaml: the file holds more than 1048576 values, its aliases expanded; write it without aliases or split it")
		})
	})
	t.Run("nested 9 000 deep", func(t *testing.T) {
		text := []byte("version: '1.0'\nnodes: [{name: A, namespace: Ipam, attributes: [{name: a, kind: JSON, default_value: " + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + "}]}]")
		bounded(t, 64, func() {
			_, err := Parse("f.yaml", text)
			wantRefusal(t, err, "f.yaml: IpamA.a: default_value is nested more than 32 deep")
		})
	})
	t.Run("4 MiB of tiny values", func(t *testing.T) {
		if testing.Short() {
			t.Skip("parses 4 MiB of YAML")
		}
		text := tinyValues()
		bounded(t, 1024, func() {
			_, err := Parse("f.yaml", text)
			wantRefusal(t, err, "f.yaml: the file holds more than 1048576 values, its aliases expanded; write it without aliases or split it")
		})
	})
}

// TestBoundsLargeSchema loads, prints and loads again the largest schema
// of a file in reason: 1 000 kinds of 60 attributes.
func TestBoundsLargeSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 60 000 attributes")
	}
	var b strings.Builder
	b.WriteString("version: '1.0'\nnodes:\n")
	for i := range MaxKinds {
		fmt.Fprintf(&b, "  - name: K%d\n    namespace: Ipam\n    attributes:\n", i)
		for j := range 60 {
			fmt.Fprintf(&b, "      - {name: a%d, kind: Text}\n", j)
		}
	}
	var s Schema
	bounded(t, 1024, func() {
		s, _ = mustApply(t, Schema{}, sequentialIDs(), b.String())
		printed := s.YAML()
		if len(printed) > MaxBytes {
			t.Errorf("printed %d bytes, more than a file holds", len(printed))
		}
		if _, changes := mustApply(t, s, noNewID, string(printed)); len(changes) != 0 {
			t.Errorf("%d changes", len(changes))
		}
	})
}

// aliasedDropdowns is 250 Dropdowns of 250 choices, repeated by alias in
// 1 000 kinds: 62 million values from 64 KiB.
func aliasedDropdowns() []byte {
	var b strings.Builder
	b.WriteString("version: '1.0'\nnodes:\n  - {name: K0, namespace: Ipam, attributes: &attributes [{name: a0, kind: Dropdown, choices: &choices [")
	for i := range 250 {
		fmt.Fprintf(&b, "{name: c%d}, ", i)
	}
	b.WriteString("]}")
	for i := 1; i < 250; i++ {
		fmt.Fprintf(&b, ", {name: a%d, kind: Dropdown, choices: *choices}", i)
	}
	b.WriteString("]}\n")
	for i := 1; i < 1000; i++ {
		fmt.Fprintf(&b, "  - {name: K%d, namespace: Ipam, attributes: *attributes}\n", i)
	}
	return []byte(b.String())
}

// tinyValues is the worst a file of MaxBytes costs: 2 million values, which
// yaml.v3 reads before MaxValues refuses them.
func tinyValues() []byte {
	return []byte("version: '1.0'\nnodes: [" + strings.Repeat("a,", (MaxBytes-30)/2) + "a]\n")
}

// BenchmarkHostileFiles times the refusal of the two costliest hostile files:
// the time the tests bound by allocation.
func BenchmarkHostileFiles(b *testing.B) {
	for _, file := range []struct {
		name string
		text []byte
	}{{"aliases expanded", aliasedDropdowns()}, {"4 MiB of tiny values", tinyValues()}} {
		b.Run(file.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse("f.yaml", file.text); err == nil {
					b.Fatal("accepted")
				}
			}
		})
	}
}
