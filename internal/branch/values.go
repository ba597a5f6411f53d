package branch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

// MaxValueBytes bounds an attribute's value written as JSON.
const MaxValueBytes = 64 << 10

// encodeAttribute returns v, the value given for the attribute a, written
// canonically as JSON for the object's data, or an *refusal.InvalidError naming
// the attribute. v is what a decoder of JSON or GraphQL gives: a string, a
// whole number of any Go integer type, a float64 or json.Number holding a
// whole number, a bool, a []any, a map[string]any.
func encodeAttribute(a schema.Attribute, v any) (json.RawMessage, error) {
	refuse := func(expected string) error {
		return invalid(a.Name, "%s: expected %s for an attribute of kind %s, got %s", a.Name, expected, a.Kind, shown(v))
	}
	var out any
	switch a.Kind {
	case schema.Text:
		s, ok := v.(string)
		if !ok {
			return nil, refuse("a string")
		}
		out = s
	case schema.Dropdown:
		s, ok := v.(string)
		if !ok {
			return nil, refuse("one of the choices " + strings.Join(a.Choices, ", "))
		}
		if !slices.Contains(a.Choices, s) {
			return nil, invalid(a.Name, "%s: %s is not one of the choices %s", a.Name, shown(v), strings.Join(a.Choices, ", "))
		}
		out = s
	case schema.Number:
		n, ok := wholeNumber(v)
		if !ok {
			return nil, refuse(fmt.Sprintf("a whole number from %d to %d", int64(math.MinInt64), int64(math.MaxInt64)))
		}
		out = n
	case schema.Boolean:
		b, ok := v.(bool)
		if !ok {
			return nil, refuse("true or false")
		}
		out = b
	case schema.List:
		if v == nil || reflect.TypeOf(v).Kind() != reflect.Slice {
			return nil, refuse("a list")
		}
		out = v
	default: // JSON, Any
		out = v
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, invalid(a.Name, "%s: the value cannot be written as JSON: %v", a.Name, err)
	}
	if len(raw) > MaxValueBytes {
		return nil, invalid(a.Name, "%s: the value is %d bytes as JSON, more than %d", a.Name, len(raw), MaxValueBytes)
	}
	return store.Canonical(raw)
}

// wholeNumber returns v as a whole number of 64 bits.
func wholeNumber(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int8:
		return int64(n), true
	case int16:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case uint:
		return int64(n), uint64(n) <= math.MaxInt64
	case uint8:
		return int64(n), true
	case uint16:
		return int64(n), true
	case uint32:
		return int64(n), true
	case uint64:
		return int64(n), n <= math.MaxInt64
	case float32:
		return wholeNumber(float64(n))
	case float64:
		if n != math.Trunc(n) || n < math.MinInt64 || n >= math.MaxInt64 {
			return 0, false
		}
		return int64(n), true
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			f, ferr := n.Float64()
			if ferr != nil {
				return 0, false
			}
			return wholeNumber(f)
		}
		return i, true
	}
	return 0, false
}

// decodeAttribute returns a stored value of the attribute a as the Go
// value Object.Attributes holds (see there).
func decodeAttribute(a schema.Attribute, raw json.RawMessage) any {
	switch a.Kind {
	case schema.Text, schema.Dropdown:
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case schema.Number:
		var n int64
		if json.Unmarshal(raw, &n) == nil {
			return n
		}
	case schema.Boolean:
		var b bool
		if json.Unmarshal(raw, &b) == nil {
			return b
		}
	}
	return decodeJSON(raw)
}

// decodeJSON reads a JSON value with its numbers as json.Number.
func decodeJSON(raw json.RawMessage) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	return v
}

// shown writes a value given by a user for a message: JSON, cut short.
func shown(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("a value of type %T", v)
	}
	s := string(b)
	const limit = 64
	if len(s) > limit {
		cut := limit
		for cut > 0 && s[cut]&0xc0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// encodePeers writes the peers of a relationship for the object's data:
// a string for cardinality one, a list for many.
func encodePeers(r schema.Relationship, ids []string) json.RawMessage {
	var b []byte
	if r.Cardinality == schema.One {
		b, _ = json.Marshal(ids[0])
	} else {
		b, _ = json.Marshal(ids)
	}
	return b
}

// decodePeers reads the peers of a relationship from the object's data,
// whichever cardinality they were written with.
func decodePeers(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		return many
	}
	return nil
}
