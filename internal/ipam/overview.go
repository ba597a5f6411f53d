package ipam

import (
	"cmp"
	"context"
	"net/netip"
	"slices"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/internal/usage"
)

// A Router is a VPC's router: its uplink, an address of a public pool of
// the VPC's zone, and its default route, the gateway of that pool.
type Router struct {
	Uplink       netip.Addr // the zero Addr: the VPC has no zone, hence no router
	Pool         string     // the uplink's pool
	DefaultRoute netip.Addr // the zero Addr when the uplink's pool has no gateway
}

// NoDefaultRoute says why a router has no default route, or "" when it
// has one or there is no router.
func (r Router) NoDefaultRoute() string {
	if !r.Uplink.IsValid() || r.DefaultRoute.IsValid() {
		return ""
	}
	return "no default route: pool " + r.Pool + " has no gateway"
}

// A VPCSummary is a VPC as a list shows it: how full its pool is, its
// router and its subnets.
type VPCSummary struct {
	VPC     VPC
	Usage   usage.Figures
	Router  Router
	Subnets []Subnet
}

// VPCSummaries lists the VPCs the actor may see, of namespace when not
// empty, with their usage, router and subnets, in namespace order, then
// name order. It reads them in two statements however many there are; the
// usage is the database's count, not this process's view.
func (s *Service) VPCSummaries(ctx context.Context, actor auth.Actor, namespace string) ([]VPCSummary, error) {
	rows, err := store.VPCSummaries(ctx, s.db)
	if err != nil {
		return nil, err
	}
	out := []VPCSummary{}
	var uids []string
	for _, r := range rows {
		if !actor.CanAccess(r.Namespace) || namespace != "" && r.Namespace != namespace {
			continue
		}
		pool, err := newCachedPool(r.Pool)
		if err != nil {
			return nil, err
		}
		size := pool.spec.Candidates().Size()
		sum := VPCSummary{VPC: vpcFromRow(r.VPCRow), Usage: usage.Figures{Size: size, Used: r.Used, Free: size - r.Used}, Subnets: []Subnet{}}
		if r.Router.IsValid() {
			sum.Router = Router{Pool: r.RouterPool, Uplink: r.Router, DefaultRoute: r.RouterGateway}
		}
		out = append(out, sum)
		uids = append(uids, r.UID)
	}
	if len(out) == 0 {
		return out, nil
	}
	subnets, err := store.SubnetsOfVPCs(ctx, s.db, uids)
	if err != nil {
		return nil, err
	}
	byVPC := make(map[string]*VPCSummary, len(out))
	for i := range out {
		byVPC[out[i].VPC.UID] = &out[i]
	}
	for _, r := range subnets {
		if sum, ok := byVPC[r.VPCUID]; ok {
			sum.Subnets = append(sum.Subnets, subnetFromRow(r, sum.VPC))
		}
	}
	return out, nil
}

// A VPCOverview is a VPC as its page shows it: its pool and how full it
// is, its router, its subnets with their usage and address maps, the
// floating IPs of its namespace, the zones a floating IP may be claimed
// in, and what the page's claim forms predict from.
type VPCOverview struct {
	VPC    VPC
	Pool   Pool
	Usage  usage.Figures
	Router Router
	// IPv6Pool, IPv6Usage and IPv6Router are a dual-stack VPC's IPv6 pool,
	// how many of its /64s its subnets take (VPCIPv6Usage) and its IPv6
	// uplink; zero for an IPv4-only VPC.
	IPv6Pool    Pool
	IPv6Usage   usage.Figures
	IPv6Router  Router
	Subnets     []SubnetOverview
	FloatingIPs []FloatingIP
	// Zones are the zones that have public pools, in order.
	Zones []string
	// Claims is what the browser predicts the claims of the page from:
	// the subnets' and the zones' candidates and taken addresses, as this
	// process sees them (a claim may still find an address taken
	// meanwhile, and say so).
	Claims candidates.ClaimsSpec
}

// A SubnetOverview is a subnet as its VPC's page shows it.
type SubnetOverview struct {
	Subnet Subnet
	Usage  usage.Figures
	// IPv6Usage is how full its IPv6 prefix is (SubnetIPv6Usage).
	IPv6Usage usage.Figures
	Map       AddressMap
}

