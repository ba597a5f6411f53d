package demo

import (
	"context"
	"hash/fnv"
	"math"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/usage"
)

// historyDays is how far back the demo's made-up history goes.
const historyDays = 30

// loadHistory writes a made-up month of usage for every pool and subnet
// and the IPv6 side of each dual-stack one (all of them, or those only
// keeps when not nil), ending at its usage now, exact, so that the dashboard's trends, the pages'
// charts and the forecasts have something to show from the first start:
// each grew from about half its usage (a fuller one from 40 %) to what it
// holds, on weekdays only, with a claim and a release of churn on some
// mornings. Like the rest of the demo, it is an example, not a
// measurement.
func loadHistory(ctx context.Context, svc *ipam.Service, now time.Time, only func(ipam.ObjectUsage) bool) error {
	usages, err := svc.Usages(ctx, auth.System)
	if err != nil {
		return err
	}
	end := now.UTC().Truncate(time.Hour)
	first := end.Add(-historyDays * 24 * time.Hour)
	// The working hours of the month, which carry the growth.
	var working []time.Time
	for at := first; at.Before(end); at = at.Add(time.Hour) {
		if at.Weekday() != time.Saturday && at.Weekday() != time.Sunday {
			working = append(working, at)
		}
	}
	for _, u := range usages {
		if only != nil && !only(u) {
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(u.Pool.Name + "/" + u.Subnet.Name))
		seed := h.Sum32()
		start := 0.45 + float64(seed%20)/100
		if u.Usage.Utilization() > 80 {
			start = 0.4
		}
		var points []usage.Point
		prev, done := int64(-1), 0
		for at := first; at.Before(end); at = at.Add(time.Hour) {
			for done < len(working) && !working[done].After(at) {
				done++
			}
			progress := float64(done) / float64(max(len(working), 1))
			used := int64(math.Round(float64(u.Usage.Used) * (start + (1-start)*progress)))
			p := usage.PointOf(at, u.Usage)
			p.Used = used
			if !p.SizeCount.IsZero() {
				p.UsedCount = candidates.CountOf(uint64(used))
			}
			if prev >= 0 {
				var churn int64
				if at.Hour() == 9 && (seed>>(at.Day()%24))&1 == 1 {
					churn = 1
				}
				p.Claims, p.Releases = max(0, used-prev)+churn, max(0, prev-used)+churn
			}
			points, prev = append(points, p), used
		}
		if err := svc.ImportUsageHistory(ctx, auth.System, u, points); err != nil {
			return err
		}
	}
	return nil
}
