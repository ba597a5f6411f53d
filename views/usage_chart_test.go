package views

import (
	"context"
	"math"
	"net/netip"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/forecast"
	"pivirt.hu/ipam/internal/usage"
)

var chartNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// hours returns a point an hour for days days before chartNow, used
// growing by perHour from used0, of size.
func hours(days int, used0, perHour float64, size int64) []usage.Point {
	var out []usage.Point
	for h := days * 24; h > 0; h-- {
		at := chartNow.Add(-time.Duration(h) * time.Hour)
		out = append(out, usage.Point{At: at, Used: int64(used0 + perHour*float64(days*24-h)), Size: size})
	}
	return out
}

func TestChartLayout(t *testing.T) {
	week := 7 * 24 * time.Hour
	line := hours(7, 10, 0.25, 200)
	current := usage.Figures{Used: 52, Size: 200, Free: 148}
	c := UsageChartProps{Chart: usage.Chart{Span: week, Step: usage.Hour, Points: line, Now: chartNow, Current: current,
		Forecast: forecast.Of(append(toForecast(line), forecast.Point{At: chartNow, Used: 52, Size: 200}), week)}}
	g := c.layout()
	if !strings.HasPrefix(g.Used, "M60,") {
		t.Errorf("the used line starts at %.12q, want at the left edge (x 60), the span's start", g.Used)
	}
	if got := strings.Count(g.Used, "M"); got != 1 {
		t.Errorf("the used line of an unbroken history has %d pieces, want 1", got)
	}
	if c.Chart.Forecast.State != forecast.NotFillingUp && c.Chart.Forecast.DaysLeft*24*time.Hour.Hours() < week.Hours()/2 {
		t.Fatalf("the test's history fills in %.1f days, within half the span: choose another", c.Chart.Forecast.DaysLeft)
	}
	if g.Forecast != "" || g.DotX != "708" {
		t.Errorf("a pool full in %.0f days (more than half the span) gets a forecast line %q and its now at x %s, want none and x 708", c.Chart.Forecast.DaysLeft, g.Forecast, g.DotX)
	}
	if len(g.YTicks) != 5 || g.YTicks[4].Label != "200" || g.YTicks[4].At != "14" || g.YTicks[0].At != "164" {
		t.Errorf("the usage axis: %+v, want 0 at 164 to 200 at 14 in five marks", g.YTicks)
	}
	if len(g.XTicks) != 7 || g.XTicks[0].Label != "Nov 25" {
		t.Errorf("the dates of a week: %+v, want 7 from Nov 25", g.XTicks)
	}

	// Filling fast: full within the chart, which extends to the day.
	fast := hours(7, 10, 1, 200)
	c.Chart.Points, c.Chart.Current = fast, usage.Figures{Used: 178, Size: 200, Free: 22}
	c.Chart.Forecast = forecast.Of(append(toForecast(fast), forecast.Point{At: chartNow, Used: 178, Size: 200}), week)
	g = c.layout()
	if c.Chart.Forecast.State != forecast.Filling || g.Forecast == "" || !strings.HasPrefix(g.ForecastLabel, "full ~Dec 1") && !strings.HasPrefix(g.ForecastLabel, "full ~Dec 2") {
		t.Errorf("a pool full in %.1f days: forecast line %q labelled %q, want one to the day it is full", c.Chart.Forecast.DaysLeft, g.Forecast, g.ForecastLabel)
	}
	if !strings.HasSuffix(g.Forecast, ",14") {
		t.Errorf("the forecast line %q ends at y %s, want at the size (14)", g.Forecast, "14")
	}

	// A gap of ten hours (no process wrote) breaks the line.
	gapped := append(hours(7, 10, 0, 200)[:50:50], hours(7, 10, 0, 200)[60:]...)
	c.Chart.Points = gapped
	if g = c.layout(); strings.Count(g.Used, "M") != 2 || strings.Count(g.UsedArea, "Z") != 2 {
		t.Errorf("a history with a gap: line %d pieces, area %d, want 2 of each", strings.Count(g.Used, "M"), strings.Count(g.UsedArea, "Z"))
	}

	// No history: the usage now alone, and the chart says so.
	c.Chart.Points, c.Chart.Forecast = nil, forecast.Of(nil, week)
	if g = c.layout(); !g.Empty || g.DotX != "708" {
		t.Errorf("no history: Empty %v, now at x %s, want true and 708", g.Empty, g.DotX)
	}
}

