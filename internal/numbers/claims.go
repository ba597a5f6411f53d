package numbers

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/claim"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
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

	mu sync.Mutex
	// reserved are the numbers the hook's last run marked taken in the
	// views, which its transaction holds until it ends.
	reserved []reservation
}

// A reservation is a number a claim marked taken in a division's view.
type reservation struct {
	dv *divisionView
	n  int64
}

// Claims returns the claims of reqs for a write by actor.
func (s *Service) Claims(actor auth.Actor, reqs []FromPool) *Claims {
	return &Claims{s: s, actor: actor, reqs: reqs}
}

// attributes are the attributes the claims fill.
func (c *Claims) attributes() []string {
	out := make([]string, len(c.reqs))
	for i, r := range c.reqs {
		out[i] = r.Attribute
	}
	return out
}

// Hook is an ObjectInput.Hook. For each request: an attribute the object
// holds a value of (given in the write, or kept) keeps it; otherwise it is
// given the lowest free number of the pool in the object's division as the
// write leaves it, in the order of the pool's ranges (a value: null in an
// update gives up the old number, which is freed once no branch holds
// it). Refusals: the pool is not found; it is for another kind or
// attribute; a scope element does not exist on the branch
// (docs/numbers.md, "A claim") or the object has no value of it; no free number
// (*ExhaustedError).
func (c *Claims) Hook(ctx context.Context, w *branch.Write) error {
	// A run before this one was rolled back: what it marked is free.
	c.forget()
	if w.Tx == nil && len(c.reqs) > 1 {
		// One statement stores one claim (Claims.insert).
		return store.ErrTransactionNeeded
	}
	for _, r := range c.reqs {
		if err := c.claim(ctx, w, r); err != nil {
			return err
		}
	}
	return nil
}

// Settle tells the claims the outcome of their write: when err is not nil
// the write stored nothing, and the numbers it claimed are free again.
func (c *Claims) Settle(err error) {
	if err != nil {
		c.forget()
	}
	c.mu.Lock()
	c.reserved = nil
	c.mu.Unlock()
}

// forget frees in the views what the last run reserved.
func (c *Claims) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.reserved {
		r.dv.Free(r.n)
	}
	c.reserved = nil
}

// reserve records a number the run claimed, which its transaction holds
// until it ends.
func (c *Claims) reserve(dv *divisionView, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reserved = append(c.reserved, reservation{dv, n})
}

// claim fills the attribute of r, if the object holds no value of it.
func (c *Claims) claim(ctx context.Context, w *branch.Write, r FromPool) error {
	pid, ok := parseID(r.Pool)
	if !ok {
		return notFound("number pool %s", r.Pool)
	}
	p, err := c.s.views.pool(ctx, w.Ext(), pid)
	if errors.Is(err, store.ErrNotFound) {
		return notFound("number pool %s", r.Pool)
	}
	if err != nil {
		return err
	}
	main, err := c.s.branches.Schema(ctx, branch.Main)
	if err != nil {
		return err
	}
	n := namesIn(main, p.row)
	kind, ok := w.Schema.Element(p.row.KindID)
	if !ok || w.After.Kind != kind.Kind && !slices.Contains(w.Schema.Inheritors(kind.Kind), w.After.Kind) {
		return invalid(r.Attribute, "%s: pool %s allocates numbers for %s, not for %s", r.Attribute, p.row.Name, n.kind, w.After.Kind)
	}
	attr, ok := w.Schema.Element(p.row.AttributeID)
	if !ok || attr.Type != schema.AttributeElement || attr.Attribute.Name != r.Attribute {
		return invalid(r.Attribute, "%s: pool %s allocates %s.%s, not %s", r.Attribute, p.row.Name, n.kind, n.attribute, r.Attribute)
	}
	if _, held := w.After.Attributes[r.Attribute]; held {
		return nil
	}
	division, err := divisionOf(w.Schema, p.row, n, w.After, w.Branch.Name)
	if err != nil {
		return err
	}
	identifier := r.Identifier
	if identifier == "" {
		identifier = w.After.ID
	}
	if w.Before != nil {
		if err := c.giveUp(ctx, w, p, n, *w.Before, r.Attribute, identifier); err != nil {
			return err
		}
	}
	number, err := c.allocate(ctx, w, p, r.Attribute, division, identifier)
	if err != nil {
		return err
	}
	if w.Tx == nil && !w.Stored() {
		// The identifier's number, found allocated already: its
		// allocation is to stay locked until the write's holding of it
		// commits (store.NumberClaimConflict), which takes a transaction.
		return store.ErrTransactionNeeded
	}
	return w.SetAttribute(r.Attribute, number)
}

// giveUp gives up the allocation of the number before held (an update
// with value: null), if it was allocated under identifier, so that the
// claim gets another: the allocation stays until no object holds the
// number (store.GiveUpNumber).
func (c *Claims) giveUp(ctx context.Context, w *branch.Write, p *poolState, n names, before branch.Object, attribute, identifier string) error {
	old, ok := before.Attributes[attribute].(int64)
	if !ok {
		return nil
	}
	division, err := divisionOf(w.Schema, p.row, n, before, w.Branch.Name)
	if err != nil {
		return nil // the object had no division: it held no allocation
	}
	if w.Tx == nil {
		// Given up and claimed again in one transaction.
		return store.ErrTransactionNeeded
	}
	return store.GiveUpNumber(ctx, w.Tx, store.NumberKey{Pool: p.row.ID, Division: division, Number: old}, identifier)
}

