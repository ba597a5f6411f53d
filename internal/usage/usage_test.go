package usage

import (
	"net/netip"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/candidates"
)

// TestPointCounts: a point of figures is exact whatever its size: an
// IPv4 space's by its numbers, an IPv6 one's by its counts (its numbers
// capped), one counted in prefixes by its counts; its share is used over
// size.
func TestPointCounts(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	slash64 := candidates.PrefixCount(netip.MustParsePrefix("2001:db8::/64"), 128).Sub(candidates.CountOf(2))
	for _, c := range []struct {
		what       string
		f          Figures
		size, used string
		share      float64
	}{
		{"a /24", Figures{Size: 253, Used: 11, Free: 242}, "253", "11", 11.0 / 253},
		{"a /64", Exact(slash64, candidates.CountOf(3), ""), "18446744073709551614", "3", 3 / 18446744073709551614.0},
		{"a /48 in /64s", Exact(candidates.CountOf(65536), candidates.CountOf(3), Prefixes(64)), "65536", "3", 3.0 / 65536},
		{"nothing", Figures{}, "0", "0", 0},
	} {
		p := PointOf(at, c.f)
		size, used := p.Counts()
		if !p.At.Equal(at) || size.String() != c.size || used.String() != c.used || p.Share() != c.share {
			t.Errorf("PointOf(%s) = %+v: %s of %s, share %v; want %s of %s, share %v", c.what, p, used, size, p.Share(), c.used, c.size, c.share)
		}
	}
}
