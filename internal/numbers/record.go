package numbers

import (
	"context"
	"slices"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/store"
)

// record is the branch.Recorder of number pools: in the transaction of
// every change of objects, it records the numbers the branch's new
// versions hold in each pool of their kind (the holdings), and frees the
// numbers nothing holds any more: an object deleted, a number changed or
// dropped, a branch deleted (what only its objects held), merged or
// rebased (what main showed it at its old branch point alone). Each number
// freed from an allocation is audited ("release", with the pool, the
// division, the object and the branch), and freed in this process's views
// at once.
func (s *Service) record(ctx context.Context, tx *store.Tx, c branch.ObjectsChange) error {
	var freed []store.NumberKey
	if len(c.Versions) > 0 {
		f, err := recordVersions(ctx, tx, c)
		if err != nil {
			return err
		}
		freed = append(freed, f...)
	}
	if !c.Branch.IsDefault && (c.Deleted || c.Emptied || c.Rebased) {
		// The branch's own rows go (all of them, or those of the objects
		// it no longer has a version of), then main's that no branch sees.
		objects := c.Dropped
		if c.Deleted || c.Emptied {
			objects = nil
		} else if objects == nil {
			objects = []string{}
		}
		gone := int64(0)
		if c.Deleted {
			gone = c.Branch.ID
		}
		f, err := store.DropHoldings(ctx, tx, c.Branch.ID, objects, gone)
		if err != nil {
			return err
		}
		freed = append(freed, f...)
	}
	if len(freed) == 0 {
		return nil
	}
	if _, err := store.ReleaseNumbers(ctx, tx, freed, c.Actor, c.Branch.Name); err != nil {
		return err
	}
	s.views.freed(freed)
	return nil
}

// recordVersions replaces the holdings of the objects of c.Versions on
// c.Branch, and returns the numbers of the rows it deleted. It costs one
// statement for objects of kinds without pools, two otherwise.
func recordVersions(ctx context.Context, tx *store.Tx, c branch.ObjectsChange) ([]store.NumberKey, error) {
	kinds := map[string][]string{} // node kind → its ancestry
	var all, objects []string
	for _, v := range c.Versions {
		if _, ok := kinds[v.Kind]; !ok {
			kinds[v.Kind] = c.Schema.Ancestry(v.Kind)
			for _, k := range kinds[v.Kind] {
				if !slices.Contains(all, k) {
					all = append(all, k)
				}
			}
		}
		objects = append(objects, v.ID)
	}
	pools, live, err := store.NumberRecords(ctx, tx, all, c.Branch.ID, objects)
	if err != nil || len(pools) == 0 {
		return nil, err
	}
	type key struct{ pool, object string }
	old := map[key]store.HoldingRow{}
	for _, h := range live {
		old[key{h.Pool, h.Object}] = h
	}
	w := store.HoldingsWrite{Branch: c.Branch.ID, Seq: c.Seq}
	for _, v := range c.Versions {
		for _, p := range pools {
			if !slices.Contains(kinds[v.Kind], p.KindID) {
				continue
			}
			next := store.HoldingRow{Pool: p.ID, Branch: c.Branch.ID, Object: v.ID}
			if !v.Deleted {
				next.Division, next.Number, _ = holding(p, v.Data)
			}
			prev, had := old[key{p.ID, v.ID}]
			if had && sameHolding(prev, next) {
				continue
			}
			if had {
				w.Replace = append(w.Replace, prev)
			}
			if next.Holds() || !c.Branch.IsDefault {
				// On main, holding nothing is having no row; on another
				// branch, it is a row that hides main's.
				w.Insert = append(w.Insert, next)
			}
		}
	}
	return store.WriteHoldings(ctx, tx, w)
}

// sameHolding reports whether two rows hold the same (or both nothing).
func sameHolding(a, b store.HoldingRow) bool {
	return a.Holds() == b.Holds() && (!a.Holds() || a.Number == b.Number && string(a.Division) == string(b.Division))
}
