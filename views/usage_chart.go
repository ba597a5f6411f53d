package views

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/forecast"
	"pivirt.hu/ipam/internal/usage"
)

// UsageChartProps is what a usage chart draws: a pool's, a subnet's or a
// division's usage over a span, the claims and releases of each day, the
// usage now and the forecast (usage.Chart).
type UsageChartProps struct {
	Chart usage.Chart
	// Href is the page's path, with its query; the chart links its spans
	// to Href with span= added.
	Href string
	// IPv6 marks the chart of a dual-stack space's IPv6 side, shown
	// below that of its IPv4 side: its panel is usage-history-ipv6.
	IPv6 bool
}

// panelID is the id and data-testid of the chart's panel.
func (p UsageChartProps) panelID() string {
	if p.IPv6 {
		return "usage-history-ipv6"
	}
	return "usage-history"
}

// label is the accessible name of a part of the chart: what, of the
// IPv6 side "(IPv6)" added.
func (p UsageChartProps) label(what string) string {
	if p.IPv6 {
		return what + " (IPv6)"
	}
	return what
}

// title heads the chart's panel.
func (p UsageChartProps) title() string {
	if p.IPv6 {
		return "IPv6 usage over time"
	}
	return "Usage over time"
}

// The chart's frame, in the units of its viewBox.
const (
	chartWidth   = 720
	chartHeight  = 262
	chartLeft    = 60  // the usage axis' labels are left of it
	chartRight   = 708 // the plot ends here
	usageTop     = 14
	usageBottom  = 164
	dateLabelY   = 182
	barsTop      = 196
	barsBaseline = 226
	barsBottom   = 256
)

// chartGeometry is a usage chart laid out: the paths and marks the
// template draws, all in the viewBox's units.
type chartGeometry struct {
	Used, UsedArea, Size string
	// Dot is the usage now.
	DotX, DotY string
	YTicks     []chartTick
	XTicks     []chartTick
	Bars       []chartBar
	// BarsMax is the most claims or releases of a day, which the bars'
	// height is scaled to.
	BarsMax int64
	// Forecast is the line from now to the day the usage reaches the
	// size, when that day is in the chart; ForecastLabel says it.
	Forecast, ForecastLabel string
	ForecastX               string
	// Empty: there is no history yet, only the usage now.
	Empty bool
}

// A chartTick is a mark of an axis: its place and label.
type chartTick struct {
	At    string // x or y
	Label string
}

// A chartBar is a day's claims (up) and releases (down).
type chartBar struct {
	X, Width         string
	ClaimsY, ClaimsH string
	ReleasesH        string
	Title            string
}

// num writes a coordinate with one decimal at most.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// layout lays the chart out.
func (p UsageChartProps) layout() chartGeometry {
	c := p.Chart
	from, to := c.Now.Add(-c.Span), c.Now
	var fullAt time.Time
	if c.Forecast.State == forecast.Filling && c.Forecast.FullAt.Sub(c.Now) <= c.Span/2 {
		fullAt = c.Forecast.FullAt
		to = fullAt.Add(c.Span / 20)
	}
	now := usage.PointOf(c.Now, c.Current)
	points := append(c.Points[:len(c.Points):len(c.Points)], now)
	// The axis goes up to the size, unless the size is past what a space
	// ever fills (an IPv6 subnet's 2^64 − 2): then up to the most used,
	// and the size, far above, is said in words, not drawn.
	top, drawSize := 1.0, true
	for _, pt := range points {
		size, _ := pt.Counts()
		top = max(top, size.Float64())
	}
	if top >= exactBelow {
		top, drawSize = 4, false
		for _, pt := range points {
			_, used := pt.Counts()
			top = max(top, math.Ceil(used.Float64()*1.25))
		}
	}
	x := func(t time.Time) float64 {
		return chartLeft + float64(t.Sub(from))/float64(to.Sub(from))*(chartRight-chartLeft)
	}
	y := func(v float64) float64 {
		return usageBottom - min(v, top)/top*(usageBottom-usageTop)
	}
	var g chartGeometry
	g.Empty = len(c.Points) == 0
	gap := 3 * time.Hour
	if c.Step == usage.Day {
		gap = 3 * 24 * time.Hour
	}
	var used, area, size strings.Builder
	runStart := -1
	closeRun := func(end int) {
		if runStart < 0 {
			return
		}
		fmt.Fprintf(&area, "L%s,%s L%s,%s Z ", num(x(points[end].At)), num(usageBottom), num(x(points[runStart].At)), num(usageBottom))
		runStart = -1
	}
	for i, pt := range points {
		if pt.At.Before(from) {
			continue
		}
		sizeCount, usedCount := pt.Counts()
		px, py, sy := num(x(pt.At)), num(y(usedCount.Float64())), num(y(sizeCount.Float64()))
		if runStart >= 0 && pt.At.Sub(points[i-1].At) > gap {
			closeRun(i - 1)
		}
		if runStart < 0 {
			runStart = i
			fmt.Fprintf(&used, "M%s,%s ", px, py)
			fmt.Fprintf(&area, "M%s,%s ", px, py)
			fmt.Fprintf(&size, "M%s,%s ", px, sy)
		} else {
			fmt.Fprintf(&used, "L%s,%s ", px, py)
			fmt.Fprintf(&area, "L%s,%s ", px, py)
			fmt.Fprintf(&size, "L%s,%s ", px, sy)
		}
	}
	closeRun(len(points) - 1)
	g.Used, g.UsedArea = strings.TrimSpace(used.String()), strings.TrimSpace(area.String())
	if drawSize {
		g.Size = strings.TrimSpace(size.String())
	}
	nowSize, nowUsed := now.Counts()
	g.DotX, g.DotY = num(x(c.Now)), num(y(nowUsed.Float64()))
	if !fullAt.IsZero() {
		g.Forecast = fmt.Sprintf("M%s,%s L%s,%s", g.DotX, g.DotY, num(x(fullAt)), num(y(nowSize.Float64())))
		g.ForecastX, g.ForecastLabel = num(x(fullAt)), "full ~"+fullAt.UTC().Format("Jan 2")
	}
	for _, f := range []float64{0, 1, 2, 3, 4} {
		v := math.Floor(top * f / 4)
		g.YTicks = append(g.YTicks, chartTick{At: num(y(v)), Label: compact(int64(v))})
	}
	g.XTicks = dateTicks(from, to, x)
	g.Bars, g.BarsMax = dayBars(c.Days, from, to, x)
	return g
}

