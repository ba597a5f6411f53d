package ipam

import (
	"context"
	"crypto/rand"
	"errors"
	"net/netip"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// VPC prefixes are /8 to /28, IPv6 ones /16 to /64.
const (
	minVPCBits  = 8
	maxVPCBits  = 28
	minVPCBits6 = 16
	maxVPCBits6 = 64
)

// parsePrefix reads a canonical IPv4 prefix of a request field with the
// enumerator's messages (host bits set, not IPv4…), renamed to field.
func parsePrefix(field, s string) (netip.Prefix, error) {
	p, err := candidates.ParsePool(candidates.PoolSpec{CIDR: s})
	var errs candidates.Errors
	if errors.As(err, &errs) && len(errs) > 0 {
		msg := errs[0].Message
		if field != "cidr" {
			msg = field + msg[len("cidr"):]
		}
		return netip.Prefix{}, &refusal.InvalidError{Field: field, Message: msg}
	}
	if err != nil {
		return netip.Prefix{}, err
	}
	return p.Prefix, nil
}

// mayCreateIn refuses a tenant creating outside its namespaces.
func mayCreateIn(actor auth.Actor, namespace string) error {
	if !actor.CanAccess(namespace) {
		return forbidden("you may not create objects in namespace %s", namespace)
	}
	return nil
}

// CreateVPC creates a VPC and its private pool vpc-<name>. With a zone,
// the VPC's router uplink is claimed from that zone's public pools, in
// name order, the next pool when one is exhausted.
func (s *Service) CreateVPC(ctx context.Context, actor auth.Actor, in CreateVPCInput) (VPC, error) {
	if err := checkVPCInput(in); err != nil {
		return VPC{}, err
	}
	if err := mayCreateIn(actor, in.Namespace); err != nil {
		return VPC{}, err
	}
	var vpc store.VPCRow
	err := s.inTx(ctx, func(tx *store.Tx, undo *undoList) error {
		var err error
		vpc, err = s.createVPC(ctx, tx, undo, actor, in, newUID())
		return err
	})
	if err != nil {
		return VPC{}, err
	}
	return vpcFromRow(vpc), nil
}

// maxVPCNameLen keeps the VPC's pool name (candidates.PrivatePoolName) a
// valid name of at most 63 characters, maxDualStackVPCNameLen its IPv6
// pool's too (candidates.PrivatePoolNameV6).
var (
	maxVPCNameLen          = 63 - len(candidates.PrivatePoolName(""))
	maxDualStackVPCNameLen = 63 - len(candidates.PrivatePoolNameV6(""))
)

// checkVPCInput checks what CreateVPC can check without the database.
func checkVPCInput(in CreateVPCInput) error {
	if errs := vpcInputErrors(in); len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// vpcInputErrors returns the mistakes of in, one per field at most, in the
// order checkVPCInput reports them.
func vpcInputErrors(in CreateVPCInput) []error {
	var errs []error
	if err := checkNamespace("namespace", in.Namespace); err != nil {
		errs = append(errs, err)
	}
	dualStack := in.IPv6CIDR != "" || in.IPv6PrefixLength != 0
	if err := checkName("name", in.Name); err != nil {
		errs = append(errs, err)
	} else if len(in.Name) > maxVPCNameLen {
		errs = append(errs, invalid("name", "name %s is too long for a VPC: at most %d characters, since its pool is named vpc-<name>", describe(in.Name), maxVPCNameLen))
	} else if dualStack && len(in.Name) > maxDualStackVPCNameLen {
		errs = append(errs, invalid("name", "name %s is too long for a dual-stack VPC: at most %d characters, since its IPv6 pool is named vpc-<name>-v6", describe(in.Name), maxDualStackVPCNameLen))
	}
	if cidr, err := parsePrefix("cidr", in.CIDR); err != nil {
		errs = append(errs, err)
	} else if cidr.Addr().Is6() {
		errs = append(errs, invalid("cidr", "cidr %s is not IPv4: give the VPC's IPv4 prefix as cidr, and an IPv6 one as ipv6Cidr", cidr))
	} else if cidr.Bits() < minVPCBits || cidr.Bits() > maxVPCBits {
		errs = append(errs, invalid("cidr", "cidr %s is not a VPC prefix: use /%d to /%d", cidr, minVPCBits, maxVPCBits))
	}
	if err := checkZone("zone", in.Zone); err != nil {
		errs = append(errs, err)
	}
	return append(errs, vpcIPv6Errors(in)...)
}

// vpcIPv6Errors returns the mistakes of the IPv6 fields of in.
func vpcIPv6Errors(in CreateVPCInput) []error {
	var errs []error
	switch {
	case in.IPv6CIDR != "" && in.IPv6PrefixLength != 0:
		errs = append(errs, invalid("ipv6Cidr", "ipv6Cidr and ipv6PrefixLength both name the VPC's IPv6 prefix: give one of them"))
	case in.IPv6CIDR != "":
		if cidr, err := parsePrefix("ipv6Cidr", in.IPv6CIDR); err != nil {
			errs = append(errs, err)
		} else if !cidr.Addr().Is6() {
			errs = append(errs, invalid("ipv6Cidr", "ipv6Cidr %s is not an IPv6 prefix: give the VPC's IPv4 prefix as cidr", cidr))
		} else if cidr.Bits() < minVPCBits6 || cidr.Bits() > maxVPCBits6 {
			errs = append(errs, invalid("ipv6Cidr", "ipv6Cidr %s is not a VPC prefix: use /%d to /%d", cidr, minVPCBits6, maxVPCBits6))
		}
	case in.IPv6PrefixLength != 0 && (in.IPv6PrefixLength < minVPCBits6 || in.IPv6PrefixLength > maxVPCBits6):
		errs = append(errs, invalid("ipv6PrefixLength", "ipv6PrefixLength %d is out of range: %d to %d", in.IPv6PrefixLength, minVPCBits6, maxVPCBits6))
	case in.IPv6PrefixLength != 0 && in.Zone == "":
		errs = append(errs, invalid("ipv6PrefixLength", "ipv6PrefixLength takes the VPC's IPv6 prefix from its zone's delegation pools: give a zone, or give the prefix as ipv6Cidr"))
	}
	switch IPv6Addressing(in.IPv6Addressing) {
	case "":
	case LowestFree, StableOpaque:
		if in.IPv6CIDR == "" && in.IPv6PrefixLength == 0 {
			errs = append(errs, invalid("ipv6Addressing", "ipv6Addressing is for a VPC with an IPv6 prefix: give ipv6Cidr or ipv6PrefixLength, or leave ipv6Addressing out"))
		}
	default:
		errs = append(errs, invalid("ipv6Addressing", "ipv6Addressing %s is not a way of addressing: %s or %s", describe(in.IPv6Addressing), LowestFree, StableOpaque))
	}
	return errs
}

// ipv6KeyLen is the length of a VPC's key of stable opaque addresses.
const ipv6KeyLen = 32

// newIPv6Key draws a VPC's key of stable opaque addresses.
func newIPv6Key() []byte {
	key := make([]byte, ipv6KeyLen)
	rand.Read(key)
	return key
}

// createVPC creates the VPC in (checked by checkVPCInput) with the uid
// given, its pool and its uplink in tx, within the namespace's quotas of
// VPCs and (the uplink) of addresses.
func (s *Service) createVPC(ctx context.Context, tx *store.Tx, undo *undoList, actor auth.Actor, in CreateVPCInput, uid string) (store.VPCRow, error) {
	var zonePools, allZonePools []*cachedPool
	if in.Zone != "" {
		var err error
		if allZonePools, err = s.zonePoolsAll(ctx, tx, in.Zone); err != nil {
			return store.VPCRow{}, err
		}
		if zonePools, err = addressPools(allZonePools, IPv4, in.Zone); err != nil {
			return store.VPCRow{}, err
		}
	}
	var delegators []*cachedPool
	if in.IPv6PrefixLength != 0 {
		if delegators = delegationPools(allZonePools, in.IPv6PrefixLength); len(delegators) == 0 {
			return store.VPCRow{}, invalid("ipv6PrefixLength", "zone %s has no delegation pool of /%d prefixes: give the VPC's IPv6 prefix as ipv6Cidr, or ask an operator for a public IPv6 pool with delegatedPrefixLength %d",
				in.Zone, in.IPv6PrefixLength, in.IPv6PrefixLength)
		}
	}
	if _, err := s.checkQuota(ctx, tx, in.Namespace, QuotaVPCs); err != nil {
		return store.VPCRow{}, err
	}
	cidr, _ := netip.ParsePrefix(in.CIDR)
	row := store.VPCRow{UID: uid, Namespace: in.Namespace, Name: in.Name, CIDR: cidr, Zone: in.Zone, CreatedBy: actor.Name}
	addressing := IPv6Addressing(in.IPv6Addressing)
	if addressing == "" {
		addressing = LowestFree
	}
	if in.IPv6CIDR != "" {
		row.IPv6CIDR, _ = netip.ParsePrefix(in.IPv6CIDR)
		row.IPv6Addressing, row.IPv6Key = string(addressing), newIPv6Key()
	}
	vpc, err := store.InsertVPC(ctx, tx, row)
	if errors.Is(err, store.ErrObjectExists) {
		return store.VPCRow{}, conflict("VPC %s/%s exists already", in.Namespace, in.Name)
	}
	if err != nil {
		return store.VPCRow{}, err
	}
	pool, err := store.InsertPool(ctx, tx, store.PoolRow{
		UID: newUID(), Namespace: in.Namespace, Name: candidates.PrivatePoolName(in.Name), Kind: string(Private), CIDR: cidr,
		VPCUID: vpc.UID, CreatedBy: actor.Name,
	})
	if errors.Is(err, store.ErrObjectExists) {
		return store.VPCRow{}, conflict("a pool named vpc-%s exists already in namespace %s", in.Name, in.Namespace)
	}
	if err != nil {
		return store.VPCRow{}, err
	}
	after := audit.VPC{UID: vpc.UID, CIDR: vpc.CIDR.String(), Zone: vpc.Zone, Pool: pool.Name}
	if in.Zone != "" {
		uplink, err := s.claimInZone(ctx, tx, undo, zonePools, in.Zone, Owner{Kind: OwnerVPC, UID: vpc.UID, Name: "router"}, in.Namespace, actor.Name)
		if err != nil {
			return store.VPCRow{}, err
		}
		after.Router = uplink.Address.String()
	}
	if len(delegators) > 0 {
		if vpc, err = s.delegatePrefix(ctx, tx, undo, delegators, in, vpc, addressing, actor.Name); err != nil {
			return store.VPCRow{}, err
		}
	}
	if vpc.IPv6CIDR.IsValid() {
		if err := s.createIPv6Side(ctx, tx, undo, vpc, allZonePools, actor, &after); err != nil {
			return store.VPCRow{}, err
		}
	}
	return vpc, store.InsertAudit(ctx, tx, store.AuditEntry{
		Actor: actor.Name, Action: audit.Create, Namespace: in.Namespace, ObjectKind: audit.KindVPC, ObjectName: in.Name, After: store.JSON(after),
	})
}

// createIPv6Side makes the IPv6 pool of the dual-stack VPC vpc and, when
// its zone (whose public pools are zonePools) has public IPv6 pools that
// hand out addresses, claims its IPv6 router uplink from them; after, the
// VPC's audit document, records both.
func (s *Service) createIPv6Side(ctx context.Context, tx *store.Tx, undo *undoList, vpc store.VPCRow, zonePools []*cachedPool, actor auth.Actor, after *audit.VPC) error {
	pool, err := store.InsertPool(ctx, tx, store.PoolRow{
		UID: newUID(), Namespace: vpc.Namespace, Name: candidates.PrivatePoolNameV6(vpc.Name), Kind: string(Private), CIDR: vpc.IPv6CIDR,
		VPCUID: vpc.UID, CreatedBy: actor.Name,
	})
	if errors.Is(err, store.ErrObjectExists) {
		return conflict("a pool named %s exists already in namespace %s", candidates.PrivatePoolNameV6(vpc.Name), vpc.Namespace)
	}
	if err != nil {
		return err
	}
	after.IPv6CIDR, after.IPv6Delegated, after.IPv6Pool, after.IPv6Addressing = vpc.IPv6CIDR.String(), vpc.IPv6Delegated, pool.Name, vpc.IPv6Addressing
	if uplinkPools, _ := addressPools(zonePools, IPv6, vpc.Zone); len(uplinkPools) > 0 {
		uplink, err := s.claimInZone(ctx, tx, undo, uplinkPools, vpc.Zone, Owner{Kind: OwnerVPC, UID: vpc.UID, Name: "router"}, vpc.Namespace, actor.Name)
		if err != nil {
			return err
		}
		after.IPv6Router = uplink.Address.String()
	}
	return nil
}

// zonePools returns the public IPv4 pools of zone that hand out addresses
// (those of a router's uplink and of floating IPs), in name order, as ext
// sees them; refused when there is none.
func (s *Service) zonePools(ctx context.Context, ext store.Ext, zone string) ([]*cachedPool, error) {
	all, err := s.zonePoolsAll(ctx, ext, zone)
	if err != nil {
		return nil, err
	}
	return addressPools(all, IPv4, zone)
}

// addressPools returns the pools of the family f among pools that hand
// out addresses; for IPv4, refused when there is none.
func addressPools(pools []*cachedPool, f Family, zone string) ([]*cachedPool, error) {
	var out []*cachedPool
	for _, cp := range pools {
		if familyOf(cp.spec.Prefix.Addr()) == f && cp.row.DelegatedPrefixLength == 0 {
			out = append(out, cp)
		}
	}
	if len(out) == 0 {
		return nil, invalid("zone", "%s", candidates.NoPublicPool(zone))
	}
	return out, nil
}

// delegationPools returns the pools among pools that delegate prefixes of
// length bits.
func delegationPools(pools []*cachedPool, bits int) []*cachedPool {
	var out []*cachedPool
	for _, cp := range pools {
		if cp.row.DelegatedPrefixLength == bits {
			out = append(out, cp)
		}
	}
	return out
}

// zonePoolsAll returns the public pools of zone in name order, of both
// families, as ext (the database, or a transaction) sees them: a pool the
// transaction created is one of them, parsed afresh rather than cached.
func (s *Service) zonePoolsAll(ctx context.Context, ext store.Ext, zone string) ([]*cachedPool, error) {
	rows, err := store.PublicPoolsInZone(ctx, ext, zone)
	if err != nil {
		return nil, err
	}
	out := make([]*cachedPool, 0, len(rows))
	for _, r := range rows {
		cp, err := s.cachedPool(ctx, r.Namespace, r.Name)
		if errors.Is(err, refusal.ErrNotFound) || err == nil && (cp.row.UID != r.UID || cp.row.SpecVersion != r.SpecVersion) {
			cp, err = newCachedPool(r)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, cp)
	}
	return out, nil
}

// claimInZone claims an address for the owner from the first pool of
// pools that has one.
func (s *Service) claimInZone(ctx context.Context, ext store.Ext, undo *undoList, pools []*cachedPool, zone string, owner Owner, ownerNS, actor string) (Allocation, error) {
	for _, cp := range pools {
		a, err := s.claim(ctx, ext, claimRequest{pool: cp, space: cp.spec.Candidates(), owner: owner, ownerNS: ownerNS, actor: actor}, undo)
		if errors.Is(err, refusal.ErrPoolExhausted) {
			continue
		}
		return a, err
	}
	if zone == "" {
		return Allocation{}, &ExhaustedError{Pool: pools[0].row.Name, Scope: pools[0].spec.Prefix}
	}
	return Allocation{}, &ExhaustedError{Zone: zone}
}

// DeleteVPC deletes a VPC with its subnets, its pool and the node
// addresses in it, and releases its router uplink. A VPC that still holds
// VM interfaces is refused, also one attached while the delete runs: the
// delete keeps VM interfaces, and the foreign key of any left refuses it.
// The VPC, each of its subnets and its pool leave an entry in the audit
// log, as each address released does.
func (s *Service) DeleteVPC(ctx context.Context, actor auth.Actor, namespace, name string) error {
	if err := checkNamespace("namespace", namespace); err != nil {
		return err
	}
	if err := checkName("name", name); err != nil {
		return err
	}
	if !actor.CanAccess(namespace) {
		return notFound("VPC", namespace, name)
	}
	var pool store.PoolRow
	var pools []store.PoolRow // the VPC's pools: IPv4, then IPv6
	var uplinks []store.AllocationRow
	var delegated store.DelegatedPrefixRow
	err := s.inTx(ctx, func(tx *store.Tx, _ *undoList) error {
		vpc, err := store.VPC(ctx, tx, namespace, name, true)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("VPC", namespace, name)
		}
		if err != nil {
			return err
		}
		if pool, err = store.Pool(ctx, tx, namespace, candidates.PrivatePoolName(name)); err != nil {
			return err
		}
		pools = []store.PoolRow{pool}
		if vpc.IPv6CIDR.IsValid() {
			pool6, err := store.Pool(ctx, tx, namespace, candidates.PrivatePoolNameV6(name))
			if err != nil {
				return err
			}
			pools = append(pools, pool6)
		}
		if err := s.refuseVMsIn(ctx, tx, pools, "", "VPC "+namespace+"/"+name); err != nil {
			return err
		}
		for _, p := range pools {
			if _, err := store.ReleaseAllocations(ctx, tx, p.UID, "", string(OwnerVirtualMachine), p.Name, actor.Name); err != nil {
				return err
			}
		}
		if uplinks, err = store.VPCUplinks(ctx, tx, namespace, vpc.UID, vpc.Zone); err != nil {
			return err
		}
		for _, u := range uplinks {
			up, err := store.PoolByUID(ctx, tx, u.PoolUID)
			if err != nil {
				return err
			}
			if _, err := store.ReleaseAllocation(ctx, tx, u.PoolUID, up.Name, u.Address, store.OwnerKey{}, actor.Name); err != nil {
				return err
			}
		}
		if vpc.IPv6Delegated {
			if delegated, err = store.DelegatedPrefixOf(ctx, tx, vpc.UID); err != nil {
				return err
			}
		}
		subnets, err := store.Subnets(ctx, tx, vpc.UID)
		if err != nil {
			return err
		}
		// The delegated prefix goes back to its pool with the VPC (the
		// cascade of delegated_prefixes).
		if err := store.DeleteVPC(ctx, tx, vpc.UID); err != nil {
			return err
		}
		// The VPC's subnets and its pools go with it, each with its entry.
		before := audit.VPC{UID: vpc.UID, CIDR: vpc.CIDR.String(), Zone: vpc.Zone}
		if vpc.IPv6CIDR.IsValid() {
			before.IPv6CIDR, before.IPv6Delegated, before.IPv6Addressing = vpc.IPv6CIDR.String(), vpc.IPv6Delegated, vpc.IPv6Addressing
		}
		entries := []store.AuditEntry{{
			Actor: actor.Name, Action: audit.Delete, Namespace: namespace, ObjectKind: audit.KindVPC, ObjectName: name,
			Before: store.JSON(before),
		}}
		for _, sub := range subnets {
			entries = append(entries, store.AuditEntry{
				Actor: actor.Name, Action: audit.Delete, Namespace: namespace, ObjectKind: audit.KindSubnet, ObjectName: name + "/" + sub.Name,
				Before: store.JSON(subnetAudit(sub)),
			})
		}
		for _, p := range pools {
			entries = append(entries, store.AuditEntry{
				Actor: actor.Name, Action: audit.Delete, Namespace: namespace, ObjectKind: audit.KindPool, ObjectName: p.Name, Before: store.JSON(poolAudit(p)),
			})
		}
		for _, e := range entries {
			if err := store.InsertAudit(ctx, tx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, store.ErrInUse) {
		return s.inUse(ctx, pool.UID, "", "VPC "+namespace+"/"+name)
	}
	if err != nil {
		return err
	}
	for _, p := range pools {
		s.forgetPoolUID(namespace, p.Name, p.UID)
	}
	for _, u := range uplinks {
		s.freed(ctx, u.PoolUID, u.Address)
	}
	if delegated.Prefix.IsValid() {
		if pv := s.views.ifLoaded(delegated.PoolUID); pv != nil {
			pv.Free(delegated.Prefix.Addr())
		}
	}
	s.forgetSubnets(namespace, name)
	return nil
}

// forgetPoolUID drops a deleted pool from the caches.
func (s *Service) forgetPoolUID(namespace, name, uid string) {
	s.poolsMu.Lock()
	delete(s.pools, namespace+"/"+name)
	s.poolsMu.Unlock()
	s.views.forget(uid)
}

// VPCs lists the VPCs the actor may see, of namespace when not empty.
func (s *Service) VPCs(ctx context.Context, actor auth.Actor, namespace string) ([]VPC, error) {
	rows, err := store.VPCs(ctx, s.db)
	if err != nil {
		return nil, err
	}
	out := []VPC{}
	for _, r := range rows {
		if actor.CanAccess(r.Namespace) && (namespace == "" || r.Namespace == namespace) {
			out = append(out, vpcFromRow(r))
		}
	}
	return out, nil
}

// VPC returns the VPC namespace/name if the actor may see it.
func (s *Service) VPC(ctx context.Context, actor auth.Actor, namespace, name string) (VPC, error) {
	if !actor.CanAccess(namespace) || !storable(namespace, name) {
		return VPC{}, notFound("VPC", namespace, name)
	}
	r, err := store.VPC(ctx, s.db, namespace, name, false)
	if errors.Is(err, store.ErrNotFound) {
		return VPC{}, notFound("VPC", namespace, name)
	}
	if err != nil {
		return VPC{}, err
	}
	return vpcFromRow(r), nil
}

// VPCPool returns the VPC's private pool.
func (s *Service) VPCPool(ctx context.Context, actor auth.Actor, v VPC) (Pool, error) {
	return s.Pool(ctx, actor, v.Namespace, v.PoolName())
}

// Router returns the VPC's uplink and its default route (the gateway of
// the uplink's pool); ok is false for a VPC without a zone.
func (s *Service) Router(ctx context.Context, actor auth.Actor, v VPC) (uplink Allocation, defaultRoute netip.Addr, ok bool, err error) {
	if !actor.CanAccess(v.Namespace) {
		return Allocation{}, netip.Addr{}, false, notFound("VPC", v.Namespace, v.Name)
	}
	return s.uplinkOf(ctx, v, IPv4)
}

// IPv6Router returns the VPC's IPv6 uplink and its default route (the
// gateway of the uplink's pool); ok is false for a VPC without one.
func (s *Service) IPv6Router(ctx context.Context, actor auth.Actor, v VPC) (uplink Allocation, defaultRoute netip.Addr, ok bool, err error) {
	if !actor.CanAccess(v.Namespace) {
		return Allocation{}, netip.Addr{}, false, notFound("VPC", v.Namespace, v.Name)
	}
	return s.uplinkOf(ctx, v, IPv6)
}

// uplinkOf returns the VPC's uplink of the family f.
func (s *Service) uplinkOf(ctx context.Context, v VPC, f Family) (uplink Allocation, defaultRoute netip.Addr, ok bool, err error) {
	rows, err := store.VPCUplinks(ctx, s.db, v.Namespace, v.UID, v.Zone)
	if err != nil {
		return Allocation{}, netip.Addr{}, false, err
	}
	for _, r := range rows {
		if familyOf(r.Address) != f {
			continue
		}
		pool, err := store.PoolByUID(ctx, s.db, r.PoolUID)
		if err != nil {
			return Allocation{}, netip.Addr{}, false, err
		}
		return allocationFromRow(r, pool.Name), pool.Gateway, true, nil
	}
	return Allocation{}, netip.Addr{}, false, nil
}
