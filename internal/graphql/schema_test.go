package graphql

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/schema.graphql from the schema")

// schemaSnapshot is the SDL of the schema, as TestSchemaSnapshot prints it.
const schemaSnapshot = "testdata/schema.graphql"

// TestSchemaSnapshot prints the schema's SDL from the answer to the
// introspection query of GraphQL tools, and compares it with
// testdata/schema.graphql: every change of the API shows in review. With
// -update it rewrites the file. Printed from introspection, the snapshot
// does not depend on the engine; types, fields, arguments, input fields
// and enum values are sorted by name.
func TestSchemaSnapshot(t *testing.T) {
	e := newEnv(t)
	var data struct {
		Schema introspectedSchema `json:"__schema"`
	}
	e.ok("op", standardIntrospection, &data)
	got := printSDL(data.Schema)
	if *update {
		if err := os.WriteFile(schemaSnapshot, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(schemaSnapshot)
	if err != nil {
		t.Fatalf("%v: run go test ./internal/graphql -run TestSchemaSnapshot -update", err)
	}
	if got != string(want) {
		t.Errorf("the schema is not %s (run go test ./internal/graphql -update to accept it):\n%s", schemaSnapshot, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines of want missing from got (-) and those of got
// missing from want (+).
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, l := range wl {
		if !slices.Contains(gl, l) {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	for _, l := range gl {
		if !slices.Contains(wl, l) {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	return b.String()
}

// The answer to the introspection query.
type (
	introspectedSchema struct {
		QueryType        *struct{ Name string }  `json:"queryType"`
		MutationType     *struct{ Name string }  `json:"mutationType"`
		SubscriptionType *struct{ Name string }  `json:"subscriptionType"`
		Types            []introspectedType      `json:"types"`
		Directives       []introspectedDirective `json:"directives"`
	}
	introspectedDirective struct {
		Name        string              `json:"name"`
		Description *string             `json:"description"`
		Locations   []string            `json:"locations"`
		Args        []introspectedInput `json:"args"`
	}
	introspectedType struct {
		Kind          string                  `json:"kind"`
		Name          string                  `json:"name"`
		Description   *string                 `json:"description"`
		Fields        []introspectedField     `json:"fields"`
		InputFields   []introspectedInput     `json:"inputFields"`
		Interfaces    []typeRef               `json:"interfaces"`
		PossibleTypes []typeRef               `json:"possibleTypes"`
		EnumValues    []introspectedEnumValue `json:"enumValues"`
	}
	introspectedEnumValue struct {
		Name              string  `json:"name"`
		Description       *string `json:"description"`
		IsDeprecated      bool    `json:"isDeprecated"`
		DeprecationReason *string `json:"deprecationReason"`
	}
	introspectedField struct {
		Name              string              `json:"name"`
		Description       *string             `json:"description"`
		Args              []introspectedInput `json:"args"`
		Type              typeRef             `json:"type"`
		IsDeprecated      bool                `json:"isDeprecated"`
		DeprecationReason *string             `json:"deprecationReason"`
	}
	introspectedInput struct {
		Name         string  `json:"name"`
		Description  *string `json:"description"`
		Type         typeRef `json:"type"`
		DefaultValue *string `json:"defaultValue"`
	}
	typeRef struct {
		Kind   string   `json:"kind"`
		Name   *string  `json:"name"`
		OfType *typeRef `json:"ofType"`
	}
)

func (r typeRef) String() string {
	switch r.Kind {
	case "NON_NULL":
		return r.OfType.String() + "!"
	case "LIST":
		return "[" + r.OfType.String() + "]"
	}
	return *r.Name
}

// specified are the types and directives every schema has: the snapshot
// leaves them out.
var specified = map[string]bool{
	"String": true, "Int": true, "Float": true, "Boolean": true, "ID": true,
	"@skip": true, "@include": true, "@deprecated": true, "@specifiedBy": true, "@oneOf": true,
}

// printSDL prints s in the schema definition language, sorted by name.
func printSDL(s introspectedSchema) string {
	var b strings.Builder
	b.WriteString("schema {\n")
	for _, root := range []struct {
		op string
		t  *struct{ Name string }
	}{{"query", s.QueryType}, {"mutation", s.MutationType}, {"subscription", s.SubscriptionType}} {
		if root.t != nil {
			fmt.Fprintf(&b, "  %s: %s\n", root.op, root.t.Name)
		}
	}
	b.WriteString("}\n")
	directives := slices.Clone(s.Directives)
	slices.SortFunc(directives, func(a, b introspectedDirective) int { return strings.Compare(a.Name, b.Name) })
	for _, d := range directives {
		if specified["@"+d.Name] {
			continue
		}
		b.WriteString("\n")
		printDescription(&b, "", d.Description)
		fmt.Fprintf(&b, "directive @%s%s on %s\n", d.Name, printArgs("", d.Args), strings.Join(d.Locations, " | "))
	}
	types := slices.Clone(s.Types)
	slices.SortFunc(types, func(a, b introspectedType) int { return strings.Compare(a.Name, b.Name) })
	for _, t := range types {
		if strings.HasPrefix(t.Name, "__") || specified[t.Name] {
			continue
		}
		b.WriteString("\n")
		printType(&b, t)
	}
	return b.String()
}

func printType(b *strings.Builder, t introspectedType) {
	printDescription(b, "", t.Description)
	keyword := map[string]string{"OBJECT": "type", "INTERFACE": "interface", "UNION": "union", "ENUM": "enum",
		"INPUT_OBJECT": "input", "SCALAR": "scalar"}[t.Kind]
	fmt.Fprintf(b, "%s %s", keyword, t.Name)
	if len(t.Interfaces) > 0 {
		names := make([]string, len(t.Interfaces))
		for i, r := range t.Interfaces {
			names[i] = r.String()
		}
		slices.Sort(names)
		fmt.Fprintf(b, " implements %s", strings.Join(names, " & "))
	}
	switch t.Kind {
	case "SCALAR":
		b.WriteString("\n")
		return
	case "UNION":
		names := make([]string, len(t.PossibleTypes))
		for i, r := range t.PossibleTypes {
			names[i] = r.String()
		}
		slices.Sort(names)
		fmt.Fprintf(b, " = %s\n", strings.Join(names, " | "))
		return
	}
	b.WriteString(" {\n")
	fields := slices.Clone(t.Fields)
	slices.SortFunc(fields, func(a, b introspectedField) int { return strings.Compare(a.Name, b.Name) })
	for _, f := range fields {
		printDescription(b, "  ", f.Description)
		fmt.Fprintf(b, "  %s%s: %s%s\n", f.Name, printArgs("  ", f.Args), f.Type, deprecated(f.IsDeprecated, f.DeprecationReason))
	}
	inputs := slices.Clone(t.InputFields)
	slices.SortFunc(inputs, func(a, b introspectedInput) int { return strings.Compare(a.Name, b.Name) })
	for _, f := range inputs {
		printDescription(b, "  ", f.Description)
		fmt.Fprintf(b, "  %s\n", printInput(f))
	}
	values := slices.Clone(t.EnumValues)
	slices.SortFunc(values, func(a, b introspectedEnumValue) int { return strings.Compare(a.Name, b.Name) })
	for _, v := range values {
		printDescription(b, "  ", v.Description)
		fmt.Fprintf(b, "  %s%s\n", v.Name, deprecated(v.IsDeprecated, v.DeprecationReason))
	}
	b.WriteString("}\n")
}

// printArgs prints the arguments of a field or a directive, sorted by
// name: on one line, or one a line when any has a description.
func printArgs(indent string, args []introspectedInput) string {
	if len(args) == 0 {
		return ""
	}
	args = slices.Clone(args)
	slices.SortFunc(args, func(a, b introspectedInput) int { return strings.Compare(a.Name, b.Name) })
	if !slices.ContainsFunc(args, func(a introspectedInput) bool { return a.Description != nil && *a.Description != "" }) {
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = printInput(a)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	var b strings.Builder
	b.WriteString("(\n")
	for _, a := range args {
		printDescription(&b, indent+"  ", a.Description)
		fmt.Fprintf(&b, "%s  %s\n", indent, printInput(a))
	}
	b.WriteString(indent + ")")
	return b.String()
}

func printInput(a introspectedInput) string {
	s := a.Name + ": " + a.Type.String()
	if a.DefaultValue != nil {
		s += " = " + *a.DefaultValue
	}
	return s
}

func deprecated(is bool, reason *string) string {
	switch {
	case !is:
		return ""
	case reason == nil:
		return " @deprecated"
	}
	return " @deprecated(reason: " + quote(*reason) + ")"
}

// printDescription prints a description, when there is one, as a string
// on the line above what it describes.
func printDescription(b *strings.Builder, indent string, d *string) {
	if d != nil && *d != "" {
		fmt.Fprintf(b, "%s%s\n", indent, quote(*d))
	}
}

// quote writes s as a GraphQL string: JSON's escapes are GraphQL's.
func quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

// TestFunctionLength keeps every function of the package and of its
// engine under 80 lines: a schema assembled from parts, not written in one
// function.
func TestFunctionLength(t *testing.T) {
	for _, dir := range []string{".", "engine"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok {
					continue
				}
				if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n >= 80 {
					t.Errorf("%s: %s is %d lines long, 80 or more", name, fn.Name.Name, n)
				}
			}
		}
	}
}

// schemaIPv4 is the snapshot of the schema as it was before IPv6: the
// API of every client written since, which the schema keeps.
const schemaIPv4 = "testdata/schema-ipv4.graphql"

// TestSchemaOnlyGrows checks that the snapshot keeps every definition of
// testdata/schema-ipv4.graphql and every line of it, in order: types,
// fields, arguments and values are only added, and a description only
// grows (it may say more after what it said). A change of the API that
// removes or changes anything shows here, not only in the snapshot.
func TestSchemaOnlyGrows(t *testing.T) {
	before, err := os.ReadFile(schemaIPv4)
	if err != nil {
		t.Fatal(err)
	}
	now, err := os.ReadFile(schemaSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	blocks := definitions(string(now))
	for key, old := range definitions(string(before)) {
		block, ok := blocks[key]
		if !ok {
			t.Errorf("%s is no longer in the schema", key)
			continue
		}
		if line, ok := keeps(block, old); !ok {
			t.Errorf("%s no longer has the line %s (or it moved); it is now:\n%s", key, line, strings.Join(block, "\n"))
		}
	}
}

// definitions splits an SDL printed by printSDL into its definitions,
// each by its first line that is not a description (type Usage {).
func definitions(sdl string) map[string][]string {
	out := map[string][]string{}
	for _, block := range strings.Split(strings.TrimSpace(sdl), "\n\n") {
		lines := strings.Split(block, "\n")
		i := 0
		for i < len(lines)-1 && strings.HasPrefix(lines[i], `"`) {
			i++
		}
		out[lines[i]] = lines
	}
	return out
}

// keeps reports whether block holds the lines of old in their order, a
// description line as it was or grown; if not, the first line missing.
func keeps(block, old []string) (string, bool) {
	i := 0
	for _, want := range old {
		for i < len(block) && !grown(block[i], want) {
			i++
		}
		if i == len(block) {
			return want, false
		}
		i++
	}
	return "", true
}

// grown reports whether line is want or, for a description, want with
// more said after it, or, for a field, want with more arguments that a
// client may leave out (optional: nullable or with a default).
func grown(line, want string) bool {
	if line == want || moreArguments(line, want) {
		return true
	}
	text := strings.TrimLeft(want, " ")
	if !strings.HasPrefix(text, `"`) || !strings.HasSuffix(text, `"`) {
		return false
	}
	return strings.HasPrefix(line, strings.TrimSuffix(want, `"`)+" ")
}

// moreArguments reports whether the field line is the field want with
// every argument of want and more, each optional: what a client asked
// before is answered as before.
func moreArguments(line, want string) bool {
	head, args, tail, ok := fieldParts(line)
	wantHead, wantArgs, wantTail, wantOK := fieldParts(want)
	if !ok || !wantOK || head != wantHead || tail != wantTail {
		return false
	}
	for _, a := range wantArgs {
		if !slices.Contains(args, a) {
			return false
		}
	}
	for _, a := range args {
		if !slices.Contains(wantArgs, a) && strings.HasSuffix(a, "!") {
			return false
		}
	}
	return true
}

// fieldParts splits a field printed on one line, "  name(a: T, b: U = 1): R",
// into "  name", its arguments and ": R".
func fieldParts(line string) (head string, args []string, tail string, ok bool) {
	open, end := strings.Index(line, "("), strings.LastIndex(line, "):")
	if open < 0 || end < open {
		return "", nil, "", false
	}
	return line[:open], strings.Split(line[open+1:end], ", "), line[end+1:], true
}

// TestMoreArguments: a field grows by optional arguments only.
func TestMoreArguments(t *testing.T) {
	const was = "  f(a: Int!, c: Int = 1): [String!]!"
	for _, c := range []struct {
		line string
		want bool
	}{
		{"  f(a: Int!, b: IPFamily, c: Int = 1): [String!]!", true},
		{"  f(a: Int!, b: Int! = 3, c: Int = 1): [String!]!", true},
		{"  f(a: Int!, b: Int!, c: Int = 1): [String!]!", false},
		{"  f(a: Int!, b: Int): [String!]!", false},
		{"  f(a: Int, b: Int, c: Int = 1): [String!]!", false},
		{"  f(a: Int!, b: Int, c: Int = 1): [String!]", false},
		{"  g(a: Int!, b: Int, c: Int = 1): [String!]!", false},
	} {
		if got := grown(c.line, was); got != c.want {
			t.Errorf("grown(%q, %q) = %v, want %v", c.line, was, got, c.want)
		}
	}
}
