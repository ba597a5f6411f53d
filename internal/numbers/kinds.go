package numbers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

// names are a pool's kind, attribute and scope elements as a schema names
// them (the default branch's, for what the pool shows); an element the
// schema lacks is named by its id.
type names struct {
	kind      string
	attribute string
	scope     []string
}

// namesIn returns the names of the elements of row in s.
func namesIn(s schema.Schema, row store.NumberPoolRow) names {
	n := names{kind: row.KindID, attribute: row.AttributeID, scope: make([]string, len(row.Scope))}
	if e, ok := s.Element(row.KindID); ok {
		n.kind = e.Kind
	}
	if e, ok := s.Element(row.AttributeID); ok && e.Type == schema.AttributeElement {
		n.attribute = e.Attribute.Name
	}
	for i, id := range row.Scope {
		n.scope[i] = elementName(s, id)
	}
	return n
}

// elementName is the name of the attribute or relationship id in s, or
// the id.
func elementName(s schema.Schema, id string) string {
	e, ok := s.Element(id)
	switch {
	case !ok:
		return id
	case e.Type == schema.AttributeElement:
		return e.Attribute.Name
	case e.Type == schema.RelationshipElement:
		return e.Relationship.Name
	}
	return id
}

// nodesOf returns the stable ids of the nodes of s that are the kind id or
// inherit from it.
func nodesOf(s schema.Schema, id string) []string {
	e, ok := s.Element(id)
	if !ok {
		return nil
	}
	switch e.Type {
	case schema.NodeElement:
		return []string{id}
	case schema.GenericElement:
		var out []string
		for _, name := range s.Inheritors(e.Kind) {
			if k, ok := s.Kind(name); ok {
				out = append(out, k.ID)
			}
		}
		return out
	}
	return nil
}

// holding returns the division and the number that data (an object's
// values by element id) holds in the pool of row: none when it lacks the
// number or a value of a scope element.
func holding(row store.NumberPoolRow, data map[string]json.RawMessage) (json.RawMessage, int64, bool) {
	raw, ok := data[row.AttributeID]
	if !ok {
		return nil, 0, false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return nil, 0, false
	}
	values := make([]json.RawMessage, len(row.Scope))
	for i, id := range row.Scope {
		if values[i], ok = data[id]; !ok {
			return nil, 0, false
		}
	}
	return divisionKey(values), n, true
}

// divisionKey writes a division's values (each canonical JSON) as the
// store keeps it: a canonical JSON list.
func divisionKey(values []json.RawMessage) json.RawMessage {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = string(v)
	}
	return json.RawMessage("[" + strings.Join(parts, ",") + "]")
}

// divisionValues reads a division key back into its values.
func divisionValues(key json.RawMessage) []json.RawMessage {
	var values []json.RawMessage
	if err := json.Unmarshal(key, &values); err != nil {
		return nil
	}
	for i, v := range values {
		if c, err := store.Canonical(v); err == nil {
			values[i] = c
		}
	}
	return values
}

// canonical writes v (a Go value of an object's attribute) as canonical
// JSON.
func canonical(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return store.Canonical(b)
}

// storedSchema reads the schema of kinds of the branch of row, as the
// transaction q sees it: its own latest, else main's at its branch point.
func storedSchema(ctx context.Context, q store.Ext, row store.BranchRow) (schema.Schema, error) {
	var v store.KindSchemaRow
	var err error
	switch {
	case row.SchemaSeq != 0:
		v, err = store.KindSchema(ctx, q, row.ID, row.SchemaSeq)
	case row.ID == store.MainBranchID:
		return schema.Schema{}, nil
	default:
		v, err = store.KindSchema(ctx, q, store.MainBranchID, row.BranchedFrom)
	}
	if errors.Is(err, store.ErrNotFound) {
		return schema.Schema{}, nil
	}
	if err != nil {
		return schema.Schema{}, err
	}
	f, err := schema.Parse("stored schema", v.Document)
	if err != nil {
		return schema.Schema{}, fmt.Errorf("numbers: the stored schema of branch %s cannot be read: %w", row.Name, err)
	}
	s, _, err := schema.Schema{}.Apply(newID, f)
	if err != nil {
		return schema.Schema{}, fmt.Errorf("numbers: the stored schema of branch %s cannot be read: %w", row.Name, err)
	}
	return s, nil
}

// newID returns a new random id (a UUID of version 4).
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// parseID returns id written canonically (lower case) when it is a UUID.
func parseID(id string) (string, bool) {
	if len(id) != 36 {
		return "", false
	}
	for i, c := range id {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return "", false
			}
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		default:
			return "", false
		}
	}
	return strings.ToLower(id), true
}
