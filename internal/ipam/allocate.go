package ipam

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/claim"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/routing"
	"pivirt.hu/ipam/internal/store"
)

// claimRequest is one claim of Allocate.
type claimRequest struct {
	pool  *cachedPool
	space candidates.Space
	// req is what space was made of, in a public pool (pool.spec.Space):
	// made again when the pool's spec changed under the claim.
	req       candidates.Request
	within    netip.Prefix // zero for the whole pool
	owner     Owner
	ownerNS   string
	subnetUID string
	actor     string
	// forward is the claim as its pool's owner process makes it
	// (routing.go); nil when it is to be made here.
	forward *routing.Claim
	// quotaTx is the transaction that holds the quota lock of the owner's
	// namespace and found room under its quotas (claimUnderQuota); nil
	// until then.
	quotaTx *store.Tx
	// opaque, for a VM's interface in an IPv6 subnet of a VPC of stable
	// opaque addresses, makes the claim's candidates the interface's own;
	// nil: the lowest free.
	opaque *opaqueOwner
}

// An opaqueOwner is what a VM interface's stable opaque candidates are
// derived from besides the subnet's prefix (candidates.OpaqueAddress): the
// VPC's key, the VM's uid and the NIC.
type opaqueOwner struct {
	key   []byte
	vmUID string
	nic   int
}

// ownerKey is the identity of the request's owner in its pool.
func (r claimRequest) ownerKey() store.OwnerKey {
	return store.OwnerKey{Namespace: r.ownerNS, Kind: string(r.owner.Kind), UID: r.owner.UID, Ref: r.owner.ref()}
}

// key says what the answer to the request depends on: two requests of one
// key in flight at once may share an answer.
func (r claimRequest) key() string {
	return strings.Join([]string{r.pool.row.UID, r.ownerNS, string(r.owner.Kind), r.owner.UID, r.owner.Name, r.subnetUID,
		r.space.Scope().String(), fmt.Sprint(r.space.Reserved().Ranges())}, "\x00")
}

// claim gives the owner the lowest free candidate of the request's space,
// or the address it already holds. ext is the database or the caller's
// transaction; in a transaction, the claim is added to undo.
//
// The claim engine (internal/claim) makes it: the view proposes a
// candidate and marks it taken; the insert decides. An insert that changes
// nothing means the address is taken or the owner holds one already
// (addressClaim.Conflict): the owner's address is returned if there is
// one; otherwise the next candidate is tried if the address is held, and
// the same one again if it was released meanwhile. When the view has no
// candidate left, it is reloaded from the database once before the pool is
// declared exhausted. An insert also changes nothing when a quota of
// addresses matches the owner's namespace: the claim is then made under
// the namespace's quota lock (claimUnderQuota).
func (s *Service) claim(ctx context.Context, ext store.Ext, r claimRequest, undo *undoList) (_ Allocation, err error) {
	start, lost := time.Now(), 0
	defer func() { s.obs.Claimed(claimResult(err, lost), time.Since(start)) }()
	return s.claimIn(ctx, ext, r, undo, &lost)
}

// claimIn is claim, counting in lost the candidates it found taken.
func (s *Service) claimIn(ctx context.Context, ext store.Ext, r claimRequest, undo *undoList, lost *int) (Allocation, error) {
	if _, hinted := s.quotaBound.Load(r.ownerNS); hinted && r.quotaTx == nil {
		return s.claimUnderQuota(ctx, ext, r, undo, lost)
	}
	c := &addressClaim{s: s, ext: ext, r: r, undo: undo, lost: lost}
	a, err := claim.Run(ctx, c)
	var contended *claim.ContendedError
	switch {
	case errors.Is(err, claim.ErrExhausted):
		return Allocation{}, &ExhaustedError{Pool: c.r.pool.row.Name, Scope: c.r.space.Scope()}
	case errors.As(err, &contended):
		return Allocation{}, conflict("pool %s: %v", c.r.pool.row.Name, err)
	}
	return a, err
}