// divisionOf returns the division of the object o in the pool of row, on
// a branch whose schema is s: the refusal of docs/numbers.md ("A claim")
// when a scope element does not exist on the branch, the branch's words when the object has no
// value of one.
func divisionOf(s schema.Schema, row store.NumberPoolRow, n names, o branch.Object, branchName string) (json.RawMessage, error) {
	values := make([]json.RawMessage, len(row.Scope))
	for i, id := range row.Scope {
		e, ok := s.Element(id)
		var name string
		switch {
		case ok && e.Type == schema.AttributeElement:
			name = e.Attribute.Name
			a, found := s.Attribute(o.Kind, name)
			ok = found && a.ID == id
		case ok && e.Type == schema.RelationshipElement:
			name = e.Relationship.Name
			r, found := s.Relationship(o.Kind, name)
			ok = found && r.ID == id
		}
		if !ok {
			return nil, invalid(n.attribute, "the scope element %q of pool %s does not exist on %s on branch %s", n.scope[i], row.Name, n.kind, branchName)
		}
		var err error
		if e.Type == schema.RelationshipElement {
			peers := o.Relationships[name]
			switch {
			case len(peers) == 0:
				return nil, invalid(name, "%s: a peer is required", name)
			case e.Relationship.Cardinality == schema.One:
				values[i], err = canonical(peers[0])
			default:
				values[i], err = canonical(peers)
			}
		} else {
			v, held := o.Attributes[name]
			if !held {
				return nil, invalid(name, "%s: a value is required", name)
			}
			values[i], err = canonical(v)
		}
		if err != nil {
			return nil, err
		}
	}
	return divisionKey(values), nil
}

// allocate claims the lowest free number of the division of the pool p for
// identifier, in the write's transaction, through the claim engine
// (internal/claim): the number its view holds free first, inserted in one
// statement; a number taken meanwhile is marked in the view and the next
// is tried. An identifier that holds a number in the division gets it
// back, its allocation locked until the write ends
// (store.NumberClaimConflict), so that no release frees it before the
// write's holding of it is committed.
func (c *Claims) allocate(ctx context.Context, w *branch.Write, p *poolState, attribute string, division json.RawMessage, identifier string) (int64, error) {
	nc := &numberClaim{c: c, w: w, p: p, attribute: attribute, division: division, identifier: identifier}
	number, err := claim.Run(ctx, nc)
	var contended *claim.ContendedError
	switch {
	case errors.As(err, &contended):
		return 0, conflict("", "pool %s: %v", nc.p.row.Name, err)
	case !errors.Is(err, claim.ErrExhausted):
		return number, err
	}
	p = nc.p
	label := ""
	if len(p.row.Scope) > 0 {
		main, err := c.s.branches.Schema(ctx, branch.Main)
		if err != nil {
			return 0, err
		}
		label = c.s.division(ctx, c.actor, w.Branch.Name, main, p.row, division).DisplayLabel
	}
	return 0, &ExhaustedError{Pool: p.row.Name, Division: label}
}

// A numberClaim is a claim of a number of a division, as the claim engine
// makes it (claim.Claimant).
type numberClaim struct {
	c          *Claims
	w          *branch.Write
	p          *poolState
	attribute  string
	division   json.RawMessage
	identifier string
	// dv is the division's view, as Space last returned it.
	dv *divisionView
	// revision is the pool's revision as the last question about the
	// identifier's number read it (Held); 0 before.
	revision int64
}

// Space returns the view of the division and the pool's candidates.
func (nc *numberClaim) Space(ctx context.Context) (*divisionView, func(candidates.NumberSet) (int64, bool), error) {
	dv, err := nc.c.s.views.division(ctx, nc.w.Ext(), nc.p.row.ID, nc.division)
	nc.dv = dv
	return dv, nc.p.space.First, err
}

// Insert claims number for the object the write stores (Claims.insert).
func (nc *numberClaim) Insert(ctx context.Context, number int64) (int64, error) {
	p, w := nc.p, nc.w
	key := store.NumberKey{Pool: p.row.ID, Division: nc.division, Number: number}
	err := nc.c.insert(ctx, w, nc.attribute, store.NumberClaim{NumberKey: key, Revision: p.row.Revision, Identifier: nc.identifier,
		Object: w.After.ID, Branch: w.Branch.Name, Actor: nc.c.actor.Name, PoolName: p.row.Name})
	switch {
	case errors.Is(err, store.ErrNotFound):
		nc.c.s.views.forgetPool(p.row.ID)
		return 0, notFound("number pool %s", p.row.ID)
	case errors.Is(err, store.ErrObjectExists):
		return 0, claim.ErrNotStored
	}
	return number, err
}

