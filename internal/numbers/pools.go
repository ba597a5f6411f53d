package numbers

import (
	"context"
	"time"

	"pivirt.hu/ipam/internal/auth"
)

// PoolKind is the built-in kind of number pools, as the API names it.
const PoolKind = "CoreNumberPool"

// A Range is a span of numbers of a pool, both ends included, and its
// weight: ranges are tried by descending weight, ties in the order given.
type Range struct {
	Start  int64 `json:"start"`
	End    int64 `json:"end"`
	Weight int   `json:"weight"`
}

// Size is how many numbers r holds.
func (r Range) Size() int64 { return r.End - r.Start + 1 }

// A ScopeElement is an attribute or a relationship of a pool's kind that
// divides its numbers.
type ScopeElement struct {
	// ID is the element's stable id: a rename keeps it.
	ID string `json:"id"`
	// Name is its name in the default branch's schema now.
	Name string `json:"name"`
	// Relationship says whether it is a relationship (its values are
	// peers' ids) or an attribute.
	Relationship bool `json:"relationship"`
}

// A Pool is a number pool: the same on every branch.
type Pool struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Kind is the full name of the pool's kind (a node or a generic) in
	// the default branch's schema now; KindID its stable id.
	Kind   string `json:"node"`
	KindID string `json:"node_id"`
	// Attribute is the name of the Number attribute the pool allocates, in
	// the default branch's schema now; AttributeID its stable id.
	Attribute   string `json:"node_attribute"`
	AttributeID string `json:"node_attribute_id"`
	// Scope are the elements that divide the pool's numbers, in order;
	// none for a pool that allocates from one space.
	Scope     []ScopeElement `json:"allocation_scope"`
	Ranges    []Range        `json:"ranges"`
	CreatedAt time.Time      `json:"created_at"`
	CreatedBy string         `json:"created_by"`
}

// ScopeNames are the names of the pool's scope elements, in order.
func (p Pool) ScopeNames() []string {
	out := make([]string, len(p.Scope))
	for i, e := range p.Scope {
		out[i] = e.Name
	}
	return out
}

// PoolInput is a new pool.
type PoolInput struct {
	Name        string
	Description string
	// Node is the full name of a node or a generic of the default
	// branch's schema; NodeAttribute a Number attribute of it.
	Node          string
	NodeAttribute string
	// Ranges are at least one range; a Weight of 0 is 1.
	Ranges []Range
	// AllocationScope names attributes and relationships of Node; none
	// for a pool without a scope.
	AllocationScope []string
}

// PoolUpdate is a change of a pool: what is nil is kept. The scope, the
// kind and the attribute cannot change: given, they must be the pool's.
type PoolUpdate struct {
	Name        *string
	Description *string
	// Ranges, when not nil, replace the pool's (at least one).
	Ranges []Range
	// AllocationScope, when not nil, must name the pool's scope.
	AllocationScope []string
	// Node and NodeAttribute, when not nil, must name the pool's.
	Node, NodeAttribute *string
}

// A PoolPage is a page of pools and how many there are in all.
type PoolPage struct {
	Pools []Pool
	Count int
}

// A PoolFilter narrows Pools; the conditions hold together.
type PoolFilter struct {
	// IDs keeps these pools only, when not nil.
	IDs []string
	// Name keeps the pool of that name, when not "".
	Name string
}

// CreatePool creates a pool, checked against the default branch's schema,
// and records every number the branches' objects of its kind hold already,
// which the pool then skips. Refusals are *branch.InvalidErrors naming the
// field (the scope's in the words of issue 12), a name in use a
// *branch.ConflictError. Operators only: tenants get ErrNotFound.
func (s *Service) CreatePool(ctx context.Context, actor auth.Actor, in PoolInput) (Pool, error) {
	return Pool{}, errNotYet
}

// UpdatePool changes the name, the description or the ranges of the pool
// id. A change of its scope is refused with "allocation_scope can't be
// changed after the pool is created", whatever else the update holds.
func (s *Service) UpdatePool(ctx context.Context, actor auth.Actor, id string, in PoolUpdate) (Pool, error) {
	return Pool{}, errNotYet
}

// DeletePool deletes the pool id with its records; objects keep their
// values.
func (s *Service) DeletePool(ctx context.Context, actor auth.Actor, id string) (Pool, error) {
	return Pool{}, errNotYet
}

// Pool returns the pool id (its kind's and elements' names as the default
// branch's schema has them now); ErrNotFound when there is none, and to
// tenants.
func (s *Service) Pool(ctx context.Context, actor auth.Actor, id string) (Pool, error) {
	return Pool{}, errNotYet
}

// Pools returns a page of the pools f keeps, by name, limit at most
// (branch.MaxPage when 0) from offset on, and how many f keeps. Tenants see
// none.
func (s *Service) Pools(ctx context.Context, actor auth.Actor, f PoolFilter, limit, offset int) (PoolPage, error) {
	return PoolPage{}, errNotYet
}
