package branch

import (
	"context"

	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

// SchemaGuard returns a Guard that refuses a change of a branch's schema
// when check refuses the schema the change makes, its error returned as it
// is: for rules that need no data, such as the GraphQL API's, which
// refuses kinds whose types would take a name already taken.
func SchemaGuard(check func(schema.Schema) error) Guard {
	return func(_ context.Context, _ *store.Tx, c SchemaChange) error { return check(c.After) }
}

// Guards returns a Guard that asks each of guards in turn, and refuses a
// change with the first refusal: the GraphQL API's rules and number
// pools' together.
func Guards(guards ...Guard) Guard {
	return func(ctx context.Context, tx *store.Tx, c SchemaChange) error {
		for _, g := range guards {
			if g == nil {
				continue
			}
			if err := g(ctx, tx, c); err != nil {
				return err
			}
		}
		return nil
	}
}
