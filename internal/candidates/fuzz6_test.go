package candidates

import (
	"net/netip"
	"strings"
	"testing"
)

// FuzzSpace6 checks the IPv6 enumerator against a brute-force model. A
// small prefix (a /116 to a /128) is classified address by address,
// whole; a large one (a /32 to a /112) at its ends and at random points,
// where the model walks address by address too. The gateway, excludes,
// reserved and taken addresses are few, so the model counts the
// candidates and the free ones exactly by listing those it must subtract.
func FuzzSpace6(f *testing.F) {
	f.Add(uint64(0x20010db800000000), uint64(0), uint8(0), uint64(1), []byte{2, 0, 3, 1}, uint8(0), []byte{}, []byte{4, 1}, uint64(9))
	f.Add(uint64(0xfd123456789a0001), uint64(0), uint8(65), uint64(1), []byte{1, 2, 200, 7}, uint8(65), []byte{1, 0}, []byte{0, 0, 7, 3, 200, 20, 255, 15}, uint64(1)<<40)
	f.Add(uint64(0xffffffffffffffff), uint64(0xffffffffffffff00), uint8(8), uint64(2), []byte{}, uint8(1), []byte{0}, []byte{250, 15, 255, 15}, uint64(300))
	f.Add(uint64(0), uint64(0), uint8(24), uint64(0), []byte{0, 1}, uint8(3), []byte{}, []byte{}, uint64(0))
	f.Add(uint64(0xffffffffffffffff), uint64(0xffffffffffffffff), uint8(97), uint64(7), []byte{9, 9, 255, 3}, uint8(7), []byte{5}, []byte{255, 15, 1, 2}, uint64(0))
	f.Fuzz(func(t *testing.T, baseHi, baseLo uint64, bitsIn uint8, gwIn uint64, excl []byte, withinIn uint8, resv []byte, takenIn []byte, fromIn uint64) {
		small := bitsIn%2 == 0
		bits := 116 + int(bitsIn/2)%13
		if !small {
			bits = 32 + int(bitsIn/2)%81
		}
		prefix := netip.PrefixFrom(addr6(ip6{baseHi, baseLo}), bits).Masked()
		lo, hi := prefixBounds6(prefix)
		host := hostMask6(bits)
		// at is an address off the start of the prefix, or off its end
		// when fromEnd, wrapped into it.
		at := func(off uint64, fromEnd bool) ip6 {
			o := ip6{0, off}.and(host)
			if fromEnd {
				return ip6{hi.hi, hi.lo - o.lo}
			}
			return lo.or(o)
		}

		spec := PoolSpec{CIDR: prefix.String()}
		var gateway netip.Addr
		if g := addr6(at(gwIn, gwIn%5 == 4)); gwIn%3 != 0 && hostAddressProblem(g, prefix) == "" {
			gateway, spec.Gateway = g, g.String()
		}
		excluded := map[ip6]bool{}
		for i := 0; i+1 < len(excl) && i < 16; i += 2 {
			a := at(uint64(excl[i])*17, excl[i+1]&8 != 0)
			b := a
			for range excl[i+1] % 8 {
				if b != hi {
					b = b.next()
				}
			}
			spec.Exclude = append(spec.Exclude, Range{addr6(a), addr6(b)}.String())
			for v := a; ; v = v.next() {
				excluded[v] = true
				if v == b {
					break
				}
			}
		}
		pool, err := ParsePool(spec)
		if err != nil {
			t.Fatalf("ParsePool(%+v): %v", spec, err)
		}

		var req RequestSpec
		scope := prefix
		if withinIn%2 == 1 {
			wbits := bits + int(withinIn/2)%(129-bits)
			scope = netip.PrefixFrom(addr6(at(fromIn*13, false)), wbits).Masked()
			req.Within = scope.String()
		}
		slo, shi := prefixBounds6(scope)
		scopeHost := hostMask6(scope.Bits())
		reserved := map[ip6]bool{}
		for i := 0; i < len(resv) && i < 4; i++ {
			a := slo.or(ip6{0, uint64(resv[i])}.and(scopeHost))
			req.Reserved = append(req.Reserved, addr6(a).String())
			reserved[a] = true
		}
		r, err := pool.ParseRequest(req)
		if err != nil {
			t.Fatalf("ParseRequest(%+v): %v", req, err)
		}

		var tb SetBuilder
		taken := map[ip6]bool{}
		for i := 0; i+1 < len(takenIn) && i < 64; i += 2 {
			// Near the start of the scope or of the prefix, a little
			// before them, or near the end of the prefix.
			var a ip6
			switch takenIn[i+1] >> 4 % 3 {
			case 0:
				a = slo.prev().prev().plus(uint64(takenIn[i]))
			case 1:
				a = lo.prev().prev().plus(uint64(takenIn[i]))
			default:
				a = at(uint64(takenIn[i]), true)
			}
			b := a.plus(uint64(takenIn[i+1] % 16))
			if b.less(a) {
				continue
			}
			tb.AddRange(Range{addr6(a), addr6(b)})
			for v := a; ; v = v.next() {
				taken[v] = true
				if v == b {
					break
				}
			}
		}
		takenSet := tb.Set()

		isCandidate := func(v ip6) bool {
			a := addr6(v)
			if !scope.Contains(a) || a == gateway || excluded[v] || reserved[v] {
				return false
			}
			for _, edge := range []netip.Prefix{prefix, r.Within} {
				if edge.IsValid() && edge.Bits() <= 126 && a == edge.Addr() {
					return false
				}
			}
			return true
		}
		// The counts: the scope's addresses less the few that are no
		// candidates, and less the few taken candidates.
		notCandidates := map[ip6]bool{}
		for _, set := range []map[ip6]bool{excluded, reserved, {slo: true, lo: true}} {
			for v := range set {
				if !v.less(slo) && !shi.less(v) && !isCandidate(v) {
					notCandidates[v] = true
				}
			}
		}
		if gateway.IsValid() && !isCandidate(u128(gateway)) && scope.Contains(gateway) {
			notCandidates[u128(gateway)] = true
		}
		wantSize := size6(addr6Span{slo, shi}).Sub(CountOf(uint64(len(notCandidates))))
		takenCandidates := 0
		for v := range taken {
			if isCandidate(v) {
				takenCandidates++
			}
		}
		wantFree := wantSize.Sub(CountOf(uint64(takenCandidates)))

		s := pool.Space(r)
		if s.Count() != wantSize || s.FreeCount(takenSet) != wantFree {
			t.Fatalf("Count, FreeCount of %+v %+v taken %v = %s, %s; want %s, %s", spec, req, takenSet.Ranges(), s.Count(), s.FreeCount(takenSet), wantSize, wantFree)
		}
		if got := s.Set().Count(); got != wantSize {
			t.Fatalf("Set().Count() = %s, want %s", got, wantSize)
		}

		// The order: walk from points of the scope, the model address by
		// address.
		walk := func(from ip6, n int) []netip.Addr {
			var out []netip.Addr
			for v := from; len(out) < n; v = v.next() {
				if isCandidate(v) && !taken[v] {
					out = append(out, addr6(v))
				}
				if v == shi {
					break
				}
			}
			return out
		}
		points, n := []ip6{slo, vmax(slo, shi.prev().prev()), slo.or(ip6{0, fromIn}.and(scopeHost))}, 24
		if small {
			points, n = []ip6{slo}, 1<<13
		}
		for _, p := range points {
			want := walk(p, n)
			it := s.IterFrom(takenSet, addr6(p))
			var got []netip.Addr
			for a, ok := it.Next(); ok && len(got) < n; a, ok = it.Next() {
				got = append(got, a)
			}
			if addrs(got) != addrs(want) {
				t.Fatalf("candidates from %s of %+v %+v taken %v:\n got %s\nwant %s", addr6(p), spec, req, takenSet.Ranges(), addrs(got), addrs(want))
			}
		}
		if first, ok := s.First(takenSet); !wantFree.IsZero() != ok || ok && first != walk(slo, 1)[0] {
			t.Errorf("First() = %s, %v", first, ok)
		}
		if last, ok := s.Last(takenSet); !wantFree.IsZero() != ok || ok && len(walk(u128(last), 2)) != 1 {
			t.Errorf("Last() = %s, %v", last, ok)
		}

		// Every address the model knows, and its neighbours, explained.
		look := map[ip6]bool{slo: true, shi: true, lo: true, hi: true}
		for _, m := range []map[ip6]bool{excluded, reserved, taken} {
			for v := range m {
				look[v], look[v.next()], look[v.prev()] = true, true, true
			}
		}
		if small {
			for v := lo; ; v = v.next() {
				look[v] = true
				if v == hi {
					break
				}
			}
		}
		m := s.Map(takenSet)
		for v := range look {
			a := addr6(v)
			e := s.Explain(a, takenSet)
			wantState := "not available"
			switch {
			case isCandidate(v) && taken[v]:
				wantState = "taken"
			case isCandidate(v):
				wantState = "free"
			}
			gotState := "not available"
			if e.State == Free || e.State == Taken {
				gotState = e.State.String()
			}
			if gotState != wantState || !strings.HasPrefix(e.Message, a.String()+" ") {
				t.Fatalf("Explain(%s) = %v %q, want %s", a, e.State, e.Message, wantState)
			}
			if s.Contains(a) != isCandidate(v) {
				t.Fatalf("Contains(%s) = %v, want %v", a, s.Contains(a), isCandidate(v))
			}
			if m.Cells != "" && scope.Contains(a) && m.Cells[v.lo-slo.lo] != e.State.Code() {
				t.Fatalf("Map().Cells[%s] = %c, want %c", a, m.Cells[v.lo-slo.lo], e.State.Code())
			}
		}
		if (m.Cells != "") != (scope.Bits() >= 120) {
			t.Errorf("Map() of %s has cells %q", scope, m.Cells)
		}
	})
}

// and returns the bits of v and w.
func (v ip6) and(w ip6) ip6 { return ip6{v.hi & w.hi, v.lo & w.lo} }