// An addressClaim is a claim of an address, as the claim engine makes it
// (claim.Claimant).
type addressClaim struct {
	s    *Service
	ext  store.Ext
	r    claimRequest
	undo *undoList
	lost *int
}

// Space returns the view of the request's pool and its candidates: the
// lowest free, or the interface's own stable opaque ones in their order.
func (c *addressClaim) Space(ctx context.Context) (*poolView, func(candidates.Set) (netip.Addr, bool), error) {
	pv, err := c.s.views.pool(ctx, c.r.pool.row.UID)
	space := c.r.space
	if o := c.r.opaque; o != nil {
		if err == nil {
			err = c.freeUnheardReleases(ctx, pv, o)
		}
		return pv, func(taken candidates.Set) (netip.Addr, bool) {
			return space.NextOpaque(taken, o.key, o.vmUID, o.nic)
		}, err
	}
	return pv, func(taken candidates.Set) (netip.Addr, bool) {
		it := space.Iter(taken)
		return it.Next()
	}, err
}

// freeUnheardReleases frees in the view those of the interface's own
// stable opaque candidates before its answer that the view holds taken and
// the pool does not: releases made by another process that this one has
// not heard of yet (docs/allocation.md, "How the views stay fresh"). So an
// interface attached again after a detach elsewhere gets its own address,
// not its next one. It costs a statement only when the view passes over a
// candidate, which in a /64 is after a detach or a conflict.
func (c *addressClaim) freeUnheardReleases(ctx context.Context, pv *poolView, o *opaqueOwner) error {
	var skipped []netip.Addr
	pv.Read(func(taken candidates.Set) { skipped = c.r.space.OpaqueSkipped(taken, o.key, o.vmUID, o.nic) })
	if len(skipped) == 0 {
		return nil
	}
	held, err := store.HeldAmong(ctx, c.ext, c.r.pool.row.UID, skipped)
	if err != nil {
		return err
	}
	for _, a := range skipped {
		if !slices.Contains(held, a) {
			pv.Free(a)
		}
	}
	return nil
}

// Insert inserts the allocation of a, in one statement (insertAllocation).
func (c *addressClaim) Insert(ctx context.Context, a netip.Addr) (Allocation, error) {
	cp, r := c.r.pool, c.r
	row, err := c.s.insertAllocation(ctx, c.ext, store.AllocationRow{
		Namespace: cp.row.Namespace, Name: candidates.AllocationName(cp.row.Name, a), PoolUID: cp.row.UID, Address: a,
		OwnerKind: string(r.owner.Kind), OwnerUID: r.owner.UID, OwnerName: r.owner.Name, OwnerNamespace: r.ownerNS,
		SubnetUID: r.subnetUID, CreatedBy: r.actor, SpecVersion: cp.row.SpecVersion,
	}, cp.row.Name, r.quotaTx)
	switch {
	case errors.Is(err, store.ErrObjectExists):
		return Allocation{}, claim.ErrNotStored
	case errors.Is(err, store.ErrNotFound):
		c.s.forgetPool(cp)
		return Allocation{}, notFound("pool", cp.row.Namespace, cp.row.Name)
	case err != nil:
		return Allocation{}, err
	}
	return allocationFromRow(row, cp.row.Name), nil
}

// Stored frees a in the view when the claim's transaction fails.
func (c *addressClaim) Stored(pv *poolView, a netip.Addr) {
	if c.undo != nil {
		*c.undo = append(*c.undo, func() { pv.Free(a) })
	}
}

