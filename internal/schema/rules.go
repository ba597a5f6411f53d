package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The bounds of a schema and of its files. Each is far above what a real
// model needs, and keeps the cost of a hostile file bounded.
const (
	// MaxBytes bounds a schema file.
	MaxBytes = 4 << 20
	// MaxKinds bounds the kinds of a schema, and of a file. Every node kind
	// becomes GraphQL types (its object, its filters, its Create, Update
	// and Delete mutations with their inputs and payloads), which every
	// ipam serve process builds again on each change of the schema, for
	// each branch, and sends whole to the tools that introspect the API:
	// 1 000 kinds are some 6 000 types, ten times the largest models in use
	// (NetBox has about 150 models, Infrahub's own schema about 100 kinds),
	// and still build in well under a second.
	MaxKinds = 1000
	// MaxElements bounds the attributes and relationships of a kind, the
	// inherited ones included: each is a field of its GraphQL type with a
	// few filters, a column of the console's tables and a field of its
	// forms.
	MaxElements = 256
	// MaxInheritFrom bounds the generics a kind names in inherit_from.
	MaxInheritFrom = 32
	// MaxDepth bounds chains of inheritance: a node that inherits from a
	// generic is 1 deep, from a generic that inherits from another 2.
	MaxDepth = 16
	// MaxChoices bounds the choices of a Dropdown.
	MaxChoices = 256
	// MaxConstraints bounds the uniqueness constraints of a kind, and
	// MaxConstraintElements the elements of one.
	MaxConstraints        = 32
	MaxConstraintElements = 16
	// MaxNameLength bounds names (namespaces, kinds, attributes,
	// relationships, choices) and ids, in bytes.
	MaxNameLength = 64
	// MaxLabelLength bounds a display label, in bytes.
	MaxLabelLength = 256
	// MaxHumanLabelLength bounds a label (label:), the words the console
	// names a kind, an attribute or a relationship by, in bytes.
	MaxHumanLabelLength = 64
	// MaxValueBytes bounds a default value as JSON, and MaxValueDepth its
	// nesting.
	MaxValueBytes = 64 << 10
	MaxValueDepth = 32
	// MaxValues bounds the values Parse reads of a file, each alias
	// counted as many times as it is used, so that aliases cannot expand a
	// small file into a large schema.
	MaxValues = 1 << 20
	// MaxErrors is how many mistakes Parse and Apply report before they
	// stop.
	MaxErrors = 20
)

// reservedNamespaces are kept for the built-in kinds (CoreNumberPool)
// and the names the GraphQL API gives its own types and operations
// (BranchCreate, InfrahubNumberPoolDivisions, SchemaLoadResult).
var reservedNamespaces = []string{"Branch", "Builtin", "Core", "Infrahub", "Internal", "Schema"}

// reservedNames are fields every object has.
var reservedNames = []string{"id", "display_label"}

var (
	// A namespace is a capital then lowercase letters and digits, so
	// that a kind's full name (IpamVLAN) splits one way only.
	namespacePattern = regexp.MustCompile(`^[A-Z][a-z0-9]+$`)
	kindNamePattern  = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	fullNamePattern  = regexp.MustCompile(`^[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*$`)
	// Element names are snake_case without a double underscore, which
	// separates a name from what follows in paths (vlan_id__value) and
	// filters (site__ids).
	elementNamePattern = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	choicePattern      = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	idPattern          = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
)

// A problem is a mistake of a field: its message starts with the field.
type problem struct {
	field, message string
}

func problemf(field, format string, args ...any) problem {
	return problem{field, fmt.Sprintf(format, args...)}
}

// namespaceProblem returns what is wrong with a kind's namespace.
func namespaceProblem(s string) (problem, bool) {
	switch {
	case s == "":
		return problemf("namespace", "namespace is required, such as Ipam"), true
	case len(s) > MaxNameLength:
		return problemf("namespace", "namespace %s is longer than %d characters", quote(s), MaxNameLength), true
	case !namespacePattern.MatchString(s):
		return problemf("namespace", "namespace %s is not a namespace: a capital letter, then lowercase letters and digits, such as Ipam", quote(s)), true
	case slices.Contains(reservedNamespaces, s):
		return problemf("namespace", "namespace %s is reserved for built-in kinds; the reserved namespaces are %s", quote(s), strings.Join(reservedNamespaces, ", ")), true
	}
	return problem{}, false
}

// kindNameProblem returns what is wrong with a kind's name.
func kindNameProblem(s string) (problem, bool) {
	switch {
	case s == "":
		return problemf("name", "name is required, such as VLAN"), true
	case len(s) > MaxNameLength:
		return problemf("name", "name %s is longer than %d characters", quote(s), MaxNameLength), true
	case !kindNamePattern.MatchString(s):
		return problemf("name", "name %s is not a kind's name: a capital letter, then letters and digits, such as VLAN", quote(s)), true
	}
	return problem{}, false
}

