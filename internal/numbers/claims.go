package numbers

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
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
		r.dv.free(r.n)
	}
	c.reserved = nil
}

// reserved records a number the run marked taken; unreserve forgets it,
// as what holds it is not this run.
func (c *Claims) reserve(dv *divisionView, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reserved = append(c.reserved, reservation{dv, n})
}

func (c *Claims) unreserve(dv *divisionView, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reserved = slices.DeleteFunc(c.reserved, func(r reservation) bool { return r.dv == dv && r.n == n })
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
// identifier, in the write's transaction: the number its view holds free
// first, inserted in one statement; a number taken meanwhile is marked in
// the view and the next is tried. An identifier that holds a number in
// the division gets it back, its allocation locked until the write ends
// (store.NumberClaimConflict), so that no release frees it before the
// write's holding of it is committed.
func (c *Claims) allocate(ctx context.Context, w *branch.Write, p *poolState, attribute string, division json.RawMessage, identifier string) (int64, error) {
	dv, err := c.s.views.division(ctx, w.Ext(), p.row.ID, division)
	if err != nil {
		return 0, err
	}
	reloaded, vanished := false, 0
	for ctx.Err() == nil {
		number, ok := dv.reserve(p.space)
		if !ok {
			if reloaded {
				break
			}
			// The view may hold numbers freed elsewhere: read it afresh
			// once before saying the division is full.
			if err := dv.reload(ctx, w.Ext(), p.row.ID, division); err != nil {
				return 0, err
			}
			reloaded = true
			continue
		}
		c.reserve(dv, number)
		key := store.NumberKey{Pool: p.row.ID, Division: division, Number: number}
		err := c.insert(ctx, w, attribute, store.NumberClaim{NumberKey: key, Revision: p.row.Revision, Identifier: identifier,
			Object: w.After.ID, Branch: w.Branch.Name, Actor: c.actor.Name, PoolName: p.row.Name})
		if err == nil {
			return number, nil
		}
		if errors.Is(err, store.ErrNotFound) {
			c.s.views.forgetPool(p.row.ID)
			return 0, notFound("number pool %s", p.row.ID)
		}
		if !errors.Is(err, store.ErrObjectExists) {
			return 0, err
		}
		why, err := store.NumberClaimConflict(ctx, w.Ext(), key, identifier)
		if err != nil {
			return 0, err
		}
		c.unreserve(dv, number)
		switch {
		case why.Revision == 0:
			c.s.views.forgetPool(p.row.ID)
			return 0, notFound("number pool %s", p.row.ID)
		case why.Revision != p.row.Revision:
			// The pool changed meanwhile: claim from its new ranges.
			dv.free(number)
			c.s.views.forgetPool(p.row.ID)
			if p, err = c.s.views.pool(ctx, w.Ext(), p.row.ID); err != nil {
				return 0, err
			}
			if dv, err = c.s.views.division(ctx, w.Ext(), p.row.ID, division); err != nil {
				return 0, err
			}
		case why.Identified != nil:
			if !why.Taken {
				dv.free(number)
			}
			dv.mark(*why.Identified)
			return *why.Identified, nil
		case why.Taken:
			// Claimed or held elsewhere: it stays taken in the view.
		case vanished < maxVanished:
			// Released between the insert and the question: try it again.
			dv.free(number)
			vanished++
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	why, err := store.NumberClaimConflict(ctx, w.Ext(), store.NumberKey{Pool: p.row.ID, Division: division}, identifier)
	if err != nil {
		return 0, err
	}
	if why.Identified != nil {
		return *why.Identified, nil
	}
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

// maxVanished bounds how many times one claim tries again a number that
// was released while it asked.
const maxVanished = 8

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
