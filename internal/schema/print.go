package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// YAML prints the schema as a schema file, with every id: Parse and Apply
// read it back, on an empty schema, as the same schema, and on this one as
// no change. A kind is a block, each of its elements one line.
func (s Schema) YAML() []byte {
	var b bytes.Buffer
	b.WriteString("version: \"1.0\"\n")
	for _, generic := range []bool{true, false} {
		heading := "nodes:\n"
		if generic {
			heading = "generics:\n"
		}
		for _, k := range s.Kinds() {
			if k.Generic == generic {
				b.WriteString(heading)
				heading = ""
				writeKind(&b, k)
			}
		}
	}
	return b.Bytes()
}

// writeKind writes a kind as an item of generics: or nodes:.
func writeKind(b *bytes.Buffer, k Kind) {
	b.WriteString("  - id: " + scalar(k.ID) + "\n    name: " + scalar(k.Name) + "\n    namespace: " + scalar(k.Namespace) + "\n")
	if k.Label != "" {
		b.WriteString("    label: " + scalar(k.Label) + "\n")
	}
	if len(k.InheritFrom) > 0 {
		b.WriteString("    inherit_from: " + flowList(k.InheritFrom) + "\n")
	}
	if k.DisplayLabel != "" {
		b.WriteString("    display_label: " + scalar(k.DisplayLabel) + "\n")
	}
	if len(k.Attributes) > 0 {
		b.WriteString("    attributes:\n")
		for _, a := range k.Attributes {
			b.WriteString("      - {id: " + scalar(a.ID) + ", name: " + scalar(a.Name))
			if a.Label != "" {
				b.WriteString(", label: " + scalar(a.Label))
			}
			b.WriteString(", kind: " + scalar(string(a.Kind)))
			if a.Optional {
				b.WriteString(", optional: true")
			}
			if a.Unique {
				b.WriteString(", unique: true")
			}
			if len(a.Choices) > 0 {
				b.WriteString(", choices: [")
				for i, c := range a.Choices {
					if i > 0 {
						b.WriteString(", ")
					}
					b.WriteString("{name: " + scalar(c) + "}")
				}
				b.WriteString("]")
			}
			if a.DefaultValue != "" {
				b.WriteString(", default_value: ")
				writeValue(b, a.DefaultValue)
			}
			b.WriteString("}\n")
		}
	}
	if len(k.Relationships) > 0 {
		b.WriteString("    relationships:\n")
		for _, r := range k.Relationships {
			b.WriteString("      - {id: " + scalar(r.ID) + ", name: " + scalar(r.Name))
			if r.Label != "" {
				b.WriteString(", label: " + scalar(r.Label))
			}
			b.WriteString(", peer: " + scalar(r.Peer) + ", cardinality: " + scalar(string(r.Cardinality)))
			if !r.Optional {
				b.WriteString(", optional: false")
			}
			b.WriteString("}\n")
		}
	}
	if len(k.UniquenessConstraints) > 0 {
		b.WriteString("    uniqueness_constraints:\n")
		for _, c := range k.UniquenessConstraints {
			b.WriteString("      - " + flowList(c) + "\n")
		}
	}
}

// writeValue writes a default value, canonical JSON, as YAML flow.
func writeValue(b *bytes.Buffer, text string) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		panic("schema: a default value is not JSON: " + text)
	}
	var write func(v any)
	write = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(scalar(v))
		case json.Number:
			b.WriteString(string(v))
		case bool:
			b.WriteString(strconv.FormatBool(v))
		case []any:
			b.WriteString("[")
			for i, item := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				write(item)
			}
			b.WriteString("]")
		case map[string]any:
			b.WriteString("{")
			for i, k := range slices.Sorted(maps.Keys(v)) {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(scalar(k) + ": ")
				write(v[k])
			}
			b.WriteString("}")
		default:
			b.WriteString("null")
		}
	}
	write(v)
}

