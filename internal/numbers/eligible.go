package numbers

import "pivirt.hu/ipam/internal/schema"

// EligibleScope returns the names of the attributes and relationships of
// the kind (a node or a generic of main, the default branch's schema) that
// can divide a pool allocating its Number attribute, in the kind's order,
// attributes first: exactly those CreatePool accepts as a scope element on
// their own. None when the kind or the attribute is unknown, or when the
// attribute is unique (a globally unique number is not allocated per
// division).
func EligibleScope(main schema.Schema, kind, attribute string) []string {
	k, ok := main.Kind(kind)
	if !ok {
		return nil
	}
	a, ok := main.Attribute(kind, attribute)
	if !ok || a.Kind != schema.Number {
		return nil
	}
	var out []string
	for _, e := range main.Attributes(kind) {
		if _, err := scopeIDs(main, k, a, []string{e.Name}); err == nil {
			out = append(out, e.Name)
		}
	}
	for _, r := range main.Relationships(kind) {
		if _, err := scopeIDs(main, k, a, []string{r.Name}); err == nil {
			out = append(out, r.Name)
		}
	}
	return out
}
