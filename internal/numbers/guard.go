package numbers

import (
	"context"
	"slices"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

// guard is the branch.Guard of number pools, asked in the transaction of
// every schema load (on any branch), and of every merge or rebase that
// changes a schema. While a pool exists it refuses, in the words
// TestSchemaGuards checks, a change that would remove one of its scope
// elements or make it optional, of cardinality many or of kind List, JSON or Any; make a
// scoped pool's attribute unique; rename the pool's kind or its
// attribute; or make the pool's kind inherit from another generic. It
// also refuses removing the pool's kind or attribute, or changing the
// attribute's kind. Renaming a scope element is allowed. Pools whose kind
// the branch's schema did not have are not concerned.
func (s *Service) guard(ctx context.Context, tx *store.Tx, c branch.SchemaChange) error {
	pools, _, err := store.NumberPools(ctx, tx, store.NumberPoolFilter{})
	if err != nil {
		return err
	}
	for _, p := range pools {
		if err := guardPool(p, c.Before, c.After); err != nil {
			return err
		}
	}
	return nil
}

// guardPool checks the change from before to after against the pool of
// row.
func guardPool(row store.NumberPoolRow, before, after schema.Schema) error {
	kb, ok := before.Element(row.KindID)
	if !ok {
		return nil
	}
	pool, kind := row.Name, kb.Kind
	ka, ok := after.Element(row.KindID)
	if !ok {
		return invalid("schema", "pool %s allocates numbers for %s; the kind cannot be removed while the pool exists", pool, kind)
	}
	if ka.Kind != kind {
		return invalid("schema", "pool %s allocates numbers for %s; the kind cannot be renamed while the pool exists", pool, kind)
	}
	if inherits(after, ka.Kind, before, kind) {
		return invalid("schema", "pool %s allocates numbers for %s; the kind cannot inherit from another generic while the pool exists", pool, kind)
	}
	if ab, ok := before.Element(row.AttributeID); ok {
		aa, ok := after.Element(row.AttributeID)
		attr := ab.Attribute.Name
		switch {
		case !ok:
			return invalid("schema", "pool %s allocates %s.%s; the attribute cannot be removed while the pool exists", pool, kind, attr)
		case aa.Attribute.Name != attr:
			return invalid("schema", "pool %s allocates %s.%s; the attribute cannot be renamed while the pool exists", pool, kind, attr)
		case aa.Attribute.Kind != schema.Number:
			return invalid("schema", "pool %s allocates %s.%s; the attribute must stay a Number while the pool exists", pool, kind, attr)
		case len(row.Scope) > 0 && aa.Attribute.Unique && !ab.Attribute.Unique:
			return invalid("schema", "pool %s allocates %s.%s per division; a globally unique number cannot be allocated per division", pool, kind, attr)
		}
	}
	for _, id := range row.Scope {
		eb, ok := before.Element(id)
		if !ok {
			continue
		}
		ea, ok := after.Element(id)
		by := func(format string) error {
			return invalid("schema", "pool %s divides its numbers by %s.%s; "+format, pool, kind, elementName(before, id))
		}
		switch {
		case !ok:
			return by("a scope element cannot be removed while the pool exists")
		case eb.Type == schema.RelationshipElement && ea.Relationship.Optional && !eb.Relationship.Optional,
			eb.Type == schema.AttributeElement && ea.Attribute.Optional && !eb.Attribute.Optional:
			return by("a scope element must stay required")
		case eb.Type == schema.RelationshipElement && ea.Relationship.Cardinality == schema.Many && eb.Relationship.Cardinality != schema.Many:
			return by("a scope element must stay a relationship of cardinality one")
		case eb.Type == schema.AttributeElement && !scalar(ea.Attribute.Kind) && scalar(eb.Attribute.Kind):
			return by("a scope element must hold a single scalar value")
		}
	}
	return nil
}

// inherits reports whether the kind a (in after) inherits from a generic
// that the kind b (in before) did not inherit from, by their ids.
func inherits(after schema.Schema, a string, before schema.Schema, b string) bool {
	was := map[string]bool{}
	if k, ok := before.Kind(b); ok {
		for _, id := range before.Ancestry(k.ID)[1:] {
			was[id] = true
		}
	}
	k, ok := after.Kind(a)
	if !ok {
		return false
	}
	return slices.ContainsFunc(after.Ancestry(k.ID)[1:], func(id string) bool { return !was[id] })
}
