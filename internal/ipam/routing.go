package ipam

import (
	"context"
	"errors"
	"net/netip"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/routing"
	"pivirt.hu/ipam/internal/store"
)

// claimRouted makes the claim r where its pool's claims are made: in the
// pool's owner process when another process owns it (internal/routing),
// else here. An owner that cannot be reached, or that could not reach the
// database, leaves the claim to this process: routing saves lost races,
// it never decides a claim.
func (s *Service) claimRouted(ctx context.Context, r claimRequest) (Allocation, error) {
	if s.router != nil && r.forward != nil {
		ans, forwarded, err := s.router.Forward(ctx, r.pool.row.UID, *r.forward)
		if err != nil {
			return Allocation{}, err
		}
		if forwarded {
			a, err := forwardedAnswer(ans, r.pool.row.Name)
			switch {
			case err == nil:
				// The address counts in this process's figures of the
				// pool at once (usage is read from the views).
				if pv := s.views.ifLoaded(r.pool.row.UID); pv != nil {
					pv.Take(a.Address)
				}
				return a, nil
			case !errors.Is(err, errOwnerFailed):
				return Allocation{}, err
			}
		}
		if s.router.ClaimedElsewhere(r.pool.row.UID) {
			if err := s.views.taken.Reload(ctx, r.pool.row.UID); err != nil {
				return Allocation{}, err
			}
		}
	}
	return s.claim(ctx, s.db, r, nil)
}

// RotateClusterSecret gives the processes of the database a new cluster
// secret, which they prove to each other on the route link
// (docs/scaling.md, "The route link"): the connections already made go on,
// new ones prove the new secret, and the previous one is still accepted a
// moment for the handshakes that read it just before. Operators only.
func (s *Service) RotateClusterSecret(ctx context.Context, actor auth.Actor) error {
	if !actor.IsOperator() {
		return forbidden("only operators rotate the cluster secret")
	}
	return store.RotateClusterSecret(ctx, s.db, actor.Name)
}

// serveForwarded makes a claim another process forwarded to this one, the
// owner of its pool; the forwarding process checked the actor's rights.
// The quotas of the owner's namespace are checked here, by the claim, as
// for a claim of this process's own.
func (s *Service) serveForwarded(ctx context.Context, c routing.Claim) routing.Answer {
	r, err := s.forwardedRequest(ctx, c)
	var a Allocation
	if err == nil {
		a, err = s.claimOnce(ctx, r)
	}
	if err != nil {
		ref := refusal.Classify(err)
		ans := routing.Answer{Code: string(ref.Code), Field: ref.Field, Message: ref.Message}
		var exhausted *ExhaustedError
		if errors.As(err, &exhausted) && exhausted.Scope.IsValid() {
			ans.Scope = exhausted.Scope.String()
		}
		return ans
	}
	return routing.Answer{Allocation: store.AllocationRow{
		Namespace: a.Namespace, Name: a.Name, PoolUID: a.PoolUID, Address: a.Address,
		OwnerKind: string(a.Owner.Kind), OwnerUID: a.Owner.UID, OwnerName: a.Owner.Name, OwnerNamespace: a.OwnerNamespace,
		SubnetUID: a.SubnetUID, UID: a.UID, CreatedAt: a.CreatedAt, CreatedBy: a.CreatedBy,
	}}
}

// forwardedRequest is the claim c in this process, not to be forwarded
// again. A pool or subnet that is not the one the forwarding process
// named is not found: that process reads them afresh and tries again.
func (s *Service) forwardedRequest(ctx context.Context, c routing.Claim) (claimRequest, error) {
	owner := Owner{Kind: OwnerKind(c.OwnerKind), UID: c.OwnerUID, Name: c.OwnerName}
	if c.Subnet != "" {
		cs, err := s.subnet(ctx, c.PoolNamespace, c.VPC, c.Subnet)
		if err != nil {
			return claimRequest{}, err
		}
		f := IPv4
		if cs.ipv6 != nil && cs.ipv6.pool.row.UID == c.PoolUID {
			f = IPv6
		}
		if side, _ := cs.side(f); side.pool.row.UID != c.PoolUID {
			s.forgetSubnets(c.PoolNamespace, c.VPC, c.Subnet)
			return claimRequest{}, notFound("subnet", c.PoolNamespace, c.VPC+"/"+c.Subnet)
		}
		return cs.request(f, owner, c.OwnerNamespace, c.Actor), nil
	}
	cp, err := s.cachedPool(ctx, c.PoolNamespace, c.Pool)
	if err != nil {
		return claimRequest{}, err
	}
	if cp.row.UID != c.PoolUID {
		s.forgetPool(cp)
		return claimRequest{}, notFound("pool", c.PoolNamespace, c.Pool)
	}
	r, err := s.allocateRequest(ctx, cp, AllocateInput{Within: c.Within, Reserved: c.Reserved, Owner: owner, OwnerNamespace: c.OwnerNamespace})
	r.actor = c.Actor
	return r, err
}

// errOwnerFailed means that the owner of a pool could not make a forwarded
// claim for a reason of its own (its database unreachable, a bug): the
// forwarding process makes it itself.
var errOwnerFailed = errors.New("ipam: the owner of the pool failed the claim")

// forwardedAnswer is the allocation or the refusal of the owner's answer,
// as the claim made here would have returned it.
func forwardedAnswer(a routing.Answer, pool string) (Allocation, error) {
	switch refusal.Code(a.Code) {
	case "":
		return allocationFromRow(a.Allocation, pool), nil
	case refusal.CodeInvalidArgument:
		return Allocation{}, &refusal.InvalidError{Field: a.Field, Message: a.Message}
	case refusal.CodeConflict:
		return Allocation{}, &refusal.ConflictError{Field: a.Field, Message: a.Message}
	case refusal.CodePoolExhausted:
		scope, _ := netip.ParsePrefix(a.Scope)
		return Allocation{}, &ExhaustedError{Pool: pool, Scope: scope}
	case refusal.CodeNotFound:
		return Allocation{}, forwardedRefusal{refusal.ErrNotFound, a.Message}
	case refusal.CodeForbidden:
		return Allocation{}, forwardedRefusal{refusal.ErrForbidden, a.Message}
	case refusal.CodeQuotaExceeded:
		return Allocation{}, forwardedRefusal{refusal.ErrQuotaExceeded, a.Message}
	}
	return Allocation{}, errOwnerFailed
}

// A forwardedRefusal is a refusal of the pool's owner process: its message,
// and the sentinel it wraps.
type forwardedRefusal struct {
	sentinel error
	message  string
}

func (e forwardedRefusal) Error() string { return e.message }

func (e forwardedRefusal) Unwrap() error { return e.sentinel }