// dateTicks marks the days from from to to, at most 8 of them: every
// day, or every few days, or the first of each month over a year.
func dateTicks(from, to time.Time, x func(time.Time) float64) []chartTick {
	days := to.Sub(from).Hours() / 24
	var ticks []chartTick
	if days > 90 {
		t := time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 1, 0)
		every := int(math.Ceil(days / 30 / 7))
		for ; !t.After(to); t = t.AddDate(0, every, 0) {
			ticks = append(ticks, chartTick{At: num(x(t)), Label: t.Format("Jan 2006")})
		}
		return ticks
	}
	every := max(1, int(math.Ceil(days/7)))
	t := from.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	for ; !t.After(to); t = t.AddDate(0, 0, every) {
		ticks = append(ticks, chartTick{At: num(x(t)), Label: t.Format("Jan 2")})
	}
	return ticks
}

// dayBars lays out the claims and releases of the days from from to to.
func dayBars(days []usage.Point, from, to time.Time, x func(time.Time) float64) ([]chartBar, int64) {
	shown := func(d usage.Point) bool { return d.At.Add(24*time.Hour).After(from) && !d.At.After(to) }
	var top int64
	for _, d := range days {
		if shown(d) {
			top = max(top, d.Claims, d.Releases)
		}
	}
	var bars []chartBar
	for _, d := range days {
		if !shown(d) {
			continue
		}
		end := d.At.Add(24 * time.Hour)
		x0, x1 := x(maxTime(d.At, from)), x(minTime(end, to))
		w := max((x1-x0)*0.7, 1)
		if d.Claims+d.Releases == 0 {
			continue
		}
		b := chartBar{X: num(x0 + (x1-x0-w)/2), Width: num(w),
			Title: fmt.Sprintf("%s: %s claims, %s releases", d.At.UTC().Format("Jan 2"), Figure(d.Claims), Figure(d.Releases))}
		ch := float64(d.Claims) / float64(top) * (barsBaseline - barsTop)
		b.ClaimsY, b.ClaimsH = num(barsBaseline-ch), num(ch)
		b.ReleasesH = num(float64(d.Releases) / float64(top) * (barsBottom - barsBaseline))
		bars = append(bars, b)
	}
	return bars, top
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// compact writes a count short: 950, 9.5k, 65.5k, 1.2M.
func compact(v int64) string {
	switch {
	case v < 1000:
		return strconv.FormatInt(v, 10)
	case v < 1_000_000:
		return trimZero(strconv.FormatFloat(float64(v)/1000, 'f', 1, 64)) + "k"
	default:
		return trimZero(strconv.FormatFloat(float64(v)/1_000_000, 'f', 1, 64)) + "M"
	}
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// chartLabel says what the chart shows, for those who cannot see it.
func (p UsageChartProps) chartLabel() string {
	c := p.Chart
	var claims, releases int64
	for _, d := range c.Days {
		if !d.At.Before(c.Now.Add(-c.Span).Truncate(24 * time.Hour)) {
			claims, releases = claims+d.Claims, releases+d.Releases
		}
	}
	_, first, _ := c.Current.Counts()
	for _, pt := range c.Points {
		if !pt.At.Before(c.Now.Add(-c.Span)) {
			_, first = pt.Counts()
			break
		}
	}
	return fmt.Sprintf("Usage over the last %s: %s used then, %s now; %s claims and %s releases; %s.",
		spanName(c.Span), CountText(first), usageOf(c.Current), Figure(claims), Figure(releases), c.Forecast)
}

// usageOf writes figures as "3 of 65,534", "7 of 2^64 − 2 (18.4
// quintillion)", "3 of 256 /64s".
func usageOf(f usage.Figures) string {
	size, used, _ := f.Counts()
	s := CountText(used) + " of " + CountText(size)
	if f.Unit != "" {
		s += " " + f.Unit
	}
	return s
}

// pointText writes one of a point's figures, used or size, exact.
func pointText(pt usage.Point, size bool) string {
	s, u := pt.Counts()
	if size {
		return CountText(s)
	}
	return CountText(u)
}

// The spans a usage chart shows, by their query value.
var chartSpans = []struct {
	Value, Label string
	Span         time.Duration
}{{"7d", "7 days", 7 * 24 * time.Hour}, {"30d", "30 days", 30 * 24 * time.Hour}, {"1y", "1 year", 365 * 24 * time.Hour}}

// spanHref is the link to the chart over the span of value.
func (p UsageChartProps) spanHref(value string) string {
	sep := "?"
	if strings.Contains(p.Href, "?") {
		sep = "&"
	}
	return p.Href + sep + "span=" + value + "#" + p.panelID()
}

// ChartSpan returns the span of a query value (?span=), 30 days for
// anything else.
func ChartSpan(value string) time.Duration {
	for _, s := range chartSpans {
		if s.Value == value {
			return s.Span
		}
	}
	return 30 * 24 * time.Hour
}

// forecastParts cuts a forecast's sentence before its basis: "full in
// about 23 days" and "(at the rate of the last 7 days)".
func forecastParts(f forecast.Forecast) (claim, basis string) {
	text := f.String()
	if i := strings.Index(text, " ("); i >= 0 {
		return text[:i], text[i+1:]
	}
	return text, ""
}

// spanName says a span: "7 days", "30 days", "year".
func spanName(d time.Duration) string {
	if d >= 365*24*time.Hour {
		return "year"
	}
	return strconv.Itoa(int(d.Hours()/24)) + " days"
}

// recentDays are the days of the chart's span that had claims or
// releases, newest first, for the table under the chart.
func (p UsageChartProps) recentDays() []usage.Point {
	var out []usage.Point
	for i := len(p.Chart.Days) - 1; i >= 0; i-- {
		d := p.Chart.Days[i]
		if d.At.Before(p.Chart.Now.Add(-p.Chart.Span).Truncate(24 * time.Hour)) {
			break
		}
		out = append(out, d)
	}
	return out
}

// SparklineProps is a small chart of a usage over the last days: Points
// oldest first, ending with the usage now.
type SparklineProps struct {
	Points []usage.Point
	Now    time.Time
	Span   time.Duration
	TestID string
}

// The sparkline's frame.
const (
	sparkWidth  = 120
	sparkHeight = 28
)

// path draws the sparkline: used over size, 0 at the bottom and full at
// the top, so that a line at the top is a full pool.
func (p SparklineProps) path() (d, lastX, lastY string) {
	from := p.Now.Add(-p.Span)
	var b strings.Builder
	var prev time.Time
	for _, pt := range p.Points {
		if pt.At.Before(from) {
			continue
		}
		x := 2 + float64(pt.At.Sub(from))/float64(p.Span)*(sparkWidth-4)
		y := sparkHeight - 2 - pt.Share()*(sparkHeight-4)
		cmd := "L"
		if b.Len() == 0 || pt.At.Sub(prev) > 3*time.Hour {
			cmd = "M"
		}
		fmt.Fprintf(&b, "%s%s,%s ", cmd, num(x), num(y))
		prev, lastX, lastY = pt.At, num(x), num(y)
	}
	return strings.TrimSpace(b.String()), lastX, lastY
}

// label says the sparkline in words.
func (p SparklineProps) label() string {
	pct := func(pt usage.Point) string {
		return strconv.FormatFloat(100*pt.Share(), 'f', 0, 64) + " %"
	}
	from := p.Now.Add(-p.Span)
	var shown []usage.Point
	for _, pt := range p.Points {
		if !pt.At.Before(from) {
			shown = append(shown, pt)
		}
	}
	if len(shown) == 0 {
		return "No usage history"
	}
	first, last := shown[0], shown[len(shown)-1]
	return fmt.Sprintf("Usage over the last %s: %s then, %s now", spanName(p.Span), pct(first), pct(last))
}