// elementNameProblem returns what is wrong with the name of an element,
// what being "an attribute" or "a relationship".
func elementNameProblem(what, s string) (problem, bool) {
	switch {
	case s == "":
		return problemf("name", "name is required, such as vlan_id"), true
	case len(s) > MaxNameLength:
		return problemf("name", "name %s is longer than %d characters", quote(s), MaxNameLength), true
	case !elementNamePattern.MatchString(s):
		return problemf("name", "name %s is not %s's name: lowercase letters and digits, in words joined by single underscores, starting with a letter, such as vlan_id", quote(s), what), true
	case slices.Contains(reservedNames, s):
		return problemf("name", "name %s is reserved: every object has its %s", quote(s), s), true
	}
	return problem{}, false
}

// idProblem returns what is wrong with an id written in a file.
func idProblem(s string) (problem, bool) {
	if len(s) > MaxNameLength || !idPattern.MatchString(s) {
		return problemf("id", "id %s is not an id: letters, digits, - and _, starting with a letter or a digit, up to %d characters", quote(s), MaxNameLength), true
	}
	return problem{}, false
}

// fullNameProblem returns what is wrong with a kind's full name written
// in field (peer, inherit_from[0]).
func fullNameProblem(field, s string) (problem, bool) {
	if len(s) > 2*MaxNameLength || !fullNamePattern.MatchString(s) {
		return problemf(field, "%s %s is not a kind's full name, its namespace then its name, such as LocationSite", field, quote(s)), true
	}
	return problem{}, false
}

// attributeKindProblem returns what is wrong with an attribute's kind.
func attributeKindProblem(k AttributeKind) (problem, bool) {
	switch {
	case k == "":
		return problemf("kind", "kind is required: one of %s", kindList()), true
	case !slices.Contains(attributeKinds, k):
		return problemf("kind", "kind %s is not one of %s", quote(string(k)), kindList()), true
	}
	return problem{}, false
}

func kindList() string {
	names := make([]string, len(attributeKinds))
	for i, k := range attributeKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// cardinalityProblem returns what is wrong with a relationship's
// cardinality.
func cardinalityProblem(c Cardinality) (problem, bool) {
	if c != One && c != Many {
		return problemf("cardinality", "cardinality %s is not one of one, many", quote(string(c))), true
	}
	return problem{}, false
}

// attributeProblems returns what is wrong with an attribute's choices and
// default value (canonical JSON), given its kind, which is valid.
func attributeProblems(kind AttributeKind, choices []string, defaultValue string) []problem {
	var out []problem
	switch {
	case kind == Dropdown && len(choices) == 0:
		out = append(out, problemf("choices", "choices are required for a Dropdown, such as [{name: user}, {name: voice}]"))
	case kind != Dropdown && len(choices) > 0:
		out = append(out, problemf("choices", "choices are for a Dropdown; this attribute is of kind %s", kind))
	case len(choices) > MaxChoices:
		out = append(out, problemf("choices", "choices are %d, more than %d", len(choices), MaxChoices))
	default:
		seen := make(map[string]bool, len(choices))
		for i, c := range choices {
			switch {
			case len(c) > MaxNameLength || !choicePattern.MatchString(c):
				out = append(out, problemf("choices", "choices[%d] %s is not a choice's name: letters, digits, _, - and ., starting with a letter or a digit, up to %d characters", i, quote(c), MaxNameLength))
			case seen[c]:
				out = append(out, problemf("choices", "choices[%d] %s is given twice", i, quote(c)))
			}
			seen[c] = true
		}
	}
	if defaultValue != "" {
		if p, bad := defaultProblem(kind, choices, defaultValue); bad {
			out = append(out, p)
		}
	}
	return out
}

// defaultProblem returns what is wrong with a default value, canonical
// JSON, for an attribute of the kind.
func defaultProblem(kind AttributeKind, choices []string, value string) (problem, bool) {
	first := value[0]
	isString := first == '"'
	var s string
	if isString {
		if err := json.Unmarshal([]byte(value), &s); err != nil {
			isString = false
		}
	}
	got := shorten(value)
	switch kind {
	case Text:
		if !isString {
			return problemf("default_value", "default_value must be a string for an attribute of kind Text, got %s", got), true
		}
	case Number:
		if _, err := strconv.ParseInt(value, 10, 64); err != nil {
			return problemf("default_value", "default_value must be a whole number from %d to %d for an attribute of kind Number, got %s", math.MinInt64, math.MaxInt64, got), true
		}
	case Boolean:
		if value != "true" && value != "false" {
			return problemf("default_value", "default_value must be true or false for an attribute of kind Boolean, got %s", got), true
		}
	case Dropdown:
		if !isString || !slices.Contains(choices, s) {
			return problemf("default_value", "default_value %s is not one of the choices %s", got, strings.Join(choices, ", ")), true
		}
	case List:
		if first != '[' {
			return problemf("default_value", "default_value must be a list for an attribute of kind List, got %s", got), true
		}
	}
	return problem{}, false
}

// canonicalValue returns a JSON value in the form a schema keeps it: keys
// sorted, whole numbers without fraction or exponent, no space. null is
// no value ("").
func canonicalValue(text string) (string, *problem) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		p := problemf("default_value", "default_value %s is not a JSON value", quote(text))
		return "", &p
	}
	if v == nil {
		return "", nil
	}
	v, p := normalize(v, 1)
	if p != nil {
		return "", p
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		p := problemf("default_value", "default_value cannot be written as JSON: %v", err)
		return "", &p
	}
	out := strings.TrimSuffix(b.String(), "\n")
	if len(out) > MaxValueBytes {
		p := problemf("default_value", "default_value is %d bytes as JSON, more than %d", len(out), MaxValueBytes)
		return "", &p
	}
	return out, nil
}