func TestChartBars(t *testing.T) {
	week := 7 * 24 * time.Hour
	day := func(d int, claims, releases int64) usage.Point {
		return usage.Point{At: chartNow.Truncate(24*time.Hour).AddDate(0, 0, -d), Claims: claims, Releases: releases}
	}
	c := UsageChartProps{Chart: usage.Chart{Span: week, Now: chartNow, Current: usage.Figures{Size: 10},
		Days: []usage.Point{day(10, 99, 0), day(3, 40, 10), day(2, 0, 0), day(1, 20, 40), day(0, 5, 0)}}}
	g := c.layout()
	if len(g.Bars) != 3 || g.BarsMax != 40 {
		t.Fatalf("bars %+v of max %d, want 3 (the day outside the span and the day without changes left out) of max 40", g.Bars, g.BarsMax)
	}
	if b := g.Bars[0]; b.ClaimsH != "30" || b.ClaimsY != "196" || b.ReleasesH != "7.5" || b.Title != "Nov 28: 40 claims, 10 releases" {
		t.Errorf("the day of 40 claims and 10 releases: %+v, want claims the full 30 up from 196 and releases 7.5 down", b)
	}
	if b := g.Bars[1]; b.ClaimsH != "15" || b.ReleasesH != "30" {
		t.Errorf("the day of 20 claims and 40 releases: %+v", b)
	}
}

func TestDateTicks(t *testing.T) {
	for _, c := range []struct {
		span  time.Duration
		first string
		n     int
	}{
		{7 * 24 * time.Hour, "Nov 25", 7},
		{30 * 24 * time.Hour, "Nov 2", 6},
		{365 * 24 * time.Hour, "Jan 2026", 6},
	} {
		from := chartNow.Add(-c.span)
		ticks := dateTicks(from, chartNow, func(t time.Time) float64 { return float64(t.Sub(from).Hours()) })
		if len(ticks) != c.n || ticks[0].Label != c.first {
			t.Errorf("dateTicks over %v: %+v, want %d from %s", c.span, ticks, c.n, c.first)
		}
	}
}

