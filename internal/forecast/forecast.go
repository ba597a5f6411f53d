// Package forecast says when a pool will be full from the history of its
// usage (docs/operations.md): a least-squares line through the usage of a recent
// window, extended to the pool's size. Pure: the history is the caller's.
package forecast

import (
	"fmt"
	"math"
	"time"
)

// A Point is a pool's usage at a time.
type Point struct {
	At   time.Time
	Used int
	Size int
}

// The states of a forecast.
const (
	// NotEnoughHistory: the window holds less than MinHistory of points.
	NotEnoughHistory = "not enough history yet"
	// NotFillingUp: the usage does not grow over the window.
	NotFillingUp = "not filling up"
	// Full: the last point has no free candidate.
	Full = "full"
	// Filling: the usage grows; FullAt says when it reaches the size.
	Filling = "filling"
)

// MinHistory is the least span of points a forecast is made from: a
// trend of hours says little about weeks.
const MinHistory = 24 * time.Hour

// A Forecast is when a pool will be full at the recent rate.
type Forecast struct {
	State string
	// FullAt is when the line reaches the size; DaysLeft the days from
	// the last point until then. Set when State is Filling.
	FullAt   time.Time
	DaysLeft float64
	// PerDay is the slope of the line, candidates a day.
	PerDay float64
	// Basis is the span the line was fitted over: the window, or less when
	// the history is shorter.
	Basis time.Duration
}

// Of fits the points of history (in any order) from window before the
// last one to the last, and extends the line to the last point's size.
func Of(history []Point, window time.Duration) Forecast {
	if len(history) == 0 {
		return Forecast{State: NotEnoughHistory}
	}
	last := history[0]
	for _, p := range history {
		if p.At.After(last.At) {
			last = p
		}
	}
	var sums Sums
	for _, p := range history {
		if !p.At.Before(last.At.Add(-window)) {
			sums.Add(p, last.At)
		}
	}
	return OfSums(sums, last)
}

// Sums are what the line is fitted from: the points' count, and the sums
// of their days before the last point (x, negative), of their usage (y),
// of x² and of x·y; First is the oldest point's time. A database sums a
// long history as well as Add does (store.UsageFits), sending only these.
type Sums struct {
	N, X, Y, XX, XY float64
	First           time.Time
}

// Add adds p to s, its x counted in days from last.
func (s *Sums) Add(p Point, last time.Time) {
	x, y := p.At.Sub(last).Hours()/24, float64(p.Used)
	s.N, s.X, s.Y, s.XX, s.XY = s.N+1, s.X+x, s.Y+y, s.XX+x*x, s.XY+x*y
	if s.First.IsZero() || p.At.Before(s.First) {
		s.First = p.At
	}
}

// OfSums is the forecast of the points summed in s (the last point among
// them), which Of makes of a history.
func OfSums(s Sums, last Point) Forecast {
	if last.Used >= last.Size {
		return Forecast{State: Full}
	}
	first := s.First
	if first.IsZero() || first.After(last.At) {
		first = last.At
	}
	basis := last.At.Sub(first)
	if basis < MinHistory || s.N < 2 {
		return Forecast{State: NotEnoughHistory, Basis: basis}
	}
	slope := (s.N*s.XY - s.X*s.Y) / (s.N*s.XX - s.X*s.X)
	// Less than one candidate over the whole window is no growth.
	if !(slope*basis.Hours()/24 >= 1) {
		return Forecast{State: NotFillingUp, PerDay: max(slope, 0), Basis: basis}
	}
	days := float64(last.Size-last.Used) / slope
	f := Forecast{State: Filling, PerDay: slope, Basis: basis, DaysLeft: days}
	if days < 100*365 {
		f.FullAt = last.At.Add(time.Duration(days * 24 * float64(time.Hour)))
	} else {
		// By the calendar's days: past 292 years a Duration overflows.
		f.FullAt = last.At.AddDate(0, 0, int(days))
	}
	return f
}

// String says it as the console does: "full in about 23 days (at the rate
// of the last 7 days)", "not filling up", "not enough history yet", "full";
// a date past Far is "full in more than 10 years (…)".
func (f Forecast) String() string {
	if f.State != Filling {
		return f.State
	}
	if f.DaysLeft*24 > Far.Hours() {
		return fmt.Sprintf("full in more than 10 years (at the rate of the last %s)", span(f.Basis.Hours()))
	}
	return fmt.Sprintf("full in about %s (at the rate of the last %s)", span(f.DaysLeft*24), span(f.Basis.Hours()))
}

// Far is the farthest a forecast says a date in days or years: past it,
// the rate is too slow for the date to mean much.
const Far = 10 * 365 * 24 * time.Hour

// span says a number of hours in whole hours below two days, in whole days
// below two years, else in years.
func span(hours float64) string {
	if hours >= 2*365*24 {
		return fmt.Sprintf("%d years", int(math.Round(hours/24/365)))
	}
	if hours < 48 {
		h := max(1, int(math.Round(hours)))
		if h == 1 {
			return "1 hour"
		}
		return fmt.Sprintf("%d hours", h)
	}
	return fmt.Sprintf("%d days", int(math.Round(hours/24)))
}

// Soon is how near a day a pool must be forecast full for CompareUrgency
// to put it before fuller pools.
const Soon = 30 * 24 * time.Hour

// CompareUrgency orders two pools closest to exhaustion first: the full
// ones, then those forecast full within Soon, sooner first, then the rest
// by utilization (in percent), fuller first. It returns a negative number
// when a comes first.
func CompareUrgency(a Forecast, aUtilization float64, b Forecast, bUtilization float64) int {
	if ta, tb := a.tier(), b.tier(); ta != tb {
		return ta - tb
	}
	if a.soon() && a.DaysLeft != b.DaysLeft {
		if a.DaysLeft < b.DaysLeft {
			return -1
		}
		return 1
	}
	switch {
	case aUtilization > bUtilization:
		return -1
	case aUtilization < bUtilization:
		return 1
	}
	return 0
}

// soon reports whether f is of a pool forecast full within Soon.
func (f Forecast) soon() bool {
	return f.State == Filling && f.DaysLeft <= Soon.Hours()/24
}

// tier is f's rank in CompareUrgency: full, soon, the rest.
func (f Forecast) tier() int {
	switch {
	case f.State == Full:
		return 0
	case f.soon():
		return 1
	}
	return 2
}

// Shift returns s with its x counted from days later: the sums of points
// whose x was days before t, counted before t plus days.
func (s Sums) Shift(days float64) Sums {
	return Sums{N: s.N, X: s.X - s.N*days, Y: s.Y, XX: s.XX - 2*days*s.X + s.N*days*days, XY: s.XY - days*s.Y, First: s.First}
}