// normalize returns v, decoded with UseNumber, with its numbers in
// canonical form, refusing nesting deeper than MaxValueDepth.
func normalize(v any, depth int) (any, *problem) {
	if depth > MaxValueDepth {
		p := problemf("default_value", "default_value is nested more than %d deep", MaxValueDepth)
		return nil, &p
	}
	switch v := v.(type) {
	case json.Number:
		return canonicalNumber(string(v))
	case []any:
		for i, item := range v {
			n, p := normalize(item, depth+1)
			if p != nil {
				return nil, p
			}
			v[i] = n
		}
	case map[string]any:
		for k, item := range v {
			n, p := normalize(item, depth+1)
			if p != nil {
				return nil, p
			}
			v[k] = n
		}
	}
	return v, nil
}

// canonicalNumber returns a number as a whole number when it is one that
// fits 64 bits, else as the shortest float.
func canonicalNumber(s string) (any, *problem) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return json.Number(strconv.FormatInt(i, 10)), nil
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return json.Number(strconv.FormatUint(u, 10)), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		p := problemf("default_value", "default_value holds %s, which is not a finite number of 64 bits", quote(s))
		return nil, &p
	}
	if f == math.Trunc(f) && f >= math.MinInt64 && f < math.MaxInt64 {
		return json.Number(strconv.FormatInt(int64(f), 10)), nil
	}
	return f, nil
}

// humanLabelProblem returns what is wrong with a label (label:): one
// line of text, "" for none.
func humanLabelProblem(s string) (problem, bool) {
	switch {
	case len(s) > MaxHumanLabelLength:
		return problemf("label", "label %s is longer than %d characters", quote(s), MaxHumanLabelLength), true
	case !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0:
		return problemf("label", "label %s holds a control character or is not UTF-8; write it on one line", quote(s)), true
	case strings.TrimSpace(s) != s:
		return problemf("label", "label %s begins or ends with a space; remove it", quote(s)), true
	}
	return problem{}, false
}

// A labelPart is text of a display label, or the attribute whose value
// takes its place.
type labelPart struct {
	text      string
	attribute string // a name as parsed, an id in a kind
}

// parseLabel splits a display label into its text and its placeholders,
// {{ <attribute>__value }}.
func parseLabel(s string) ([]labelPart, *problem) {
	refuse := func(format string, args ...any) ([]labelPart, *problem) {
		p := problemf("display_label", "display_label %s %s", quote(s), fmt.Sprintf(format, args...))
		return nil, &p
	}
	switch {
	case len(s) > MaxLabelLength:
		return refuse("is longer than %d characters", MaxLabelLength)
	case !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0:
		return refuse("holds a control character or is not UTF-8")
	case strings.Contains(s, "{%") || strings.Contains(s, "{#"):
		return refuse("holds a template tag; write text and placeholders such as {{ name__value }} only")
	}
	var parts []labelPart
	rest := s
	for rest != "" {
		text, after, found := strings.Cut(rest, "{{")
		if strings.Contains(text, "}}") {
			return refuse("has a }} without its {{")
		}
		if text != "" {
			parts = append(parts, labelPart{text: text})
		}
		if !found {
			break
		}
		inner, tail, closed := strings.Cut(after, "}}")
		if !closed {
			return refuse("has a {{ without its }}")
		}
		path := strings.TrimSpace(inner)
		name, ok := strings.CutSuffix(path, "__value")
		if !ok || !elementNamePattern.MatchString(name) {
			return refuse("has {{ %s }}, which is not an attribute's value such as {{ name__value }}", shorten(path))
		}
		parts = append(parts, labelPart{attribute: name})
		rest = tail
	}
	return parts, nil
}

// constraintPath splits a path of a uniqueness constraint: a
// relationship's name (site) or an attribute's path (vlan_id__value).
func constraintPath(path string) (name string, attribute bool, ok bool) {
	name, attribute = strings.CutSuffix(path, "__value")
	return name, attribute, len(name) <= MaxNameLength && elementNamePattern.MatchString(name)
}

// quote writes what the user wrote for a message.
func quote(s string) string { return strconv.Quote(shorten(s)) }

// shorten cuts what the user wrote to a length fit for a message.
func shorten(s string) string {
	const limit = 64
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
