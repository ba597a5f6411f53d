// Package audittest checks, for the tests of the audit log's writers, that
// a document written is exactly of its type (internal/audit): no field the
// type lacks, and every field the type has.
package audittest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/audit"
)

// Exact reports how the document raw differs from the type of proto: a
// key the type does not know (at any depth), a key of the type absent
// (but those tagged omitempty), a value of another JSON type; nil when it
// is exactly of the type.
func Exact(raw []byte, proto audit.Payload) error {
	t := reflect.TypeOf(proto)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(reflect.New(t).Interface()); err != nil {
		return fmt.Errorf("%s does not decode as %s: %w", raw, t.Name(), err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	if err := present(t, doc, t.Name()); err != nil {
		return fmt.Errorf("%s: %w", raw, err)
	}
	return nil
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// present checks that doc has every field of t, at path.
func present(t reflect.Type, doc any, path string) error {
	switch {
	case t == timeType || t == rawType:
		return nil
	case t.Kind() == reflect.Struct:
		m, ok := doc.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is %v, not an object", path, doc)
		}
		for f := range t.Fields() {
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" {
				if err := present(f.Type, doc, path); err != nil {
					return err
				}
				continue
			}
			v, ok := m[name]
			switch {
			case !ok && opts == "omitempty":
			case !ok:
				return fmt.Errorf("%s.%s is missing", path, name)
			default:
				if err := present(f.Type, v, path+"."+name); err != nil {
					return err
				}
			}
		}
	case t.Kind() == reflect.Slice:
		items, ok := doc.([]any)
		if !ok {
			if doc == nil {
				return nil
			}
			return fmt.Errorf("%s is %v, not a list", path, doc)
		}
		for i, item := range items {
			if err := present(t.Elem(), item, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}