// Conflict reads what the owner holds in the pool and what holds a: the
// owner's address is the answer; nobody holding a means the pool's spec
// may have changed since the claim chose a, or a quota kept the insert
// from storing it, or it was released meanwhile; else another claim holds
// a.
func (c *addressClaim) Conflict(ctx context.Context, a netip.Addr) (claim.Conflict[Allocation], error) {
	held, err := store.ClaimConflictOf(ctx, c.ext, c.r.pool.row.UID, c.r.ownerKey(), a)
	if err != nil {
		return claim.Conflict[Allocation]{}, err
	}
	free := held.Address == nil
	if held.Owner != nil {
		return claim.Conflict[Allocation]{Verdict: claim.Answered, Free: free, Answer: func(ctx context.Context) (Allocation, error) {
			return c.s.answerHeld(ctx, c.ext, c.r, *held.Owner)
		}}, nil
	}
	if !free {
		return claim.Conflict[Allocation]{Verdict: claim.Taken}, nil
	}
	changed, err := c.s.respecify(ctx, c.ext, &c.r)
	if err != nil || changed {
		return claim.Conflict[Allocation]{Verdict: claim.Changed}, err
	}
	if c.r.quotaTx == nil {
		quota, err := store.QuotaApplies(ctx, c.ext, c.r.ownerNS, store.QuotaAddresses)
		if err != nil {
			return claim.Conflict[Allocation]{}, err
		}
		if quota {
			return claim.Conflict[Allocation]{Verdict: claim.Answered, Free: true, Answer: func(ctx context.Context) (Allocation, error) {
				return c.s.claimUnderQuota(ctx, c.ext, c.r, c.undo, c.lost)
			}}, nil
		}
	}
	return claim.Conflict[Allocation]{Verdict: claim.Free}, nil
}

// Lost counts a race lost.
func (c *addressClaim) Lost(netip.Addr) {
	*c.lost++
	c.s.obs.LostRace()
}

// Held returns the address the owner holds in the pool, if any.
func (c *addressClaim) Held(ctx context.Context) (Allocation, bool, error) {
	return c.s.heldBy(ctx, c.ext, c.r)
}

// Respecify makes the claim again under its public pool's spec, if it
// changed.
func (c *addressClaim) Respecify(ctx context.Context) (bool, error) {
	return c.s.respecify(ctx, c.ext, &c.r)
}

// Taken reads the pool's taken addresses, through the claim's
// transaction when it has one (a claim in a transaction holds one of the
// process's connections already).
func (c *addressClaim) Taken(ctx context.Context) ([]netip.Addr, error) {
	return store.TakenAddresses(ctx, c.ext, c.r.pool.row.UID)
}

// respecify makes the claim r again under its public pool's spec as ext
// reads it now, and reports whether the spec changed since r's was read: a
// claim of r's address stored nothing then (store.AllocationRow's
// SpecVersion). The cache keeps the newer spec. A private pool's spec never
// changes.
func (s *Service) respecify(ctx context.Context, ext store.Ext, r *claimRequest) (bool, error) {
	cp := r.pool
	if cp.row.SpecVersion == 0 {
		return false, nil
	}
	row, err := store.PoolByUID(ctx, ext, cp.row.UID)
	if errors.Is(err, store.ErrNotFound) {
		s.forgetPool(cp)
		return false, notFound("pool", cp.row.Namespace, cp.row.Name)
	}
	if err != nil || row.SpecVersion == cp.row.SpecVersion {
		return false, err
	}
	fresh, err := newCachedPool(row)
	if err != nil {
		return false, err
	}
	s.remember(fresh)
	r.pool, r.space = fresh, fresh.spec.Space(r.req)
	return true, nil
}