func TestCompact(t *testing.T) {
	for _, c := range []struct {
		v    int64
		want string
	}{{0, "0"}, {950, "950"}, {1000, "1k"}, {9500, "9.5k"}, {65534, "65.5k"}, {1_200_000, "1.2M"}, {16_777_214, "16.8M"}} {
		if got := compact(c.v); got != c.want {
			t.Errorf("compact(%d) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestSparkline(t *testing.T) {
	week := 7 * 24 * time.Hour
	full := SparklineProps{Points: hours(7, 200, 0, 200), Now: chartNow, Span: week}
	d, _, y := full.path()
	if y != "2" || !strings.HasPrefix(d, "M2,2") {
		t.Errorf("a full pool's sparkline %.20q ends at y %s, want along the top (2)", d, y)
	}
	if got := full.label(); got != "Usage over the last 7 days: 100 % then, 100 % now" {
		t.Errorf("label = %q", got)
	}
	empty := SparklineProps{Points: hours(7, 0, 0, 200), Now: chartNow, Span: week}
	if _, _, y := empty.path(); y != "26" {
		t.Errorf("an empty pool's sparkline ends at y %s, want along the bottom (26)", y)
	}
	if d, _, _ := (SparklineProps{Now: chartNow, Span: week}).path(); d != "" {
		t.Errorf("no history draws %q, want nothing", d)
	}
}

// TestUsageChartRenders: the chart renders as SVG with its marks, named
// by data-testid, and says in words what it shows.
func TestUsageChartRenders(t *testing.T) {
	week := 7 * 24 * time.Hour
	line := hours(7, 100, 0.4, 200)
	c := UsageChartProps{Href: "/pools/public-zone-a", Chart: usage.Chart{Span: week, Step: usage.Hour, Points: line, Now: chartNow,
		Current: usage.Figures{Used: 167, Size: 200, Free: 33}, Days: []usage.Point{{At: chartNow.Truncate(24 * time.Hour), Used: 167, Size: 200, Claims: 9, Releases: 1}}}}
	c.Chart.Forecast = forecast.Of(append(toForecast(line), forecast.Point{At: chartNow, Used: 167, Size: 200}), week)
	var b strings.Builder
	if err := UsageChartPanel(c).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`data-testid="usage-chart"`, `data-testid="chart-used"`, `data-testid="chart-size"`, `data-testid="chart-forecast"`,
		`data-testid="chart-day"`, `data-testid="forecast" data-state="filling">full in about 3 days <span class="forecast-basis">(at the rate of the last 7 days)</span></span>`,
		`href="/pools/public-zone-a?span=7d#usage-history" aria-current="true"`, `<title>Dec 1: 9 claims, 1 releases</title>`,
		`aria-label="Usage over the last 7 days: 100 used then, 167 of 200 now; 9 claims and 1 releases; full in about 3 days (at the rate of the last 7 days)."`} {
		if !strings.Contains(out, want) {
			t.Errorf("the chart lacks %s:\n%s", want, out)
		}
	}
}

func toForecast(points []usage.Point) []forecast.Point {
	out := make([]forecast.Point, len(points))
	for i, p := range points {
		out[i] = forecast.Point{At: p.At, Used: int(p.Used), Size: int(p.Size)}
	}
	return out
}

// TestChartOfIPv6Side: the chart of an IPv6 subnet, whose size (2^64 − 2)
// no use comes near, scales its axis to the most used and leaves the size
// line out; its words and its days' figures are exact and readable.
func TestChartOfIPv6Side(t *testing.T) {
	size := candidates.PrefixCount(netip.MustParsePrefix("2001:db8::/64"), 128).Sub(candidates.CountOf(2))
	var points []usage.Point
	for h := 48; h > 0; h-- {
		used := candidates.CountOf(uint64(2 + (48-h)/6))
		points = append(points, usage.Point{At: chartNow.Add(-time.Duration(h) * time.Hour), Used: int64(2 + (48-h)/6), Size: math.MaxInt64, UsedCount: used, SizeCount: size})
	}
	days := []usage.Point{{At: chartNow.Truncate(24 * time.Hour), Used: 9, Size: math.MaxInt64, UsedCount: candidates.CountOf(9), SizeCount: size, Claims: 3}}
	current := usage.Exact(size, candidates.CountOf(10), "")
	c := UsageChartProps{Chart: usage.Chart{Span: 7 * 24 * time.Hour, Step: usage.Hour, Points: points, Days: days, Now: chartNow, Current: current}}
	g := c.layout()
	if g.Size != "" {
		t.Errorf("the size line of a /64: %.40q, want none", g.Size)
	}
	if g.YTicks[4].Label != "13" || g.DotY == "164" {
		t.Errorf("the axis of 10 used: up to %s, the dot at y %s; want up to 13 (the most used and a quarter), the dot above the bottom", g.YTicks[4].Label, g.DotY)
	}
	if want := "10 of 2^64 − 2 (18.4 quintillion) now"; !strings.Contains(c.chartLabel(), want) {
		t.Errorf("the chart's label %q, want it to say %q", c.chartLabel(), want)
	}
	var b strings.Builder
	if err := UsageChartPanel(c).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<title>now: 10 of 2^64 − 2 (18.4 quintillion)</title>", `<td class="mono">2^64 − 2 (18.4 quintillion)</td>`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the panel lacks %q", want)
		}
	}
}
