package ipam

import (
	"context"
	"net/netip"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/forecast"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/internal/usage"
)

// An ObjectUsage is the usage of a pool (Subnet's UID empty) or of a
// subnet of a VPC's pool; VPC names the VPC of a private pool and of a
// subnet. IPv6 marks the IPv6 side of a dual-stack space, beside its
// IPv4 one: of a subnet, its IPv6 prefix, in addresses (SubnetIPv6Usage);
// with Pool a VPC's IPv6 pool and no subnet, the VPC's IPv6 prefix in
// /64s (VPCIPv6Usage), beside that pool's own usage in addresses.
type ObjectUsage struct {
	Pool   Pool
	Subnet Subnet
	VPC    string
	IPv6   bool
	Usage  usage.Figures
}

// Usages returns the usage of every pool and subnet the actor may read,
// from this process's views (see PoolUsage): each pool, then its subnets;
// after a VPC's IPv6 pool, the VPC's IPv6 prefix in /64s and its
// subnets' IPv6 sides.
func (s *Service) Usages(ctx context.Context, actor auth.Actor) ([]ObjectUsage, error) {
	pools, err := s.PoolSummaries(ctx, actor)
	if err != nil {
		return nil, err
	}
	vpcs, err := s.VPCSummaries(ctx, actor, "")
	if err != nil {
		return nil, err
	}
	byUID := map[string]VPCSummary{}
	for _, v := range vpcs {
		byUID[v.VPC.UID] = v
	}
	var out []ObjectUsage
	for _, p := range pools {
		vpc := byUID[p.Pool.VPCUID]
		out = append(out, ObjectUsage{Pool: p.Pool, VPC: vpc.VPC.Name, Usage: p.Usage})
		if p.Pool.VPCUID == "" {
			continue
		}
		ipv6 := p.Pool.Family() == IPv6
		if ipv6 {
			prefixes := make([]netip.Prefix, len(vpc.Subnets))
			for i, sub := range vpc.Subnets {
				prefixes[i] = sub.IPv6CIDR
			}
			out = append(out, ObjectUsage{Pool: p.Pool, VPC: vpc.VPC.Name, IPv6: true,
				Usage: prefixesTaken(p.Pool.CIDR, prefixes, defaultIPv6SubnetBits)})
		}
		for _, sub := range vpc.Subnets {
			if ipv6 && !sub.IPv6CIDR.IsValid() {
				continue
			}
			u, err := s.subnetUsage(ctx, actor, sub, p.Pool.Family())
			if err != nil {
				return nil, err
			}
			out = append(out, ObjectUsage{Pool: p.Pool, Subnet: sub, VPC: vpc.VPC.Name, IPv6: ipv6, Usage: u})
		}
	}
	return out, nil
}

// HistoryKind is the object_kind of the usage's rows in the history:
// "pool", "subnet", "subnet-ipv6" (a subnet's IPv6 side) or "vpc-ipv6" (a
// VPC's IPv6 prefix).
func (u ObjectUsage) HistoryKind() string {
	switch {
	case u.Subnet.UID != "" && u.IPv6:
		return "subnet-ipv6"
	case u.Subnet.UID != "":
		return "subnet"
	case u.IPv6:
		return "vpc-ipv6"
	}
	return "pool"
}

// HistoryUID is the uid the history keeps the usage under: its pool's,
// its subnet's, its subnet's IPv6 side's (SubnetIPv6HistoryUID) or, for a
// VPC's IPv6 prefix, its VPC's.
func (u ObjectUsage) HistoryUID() string {
	switch u.HistoryKind() {
	case "subnet-ipv6":
		return SubnetIPv6HistoryUID(u.Subnet)
	case "subnet":
		return u.Subnet.UID
	case "vpc-ipv6":
		return u.Pool.VPCUID
	}
	return u.Pool.UID
}

// SubnetIPv6HistoryUID is the uid the usage history keeps the IPv6 side
// of sub under (store.IPv6SideUID): its own uid names its IPv4 side.
func SubnetIPv6HistoryUID(sub Subnet) string { return store.IPv6SideUID(sub.UID) }

// VPCIPv6HistoryBits is the length of the prefixes the usage history
// counts a VPC's IPv6 prefix in: that of its subnets by default, /64.
const VPCIPv6HistoryBits = defaultIPv6SubnetBits

