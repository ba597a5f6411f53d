package main

import (
	"math"
	"slices"
	"time"
)

// A run is what one repetition of a measurement observed: the latency of
// every operation and how long the whole took.
type run struct {
	lat     []time.Duration
	elapsed time.Duration
	// ops counts the operations that succeeded (len(lat) unless some
	// failed or were still running when the run ended).
	ops int
}

// stats are the figures of one run.
type stats struct {
	p50, p99, max float64 // milliseconds
	perSec        float64 // operations per second
	n             int
}

func (r run) stats() stats {
	s := stats{n: r.ops, p50: ms(percentile(r.lat, 50)), p99: ms(percentile(r.lat, 99)), max: ms(percentile(r.lat, 100))}
	if r.elapsed > 0 {
		s.perSec = float64(r.ops) / r.elapsed.Seconds()
	}
	return s
}

// A figure is a measurement repeated: the median of each run's figures.
type figure struct {
	P50    float64 `json:"p50_ms"`
	P99    float64 `json:"p99_ms"`
	Max    float64 `json:"max_ms"`
	PerSec float64 `json:"per_s"`
	Runs   int     `json:"runs"`
	Ops    int     `json:"ops_per_run"`
}

func figureOf(runs []run) figure {
	var p50, p99, mx, ps []float64
	ops := 0
	for _, r := range runs {
		s := r.stats()
		p50, p99, mx, ps = append(p50, s.p50), append(p99, s.p99), append(mx, s.max), append(ps, s.perSec)
		ops = max(ops, s.n)
	}
	return figure{P50: median(p50), P99: median(p99), Max: median(mx), PerSec: median(ps), Runs: len(runs), Ops: ops}
}

// percentile returns the nearest-rank p-th percentile of d.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ratio is a/b, or 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
