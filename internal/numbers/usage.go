package numbers

import (
	"context"

	"pivirt.hu/ipam/internal/auth"
)

// Figures are the usage of a pool, a division or a range: Size numbers in
// the ranges, Used of them held, Utilization = 100 × Used / Size.
type Figures struct {
	Size        int64   `json:"size"`
	Used        int64   `json:"used"`
	Utilization float64 `json:"utilization"`
}

// An Entry is the value of one scope element in a division.
type Entry struct {
	// Path is the element's name in the default branch's schema now.
	Path string `json:"path"`
	// Value is the peer's id for a relationship, the attribute's value
	// (as text: "user", "42", "true") for an attribute.
	Value string `json:"value"`
	// DisplayLabel is the peer's display label for a relationship, the
	// value for an attribute.
	DisplayLabel string `json:"display_label"`
}

// A Division is one combination of values of a pool's scope elements
// (an allocation scope), with its figures. A pool without a scope has one,
// without entries.
type Division struct {
	Entries []Entry `json:"entries"`
	// DisplayLabel is the entries' display labels joined by " / ", in the
	// scope's order.
	DisplayLabel string  `json:"display_label"`
	Figures      Figures `json:"figures"`
}

// An EntryInput names a division's value of one scope element: Path its
// name, Value as Entry.Value.
type EntryInput struct {
	Path  string
	Value string
}

// A DivisionList is the divisions of a pool that hold a number.
type DivisionList struct {
	Count     int
	Divisions []Division
}

// A RangeUsage is a range with its figures.
type RangeUsage struct {
	Range
	Figures Figures
}

// Usage is the figures of a division of a pool (of the pool, for one
// without a scope), and of each of its ranges in it.
type Usage struct {
	Figures Figures
	Ranges  []RangeUsage
}

// A Holder is an object that holds a number.
type Holder struct {
	ID           string `json:"id"`
	Kind         string `json:"kind"`
	DisplayLabel string `json:"display_label"`
}

// An Allocation is a number held by an object on a branch.
type Allocation struct {
	Value  int64  `json:"value"`
	Branch string `json:"branch"`
	Holder Holder `json:"holder"`
	// Division is the holder's division there.
	Division []Entry `json:"division"`
	// Identifier is the identifier the number was allocated under; "" for
	// a number given, not taken from the pool.
	Identifier string `json:"identifier"`
}

// An AllocationPage is a page of allocations and how many there are.
type AllocationPage struct {
	Count       int
	Allocations []Allocation
}

// A RangeUtilization is a range of a pool as InfrahubResourcePoolUtilization
// lists it: one edge per range.
type RangeUtilization struct {
	// ID names the range: "<pool id>-<position from 1>".
	ID string
	// DisplayLabel is "<start>-<end>".
	DisplayLabel string
	// Kind is "CoreNumberPoolRange".
	Kind        string
	Weight      int
	Utilization float64
}

// PoolUtilization is the usage of a whole pool, its scope ignored (a number
// held in two divisions counts once), as InfrahubResourcePoolUtilization
// answers it.
type PoolUtilization struct {
	// Count is how many numbers the pool's ranges hold that are held.
	Count int64
	// Utilization counts every branch; UtilizationDefaultBranch main's
	// objects only; UtilizationBranches the other branches' only.
	Utilization, UtilizationDefaultBranch, UtilizationBranches float64
	Ranges                                                     []RangeUtilization
}

// An AllocatedNode is a number of a pool as InfrahubResourcePoolAllocated
// lists it: its holder, on a branch.
type AllocatedNode struct {
	ID           string
	DisplayLabel string
	Kind         string
	Branch       string
	// Identifier is as Allocation's.
	Identifier string
	Value      int64
}

// An AllocatedPage is a page of AllocatedNodes and how many there are.
type AllocatedPage struct {
	Count int
	Nodes []AllocatedNode
}

// Divisions returns the divisions of the pool id that hold a number on a
// branch at least, most used first, ties by display label (the seed's
// InfrahubNumberPoolDivisions); figures count every branch.
func (s *Service) Divisions(ctx context.Context, actor auth.Actor, poolID string) (DivisionList, error) {
	return DivisionList{}, errNotYet
}

// Utilization returns the figures of one division of the pool id, and of
// each range in it. On a scoped pool the division gives a value for every
// scope element; on a pool without a scope, none. The refusals are
// *branch.InvalidErrors in the words of issue 12.
func (s *Service) Utilization(ctx context.Context, actor auth.Actor, poolID string, division []EntryInput) (Usage, error) {
	return Usage{}, errNotYet
}

// Allocations returns a page of the numbers held in the divisions of the
// pool id that match division (some of the scope elements, or none for
// every division), ascending, on every branch, limit at most
// (branch.MaxPage when 0) from offset on, and how many there are.
func (s *Service) Allocations(ctx context.Context, actor auth.Actor, poolID string, division []EntryInput, limit, offset int) (AllocationPage, error) {
	return AllocationPage{}, errNotYet
}

// ResourcePoolUtilization returns the figures of the whole pool id, its
// scope ignored, as Infrahub's InfrahubResourcePoolUtilization.
func (s *Service) ResourcePoolUtilization(ctx context.Context, actor auth.Actor, poolID string) (PoolUtilization, error) {
	return PoolUtilization{}, errNotYet
}

// ResourcePoolAllocated returns a page of every number held of the pool
// id, on every branch, ascending, its scope ignored, as Infrahub's
// InfrahubResourcePoolAllocated; resourceID is ignored for number pools.
func (s *Service) ResourcePoolAllocated(ctx context.Context, actor auth.Actor, poolID, resourceID string, limit, offset int) (AllocatedPage, error) {
	return AllocatedPage{}, errNotYet
}
