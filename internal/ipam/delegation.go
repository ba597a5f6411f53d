package ipam

import (
	"context"
	"errors"
	"net/netip"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/claim"
	"pivirt.hu/ipam/internal/store"
)

// delegatePrefix gives the VPC vpc, which tx created, the lowest free
// prefix of length in.IPv6PrefixLength of the first of pools (the zone's
// delegation pools of that length, in name order) that has one, and
// returns the VPC with its IPv6 prefix.
func (s *Service) delegatePrefix(ctx context.Context, tx *store.Tx, undo *undoList, pools []*cachedPool, in CreateVPCInput, vpc store.VPCRow, addressing IPv6Addressing, actor string) (store.VPCRow, error) {
	key := newIPv6Key()
	for _, cp := range pools {
		start, lost := time.Now(), 0
		c := &prefixClaim{s: s, tx: tx, pool: cp, vpc: vpc, addressing: addressing, key: key, actor: actor, undo: undo, lost: &lost}
		v, err := claim.Run(ctx, c)
		s.obs.Claimed(claimResult(err, lost), time.Since(start))
		var contended *claim.ContendedError
		switch {
		case errors.Is(err, claim.ErrExhausted):
			continue
		case errors.As(err, &contended):
			return store.VPCRow{}, conflict("pool %s: %v", cp.row.Name, err)
		}
		return v, err
	}
	return store.VPCRow{}, &ExhaustedError{Zone: in.Zone, Bits: in.IPv6PrefixLength, Delegated: true}
}

// A prefixClaim is a claim of a prefix of a delegation pool for a VPC, as
// the claim engine makes it (claim.Claimant): the one claim engine, whose
// values are the first addresses of the pool's aligned prefixes of its
// delegated length. The pool's view holds the first address of each
// prefix it delegated (store.TakenAddresses); the primary key of
// delegated_prefixes decides, as allocations_pkey does for addresses.
type prefixClaim struct {
	s          *Service
	tx         *store.Tx
	pool       *cachedPool
	vpc        store.VPCRow
	addressing IPv6Addressing
	key        []byte
	actor      string
	undo       *undoList
	lost       *int
}

// bits is the length of the prefixes the pool delegates.
func (c *prefixClaim) bits() int { return c.pool.row.DelegatedPrefixLength }

// Space returns the pool's view and its candidates: the first address of
// the lowest aligned prefix of the delegated length none of whose
// addresses the view holds.
func (c *prefixClaim) Space(ctx context.Context) (*poolView, func(candidates.Set) (netip.Addr, bool), error) {
	pv, err := c.s.views.pool(ctx, c.pool.row.UID)
	parent, bits := c.pool.spec.Prefix, c.bits()
	return pv, func(taken candidates.Set) (netip.Addr, bool) {
		// Delegated prefixes are /64 or shorter: the first addresses of two
		// are 2^64 apart at least, and each range of the view is one.
		ranges := taken.Ranges()
		used := make([]netip.Prefix, 0, len(ranges))
		for _, r := range ranges {
			used = append(used, netip.PrefixFrom(r.From, bits).Masked())
		}
		free := candidates.FreePrefixes(parent, used, bits, 1)
		if len(free) == 0 {
			return netip.Addr{}, false
		}
		return free[0].Addr(), true
	}, err
}

// Insert stores the delegation of the prefix at a and gives it to the VPC
// (store.DelegatePrefix).
func (c *prefixClaim) Insert(ctx context.Context, a netip.Addr) (store.VPCRow, error) {
	v, err := store.DelegatePrefix(ctx, c.tx, store.DelegatedPrefixRow{
		PoolUID: c.pool.row.UID, Prefix: netip.PrefixFrom(a, c.bits()), VPCUID: c.vpc.UID, CreatedBy: c.actor,
	}, string(c.addressing), c.key)
	if errors.Is(err, store.ErrObjectExists) {
		return store.VPCRow{}, claim.ErrNotStored
	}
	return v, err
}