// claimUnderQuota makes the claim r, whose owner's namespace a quota of
// addresses matches, in a transaction that holds the namespace's quota
// lock (ext when it is one, else one of its own): refused when the
// namespace holds the limit already, unless the owner holds an address of
// the pool, which is its answer as ever. The namespace's next claims in
// this process come here at once (Service.quotaBound), until a claim finds
// no quota of addresses binding it.
func (s *Service) claimUnderQuota(ctx context.Context, ext store.Ext, r claimRequest, undo *undoList, lost *int) (Allocation, error) {
	tx, ok := ext.(*store.Tx)
	if !ok {
		var a Allocation
		err := s.inTx(ctx, func(tx *store.Tx, undo *undoList) error {
			var err error
			a, err = s.claimUnderQuota(ctx, tx, r, undo, lost)
			return err
		})
		return a, err
	}
	bound, err := s.checkQuota(ctx, tx, r.ownerNS, QuotaAddresses)
	if bound {
		s.quotaBound.Store(r.ownerNS, struct{}{})
	} else {
		s.quotaBound.Delete(r.ownerNS)
	}
	if err != nil {
		if errors.Is(err, refusal.ErrQuotaExceeded) {
			if held, found, herr := s.heldBy(ctx, tx, r); herr != nil || found {
				return held, herr
			}
		}
		return Allocation{}, err
	}
	r.quotaTx = tx
	return s.claimIn(ctx, tx, r, undo, lost)
}

// insertAllocation inserts a claim's row through ext: outside a
// transaction, maybe in one statement with other claims' (claimInserts);
// in quotaTx, once the claim's quotas were checked under its namespace's
// lock, whatever they are.
func (s *Service) insertAllocation(ctx context.Context, ext store.Ext, row store.AllocationRow, pool string, quotaTx *store.Tx) (store.AllocationRow, error) {
	switch {
	case quotaTx != nil:
		return store.InsertAllocationUnderQuota(ctx, quotaTx, row, pool)
	case ext == store.Ext(s.db):
		return s.inserts.insert(ctx, row, pool)
	}
	return store.InsertAllocation(ctx, ext, row, pool)
}

// claimResult is the result of a claim that lost lost races and ended
// with err, as Observer is told it.
func claimResult(err error, lost int) string {
	switch {
	case errors.Is(err, refusal.ErrPoolExhausted):
		return ClaimExhausted
	case errors.Is(err, refusal.ErrQuotaExceeded):
		return ClaimQuotaExceeded
	case err != nil:
		return ClaimError
	case lost > 0:
		return ClaimConflictRetry
	}
	return ClaimOK
}

// heldBy returns the address the request's owner holds in the pool, if
// any (see answerHeld).
func (s *Service) heldBy(ctx context.Context, ext store.Ext, r claimRequest) (Allocation, bool, error) {
	row, err := store.OwnerAllocation(ctx, ext, r.pool.row.UID, r.ownerKey())
	if errors.Is(err, store.ErrNotFound) {
		return Allocation{}, false, nil
	}
	if err != nil {
		return Allocation{}, false, err
	}
	a, err := s.answerHeld(ctx, ext, r, row)
	return a, true, err
}

