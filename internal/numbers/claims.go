package numbers

import (
	"context"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
)

// A FromPool asks for the value of an attribute from a pool (GraphQL's
// from_pool on the attribute).
type FromPool struct {
	// Attribute is the name of the attribute to fill.
	Attribute string
	// Pool is the pool's id.
	Pool string
	// Identifier names the request: asking again under it in the same
	// division gives the same number. "" is the object's id.
	Identifier string
}

// Claims are the from_pool requests of one write of an object. Hook fills
// the attributes in the write's transaction; Settle is called with the
// write's outcome, so that this process's view forgets the numbers a
// failed write claimed. CreateObject and UpdateObject do both.
type Claims struct {
	s     *Service
	actor auth.Actor
	reqs  []FromPool
}

// Claims returns the claims of reqs for a write by actor.
func (s *Service) Claims(actor auth.Actor, reqs []FromPool) *Claims {
	return &Claims{s: s, actor: actor, reqs: reqs}
}

// Hook is an ObjectInput.Hook. For each request: an attribute the object
// holds a value of (given in the write, or kept) keeps it; otherwise it is
// given the lowest free number of the pool in the object's division, as
// the write leaves the object (a value: null in the write drops the old
// number, which is freed once no branch holds it). Refusals: the pool is
// not found, is for another kind or attribute, a scope element is missing
// on the branch (the seed's words), no free number (*ExhaustedError).
func (c *Claims) Hook(ctx context.Context, w *branch.Write) error {
	return errNotYet
}

// Settle tells the claims the outcome of their write: when err is not nil
// the write stored nothing, and the numbers it claimed are free again.
func (c *Claims) Settle(err error) {}

// CreateObject creates an object as branch.Service.CreateObject does,
// filling the attributes of from from their pools.
func (s *Service) CreateObject(ctx context.Context, actor auth.Actor, branchName, kind string, in branch.ObjectInput, from []FromPool) (branch.Object, error) {
	c := s.Claims(actor, from)
	in.Hook = c.Hook
	o, err := s.branches.CreateObject(ctx, actor, branchName, kind, in)
	c.Settle(err)
	return o, err
}

// UpdateObject updates an object as branch.Service.UpdateObject does,
// filling the attributes of from from their pools (see Claims.Hook).
func (s *Service) UpdateObject(ctx context.Context, actor auth.Actor, branchName, id string, in branch.ObjectInput, from []FromPool) (branch.Object, error) {
	c := s.Claims(actor, from)
	in.Hook = c.Hook
	o, err := s.branches.UpdateObject(ctx, actor, branchName, id, in)
	c.Settle(err)
	return o, err
}
