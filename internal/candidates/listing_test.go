package candidates

import (
	"net/netip"
	"slices"
	"testing"
)

// subnetSpace is the candidates of a subnet of pool as a claim sees them:
// the subnet's host addresses less its gateway.
func subnetSpace(tb testing.TB, pool, subnet, gateway string) Space {
	tb.Helper()
	p, err := ParsePool(PoolSpec{CIDR: pool})
	if err != nil {
		tb.Fatal(err)
	}
	r, err := p.ParseRequest(RequestSpec{Within: subnet, Reserved: []string{gateway}})
	if err != nil {
		tb.Fatal(err)
	}
	return p.Space(r)
}

func rowsText(rows []Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = Range{r.From, r.To}.String()
		if r.Free {
			out[i] += " free"
		}
	}
	return out
}

func TestListingOfASubnet(t *testing.T) {
	space := subnetSpace(t, "10.42.0.0/16", "10.42.1.0/24", "10.42.1.1")
	var taken SetBuilder
	taken.AddRange(Range{netip.MustParseAddr("10.42.1.2"), netip.MustParseAddr("10.42.1.19")})
	taken.Add(netip.MustParseAddr("10.42.0.9")) // another subnet's
	first, last := Bounds(space.Scope())
	l := NewListing(space.Set(), taken.Set(), Range{first, last})
	rows, count := l.Page(17, 50)
	if count != (ListingCount{Rows: 19, Taken: 18, Free: 235, FreeCount: CountOf(235)}) {
		t.Errorf("the listing holds %+v, want 18 addresses taken and 1 run of 235 free", count)
	}
	if got := rowsText(rows); !slices.Equal(got, []string{"10.42.1.19", "10.42.1.20-10.42.1.254 free"}) {
		t.Fatalf("Page(17, 50) = %v", got)
	}
	if n := rows[1].Count(); n != 235 {
		t.Errorf("the run 10.42.1.20-10.42.1.254 counts %d, want 235", n)
	}
	if rows, _ := l.Page(0, 2); !slices.Equal(rowsText(rows), []string{"10.42.1.2", "10.42.1.3"}) {
		t.Errorf("Page(0, 2) = %v", rowsText(rows))
	}
	if rows, _ := l.Page(19, 5); len(rows) != 0 {
		t.Errorf("a page past the end = %v", rowsText(rows))
	}
}

// TestListingBreaksRunsAtNonCandidates: the gateway and the excludes of a
// pool end a run of free addresses, and a taken address that is no
// candidate is still a row.
func TestListingBreaksRunsAtNonCandidates(t *testing.T) {
	p, err := ParsePool(PoolSpec{CIDR: "203.0.113.0/28", Gateway: "203.0.113.1", Exclude: []string{"203.0.113.5-203.0.113.6"}})
	if err != nil {
		t.Fatal(err)
	}
	space := p.Candidates()
	taken := SetOf(netip.MustParseAddr("203.0.113.3"), netip.MustParseAddr("203.0.113.6"))
	l := NewListing(space.Set(), taken, Range{netip.MustParseAddr("203.0.113.0"), netip.MustParseAddr("203.0.113.15")})
	want := []string{"203.0.113.2 free", "203.0.113.3", "203.0.113.4 free", "203.0.113.6", "203.0.113.7-203.0.113.14 free"}
	if rows, _ := l.Page(0, 100); !slices.Equal(rowsText(rows), want) {
		t.Errorf("rows = %v, want %v", rowsText(rows), want)
	}
}