// flowList writes strings as a YAML flow sequence.
func flowList(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = scalar(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// plainScalar matches the strings YAML reads back unquoted as the same
// string, in flow and block context alike: a letter, then letters, digits,
// _, . and -.
var plainScalar = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// plainWords are the plain words YAML readers take for booleans or null:
// YAML 1.2's and YAML 1.1's.
var plainWords = []string{"true", "false", "null", "yes", "no", "on", "off", "y", "n"}

// scalar writes s as a YAML scalar: plain when every YAML reader reads it
// back as the same string, else double-quoted, what YAML cannot hold raw
// escaped.
func scalar(s string) string {
	if plainScalar.MatchString(s) && !slices.Contains(plainWords, strings.ToLower(s)) {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case printable(r):
			b.WriteRune(r)
		case r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// printable reports whether YAML holds r raw in a double-quoted scalar
// (YAML 1.2's c-printable, without the byte order mark and the line
// breaks it folds).
func printable(r rune) bool {
	switch {
	case r == 0x85, r == 0xfeff, r == 0x2028, r == 0x2029:
		return false
	case r >= 0x20 && r <= 0x7e, r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd:
		return true
	}
	return r >= 0x10000 && r <= 0x10ffff
}

// JSON prints the schema as a JSON schema file, with every id, which Parse
// and Apply read back as YAML's.
func (s Schema) JSON() []byte {
	type (
		choice struct {
			Name string `json:"name"`
		}
		attribute struct {
			ID           string          `json:"id"`
			Name         string          `json:"name"`
			Label        string          `json:"label,omitempty"`
			Kind         AttributeKind   `json:"kind"`
			Optional     bool            `json:"optional,omitempty"`
			Unique       bool            `json:"unique,omitempty"`
			Choices      []choice        `json:"choices,omitempty"`
			DefaultValue json.RawMessage `json:"default_value,omitempty"`
		}
		relationship struct {
			ID          string      `json:"id"`
			Name        string      `json:"name"`
			Label       string      `json:"label,omitempty"`
			Peer        string      `json:"peer"`
			Cardinality Cardinality `json:"cardinality"`
			Optional    bool        `json:"optional"`
		}
		kind struct {
			ID                    string         `json:"id"`
			Name                  string         `json:"name"`
			Namespace             string         `json:"namespace"`
			Label                 string         `json:"label,omitempty"`
			InheritFrom           []string       `json:"inherit_from,omitempty"`
			DisplayLabel          string         `json:"display_label,omitempty"`
			Attributes            []attribute    `json:"attributes,omitempty"`
			Relationships         []relationship `json:"relationships,omitempty"`
			UniquenessConstraints [][]string     `json:"uniqueness_constraints,omitempty"`
		}
		file struct {
			Version  string `json:"version"`
			Generics []kind `json:"generics,omitempty"`
			Nodes    []kind `json:"nodes,omitempty"`
		}
	)
	f := file{Version: Version}
	for _, k := range s.Kinds() {
		out := kind{ID: k.ID, Name: k.Name, Namespace: k.Namespace, Label: k.Label, InheritFrom: k.InheritFrom,
			DisplayLabel: k.DisplayLabel, UniquenessConstraints: k.UniquenessConstraints}
		for _, a := range k.Attributes {
			at := attribute{ID: a.ID, Name: a.Name, Label: a.Label, Kind: a.Kind, Optional: a.Optional, Unique: a.Unique}
			for _, c := range a.Choices {
				at.Choices = append(at.Choices, choice{c})
			}
			if a.DefaultValue != "" {
				at.DefaultValue = json.RawMessage(a.DefaultValue)
			}
			out.Attributes = append(out.Attributes, at)
		}
		for _, r := range k.Relationships {
			out.Relationships = append(out.Relationships, relationship{ID: r.ID, Name: r.Name, Label: r.Label, Peer: r.Peer, Cardinality: r.Cardinality, Optional: r.Optional})
		}
		if k.Generic {
			f.Generics = append(f.Generics, out)
		} else {
			f.Nodes = append(f.Nodes, out)
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		panic("schema: unable to write JSON: " + err.Error())
	}
	return b.Bytes()
}
