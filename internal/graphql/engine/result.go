package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/vektah/gqlparser/v2/ast"
)

// An Object is an object of the response: its fields in the order the
// request selected them, which is the order its JSON keeps.
type Object struct {
	keys   []string
	values []any
}

// MarshalJSON writes the object with its fields in order.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, o); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeJSON writes a value of the response: objects, lists and what
// serializeLeaf returns.
func writeJSON(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case *Object:
		if v == nil {
			b.WriteString("null")
			return nil
		}
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			if err := writeJSON(b, v.values[i]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, item := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, item); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case string:
		writeString(b, v)
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	default:
		out, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(out)
	}
	return nil
}

// writeString writes s as a JSON string, escaped as encoding/json
// escapes it (HTML characters and the line separators included).
func writeString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b.WriteString(s[start:i])
			switch c {
			case '"', '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			b.WriteString(s[start:i])
			if r == utf8.RuneError {
				b.WriteString(`\ufffd`)
			} else {
				b.WriteString(`\u202`)
				b.WriteByte(hex[r&0xf])
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// serializeLeaf is CompleteValue of a scalar or an enum: the built-in
// scalars' serialisation, an enum value by its name; other scalars'
// values are written as they are.
func serializeLeaf(def *ast.Definition, v any) (any, error) {
	if def.Kind == ast.Enum {
		if s, ok := stringOf(v); ok && def.EnumValues.ForName(s) != nil {
			return s, nil
		}
		return nil, graphQLError("Enum %q cannot represent value: %v", def.Name, v)
	}
	switch def.Name {
	case "Int":
		if n, ok := intOf(v); ok && n >= math.MinInt32 && n <= math.MaxInt32 {
			return int(n), nil
		}
		return nil, graphQLError("Int cannot represent non 32-bit signed integer value: %v", v)
	case "Float":
		if f, ok := floatOf(v); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, nil
		}
		return nil, graphQLError("Float cannot represent non numeric value: %v", v)
	case "String", "ID":
		if s, ok := stringOf(v); ok {
			return s, nil
		}
		if n, ok := intOf(v); ok && def.Name == "ID" {
			return strconv.FormatInt(n, 10), nil
		}
		return nil, fmt.Errorf("%s cannot represent value: %v", def.Name, v)
	case "Boolean":
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, graphQLError("Boolean cannot represent a non boolean value: %v", v)
	}
	return v, nil
}

// stringOf reads a string, or a value of a type whose kind is string.
func stringOf(v any) (string, bool) {
	if s, ok := v.(string); ok {
		return s, true
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		return rv.String(), true
	}
	return "", false
}

// intOf reads a whole number of any Go integer or float type.
func intOf(v any) (int64, bool) {
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if u := rv.Uint(); u <= math.MaxInt64 {
			return int64(u), true
		}
	case reflect.Float32, reflect.Float64:
		if f := rv.Float(); f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), true
		}
	}
	return 0, false
}

func floatOf(v any) (float64, bool) {
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Float32, reflect.Float64:
		return rv.Float(), true
	}
	if n, ok := intOf(v); ok {
		return float64(n), true
	}
	return 0, false
}