// TestListingAtTheEndOfTheSpace: the last address of IPv4 ends a run
// without wrapping around.
func TestListingAtTheEndOfTheSpace(t *testing.T) {
	all := SetOfRanges(Range{netip.MustParseAddr("255.255.255.250"), netip.MustParseAddr("255.255.255.255")})
	taken := SetOf(netip.MustParseAddr("255.255.255.255"), netip.MustParseAddr("255.255.255.251"))
	l := NewListing(all, taken, Range{netip.MustParseAddr("255.255.255.248"), netip.MustParseAddr("255.255.255.255")})
	want := []string{"255.255.255.250 free", "255.255.255.251", "255.255.255.252-255.255.255.254 free", "255.255.255.255"}
	if rows, count := l.Page(0, 10); !slices.Equal(rowsText(rows), want) || count != (ListingCount{Rows: 4, Taken: 2, Free: 4, FreeCount: CountOf(4)}) {
		t.Errorf("rows = %v (%+v), want %v", rowsText(rows), count, want)
	}
}

// BenchmarkListingPage is the page in the middle of a table of 1 000 000
// taken addresses: held in one run, and every other address of 2 000 000.
func BenchmarkListingPage(b *testing.B) {
	space := subnetSpace(b, "10.0.0.0/8", "10.0.0.0/10", "10.0.0.1")
	first, last := Bounds(space.Scope())
	for _, tt := range []struct {
		name  string
		taken Set
	}{
		{"one-run", SetOfRanges(Range{addr(u32(first) + 2), addr(u32(first) + 1_000_001)})},
		{"every-other", func() Set {
			var tb SetBuilder
			for i := range ip4(1_000_000) {
				tb.Add(addr(u32(first) + 2 + 2*i))
			}
			return tb.Set()
		}()},
	} {
		b.Run(tt.name, func(b *testing.B) {
			cand := space.Set()
			for b.Loop() {
				l := NewListing(cand, tt.taken, Range{first, last})
				if rows, _ := l.Page(1_000_000/2, 50); len(rows) != 50 {
					b.Fatalf("a page of %d rows", len(rows))
				}
			}
		})
	}
}

