package numbers

import (
	"context"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/store"
)

// Guard is the branch.Guard of number pools: it refuses, with the words of
// issue 12, a schema change (on any branch) that would remove a pool's
// scope element or make it optional, of cardinality many or of kind List,
// JSON or Any; make a scoped pool's attribute unique; rename a pool's kind
// or its attribute; or make a pool's kind inherit from another generic.
// Renaming a scope element is allowed.
func Guard(ctx context.Context, tx *store.Tx, c branch.SchemaChange) error {
	return errNotYet
}