// RecordUsage writes the usage of every pool and subnet, and the IPv6 side
// of dual-stack VPCs and subnets, into the history (store.RecordUsage) as
// of now: one row an hour and one a day per object,
// whatever the number of writes and of processes; and counts their claims
// and releases in the hours from since's (the previous write; zero: now's
// hour alone) to now's, and in those of the claims and releases committed
// since the last count (store.CountChanges); then reads the forecasts'
// sums afresh (usageFits).
func (s *Service) RecordUsage(ctx context.Context, now, since time.Time) error {
	usages, err := s.Usages(ctx, auth.System)
	if err != nil {
		return err
	}
	records := make([]store.UsageRecord, len(usages))
	for i, u := range usages {
		records[i] = store.UsageRecord{ObjectUID: u.HistoryUID(), ObjectKind: u.HistoryKind(), Used: int64(u.Usage.Used), Size: int64(u.Usage.Size),
			UsedCount: u.Usage.UsedCount, SizeCount: u.Usage.SizeCount}
	}
	if err := store.RecordUsage(ctx, s.db, records, now, since); err != nil {
		return err
	}
	return s.fits.refresh(ctx, s.db, now)
}

// PruneUsageHistory removes the rows of the usage history past their
// keeping at now, and those of every space that is gone: pools, subnets,
// number pools' divisions (store.PruneUsageHistory). The one writer of the
// history (usage.Writer) calls it daily.
func (s *Service) PruneUsageHistory(ctx context.Context, now time.Time) error {
	return store.PruneUsageHistory(ctx, s.db, now)
}

// readableUsage refuses the history of an object of namespace (a
// tenant's; "" for a public pool, which every actor reads) to an actor
// who may not see it.
func readableUsage(actor auth.Actor, namespace, uid string) error {
	if namespace != "" && !actor.CanAccess(namespace) {
		return notFound("pool or subnet", namespace, uid)
	}
	return nil
}

// UsageHistory returns the history of the pool or subnet uid, of namespace
// ("" for a public pool), at step (usage.Hour or usage.Day) since since,
// oldest first.
func (s *Service) UsageHistory(ctx context.Context, actor auth.Actor, namespace, uid, step string, since time.Time) ([]usage.Point, error) {
	if err := readableUsage(actor, namespace, uid); err != nil {
		return nil, err
	}
	return store.UsageHistory(ctx, s.db, uid, step, since)
}

// UsageForecast says when the pool or subnet uid of namespace (as for
// UsageHistory), whose usage is now current, will be full at the rate of
// its last 7 days of hourly history (internal/forecast,
// docs/operations.md).
func (s *Service) UsageForecast(ctx context.Context, actor auth.Actor, namespace, uid string, current usage.Figures, now time.Time) (forecast.Forecast, error) {
	if err := readableUsage(actor, namespace, uid); err != nil {
		return forecast.Forecast{}, err
	}
	history, err := s.UsageHistory(ctx, actor, namespace, uid, usage.Hour, now.Add(-usage.ForecastWindow))
	if err != nil {
		return forecast.Forecast{}, err
	}
	return usage.ForecastOf(history, current, now), nil
}

// UsageChart returns the chart of the pool or subnet uid of namespace (as
// for UsageHistory), whose usage is now current, over span: three range
// reads of the object's rows (usage.ChartOf).
func (s *Service) UsageChart(ctx context.Context, actor auth.Actor, namespace, uid string, current usage.Figures, span time.Duration, now time.Time) (usage.Chart, error) {
	return usage.ChartOf(span, now, current, func(step string, since time.Time) ([]usage.Point, error) {
		return s.UsageHistory(ctx, actor, namespace, uid, step, since)
	})
}

// ImportUsageHistory writes points as the history of the pool, subnet or
// IPv6 side of o (store.ImportUsage): a history kept elsewhere before, or the demo's.
// The next forecast reads the history's sums afresh. Operators only.
func (s *Service) ImportUsageHistory(ctx context.Context, actor auth.Actor, o ObjectUsage, points []usage.Point) error {
	if !actor.IsOperator() {
		return forbidden("%s may not write the usage history", actor.Name)
	}
	if err := store.ImportUsage(ctx, s.db, o.HistoryUID(), o.HistoryKind(), points); err != nil {
		return err
	}
	s.fits.forget()
	return nil
}
