package ipam

import (
	"context"
	"database/sql"
	"errors"
	"net/netip"

	"github.com/jmoiron/sqlx"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/store"
)

// claimRequest is one claim of the seed's Allocate.
type claimRequest struct {
	pool      *cachedPool
	space     candidates.Space
	within    netip.Prefix // zero for the whole pool
	owner     Owner
	ownerNS   string
	subnetUID string
	actor     string
}

// claim gives the owner the lowest free candidate of the request's space,
// or the address it already holds. ext is the database or the caller's
// transaction; in a transaction, the claim is added to undo.
//
// The view proposes a candidate and marks it taken; the insert decides. An
// insert that changes nothing means the address is taken or the owner
// holds one already: the owner's address is returned if there is one,
// otherwise the next candidate is tried. When the view has no candidate
// left, it is reloaded from the database once before the pool is declared
// exhausted.
func (s *Service) claim(ctx context.Context, ext sqlx.QueryerContext, r claimRequest, undo *undoList) (Allocation, error) {
	cp := r.pool
	pv, err := s.views.pool(ctx, cp.row.UID)
	if err != nil {
		return Allocation{}, err
	}
	reloaded := false
	for {
		a, ok := pv.reserve(r.space)
		if !ok {
			if held, found, err := s.heldBy(ctx, ext, r); err != nil || found {
				return held, err
			}
			if reloaded {
				return Allocation{}, &ExhaustedError{Pool: cp.row.Name, Scope: r.space.Scope().String()}
			}
			if err := pv.reload(ctx, s.db, cp.row.UID); err != nil {
				return Allocation{}, err
			}
			reloaded = true
			continue
		}
		row, err := store.InsertAllocation(ctx, ext, store.AllocationRow{
			Namespace: cp.row.Namespace, Name: allocationName(cp.row.Name, a), PoolUID: cp.row.UID, Address: a.String(),
			OwnerKind: r.owner.Kind, OwnerUID: r.owner.UID, OwnerName: r.owner.Name, OwnerNamespace: r.ownerNS,
			SubnetUID: sql.NullString{String: r.subnetUID, Valid: r.subnetUID != ""}, CreatedBy: r.actor,
		}, cp.row.Name)
		switch {
		case err == nil:
			if undo != nil {
				*undo = append(*undo, func() { pv.free(a) })
			}
			return allocationFromRow(row, cp.row.Name), nil
		case errors.Is(err, store.ErrObjectExists):
			held, found, err := s.heldBy(ctx, ext, r)
			if err != nil || found {
				// The owner's own address made the insert fail; a is
				// not known to be taken.
				pv.free(a)
				return held, err
			}
			// Someone else holds a: it stays taken in the view.
		case errors.Is(err, store.ErrNotFound):
			pv.free(a)
			s.forgetPool(cp)
			return Allocation{}, notFound("pool", cp.row.Namespace, cp.row.Name)
		default:
			pv.free(a)
			return Allocation{}, err
		}
	}
}

// heldBy returns the address the request's owner holds in the pool, if
// any. An address outside the request's within is refused.
func (s *Service) heldBy(ctx context.Context, ext sqlx.QueryerContext, r claimRequest) (Allocation, bool, error) {
	row, err := store.AllocationOfOwner(ctx, ext, r.pool.row.UID, r.owner.Kind, r.owner.UID, r.owner.Name)
	if errors.Is(err, store.ErrNotFound) {
		return Allocation{}, false, nil
	}
	if err != nil {
		return Allocation{}, false, err
	}
	held := allocationFromRow(row, r.pool.row.Name)
	if r.within.IsValid() && !r.within.Contains(held.Address) {
		return Allocation{}, true, conflict("%s %s already holds %s in pool %s, outside %s",
			r.owner.Kind, r.owner.Name, held.Address, r.pool.row.Name, r.within)
	}
	return held, true, nil
}

// readablePool returns the pool namespace/name if the actor may read it:
// every public pool (tenants claim floating IPs from them), and the
// private pools of the actor's namespaces. Any other answers as not found.
func (s *Service) readablePool(ctx context.Context, actor auth.Actor, namespace, name string) (*cachedPool, error) {
	if namespace != "" && !actor.CanAccess(namespace) {
		return nil, notFound("pool", namespace, name)
	}
	return s.cachedPool(ctx, namespace, name)
}

// writablePool returns the pool namespace/name if the actor may allocate
// and release in it directly (verb says which, for the message): operators
// in any, tenants in the private pools of their namespaces. Tenants take
// public addresses through floating IPs and VPC uplinks only.
func (s *Service) writablePool(ctx context.Context, actor auth.Actor, namespace, name, verb string) (*cachedPool, error) {
	cp, err := s.readablePool(ctx, actor, namespace, name)
	if err == nil && namespace == "" && !actor.IsOperator() {
		return nil, forbidden("only operators %s in public pool %s directly; use floating IPs instead", verb, name)
	}
	return cp, err
}

