package candidates

import (
	"fmt"
	"net/netip"
	"testing"
	"unsafe"
)

// benchSlash16 is a /16 pool with a gateway, as a VPC's pool would be.
var benchSlash16 = PoolSpec{CIDR: "10.0.0.0/16", Gateway: "10.0.0.1"}

// takenLevels are the fill levels the benchmarks measure: empty, 30 000
// taken in fragments, and 65 000 taken (the /16 almost full).
var takenLevels = []int{0, 30000, 65000}

func BenchmarkIterate(b *testing.B) {
	s := mustPool(b, benchSlash16).Candidates()
	for _, n := range takenLevels {
		taken := fragmented(b, n)
		b.Run(fmt.Sprintf("taken=%d", n), func(b *testing.B) {
			free := s.Free(taken)
			b.ReportAllocs()
			for b.Loop() {
				it := s.Iter(taken)
				for _, ok := it.Next(); ok; _, ok = it.Next() {
				}
			}
			if free > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(free), "ns/candidate")
			}
		})
	}
}

func BenchmarkNext8(b *testing.B) {
	s := mustPool(b, benchSlash16).Candidates()
	for _, n := range takenLevels {
		taken := fragmented(b, n)
		b.Run(fmt.Sprintf("taken=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.NextN(taken, 8)
			}
		})
	}
}

func BenchmarkFree(b *testing.B) {
	s := mustPool(b, benchSlash16).Candidates()
	for _, n := range takenLevels {
		taken := fragmented(b, n)
		b.Run(fmt.Sprintf("taken=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.Free(taken)
			}
		})
	}
}

// BenchmarkBuildTaken builds the taken set of a /16 from a list, as a page
// or the allocator's first load does, and reports what the set costs.
func BenchmarkBuildTaken(b *testing.B) {
	for _, n := range takenLevels[1:] {
		list := fragmented(b, n).Ranges()
		b.Run(fmt.Sprintf("taken=%d", n), func(b *testing.B) {
			var s Set
			b.ReportAllocs()
			for b.Loop() {
				s = SetOfRanges(list...)
			}
			b.ReportMetric(float64(cap(s.spans))*float64(unsafe.Sizeof(addrSpan{})), "set-bytes")
			b.ReportMetric(float64(s.RangeCount()), "ranges")
		})
	}
}

// BenchmarkAddAtEnd adds addresses in ascending order, as a pool fills.
func BenchmarkAddAtEnd(b *testing.B) {
	b.ReportAllocs()
	var sb SetBuilder
	v := ip4(0x0a000000)
	for b.Loop() {
		sb.Add(addr(v))
		v += 2
	}
}

// BenchmarkFreePrefixes asks for the next free /30s of a /8 VPC with
// thousands of subnets, and for /24s, which jump over every used range.
func BenchmarkFreePrefixes(b *testing.B) {
	parent := netip.MustParsePrefix("10.0.0.0/8")
	for _, n := range []int{1000, 10000} {
		used := usedSlash24s(n)
		for _, bits := range []int{30, 24} {
			b.Run(fmt.Sprintf("used=%d/bits=%d", n, bits), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					FreePrefixes(parent, used, bits, 8)
				}
			})
		}
	}
}

// A numberBenchCase is a number pool and the numbers taken in a division.
type numberBenchCase struct {
	name  string
	pool  NumberPool
	taken NumberSet
}

// numberBenchCases are a VLAN division (the numbers 1 to 4 094) with 4 000
// taken, as one run from the lowest and spread in 95 runs around 94 free
// numbers; a pool of 2³² numbers with a million taken, every other number
// from 0; and 1 024 ranges of 4 numbers, all full but the one tried last.
func numberBenchCases(b *testing.B) []numberBenchCase {
	var lowest, sparse, full NumberSetBuilder
	for n := range int64(4000) {
		lowest.Add(n + 1)
	}
	for n := range int64(1_000_000) {
		sparse.Add(2 * n)
	}
	many := make([]NumberRange, MaxNumberRanges)
	for i := range many {
		many[i] = NumberRange{Start: int64(10 * i), End: int64(10*i + 3), Weight: 2}
		if i < MaxNumberRanges-1 {
			for n := many[i].Start; n <= many[i].End; n++ {
				full.Add(n)
			}
		}
	}
	many[0].Weight = 1
	vlans := mustNumberPool(b, NumberRange{1, 4094, 1})
	return []numberBenchCase{
		{"vlan/taken=4000-lowest", vlans, lowest.Set()},
		{"vlan/taken=4000-spread", vlans, spreadTaken(4094, 4000)},
		{"2^32/taken=1000000-spread", mustNumberPool(b, NumberRange{0, 1<<32 - 1, 1}), sparse.Set()},
		{"ranges=1024/full-but-last", mustNumberPool(b, many...), full.Set()},
	}
}

// BenchmarkNumberFirst chooses the next number of a division: what a claim
// from a number pool computes, and the browser's preview.
func BenchmarkNumberFirst(b *testing.B) {
	for _, c := range numberBenchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.pool.First(c.taken)
			}
		})
	}
}

// BenchmarkNumberNext8 asks for the next 8 numbers: what a claim that
// loses races tries, and the preview shows.
func BenchmarkNumberNext8(b *testing.B) {
	for _, c := range numberBenchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.pool.NextN(c.taken, 8)
			}
		})
	}
}

// BenchmarkNumberUsed counts the taken numbers of each range: the figures.
func BenchmarkNumberUsed(b *testing.B) {
	for _, c := range numberBenchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.pool.Used(c.taken)
			}
		})
	}
}

// BenchmarkClaimLowest claims the lowest free address of a pool whose
// 1 000 000 allocations are runs of 10 with one free address between
// them, one claim after another, as a pool's view does for SEQUENTIAL
// claims (ipambench's v6_seq_1m): each claim joins the first two spans.
// The IPv6 spans keep a gap where they were last changed (gapSlice); the
// IPv4 spans are a plain slice, and each claim moves the spans after it.
func BenchmarkClaimLowest(b *testing.B) {
	const runs = 100_000
	for _, base := range []string{"10.0.0.0", "fd00:42::"} {
		at := func(offset int) netip.Addr {
			a := netip.MustParseAddr(base)
			for range offset {
				a = a.Next()
			}
			return a
		}
		first := at(0)
		build := func() *SetBuilder {
			var sb SetBuilder
			lo := first
			for range runs {
				hi := lo
				for range 9 {
					hi = hi.Next()
				}
				sb.AddRange(Range{lo, hi})
				lo = hi.Next().Next()
			}
			return &sb
		}
		b.Run("family="+map[bool]string{true: "4", false: "6"}[first.Is4()], func(b *testing.B) {
			sb, free := build(), at(10)
			claimed := 0
			b.ReportAllocs()
			for b.Loop() {
				if claimed == runs-1 {
					b.StopTimer()
					sb, free, claimed = build(), at(10), 0
					b.StartTimer()
				}
				sb.Add(free)
				for range 11 {
					free = free.Next()
				}
				claimed++
			}
		})
	}
}
