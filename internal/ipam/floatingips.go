package ipam

import (
	"context"
	"errors"
	"net/netip"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// ClaimFloatingIP gives a tenant a public address, from the named pool or
// from the zone's public pools in name order, within the namespace's
// quotas of floating IPs and of addresses. Claiming an existing floating
// IP again returns it.
func (s *Service) ClaimFloatingIP(ctx context.Context, actor auth.Actor, in ClaimFloatingIPInput) (FloatingIP, error) {
	if err := checkFloatingIPInput(in); err != nil {
		return FloatingIP{}, err
	}
	if err := mayCreateIn(actor, in.Namespace); err != nil {
		return FloatingIP{}, err
	}
	if existing, err := store.FloatingIP(ctx, s.db, in.Namespace, in.Name); err == nil {
		return s.sameFloatingIP(existing, in)
	} else if !errors.Is(err, store.ErrNotFound) {
		return FloatingIP{}, err
	}
	var pools []*cachedPool
	if in.Pool != "" {
		cp, err := s.cachedPool(ctx, "", in.Pool)
		if err != nil {
			return FloatingIP{}, err
		}
		if cp.spec.Prefix.Addr().Is6() {
			return FloatingIP{}, invalid("pool", "pool %s is an IPv6 pool: floating IPs are IPv4 (an IPv6 address is routable as it is); give an IPv4 pool", in.Pool)
		}
		pools = []*cachedPool{cp}
	} else {
		var err error
		if pools, err = s.zonePools(ctx, s.db, in.Zone); err != nil {
			return FloatingIP{}, err
		}
	}
	uid := newUID()
	var row store.FloatingIPRow
	err := s.inTx(ctx, func(tx *store.Tx, undo *undoList) error {
		if _, err := s.checkQuota(ctx, tx, in.Namespace, QuotaFloatingIPs); err != nil {
			// At the limit, the same floating IP made meanwhile is its
			// answer still.
			if errors.Is(err, refusal.ErrQuotaExceeded) {
				if _, ferr := store.FloatingIP(ctx, tx, in.Namespace, in.Name); ferr == nil {
					return errFloatingIPRace
				}
			}
			return err
		}
		a, err := s.claimInZone(ctx, tx, undo, pools, in.Zone, Owner{Kind: OwnerFloatingIP, UID: uid, Name: in.Name}, in.Namespace, actor.Name)
		if err != nil {
			return err
		}
		row = store.FloatingIPRow{UID: uid, Namespace: in.Namespace, Name: in.Name, PoolUID: a.PoolUID, Pool: a.Pool, Address: a.Address, CreatedBy: actor.Name}
		if err := store.InsertFloatingIP(ctx, tx, row); errors.Is(err, store.ErrObjectExists) {
			return errFloatingIPRace
		} else if err != nil {
			return err
		}
		return store.InsertAudit(ctx, tx, store.AuditEntry{
			Actor: actor.Name, Action: audit.Create, Namespace: in.Namespace, ObjectKind: audit.KindFloatingIP, ObjectName: in.Name,
			After: store.JSON(audit.FloatingIP{UID: uid, Pool: a.Pool, Address: a.Address.String()}),
		})
	})
	if errors.Is(err, errFloatingIPRace) {
		existing, err := store.FloatingIP(ctx, s.db, in.Namespace, in.Name)
		if err != nil {
			return FloatingIP{}, err
		}
		return s.sameFloatingIP(existing, in)
	}
	if err != nil {
		return FloatingIP{}, err
	}
	f, err := store.FloatingIP(ctx, s.db, in.Namespace, in.Name)
	if err != nil {
		return FloatingIP{}, err
	}
	return floatingIPFromRow(f), nil
}

// errFloatingIPRace: another request made the same floating IP meanwhile.
var errFloatingIPRace = errors.New("floating ip made meanwhile")

// sameFloatingIP returns an existing floating IP asked for again, or a
// conflict when it was asked for from another zone or pool.
func (s *Service) sameFloatingIP(f store.FloatingIPRow, in ClaimFloatingIPInput) (FloatingIP, error) {
	if in.Pool != "" && f.Pool != in.Pool || in.Zone != "" && f.Zone != in.Zone {
		return FloatingIP{}, conflict("floating IP %s/%s exists already, with %s from pool %s", f.Namespace, f.Name, f.Address, f.Pool)
	}
	return floatingIPFromRow(f), nil
}

// ReleaseFloatingIP frees a floating IP and its address.
func (s *Service) ReleaseFloatingIP(ctx context.Context, actor auth.Actor, namespace, name string) error {
	if err := checkNamespace("namespace", namespace); err != nil {
		return err
	}
	if err := checkName("name", name); err != nil {
		return err
	}
	if !actor.CanAccess(namespace) {
		return notFound("floating IP", namespace, name)
	}
	var f store.FloatingIPRow
	err := s.inTx(ctx, func(tx *store.Tx, _ *undoList) error {
		var err error
		// Deleting first serialises concurrent releases: the second finds
		// nothing and changes nothing.
		f, err = store.DeleteFloatingIP(ctx, tx, namespace, name)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("floating IP", namespace, name)
		}
		if err != nil {
			return err
		}
		owner := store.OwnerKey{Namespace: f.Namespace, Kind: string(OwnerFloatingIP), UID: f.UID, Ref: f.Name}
		if _, err := store.ReleaseAllocation(ctx, tx, f.PoolUID, f.Pool, netip.Addr{}, owner, actor.Name); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return store.InsertAudit(ctx, tx, store.AuditEntry{
			Actor: actor.Name, Action: audit.Delete, Namespace: namespace, ObjectKind: audit.KindFloatingIP, ObjectName: name,
			Before: store.JSON(audit.FloatingIP{UID: f.UID, Pool: f.Pool, Address: f.Address.String()}),
		})
	})
	if err != nil {
		return err
	}
	s.freed(ctx, f.PoolUID, f.Address)
	return nil
}

// FloatingIPs lists the floating IPs the actor may see, of namespace when
// not empty.
func (s *Service) FloatingIPs(ctx context.Context, actor auth.Actor, namespace string) ([]FloatingIP, error) {
	rows, err := store.FloatingIPs(ctx, s.db)
	if err != nil {
		return nil, err
	}
	out := []FloatingIP{}
	for _, r := range rows {
		if actor.CanAccess(r.Namespace) && (namespace == "" || r.Namespace == namespace) {
			out = append(out, floatingIPFromRow(r))
		}
	}
	return out, nil
}

// checkFloatingIPInput checks what ClaimFloatingIP can check without the
// database: every mistake at once.
func checkFloatingIPInput(in ClaimFloatingIPInput) error {
	errs := []error{checkNamespace("namespace", in.Namespace), checkName("name", in.Name)}
	switch {
	case (in.Zone == "") == (in.Pool == ""):
		errs = append(errs, invalid("zone", "zone or pool is required, and only one of them"))
	case in.Pool != "":
		errs = append(errs, checkName("pool", in.Pool))
	default:
		errs = append(errs, checkZone("zone", in.Zone))
	}
	return refusal.Collect(errs...)
}
