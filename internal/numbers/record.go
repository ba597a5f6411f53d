package numbers

import (
	"context"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/store"
)

// Record is the branch.Recorder of number pools: in the transaction of
// every change of objects, it records the numbers the branch's new
// versions hold in each pool of their kind (the holdings), and frees the
// numbers no branch holds any more: an object deleted, a number changed
// or dropped, a branch deleted (what only its objects held), merged or
// rebased (what its old branch point alone showed). Each number freed
// from an allocation is audited ("release", with the pool, the division,
// the object and the branch).
func Record(ctx context.Context, tx *store.Tx, c branch.ObjectsChange) error {
	return errNotYet
}