// VPCOverview returns the overview of the VPC namespace/name if the actor
// may see it.
func (s *Service) VPCOverview(ctx context.Context, actor auth.Actor, namespace, name string) (VPCOverview, error) {
	v, err := s.VPC(ctx, actor, namespace, name)
	if err != nil {
		return VPCOverview{}, err
	}
	o := VPCOverview{VPC: v, Subnets: []SubnetOverview{}, Zones: []string{}}
	if o.Pool, err = s.VPCPool(ctx, actor, v); err != nil {
		return VPCOverview{}, err
	}
	if o.Usage, err = s.PoolUsage(ctx, actor, o.Pool); err != nil {
		return VPCOverview{}, err
	}
	uplink, route, ok, err := s.Router(ctx, actor, v)
	if err != nil {
		return VPCOverview{}, err
	}
	if ok {
		o.Router = Router{Uplink: uplink.Address, Pool: uplink.Pool, DefaultRoute: route}
	}
	if v.IPv6CIDR.IsValid() {
		if err := s.ipv6Overview(ctx, actor, &o); err != nil {
			return VPCOverview{}, err
		}
	}
	o.Claims = candidates.ClaimsSpec{Namespace: v.Namespace, VPC: v.Name, Pool: candidates.ClaimPool{Name: o.Pool.Name, PoolSpec: poolSpec(o.Pool)}}
	subnets, err := s.Subnets(ctx, actor, v)
	if err != nil {
		return VPCOverview{}, err
	}
	for _, sub := range subnets {
		so := SubnetOverview{Subnet: sub}
		if so.Usage, err = s.SubnetUsage(ctx, actor, sub); err != nil {
			return VPCOverview{}, err
		}
		if so.IPv6Usage, err = s.SubnetIPv6Usage(ctx, actor, sub); err != nil {
			return VPCOverview{}, err
		}
		if so.Map, err = s.SubnetMap(ctx, actor, sub); err != nil {
			return VPCOverview{}, err
		}
		taken, err := s.TakenRanges(ctx, actor, o.Pool, sub.CIDR)
		if err != nil {
			return VPCOverview{}, err
		}
		o.Subnets = append(o.Subnets, so)
		o.Claims.Subnets = append(o.Claims.Subnets, candidates.ClaimSubnet{
			Name: sub.Name, CIDR: sub.CIDR.String(), Gateway: sub.Gateway.String(), Taken: candidates.RangeList(taken),
		})
	}
	if o.FloatingIPs, err = s.FloatingIPs(ctx, actor, v.Namespace); err != nil {
		return VPCOverview{}, err
	}
	if err := s.zoneClaims(ctx, actor, &o); err != nil {
		return VPCOverview{}, err
	}
	return o, nil
}

// ipv6Overview adds to o its dual-stack VPC's IPv6 pool, usage and
// uplink.
func (s *Service) ipv6Overview(ctx context.Context, actor auth.Actor, o *VPCOverview) error {
	var err error
	if o.IPv6Pool, err = s.Pool(ctx, actor, o.VPC.Namespace, o.VPC.IPv6PoolName()); err != nil {
		return err
	}
	if o.IPv6Usage, err = s.VPCIPv6Usage(ctx, actor, o.VPC, 0); err != nil {
		return err
	}
	uplink, route, ok, err := s.IPv6Router(ctx, actor, o.VPC)
	if ok {
		o.IPv6Router = Router{Uplink: uplink.Address, Pool: uplink.Pool, DefaultRoute: route}
	}
	return err
}

// zoneClaims adds to o the zones that have public pools, and their pools
// in the order a floating IP is claimed from them (name order).
func (s *Service) zoneClaims(ctx context.Context, actor auth.Actor, o *VPCOverview) error {
	publics, err := s.Pools(ctx, actor, Public, "")
	if err != nil {
		return err
	}
	slices.SortFunc(publics, func(a, b Pool) int { return cmp.Or(cmp.Compare(a.Zone, b.Zone), cmp.Compare(a.Name, b.Name)) })
	for _, p := range publics {
		if p.Zone == "" {
			continue
		}
		taken, err := s.TakenRanges(ctx, actor, p, netip.Prefix{})
		if err != nil {
			return err
		}
		if n := len(o.Claims.Zones); n == 0 || o.Claims.Zones[n-1].Name != p.Zone {
			o.Zones = append(o.Zones, p.Zone)
			o.Claims.Zones = append(o.Claims.Zones, candidates.ClaimZone{Name: p.Zone})
		}
		zone := &o.Claims.Zones[len(o.Claims.Zones)-1]
		zone.Pools = append(zone.Pools, candidates.ClaimPool{Name: p.Name, PoolSpec: poolSpec(p), Taken: candidates.RangeList(taken)})
	}
	return nil
}

// poolSpec is the pool as the enumerator reads it.
func poolSpec(p Pool) candidates.PoolSpec {
	spec := candidates.PoolSpec{CIDR: p.CIDR.String(), Exclude: p.Exclude}
	if p.Gateway.IsValid() {
		spec.Gateway = p.Gateway.String()
	}
	return spec
}

// mayOverview reports whether the actor may read the overview of the pool
// p: operators of every pool, tenants of the private pools of their
// namespaces. A public pool's map and allocations are operators' (see
// PoolMap, PoolAllocations), so its overview is too; tenants read a public
// pool's figures through Pools and PoolUsage.
func mayOverview(actor auth.Actor, p Pool) bool {
	return p.Kind != Public || actor.IsOperator()
}