// Stored frees a in the view when the VPC's transaction fails.
func (c *prefixClaim) Stored(pv *poolView, a netip.Addr) {
	*c.undo = append(*c.undo, func() { pv.Free(a) })
}

// Conflict reads who holds the prefix at a and what the VPC holds: the
// VPC's prefix is the answer; another VPC's makes it taken; nobody's,
// free again.
func (c *prefixClaim) Conflict(ctx context.Context, a netip.Addr) (claim.Conflict[store.VPCRow], error) {
	held, err := store.DelegatedPrefixConflictOf(ctx, c.tx, c.pool.row.UID, netip.PrefixFrom(a, c.bits()), c.vpc.UID)
	switch {
	case err != nil:
		return claim.Conflict[store.VPCRow]{}, err
	case held.Held.IsValid():
		return claim.Conflict[store.VPCRow]{Verdict: claim.Answered, Free: held.HeldBy == "", Answer: c.answer}, nil
	case held.HeldBy != "":
		return claim.Conflict[store.VPCRow]{Verdict: claim.Taken}, nil
	}
	return claim.Conflict[store.VPCRow]{Verdict: claim.Free}, nil
}

// answer reads the VPC as it holds its prefix.
func (c *prefixClaim) answer(ctx context.Context) (store.VPCRow, error) {
	return store.VPCByUID(ctx, c.tx, c.vpc.UID)
}

// Lost counts a race lost.
func (c *prefixClaim) Lost(netip.Addr) {
	*c.lost++
	c.s.obs.LostRace()
}

// Held answers with the VPC when it holds a delegated prefix already.
func (c *prefixClaim) Held(ctx context.Context) (store.VPCRow, bool, error) {
	_, err := store.DelegatedPrefixOf(ctx, c.tx, c.vpc.UID)
	if errors.Is(err, store.ErrNotFound) {
		return store.VPCRow{}, false, nil
	}
	if err != nil {
		return store.VPCRow{}, false, err
	}
	v, err := c.answer(ctx)
	return v, true, err
}

// Respecify reports no change: a pool's prefix and delegated length never
// change.
func (c *prefixClaim) Respecify(context.Context) (bool, error) { return false, nil }

// Taken reads the first addresses of the prefixes the pool delegated.
func (c *prefixClaim) Taken(ctx context.Context) ([]netip.Addr, error) {
	return store.TakenAddresses(ctx, c.tx, c.pool.row.UID)
}

// A Delegation is a prefix a delegation pool gave to a VPC.
type Delegation struct {
	Prefix         netip.Prefix
	Namespace, VPC string
	CreatedAt      time.Time
	CreatedBy      string
}

// Delegations lists the prefixes the delegation pool p gave, in address
// order: every one for operators, those of the actor's namespaces for a
// tenant.
func (s *Service) Delegations(ctx context.Context, actor auth.Actor, p Pool) ([]Delegation, error) {
	cp, err := s.readablePool(ctx, actor, p.Namespace, p.Name)
	if err != nil {
		return nil, err
	}
	rows, err := store.DelegatedPrefixes(ctx, s.db, cp.row.UID)
	if err != nil {
		return nil, err
	}
	out := []Delegation{}
	for _, r := range rows {
		if actor.CanAccess(r.VPCNamespace) {
			out = append(out, Delegation{Prefix: r.Prefix, Namespace: r.VPCNamespace, VPC: r.VPCName, CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy})
		}
	}
	return out, nil
}

// refuseDelegation refuses an address claim in a delegation pool: it hands
// out prefixes to VPCs only.
func refuseDelegation(cp *cachedPool) error {
	if cp.row.DelegatedPrefixLength == 0 {
		return nil
	}
	return invalid("pool", "pool %s delegates /%d prefixes to VPCs (createVpc with ipv6PrefixLength) and hands out no addresses: give a pool without delegatedPrefixLength",
		cp.row.Name, cp.row.DelegatedPrefixLength)
}