// FuzzListing checks a listing against a brute-force model: every address
// between its bounds is looked at in turn, a taken one is a row, and a
// candidate not taken starts a run of free candidates or lengthens the one
// the address before it started. The candidates are a pool's (with a
// gateway and excludes), or two subnets' of it (each less its network,
// broadcast and gateway), as a private pool's table lists them; the
// taken addresses may be no candidates, and the bounds need not be a
// prefix. Every page of the model must be the listing's page, and the
// candidates' set Space.Contains address by address.
func FuzzListing(f *testing.F) {
	f.Add(uint32(0x0a2a0100), uint8(4), uint16(1), []byte{9, 2}, uint8(0), []byte{2, 17, 40, 0}, uint16(0), uint16(255), uint8(3), uint8(7))
	f.Add(uint32(0x0a2a0000), uint8(0), uint16(0), []byte{}, uint8(1), []byte{0, 3, 200, 15}, uint16(10), uint16(4000), uint8(50), uint8(49))
	f.Add(uint32(0xcb007100), uint8(8), uint16(1), []byte{2, 1}, uint8(0), []byte{1, 0, 5, 0}, uint16(0), uint16(15), uint8(0), uint8(1))
	f.Add(uint32(0xfffff000), uint8(2), uint16(2), []byte{}, uint8(3), []byte{255, 15}, uint16(100), uint16(65535), uint8(9), uint8(2))
	f.Add(uint32(0x00000000), uint8(12), uint16(0), []byte{}, uint8(0), []byte{0, 0}, uint16(0), uint16(0), uint8(0), uint8(1))
	f.Fuzz(func(t *testing.T, base uint32, bitsIn uint8, gwIn uint16, excl []byte, subnetsIn uint8, takenIn []byte, fromIn, toIn uint16, offsetIn, nIn uint8) {
		bits := 20 + int(bitsIn%13) // /20 to /32: small enough to model
		prefix := netip.PrefixFrom(addr(ip4(base)), bits).Masked()
		lo, hi := prefixBounds(prefix)
		size := ip4(uint64(hi) - uint64(lo) + 1)
		at := func(off ip4) netip.Addr { return addr(lo + off%size) }

		spec := PoolSpec{CIDR: prefix.String()}
		if gw := at(ip4(gwIn)); gwIn%3 != 0 && hostAddressProblem(gw, prefix) == "" {
			spec.Gateway = gw.String()
		}
		for i := 0; i+1 < len(excl) && i < 8; i += 2 {
			a, b := at(ip4(excl[i])*17), at(ip4(excl[i])*17+ip4(excl[i+1]%8))
			if b.Less(a) {
				a, b = b, a
			}
			spec.Exclude = append(spec.Exclude, Range{a, b}.String())
		}
		pool, err := ParsePool(spec)
		if err != nil {
			t.Fatalf("ParsePool(%+v): %v", spec, err)
		}
		spaces := []Space{pool.Candidates()}
		if subnetsIn%2 == 1 && bits <= 28 {
			// Two subnets of a quarter of the pool each, the first and
			// the third, with their first host as their gateway.
			spaces = nil
			for _, q := range []ip4{0, 2} {
				sub := netip.PrefixFrom(addr(lo+q*size/4), bits+2)
				r, err := pool.ParseRequest(RequestSpec{Within: sub.String(), Reserved: []string{addr(lo + q*size/4 + 1).String()}})
				if err != nil {
					t.Fatalf("ParseRequest(%s): %v", sub, err)
				}
				spaces = append(spaces, pool.Space(r))
			}
		}
		var cand Set
		for _, s := range spaces {
			cand = cand.Union(s.Set())
		}
		isCandidate := func(a netip.Addr) bool {
			for _, s := range spaces {
				if s.Contains(a) {
					return true
				}
			}
			return false
		}

		var tb SetBuilder
		taken := map[ip4]bool{}
		for i := 0; i+1 < len(takenIn) && i < 64; i += 2 {
			a := lo - 2 + ip4(takenIn[i])*size/200
			b := a + ip4(takenIn[i+1]%16)
			if b < a {
				continue
			}
			tb.AddRange(Range{addr(a), addr(b)})
			for v := uint64(a); v <= uint64(b); v++ {
				taken[ip4(v)] = true
			}
		}
		// The bounds: inside the pool, or a little beyond its ends.
		from, to := uint64(lo)+uint64(fromIn)%uint64(size), uint64(lo)+uint64(toIn)%(uint64(size)+2)
		if to > uint64(^ip4(0)) {
			to = uint64(^ip4(0))
		}

		var model []Row
		var modelCount ListingCount
		for v := from; v <= to; v++ {
			a := addr(ip4(v))
			switch {
			case taken[ip4(v)]:
				model = append(model, Row{From: a, To: a})
				modelCount.Taken++
			case isCandidate(a):
				modelCount.Free++
				if n := len(model); n > 0 && model[n-1].Free && uint64(u32(model[n-1].To))+1 == v {
					model[n-1].To = a
				} else {
					model = append(model, Row{From: a, To: a, Free: true})
				}
			}
			if cand.Contains(a) != isCandidate(a) {
				t.Fatalf("the spaces' sets hold %s: %v; Space.Contains: %v", a, cand.Contains(a), isCandidate(a))
			}
		}

		modelCount.Rows, modelCount.FreeCount = len(model), CountOf(uint64(modelCount.Free))
		l := NewListing(cand, tb.Set(), Range{addr(ip4(from)), addr(ip4(to))})
		n := 1 + int(nIn%60)
		for _, offset := range []int{0, int(offsetIn), len(model) - n, len(model) / 2} {
			if offset < 0 {
				continue
			}
			want := model[min(offset, len(model)):min(offset+n, len(model))]
			got, count := l.Page(offset, n)
			if count != modelCount || !slices.Equal(got, want) {
				t.Fatalf("Page(%d, %d) = %v of %+v, want %v of %+v", offset, n, rowsText(got), count, rowsText(want), modelCount)
			}
		}
	})
}
