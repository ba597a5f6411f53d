package branch

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/schema"
)

// TestAttributeValues: each attribute kind takes the values it should,
// written canonically, and refuses the others naming the attribute.
func TestAttributeValues(t *testing.T) {
	kinds := map[schema.AttributeKind]schema.Attribute{
		schema.Text:     {Name: "name", Kind: schema.Text},
		schema.Number:   {Name: "vlan_id", Kind: schema.Number},
		schema.Boolean:  {Name: "enabled", Kind: schema.Boolean},
		schema.Dropdown: {Name: "role", Kind: schema.Dropdown, Choices: []string{"user", "voice"}},
		schema.List:     {Name: "tags", Kind: schema.List},
		schema.JSON:     {Name: "meta", Kind: schema.JSON},
		schema.Any:      {Name: "extra", Kind: schema.Any},
	}
	tests := []struct {
		kind schema.AttributeKind
		in   any
		want string // canonical JSON, or the refusal's message
	}{
		{schema.Text, "users-site-a", `"users-site-a"`},
		{schema.Text, "<b>&", `"<b>&"`},
		{schema.Text, 100, `name: expected a string for an attribute of kind Text, got 100`},
		{schema.Text, true, `name: expected a string for an attribute of kind Text, got true`},
		{schema.Number, 100, `100`},
		{schema.Number, int64(math.MaxInt64), `9223372036854775807`},
		{schema.Number, float64(4094), `4094`},
		{schema.Number, json.Number("12"), `12`},
		{schema.Number, uint64(math.MaxUint64), `vlan_id: expected a whole number from -9223372036854775808 to 9223372036854775807 for an attribute of kind Number, got 18446744073709551615`},
		{schema.Number, 1.5, `vlan_id: expected a whole number from -9223372036854775808 to 9223372036854775807 for an attribute of kind Number, got 1.5`},
		{schema.Number, "100", `vlan_id: expected a whole number from -9223372036854775808 to 9223372036854775807 for an attribute of kind Number, got "100"`},
		{schema.Boolean, false, `false`},
		{schema.Boolean, "true", `enabled: expected true or false for an attribute of kind Boolean, got "true"`},
		{schema.Dropdown, "voice", `"voice"`},
		{schema.Dropdown, "admin", `role: "admin" is not one of the choices user, voice`},
		{schema.Dropdown, 1, `role: expected one of the choices user, voice for an attribute of kind Dropdown, got 1`},
		{schema.List, []any{"a", 1, true}, `["a",1,true]`},
		{schema.List, []string{}, `[]`},
		{schema.List, "a", `tags: expected a list for an attribute of kind List, got "a"`},
		{schema.List, map[string]any{"a": 1}, `tags: expected a list for an attribute of kind List, got {"a":1}`},
		{schema.JSON, map[string]any{"b": []any{1, 2.5}, "a": nil}, `{"a":null,"b":[1,2.5]}`},
		{schema.JSON, "text", `"text"`},
		{schema.Any, 7, `7`},
		{schema.Any, []any{map[string]any{"z": 1, "y": "x"}}, `[{"y":"x","z":1}]`},
		{schema.Any, strings.Repeat("x", MaxValueBytes), `extra: the value is 65538 bytes as JSON, more than 65536`},
	}
	for _, tt := range tests {
		a := kinds[tt.kind]
		raw, err := encodeAttribute(a, tt.in)
		got := string(raw)
		if err != nil {
			got = err.Error()
			if bad, ok := err.(*refusal.InvalidError); !ok || bad.Field != a.Name {
				t.Errorf("encodeAttribute(%s, %#v) = %#v, want an *refusal.InvalidError of %s", tt.kind, tt.in, err, a.Name)
			}
		}
		if got != tt.want {
			t.Errorf("encodeAttribute(%s, %#v) = %s, want %s", tt.kind, tt.in, got, tt.want)
		}
	}
}

// TestObjectIDs: new ids are UUIDs of version 7, each greater than the one
// made before it, even many in one millisecond (more than the 12-bit
// counter holds) and when the clock goes back; ids read are written
// canonically, others refused.
func TestObjectIDs(t *testing.T) {
	prev := ""
	now := time.Now()
	for i := range 10000 {
		at := now
		if i == 9000 {
			at = now.Add(-time.Hour)
		}
		id := newObjectID(at)
		if got, ok := parseObjectID(id); !ok || got != id || id[14] != '7' || !strings.ContainsRune("89ab", rune(id[19])) {
			t.Fatalf("newObjectID() = %s", id)
		}
		if id <= prev {
			t.Fatalf("%s made after %s", id, prev)
		}
		prev = id
	}
	for in, want := range map[string]string{
		"01900000-0000-7000-8000-0000000000AB": "01900000-0000-7000-8000-0000000000ab",
		"0190000000007000800000000000000000ab": "",
		"01900000-0000-7000-8000-0000000000ag": "",
		"":                                     "",
		"01900000-0000-7000-8000_0000000000ab": "",
	} {
		got, ok := parseObjectID(in)
		if ok != (want != "") || got != want {
			t.Errorf("parseObjectID(%q) = %q, %v, want %q", in, got, ok, want)
		}
	}
}
