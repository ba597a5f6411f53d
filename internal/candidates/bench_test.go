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
			b.ReportMetric(float64(cap(s.spans))*float64(unsafe.Sizeof(span{})), "set-bytes")
			b.ReportMetric(float64(s.RangeCount()), "ranges")
		})
	}
}

// BenchmarkAddAtEnd adds addresses in ascending order, as a pool fills.
func BenchmarkAddAtEnd(b *testing.B) {
	b.ReportAllocs()
	var sb SetBuilder
	v := uint32(0x0a000000)
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