// Allocate is the seed's Allocate(pool, within, reserved, owner): the
// owner's address in the pool if it holds one, otherwise the lowest free
// candidate. Operators only for public pools; tenants in their namespaces.
func (s *Service) Allocate(ctx context.Context, actor auth.Actor, in AllocateInput) (Allocation, error) {
	if in.Namespace != "" {
		if err := checkNamespace("namespace", in.Namespace); err != nil {
			return Allocation{}, err
		}
	}
	if err := checkName("pool", in.Pool); err != nil {
		return Allocation{}, err
	}
	if err := checkOwner(in.Owner); err != nil {
		return Allocation{}, err
	}
	// A cached pool may have been deleted (and made again) by another
	// process: the claim then fails on its foreign key, and one more try
	// reads the pool afresh.
	for attempt := 0; ; attempt++ {
		cp, err := s.writablePool(ctx, actor, in.Namespace, in.Pool, "allocate")
		if err != nil {
			return Allocation{}, err
		}
		req, err := cp.spec.ParseRequest(candidates.RequestSpec{Within: in.Within, Reserved: in.Reserved})
		if err != nil {
			return Allocation{}, fromCandidates(err)
		}
		ownerNS := in.OwnerNamespace
		switch {
		case cp.row.Kind == string(Private):
			ownerNS = cp.row.Namespace
		case ownerNS == "":
			return Allocation{}, invalid("ownerNamespace", "ownerNamespace is required for a public pool: the tenant namespace of the owner")
		default:
			if err := checkNamespace("ownerNamespace", ownerNS); err != nil {
				return Allocation{}, err
			}
		}
		a, err := s.claimOnce(ctx, claimRequest{
			pool: cp, space: cp.spec.Space(req), within: req.Within, owner: in.Owner, ownerNS: ownerNS, actor: actor.Name,
		})
		if errors.Is(err, ErrNotFound) && attempt == 0 {
			continue
		}
		return a, err
	}
}

// A claimCall is a claim in flight in this process.
type claimCall struct {
	done chan struct{}
	a    Allocation
	err  error
}

// claimOnce claims outside any transaction. Concurrent claims of one owner
// in this process wait for the first and share its answer, so that a
// retrying client does not spread its attempts over several candidates.
// (Across processes the unique owner index still gives the owner a single
// address.)
func (s *Service) claimOnce(ctx context.Context, r claimRequest) (Allocation, error) {
	key := r.pool.row.UID + "\x00" + r.owner.Kind + "\x00" + r.owner.UID + "\x00" + r.owner.Name
	s.inflightMu.Lock()
	if c, ok := s.inflight[key]; ok {
		s.inflightMu.Unlock()
		select {
		case <-c.done:
		case <-ctx.Done():
			return Allocation{}, ctx.Err()
		}
		if c.err == nil {
			return c.a, nil
		}
		return s.claim(ctx, s.db, r, nil)
	}
	c := &claimCall{done: make(chan struct{})}
	s.inflight[key] = c
	s.inflightMu.Unlock()
	c.a, c.err = s.claim(ctx, s.db, r, nil)
	s.inflightMu.Lock()
	delete(s.inflight, key)
	s.inflightMu.Unlock()
	close(c.done)
	return c.a, c.err
}

// Release frees the address of the pool named by address or by owner.
// Releasing what is not held is not an error: released is false then.
func (s *Service) Release(ctx context.Context, actor auth.Actor, in ReleaseInput) (released bool, err error) {
	if err := checkName("pool", in.Pool); err != nil {
		return false, err
	}
	var owner [3]string
	switch {
	case in.Address != "" && in.Owner != nil:
		return false, invalid("address", "address and owner name the allocation twice: give one")
	case in.Address != "":
		if _, err := parseAddr("address", in.Address); err != nil {
			return false, err
		}
	case in.Owner != nil:
		if err := checkOwner(*in.Owner); err != nil {
			return false, err
		}
		owner = [3]string{in.Owner.Kind, in.Owner.UID, in.Owner.Name}
	default:
		return false, invalid("address", "address or owner is required")
	}
	cp, err := s.writablePool(ctx, actor, in.Namespace, in.Pool, "release")
	if err != nil {
		return false, err
	}
	_, err = s.release(ctx, s.db, cp, in.Address, owner, actor.Name)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// release deletes one allocation and frees it in this process's view (other
// processes learn it from the database's notification).
func (s *Service) release(ctx context.Context, ext sqlx.QueryerContext, cp *cachedPool, address string, owner [3]string, actor string) (Allocation, error) {
	row, err := store.ReleaseAllocation(ctx, ext, cp.row.UID, cp.row.Name, address, owner, actor)
	if err != nil {
		return Allocation{}, err
	}
	a := allocationFromRow(row, cp.row.Name)
	if pv, err := s.views.pool(ctx, cp.row.UID); err == nil {
		pv.free(a.Address)
	}
	return a, nil
}

// Preview returns the next count addresses a claim in the pool would get,
// computed from this process's view; nothing is stored.
func (s *Service) Preview(ctx context.Context, actor auth.Actor, namespace, pool, within string, reserved []string, count int) ([]netip.Addr, error) {
	if count < 1 || count > candidates.MaxPreviewNext {
		return nil, invalid("count", "count %d is out of range: 1 to %d", count, candidates.MaxPreviewNext)
	}
	cp, err := s.readablePool(ctx, actor, namespace, pool)
	if err != nil {
		return nil, err
	}
	req, err := cp.spec.ParseRequest(candidates.RequestSpec{Within: within, Reserved: reserved})
	if err != nil {
		return nil, fromCandidates(err)
	}
	pv, err := s.views.pool(ctx, cp.row.UID)
	if err != nil {
		return nil, err
	}
	var next []netip.Addr
	pv.read(func(taken candidates.Set) { next = cp.spec.Space(req).NextN(taken, count) })
	return next, nil
}

// fromCandidates turns the enumerator's field errors into an InvalidError
// (the first; the message lists them all).
func fromCandidates(err error) error {
	var errs candidates.Errors
	if errors.As(err, &errs) && len(errs) > 0 {
		return &InvalidError{Field: errs[0].Field, Message: errs.Error()}
	}
	return err
}
