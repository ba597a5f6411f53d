package schema

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// YAML prints the schema as a schema file, with every id: Parse and Apply
// read it back, on an empty schema, as the same schema, and on this one as
// no change. A kind is a block, each of its elements one line.
func (s Schema) YAML() []byte {
	root := mapping(0, kv("version", str(Version)))
	generics, nodes := sequence(0), sequence(0)
	for _, k := range s.Kinds() {
		if k.Generic {
			generics.Content = append(generics.Content, kindNode(k))
		} else {
			nodes.Content = append(nodes.Content, kindNode(k))
		}
	}
	if len(generics.Content) > 0 {
		add(root, "generics", generics)
	}
	if len(nodes.Content) > 0 {
		add(root, "nodes", nodes)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		// The nodes hold strings and JSON values, which YAML always
		// writes.
		panic("schema: unable to write YAML: " + err.Error())
	}
	enc.Close()
	return b.Bytes()
}

// kindNode is a kind as a YAML mapping.
func kindNode(k Kind) *yaml.Node {
	m := mapping(0, kv("id", str(k.ID)), kv("name", str(k.Name)), kv("namespace", str(k.Namespace)))
	if len(k.InheritFrom) > 0 {
		add(m, "inherit_from", stringList(yaml.FlowStyle, k.InheritFrom))
	}
	if k.DisplayLabel != "" {
		add(m, "display_label", str(k.DisplayLabel))
	}
	if len(k.Attributes) > 0 {
		as := sequence(0)
		for _, a := range k.Attributes {
			n := mapping(yaml.FlowStyle, kv("id", str(a.ID)), kv("name", str(a.Name)), kv("kind", str(string(a.Kind))))
			if a.Optional {
				add(n, "optional", boolean(true))
			}
			if a.Unique {
				add(n, "unique", boolean(true))
			}
			if len(a.Choices) > 0 {
				cs := sequence(yaml.FlowStyle)
				for _, c := range a.Choices {
					cs.Content = append(cs.Content, mapping(yaml.FlowStyle, kv("name", str(c))))
				}
				add(n, "choices", cs)
			}
			if a.DefaultValue != "" {
				add(n, "default_value", valueNode(a.DefaultValue))
			}
			as.Content = append(as.Content, n)
		}
		add(m, "attributes", as)
	}
	if len(k.Relationships) > 0 {
		rs := sequence(0)
		for _, r := range k.Relationships {
			n := mapping(yaml.FlowStyle, kv("id", str(r.ID)), kv("name", str(r.Name)), kv("peer", str(r.Peer)),
				kv("cardinality", str(string(r.Cardinality))))
			if !r.Optional {
				add(n, "optional", boolean(false))
			}
			rs.Content = append(rs.Content, n)
		}
		add(m, "relationships", rs)
	}
	if len(k.UniquenessConstraints) > 0 {
		cs := sequence(0)
		for _, c := range k.UniquenessConstraints {
			cs.Content = append(cs.Content, stringList(yaml.FlowStyle, c))
		}
		add(m, "uniqueness_constraints", cs)
	}
	return m
}

// valueNode is a default value, canonical JSON, as a YAML flow value.
func valueNode(text string) *yaml.Node {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		panic("schema: a default value is not JSON: " + text)
	}
	return goNode(v)
}

func goNode(v any) *yaml.Node {
	switch v := v.(type) {
	case string:
		return str(v)
	case json.Number:
		return &yaml.Node{Kind: yaml.ScalarNode, Value: string(v)}
	case bool:
		return boolean(v)
	case []any:
		n := sequence(yaml.FlowStyle)
		for _, item := range v {
			n.Content = append(n.Content, goNode(item))
		}
		return n
	case map[string]any:
		n := mapping(yaml.FlowStyle)
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			add(n, k, goNode(v[k]))
		}
		return n
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
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
			Kind         AttributeKind   `json:"kind"`
			Optional     bool            `json:"optional,omitempty"`
			Unique       bool            `json:"unique,omitempty"`
			Choices      []choice        `json:"choices,omitempty"`
			DefaultValue json.RawMessage `json:"default_value,omitempty"`
		}
		relationship struct {
			ID          string      `json:"id"`
			Name        string      `json:"name"`
			Peer        string      `json:"peer"`
			Cardinality Cardinality `json:"cardinality"`
			Optional    bool        `json:"optional"`
		}
		kind struct {
			ID                    string         `json:"id"`
			Name                  string         `json:"name"`
			Namespace             string         `json:"namespace"`
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
		out := kind{ID: k.ID, Name: k.Name, Namespace: k.Namespace, InheritFrom: k.InheritFrom,
			DisplayLabel: k.DisplayLabel, UniquenessConstraints: k.UniquenessConstraints}
		for _, a := range k.Attributes {
			at := attribute{ID: a.ID, Name: a.Name, Kind: a.Kind, Optional: a.Optional, Unique: a.Unique}
			for _, c := range a.Choices {
				at.Choices = append(at.Choices, choice{c})
			}
			if a.DefaultValue != "" {
				at.DefaultValue = json.RawMessage(a.DefaultValue)
			}
			out.Attributes = append(out.Attributes, at)
		}
		for _, r := range k.Relationships {
			out.Relationships = append(out.Relationships, relationship{ID: r.ID, Name: r.Name, Peer: r.Peer, Cardinality: r.Cardinality, Optional: r.Optional})
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

// A field is a key and its value, for mapping.
type field struct {
	key   string
	value *yaml.Node
}

func kv(key string, value *yaml.Node) field { return field{key, value} }

// mapping returns a mapping of fields, in order.
func mapping(style yaml.Style, fields ...field) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: style}
	for _, f := range fields {
		add(m, f.key, f.value)
	}
	return m
}

// add appends a field to the mapping m.
func add(m *yaml.Node, key string, value *yaml.Node) {
	m.Content = append(m.Content, str(key), value)
}

func sequence(style yaml.Style, items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: style, Content: items}
}

func stringList(style yaml.Style, items []string) *yaml.Node {
	n := sequence(style)
	for _, s := range items {
		n.Content = append(n.Content, str(s))
	}
	return n
}

func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func boolean(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}
