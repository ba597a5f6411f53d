package forecast

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// hourly returns a point an hour for the given hours, used(h) at hour h.
func hourly(hours int, size int, used func(h int) int) []Point {
	var ps []Point
	for h := range hours {
		ps = append(ps, Point{At: t0.Add(time.Duration(h) * time.Hour), Used: used(h), Size: size})
	}
	return ps
}

func TestForecastKnownAnswers(t *testing.T) {
	week := 7 * 24 * time.Hour
	for _, tt := range []struct {
		name     string
		history  []Point
		state    string
		daysLeft float64
		text     string
	}{
		{"10 a day for 14 days, 230 left: the last 7 days say 23 days",
			hourly(14*24, 239+230, func(h int) int { return 100 + h*10/24 }), Filling, 23.0, "full in about 23 days (at the rate of the last 7 days)"},
		{"flat", hourly(10*24, 1000, func(int) int { return 500 }), NotFillingUp, 0, "not filling up"},
		{"shrinking", hourly(10*24, 1000, func(h int) int { return 900 - h }), NotFillingUp, 0, "not filling up"},
		{"one point", hourly(1, 1000, func(int) int { return 10 }), NotEnoughHistory, 0, "not enough history yet"},
		{"twelve hours", hourly(12, 1000, func(h int) int { return h * 50 }), NotEnoughHistory, 0, "not enough history yet"},
		{"full", hourly(48, 100, func(h int) int { return min(100, h*5) }), Full, 0, "full"},
		{"3 days of history, 4 a day, 12 left: on the 3 days there are",
			hourly(3*24+1, 302, func(h int) int { return 278 + h/6 }), Filling, 3, "full in about 3 days (at the rate of the last 3 days)"},
		{"noise around 2 a day", hourly(14*24, 10000, func(h int) int { return 1000 + h*2/24 + []int{3, -2, 0, 4, -3, 1, -1}[h%7] }), Filling, 9000.0 / 2, ""},
		{"slow: 1 a day, 1000 left", hourly(8*24+1, 1100, func(h int) int { return 100 + h/24 }), Filling, 1000, "full in about 3 years (at the rate of the last 7 days)"},
		{"crawling: 1 a day, 65000 left", hourly(8*24+1, 65100, func(h int) int { return 100 + h/24 }), Filling, 65000, "full in more than 10 years (at the rate of the last 7 days)"},
		{"fast: 100 left at 5 an hour", hourly(2*24+1, 1000, func(h int) int { return 660 + h*5 }), Filling, 20.0 / 24, "full in about 20 hours (at the rate of the last 2 days)"},
	} {
		f := Of(tt.history, week)
		if f.State != tt.state {
			t.Errorf("%s: state %q, want %q (%+v)", tt.name, f.State, tt.state, f)
			continue
		}
		if tt.state == Filling && math.Abs(f.DaysLeft-tt.daysLeft) > 0.02*tt.daysLeft+0.05 {
			t.Errorf("%s: %.2f days left, want %.2f", tt.name, f.DaysLeft, tt.daysLeft)
		}
		if tt.text != "" && f.String() != tt.text {
			t.Errorf("%s: %q, want %q", tt.name, f.String(), tt.text)
		}
	}
}

// TestForecastWindow: only the window counts: a pool that filled fast long
// ago and is flat since is not filling up; one flat long ago and filling
// since is.
func TestForecastWindow(t *testing.T) {
	week := 7 * 24 * time.Hour
	oldBurst := hourly(30*24, 1000, func(h int) int { return min(600, h*5) })
	if f := Of(oldBurst, week); f.State != NotFillingUp {
		t.Errorf("a burst three weeks ago: %v, want not filling up", f)
	}
	recent := hourly(30*24, 1000, func(h int) int { return 100 + max(0, h-23*24) })
	f := Of(recent, week)
	if f.State != Filling || math.Abs(f.PerDay-24) > 0.5 {
		t.Errorf("24 a day for the last week: %+v", f)
	}
	if f.FullAt.Sub(recent[len(recent)-1].At) != time.Duration(f.DaysLeft*24*float64(time.Hour)) {
		t.Errorf("FullAt %v does not match %.2f days after the last point", f.FullAt, f.DaysLeft)
	}
}

// FuzzForecast: whatever the history, the forecast is one of the states,
// and a filling one is in the future of the last point, finite.
func FuzzForecast(f *testing.F) {
	f.Add(uint16(100), uint16(10), uint16(1000), int16(3), uint8(200))
	f.Add(uint16(0), uint16(0), uint16(0), int16(0), uint8(1))
	f.Add(uint16(999), uint16(1), uint16(1000), int16(-5), uint8(48))
	f.Fuzz(func(t *testing.T, start, step, size uint16, noise int16, hours uint8) {
		var ps []Point
		for h := range int(hours) {
			used := int(start) + h*int(step)/24 + int(noise)*(h%3-1)
			ps = append(ps, Point{At: t0.Add(time.Duration(h) * time.Hour), Used: max(0, min(used, int(size))), Size: int(size)})
		}
		fc := Of(ps, 7*24*time.Hour)
		switch fc.State {
		case Filling:
			if !(fc.DaysLeft > 0) || math.IsInf(fc.DaysLeft, 0) || !fc.FullAt.After(ps[len(ps)-1].At) {
				t.Fatalf("filling, yet %+v", fc)
			}
		case NotFillingUp, NotEnoughHistory, Full:
		default:
			t.Fatalf("state %q", fc.State)
		}
		_ = fc.String()
	})
}

func TestCompareUrgency(t *testing.T) {
	full := Forecast{State: Full}
	in3 := Forecast{State: Filling, DaysLeft: 3}
	in20 := Forecast{State: Filling, DaysLeft: 20}
	in90 := Forecast{State: Filling, DaysLeft: 90}
	flat := Forecast{State: NotFillingUp}
	none := Forecast{State: NotEnoughHistory}
	type pool struct {
		name string
		f    Forecast
		util float64
	}
	pools := []pool{{"flat-99", flat, 99}, {"none-50", none, 50}, {"in90-80", in90, 80}, {"in20-10", in20, 10}, {"full", full, 100}, {"in3-40", in3, 40}, {"flat-10", flat, 10}}
	slices.SortStableFunc(pools, func(a, b pool) int { return CompareUrgency(a.f, a.util, b.f, b.util) })
	var got []string
	for _, p := range pools {
		got = append(got, p.name)
	}
	if want := "full in3-40 in20-10 flat-99 in90-80 none-50 flat-10"; strings.Join(got, " ") != want {
		t.Errorf("closest to exhaustion first: %s, want %s", strings.Join(got, " "), want)
	}
}

// TestSumsShift: sums counted from one time and shifted to a later one
// give the forecast of the same points counted from the later one.
func TestSumsShift(t *testing.T) {
	points := hourly(5*24, 500, func(h int) int { return 100 + h/3 })
	last := points[len(points)-1]
	later := last.At.Add(90 * time.Minute)
	var early, direct Sums
	for _, p := range points {
		early.Add(p, last.At)
		direct.Add(p, later)
	}
	shifted := early.Shift(later.Sub(last.At).Hours() / 24)
	now := Point{At: later, Used: last.Used, Size: last.Size}
	shifted.Add(now, later)
	direct.Add(now, later)
	a, b := OfSums(shifted, now), OfSums(direct, now)
	if a.State != Filling || math.Abs(a.DaysLeft-b.DaysLeft) > 1e-6 || math.Abs(a.PerDay-b.PerDay) > 1e-9 {
		t.Errorf("shifted %+v, counted from the later time %+v", a, b)
	}
}