// answerHeld answers a request whose owner holds row already: with row,
// unless it lies outside the request's within (refused). A VM asking under
// a new hostname keeps its addresses, renamed.
func (s *Service) answerHeld(ctx context.Context, ext store.Ext, r claimRequest, row store.AllocationRow) (Allocation, error) {
	held := allocationFromRow(row, r.pool.row.Name)
	if r.within.IsValid() && !r.within.Contains(held.Address) {
		return Allocation{}, conflict("%s %s already holds %s in pool %s, outside %s",
			r.owner.Kind, held.Owner.Name, held.Address, r.pool.row.Name, r.within)
	}
	if held.Owner.Name == r.owner.Name {
		return held, nil
	}
	host, _, _ := strings.Cut(r.owner.Name, "/")
	if _, err := store.RenameVM(ctx, ext, r.ownerNS, r.owner.UID, host, r.actor); err != nil {
		return Allocation{}, err
	}
	row, err := store.OwnerAllocation(ctx, ext, r.pool.row.UID, r.ownerKey())
	if err != nil {
		return Allocation{}, err
	}
	return allocationFromRow(row, r.pool.row.Name), nil
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

// Allocate is Allocate(pool, within, reserved, owner) of docs/allocation.md: the
// owner's address in the pool if it holds one, otherwise the lowest free
// candidate. Operators only for public pools; tenants in their namespaces,
// for VirtualMachine owners (the other kinds are made by their own
// operations). In a VPC's private pool the claim is made in a subnet:
// within is the subnet's prefix or a prefix inside it, and the subnet's
// network, broadcast and gateway addresses are never handed out.
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
	// A cached pool or subnet may have been deleted (and made again) by
	// another process: the claim then fails on its foreign key, and one
	// more try reads them afresh.
	for attempt := 0; ; attempt++ {
		cp, err := s.writablePool(ctx, actor, in.Namespace, in.Pool, "allocate")
		if err != nil {
			return Allocation{}, err
		}
		if err := refuseDelegation(cp); err != nil {
			return Allocation{}, err
		}
		r, err := s.allocateRequest(ctx, cp, in)
		if err != nil {
			return Allocation{}, err
		}
		if !actor.IsOperator() && in.Owner.Kind != OwnerVirtualMachine {
			return Allocation{}, forbidden("tenants allocate for VirtualMachine owners only: %s", madeBy[in.Owner.Kind])
		}
		r.actor = actor.Name
		r.forward = &routing.Claim{PoolNamespace: cp.row.Namespace, Pool: cp.row.Name, PoolUID: cp.row.UID,
			Within: in.Within, Reserved: in.Reserved, OwnerKind: string(r.owner.Kind), OwnerUID: r.owner.UID, OwnerName: r.owner.Name,
			OwnerNamespace: r.ownerNS, Actor: r.actor}
		a, err := s.claimOnce(ctx, r)
		if errors.Is(err, refusal.ErrNotFound) && attempt == 0 {
			if r.subnetUID != "" {
				s.forgetSubnets(cp.row.Namespace, vpcOfPool(cp.row))
			}
			continue
		}
		return a, err
	}
}

// madeBy says which operation makes the owners of each kind but
// VirtualMachine.
var madeBy = map[OwnerKind]string{
	OwnerVPC:        "createVpc claims a VPC's router uplink",
	OwnerNode:       "attachNode gives a host its address in a subnet",
	OwnerFloatingIP: "claimFloatingIp claims a floating IP",
}

// allocateRequest turns an Allocate into a claim in the pool cp.
func (s *Service) allocateRequest(ctx context.Context, cp *cachedPool, in AllocateInput) (claimRequest, error) {
	space, req, cs, err := s.requestSpace(ctx, cp, in.Within, in.Reserved)
	if err != nil {
		return claimRequest{}, err
	}
	r := claimRequest{pool: cp, space: space, req: req, owner: in.Owner, ownerNS: in.OwnerNamespace}
	if in.Within != "" {
		r.within = space.Scope()
	}
	if cs != nil {
		r.ownerNS, r.subnetUID = cp.row.Namespace, cs.subnet.UID
		return r, nil
	}
	if r.ownerNS == "" {
		return claimRequest{}, invalid("ownerNamespace", "ownerNamespace is required for a public pool: the tenant namespace of the owner")
	}
	return r, checkNamespace("ownerNamespace", r.ownerNS)
}