// Stored keeps the number reserved until the write ends (Claims.Settle).
func (nc *numberClaim) Stored(dv *divisionView, number int64) { nc.c.reserve(dv, number) }

// Conflict reads what stands in the way of the claim of number: the pool
// gone or changed, the identifier's number (its answer), number held
// elsewhere, or nothing (released between the insert and the question).
func (nc *numberClaim) Conflict(ctx context.Context, number int64) (claim.Conflict[int64], error) {
	why, err := store.NumberClaimConflict(ctx, nc.w.Ext(), store.NumberKey{Pool: nc.p.row.ID, Division: nc.division, Number: number}, nc.identifier)
	if err != nil {
		return claim.Conflict[int64]{}, err
	}
	if changed, err := nc.changed(ctx, why.Revision); err != nil || changed {
		return claim.Conflict[int64]{Verdict: claim.Changed}, err
	}
	switch {
	case why.Identified != nil:
		return claim.Conflict[int64]{Verdict: claim.Answered, Free: !why.Taken, Answer: nc.identified(*why.Identified)}, nil
	case why.Taken:
		return claim.Conflict[int64]{Verdict: claim.Taken}, nil
	}
	return claim.Conflict[int64]{Verdict: claim.Free}, nil
}

// changed reports whether the pool's revision, as a question read it, is
// not the claim's: the pool is gone (not found), or the claim goes on from
// its new ranges.
func (nc *numberClaim) changed(ctx context.Context, revision int64) (bool, error) {
	switch {
	case revision == 0:
		nc.c.s.views.forgetPool(nc.p.row.ID)
		return false, notFound("number pool %s", nc.p.row.ID)
	case revision == nc.p.row.Revision:
		return false, nil
	}
	nc.c.s.views.forgetPool(nc.p.row.ID)
	p, err := nc.c.s.views.pool(ctx, nc.w.Ext(), nc.p.row.ID)
	if err != nil {
		return false, err
	}
	nc.p = p
	return true, nil
}

// identified answers with the identifier's number, marked taken in the
// division's view.
func (nc *numberClaim) identified(number int64) func(context.Context) (int64, error) {
	return func(context.Context) (int64, error) {
		nc.dv.Take(number)
		return number, nil
	}
}

// Lost is told of a race lost: number claims count none.
func (nc *numberClaim) Lost(int64) {}

// Held returns the number of the identifier in the division, if it holds
// one; the question reads the pool's revision too (Respecify).
func (nc *numberClaim) Held(ctx context.Context) (int64, bool, error) {
	why, err := store.NumberClaimConflict(ctx, nc.w.Ext(), store.NumberKey{Pool: nc.p.row.ID, Division: nc.division}, nc.identifier)
	if err != nil {
		return 0, false, err
	}
	nc.revision = why.Revision
	if why.Identified != nil {
		return *why.Identified, true, nil
	}
	return 0, false, nil
}

// Respecify reports whether the pool changed since the claim read it, as
// Held's question found it.
func (nc *numberClaim) Respecify(ctx context.Context) (bool, error) {
	return nc.changed(ctx, nc.revision)
}

// Taken reads the division's taken numbers through the write's
// transaction.
func (nc *numberClaim) Taken(ctx context.Context) ([]int64, error) {
	return takenThrough(nc.w.Ext(), nc.p.row.ID, nc.division)(ctx)
}

// insert stores claim, a number of a pool for the attribute of the object
// w writes: in the write's transaction (store.ClaimNumber); or, when the
// write is made in one statement, as that statement, the object written
// holding the number (branch.Write.Commit). nil: the number is the
// object's. An error wrapping store.ErrObjectExists: the number is taken,
// or the pool changed (store.NumberClaimConflict says which); nothing was
// stored.
func (c *Claims) insert(ctx context.Context, w *branch.Write, attribute string, claim store.NumberClaim) error {
	if w.Tx != nil {
		return store.ClaimNumber(ctx, w.Tx, claim)
	}
	if err := w.SetAttribute(attribute, claim.Number); err != nil {
		return err
	}
	return w.Commit(ctx, &claim)
}

// CreateObject creates an object as branch.Service.CreateObject does,
// filling the attributes of from from their pools (see Claims.Hook).
func (s *Service) CreateObject(ctx context.Context, actor auth.Actor, branchName, kind string, in branch.ObjectInput, from []FromPool) (branch.Object, error) {
	c := s.Claims(actor, from)
	in.Hook, in.Fills, in.InOneStatement = c.Hook, c.attributes(), true
	o, err := s.branches.CreateObject(ctx, actor, branchName, kind, in)
	c.Settle(err)
	return o, err
}

// UpdateObject updates an object as branch.Service.UpdateObject does,
// filling the attributes of from from their pools (see Claims.Hook).
func (s *Service) UpdateObject(ctx context.Context, actor auth.Actor, branchName, id string, in branch.ObjectInput, from []FromPool) (branch.Object, error) {
	c := s.Claims(actor, from)
	in.Hook, in.Fills, in.InOneStatement = c.Hook, c.attributes(), true
	o, err := s.branches.UpdateObject(ctx, actor, branchName, id, in)
	c.Settle(err)
	return o, err
}