// A PoolSummary is a pool as a list shows it, with how full it is.
type PoolSummary struct {
	Pool  Pool
	Usage usage.Figures
}

// PoolSummaries lists the pools whose overview the actor may read, with
// their usage, in namespace order, then name order.
func (s *Service) PoolSummaries(ctx context.Context, actor auth.Actor) ([]PoolSummary, error) {
	pools, err := s.Pools(ctx, actor, "", "")
	if err != nil {
		return nil, err
	}
	out := []PoolSummary{}
	for _, p := range pools {
		if !mayOverview(actor, p) {
			continue
		}
		u, err := s.PoolUsage(ctx, actor, p)
		if err != nil {
			return nil, err
		}
		out = append(out, PoolSummary{Pool: p, Usage: u})
	}
	return out, nil
}

// A PoolOverview is a pool as its page shows it: how full it is, its
// address map (of one /24 block of a larger pool, when asked) and, for a
// VPC's private pool, its VPC and its subnets with their usage. Its
// allocations are PoolTable's.
type PoolOverview struct {
	Pool  Pool
	Usage usage.Figures
	// Block is the /24 the map shows, the zero Prefix for the whole pool.
	Block netip.Prefix
	Map   AddressMap
	// VPC is a private pool's VPC, the zero VPC for a public pool.
	VPC VPC
	// Subnets are a private pool's subnets, in address order, with their
	// usage (no map).
	Subnets []SubnetOverview
}

// PoolOverview returns the overview of the pool namespace/name if the
// actor may read it (see PoolSummaries); any other answers as not found.
// block, as written, names a /24 block of a pool larger than a /24 for
// the map to show; anything else shows the whole pool.
func (s *Service) PoolOverview(ctx context.Context, actor auth.Actor, namespace, name, block string) (PoolOverview, error) {
	p, err := s.Pool(ctx, actor, namespace, name)
	if err == nil && !mayOverview(actor, p) {
		err = notFound("pool", namespace, name)
	}
	if err != nil {
		return PoolOverview{}, err
	}
	o := PoolOverview{Pool: p, Subnets: []SubnetOverview{}}
	if o.Usage, err = s.PoolUsage(ctx, actor, p); err != nil {
		return PoolOverview{}, err
	}
	if b, err := netip.ParsePrefix(block); err == nil && b.Bits() == 24 && p.CIDR.Bits() < 24 && p.CIDR.Contains(b.Addr()) {
		o.Block = b.Masked()
	}
	if o.Map, err = s.PoolMap(ctx, actor, p, o.Block); err != nil {
		return PoolOverview{}, err
	}
	if p.VPCUID == "" {
		return o, nil
	}
	if o.VPC, err = s.VPC(ctx, actor, p.Namespace, p.VPCName()); err != nil {
		return PoolOverview{}, err
	}
	subnets, err := s.Subnets(ctx, actor, o.VPC)
	if err != nil {
		return PoolOverview{}, err
	}
	for _, sub := range subnets {
		so := SubnetOverview{Subnet: sub}
		if so.Usage, err = s.SubnetUsage(ctx, actor, sub); err != nil {
			return PoolOverview{}, err
		}
		o.Subnets = append(o.Subnets, so)
	}
	return o, nil
}

// A SubnetDetail is a subnet as its own page shows it: its VPC and pool,
// how full it is and its address map. Its allocations are SubnetTable's.
type SubnetDetail struct {
	VPC    VPC
	Pool   Pool
	Subnet Subnet
	Usage  usage.Figures
	Map    AddressMap
}

// SubnetDetail returns the subnet name of the VPC namespace/vpc if the
// actor may see the VPC; any other answers as not found.
func (s *Service) SubnetDetail(ctx context.Context, actor auth.Actor, namespace, vpc, name string) (SubnetDetail, error) {
	v, err := s.VPC(ctx, actor, namespace, vpc)
	if err != nil {
		return SubnetDetail{}, err
	}
	d := SubnetDetail{VPC: v}
	subnets, err := s.Subnets(ctx, actor, v)
	if err != nil {
		return SubnetDetail{}, err
	}
	i := slices.IndexFunc(subnets, func(sub Subnet) bool { return sub.Name == name })
	if i < 0 {
		return SubnetDetail{}, notFound("subnet", namespace, vpc+"/"+name)
	}
	d.Subnet = subnets[i]
	if d.Pool, err = s.VPCPool(ctx, actor, v); err != nil {
		return SubnetDetail{}, err
	}
	if d.Usage, err = s.SubnetUsage(ctx, actor, d.Subnet); err != nil {
		return SubnetDetail{}, err
	}
	if d.Map, err = s.SubnetMap(ctx, actor, d.Subnet); err != nil {
		return SubnetDetail{}, err
	}
	return d, nil
}
