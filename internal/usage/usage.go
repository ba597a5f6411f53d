// Package usage holds what the two halves (internal/ipam's pools and
// subnets, internal/numbers's divisions of number pools) say alike of how
// full a space is: its figures, the points of its usage history, the
// charts drawn of them and the forecasts made from them
// (internal/forecast), and the one loop that writes the history of both
// (Writer). Pure: the standard library, internal/forecast and the exact
// counts of internal/candidates; the store
// reads and writes the history as these types.
package usage

import (
	"math"
	"strconv"
	"time"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/forecast"
)

// Figures are how full a space is: a pool, a subnet, a division. Size,
// Used and Free are ints, math.MaxInt where the figure does not fit (an
// IPv6 space's); Counts gives them exact at 128 bits.
type Figures struct {
	Size int // number of candidates
	Used int
	Free int
	// SizeCount, UsedCount and FreeCount are the figures exact, set by
	// Exact for a space whose size does not fit an int or that counts
	// prefixes (zero otherwise: the ints are exact); Unit is Prefixes of a
	// length for a space that hands out prefixes (a delegation pool), ""
	// for one that hands out addresses or numbers.
	SizeCount, UsedCount, FreeCount candidates.Count
	Unit                            string
}

// Prefixes is the unit of a space that hands out prefixes of length bits:
// "/56s", as in "3 of 256 /56s".
func Prefixes(bits int) string { return "/" + strconv.Itoa(bits) + "s" }

// Exact returns the figures of a space of size candidates of which used
// are taken, counted in unit ("" for addresses).
func Exact(size, used candidates.Count, unit string) Figures {
	free := size.Sub(used)
	f := Figures{Size: size.Int(), Used: used.Int(), Free: free.Int()}
	if n, ok := size.Uint64(); !ok || n > math.MaxInt || unit != "" {
		f.SizeCount, f.UsedCount, f.FreeCount, f.Unit = size, used, free, unit
	}
	return f
}

// Counts returns the figures exact.
func (f Figures) Counts() (size, used, free candidates.Count) {
	if f.SizeCount.IsZero() && f.UsedCount.IsZero() && f.FreeCount.IsZero() {
		return candidates.CountOf(uint64(f.Size)), candidates.CountOf(uint64(f.Used)), candidates.CountOf(uint64(f.Free))
	}
	return f.SizeCount, f.UsedCount, f.FreeCount
}

// Utilization is Used in percent of Size.
func (f Figures) Utilization() float64 {
	size, used, _ := f.Counts()
	if size.IsZero() {
		return 0
	}
	return 100 * used.Float64() / size.Float64()
}

// A Point is the usage of a space in an hour or a day (the last written
// in it), and the claims and releases made in it.
type Point struct {
	At               time.Time
	Used, Size       int64
	Claims, Releases int64
	// UsedCount and SizeCount are Used and Size exact, set where Size
	// passes int64 (an IPv6 space's: Used and Size are math.MaxInt64
	// then at most); zero otherwise.
	UsedCount, SizeCount candidates.Count
}

// Counts returns the point's size and used exact: its counts where it has
// them (an IPv6 space's), else its numbers.
func (p Point) Counts() (size, used candidates.Count) {
	if !p.SizeCount.IsZero() {
		return p.SizeCount, p.UsedCount
	}
	return candidates.CountOf(uint64(p.Size)), candidates.CountOf(uint64(p.Used))
}

// Share is how much of its size the point used, from 0 to 1.
func (p Point) Share() float64 {
	size, used := p.Counts()
	if size.IsZero() {
		return 0
	}
	return used.Float64() / size.Float64()
}

// PointOf is the point at of figures f, exact.
func PointOf(at time.Time, f Figures) Point {
	p := Point{At: at, Used: int64(f.Used), Size: int64(f.Size)}
	if !f.SizeCount.IsZero() {
		p.UsedCount, p.SizeCount = f.UsedCount, f.SizeCount
	}
	return p
}

// The steps of the usage history.
const (
	Hour = "hour"
	Day  = "day"
)

// How long the history keeps its rows.
const (
	HourlyKept = 35 * 24 * time.Hour
	DailyKept  = 400 * 24 * time.Hour
)

// ForecastWindow is the span of history a forecast rests on: the last 7
// days.
const ForecastWindow = 7 * 24 * time.Hour

// ForecastOf is the forecast of a history of hours and the figures now
// (internal/forecast, over ForecastWindow): of a pool, a subnet or a
// number pool's division.
func ForecastOf(history []Point, current Figures, now time.Time) forecast.Forecast {
	points := make([]forecast.Point, 0, len(history)+1)
	for _, r := range history {
		points = append(points, forecast.Point{At: r.At, Used: int(r.Used), Size: int(r.Size)})
	}
	points = append(points, forecast.Point{At: now, Used: current.Used, Size: current.Size})
	return forecast.Of(points, ForecastWindow)
}

// A Chart is what a page draws of a space's usage over a span ending now:
// the usage (a point an hour, or a day over more than the hours kept),
// the claims and releases of each day, the figures now and the forecast.
type Chart struct {
	Span time.Duration
	// Step is the step of Points: Hour or Day.
	Step     string
	Points   []Point
	Days     []Point
	Now      time.Time
	Current  Figures
	Forecast forecast.Forecast
}

// ChartOf builds the chart over span ending now of a space (a pool, a
// subnet, a number pool's division) whose figures are now current and
// whose history read returns at a step since a time: hours over a span the
// hours are kept for, else days; the days' claims and releases; the
// forecast of the last 7 days' hours (ForecastOf). Three range reads of
// the space's rows.
func ChartOf(span time.Duration, now time.Time, current Figures, read func(step string, since time.Time) ([]Point, error)) (Chart, error) {
	c := Chart{Span: span, Step: Hour, Now: now, Current: current}
	if span > HourlyKept-24*time.Hour {
		c.Step = Day
	}
	var err error
	since := now.Add(-span)
	if c.Points, err = read(c.Step, since); err != nil {
		return Chart{}, err
	}
	if c.Days, err = read(Day, since.Truncate(24*time.Hour)); err != nil {
		return Chart{}, err
	}
	week, err := read(Hour, now.Add(-ForecastWindow))
	if err != nil {
		return Chart{}, err
	}
	c.Forecast = ForecastOf(week, current, now)
	return c, nil
}