// requestSpace returns the candidates of a request in the pool cp. In a
// private pool the request is made in the subnet that holds within, which
// it returns too: within is required there, and the subnet's network,
// broadcast and gateway addresses are no candidates.
func (s *Service) requestSpace(ctx context.Context, cp *cachedPool, within string, reserved []string) (candidates.Space, candidates.Request, *cachedSubnet, error) {
	req, err := cp.spec.ParseRequest(candidates.RequestSpec{Within: within, Reserved: reserved})
	if err != nil {
		return candidates.Space{}, req, nil, fromCandidates(err)
	}
	if cp.row.Kind == string(Public) {
		return cp.spec.Space(req), req, nil, nil
	}
	cs, err := s.subnetHolding(ctx, cp, req.Within)
	if err != nil {
		return candidates.Space{}, req, nil, err
	}
	return cs.spaceFor(req), req, cs, nil
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
	key := r.key()
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
		return s.claimRouted(ctx, r)
	}
	c := &claimCall{done: make(chan struct{})}
	s.inflight[key] = c
	s.inflightMu.Unlock()
	c.a, c.err = s.claimRouted(ctx, r)
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
	var owner *Owner
	var address netip.Addr
	switch {
	case in.Address != "" && in.Owner != nil:
		return false, invalid("address", "address and owner name the allocation twice: give one")
	case in.Address != "":
		var err error
		if address, err = netip.ParseAddr(in.Address); err != nil || address.Zone() != "" {
			return false, invalid("address", "address %s is not an IPv4 address such as 10.0.0.1", describe(in.Address))
		}
		address = address.Unmap()
	case in.Owner != nil:
		if err := checkOwner(*in.Owner); err != nil {
			return false, err
		}
		owner = in.Owner
	default:
		return false, invalid("address", "address or owner is required")
	}
	cp, err := s.writablePool(ctx, actor, in.Namespace, in.Pool, "release")
	if err != nil {
		return false, err
	}
	switch {
	case address.Is6() && cp.spec.Prefix.Addr().Is4():
		return false, invalid("address", "address %s is not an IPv4 address such as 10.0.0.1", describe(in.Address))
	case address.Is4() && cp.spec.Prefix.Addr().Is6():
		return false, invalid("address", "address %s is not an IPv6 address such as 2001:db8::1: pool %s is an IPv6 pool", describe(in.Address), in.Pool)
	}
	var key store.OwnerKey
	if owner != nil {
		ns := cp.row.Namespace
		if cp.row.Kind == string(Public) {
			if ns = in.OwnerNamespace; ns == "" {
				return false, invalid("ownerNamespace", "ownerNamespace is required to release by owner in a public pool: the tenant namespace of the owner")
			}
			if err := checkNamespace("ownerNamespace", ns); err != nil {
				return false, err
			}
		}
		key = store.OwnerKey{Namespace: ns, Kind: string(owner.Kind), UID: owner.UID, Ref: owner.ref()}
	}
	_, err = s.release(ctx, cp, address, key, actor.Name)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// release deletes one allocation, in a transaction of its own, frees it in
// this process's view and tells the other processes (see freed).
func (s *Service) release(ctx context.Context, cp *cachedPool, address netip.Addr, owner store.OwnerKey, actor string) (Allocation, error) {
	row, err := store.ReleaseAllocation(ctx, s.db, cp.row.UID, cp.row.Name, address, owner, actor)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		s.obs.Released(ClaimError)
	} else {
		s.obs.Released(ReleaseOK)
	}
	if err != nil {
		return Allocation{}, err
	}
	a := allocationFromRow(row, cp.row.Name)
	s.freed(ctx, cp.row.UID, a.Address)
	return a, nil
}

// Preview returns the next count addresses a claim in the pool would get,
// computed from this process's view; nothing is stored. In a private pool,
// within names a subnet, as for Allocate.
func (s *Service) Preview(ctx context.Context, actor auth.Actor, namespace, pool, within string, reserved []string, count int) ([]netip.Addr, error) {
	if count < 1 || count > candidates.MaxPreviewNext {
		return nil, invalid("count", "count %d is out of range: 1 to %d", count, candidates.MaxPreviewNext)
	}
	cp, err := s.readablePool(ctx, actor, namespace, pool)
	if err != nil {
		return nil, err
	}
	if err := refuseDelegation(cp); err != nil {
		return nil, err
	}
	space, _, _, err := s.requestSpace(ctx, cp, within, reserved)
	if err != nil {
		return nil, err
	}
	pv, err := s.views.pool(ctx, cp.row.UID)
	if err != nil {
		return nil, err
	}
	var next []netip.Addr
	pv.Read(func(taken candidates.Set) { next = space.NextN(taken, count) })
	return next, nil
}

// fromCandidates turns the enumerator's field errors into an refusal.InvalidError
// each (collect).
func fromCandidates(err error) error {
	return refusal.Collect(err)
}
