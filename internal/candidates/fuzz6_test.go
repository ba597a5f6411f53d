package candidates

import (
	"net/netip"
	"slices"
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
		// Two addresses before the scope's last, or its first in a /127 or
		// a /128 (where the step back wraps at ::).
		nearEnd := shi.prev().prev()
		if nearEnd.less(slo) || shi.less(nearEnd) {
			nearEnd = slo
		}
		points, n := []ip6{slo, nearEnd, slo.or(ip6{0, fromIn}.and(scopeHost))}, 24
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

// FuzzFreePrefixes6 checks FreePrefixes, FreePrefixCount and PrefixCount
// of IPv6 parents against a brute-force model, as FuzzFreePrefixes does
// for IPv4: every aligned block of the parent (8 192 at most) is tested
// against every used prefix with netip.Prefix.Overlaps. The parent lies
// anywhere, its last block at the end of the address space too; the used
// prefixes come in any order, overlap, keep their host bits, stick out of
// the parent or cover it, and some are IPv4 or invalid.
func FuzzFreePrefixes6(f *testing.F) {
	f.Add(uint64(0xfd123456789a0000), uint64(0), uint8(40), uint8(18), uint8(4), []byte{0, 0, 64, 0x40, 0, 63, 0x20, 0x10, 65})
	f.Add(uint64(0x20010db800000000), uint64(0), uint8(24), uint8(10), uint8(255), []byte{0x80, 0, 40, 0, 0, 33})
	f.Add(uint64(0xffffffffffffffff), uint64(0xffffffffffffff00), uint8(112), uint8(10), uint8(3), []byte{0xff, 0xff, 126, 0x10, 0, 250, 0, 0, 255})
	f.Add(uint64(0), uint64(0), uint8(120), uint8(9), uint8(2), []byte{0x40, 0, 127, 0x40, 0x01, 128})
	f.Add(uint64(0x20010db800000000), uint64(0x1234), uint8(56), uint8(15), uint8(0), []byte{})
	f.Fuzz(func(t *testing.T, baseHi, baseLo uint64, parentIn, bitsIn, countIn uint8, usedIn []byte) {
		pbits := 8 + int(parentIn%121)                                // /8 to /128
		parent := netip.PrefixFrom(addr6(ip6{baseHi, baseLo}), pbits) // host bits kept
		bits := pbits + int(bitsIn%16) - 2                            // two too short, up to 13 longer
		count := int(countIn%20) - 1
		if countIn >= 240 {
			count = 1 << 20
		}
		lo, hi := prefixBounds6(parent)
		var used []netip.Prefix
		for i := 0; i+2 < len(usedIn) && i < 3*24; i += 3 {
			// An address near the parent: off its start or its end, by a
			// part of its size.
			off := ip6{uint64(usedIn[i]), uint64(usedIn[i+1])}.shiftLeft(max(128-pbits-16, 0))
			var at ip6
			if usedIn[i]&0x80 != 0 {
				at = ip6{hi.hi - off.hi, hi.lo - off.lo}
			} else {
				at = ip6{lo.hi + off.hi, lo.lo + off.lo}
			}
			switch kind := usedIn[i+2]; {
			case kind == 255:
				used = append(used, netip.Prefix{})
			case kind >= 250:
				used = append(used, netip.PrefixFrom(addr(ip4(at.lo)), int(kind%33)))
			default:
				used = append(used, netip.PrefixFrom(addr6(at), max(pbits-4, 0)+int(kind)%(133-pbits)))
			}
		}

		var model []netip.Prefix
		free := 0
		if bits >= pbits && bits <= 128 && count >= 1 {
			model = []netip.Prefix{}
			step := hostMask6(bits)
			for v := lo; ; v = v.or(step).next() {
				block := netip.PrefixFrom(addr6(v), bits)
				if !slices.ContainsFunc(used, block.Overlaps) {
					free++
					if len(model) < count {
						model = append(model, block)
					}
				}
				if v.or(step) == hi {
					break
				}
			}
		}

		got := FreePrefixes(parent, used, bits, count)
		if (got == nil) != (model == nil) || prefixes(got) != prefixes(model) {
			t.Fatalf("FreePrefixes(%s, %v, %d, %d):\n got %s (nil %v)\nwant %s (nil %v)",
				parent, used, bits, count, prefixes(got), got == nil, prefixes(model), model == nil)
		}
		if model != nil {
			if got := FreePrefixCount(parent, used, bits); got != CountOf(uint64(free)) {
				t.Fatalf("FreePrefixCount(%s, %v, %d) = %s, want %d", parent, used, bits, got, free)
			}
			if got := PrefixCount(parent, bits); got != CountOf(1<<(bits-pbits)) {
				t.Fatalf("PrefixCount(%s, %d) = %s", parent, bits, got)
			}
		}
	})
}

// shiftLeft returns v shifted left by n bits, 0 to 127.
func (v ip6) shiftLeft(n int) ip6 {
	switch {
	case n >= 64:
		return ip6{v.lo << (n - 64), 0}
	case n == 0:
		return v
	}
	return ip6{v.hi<<n | v.lo>>(64-n), v.lo << n}
}

// FuzzListing6 checks the listing of IPv6 addresses against a brute-force
// model, as FuzzListing does for IPv4: every address between the bounds
// is looked at in turn. The pool is small (a /116 to a /128), anywhere,
// at the end of the address space too; its candidates are its own or two
// subnets' of it.
func FuzzListing6(f *testing.F) {
	f.Add(uint64(0x20010db800000000), uint64(0), uint8(4), uint16(1), []byte{9, 2}, uint8(0), []byte{2, 17, 40, 0}, uint16(0), uint16(255), uint8(3), uint8(7))
	f.Add(uint64(0xffffffffffffffff), uint64(0xfffffffffffff000), uint8(0), uint16(0), []byte{}, uint8(1), []byte{0, 3, 200, 15}, uint16(10), uint16(4000), uint8(50), uint8(49))
	f.Add(uint64(0), uint64(0), uint8(12), uint16(0), []byte{}, uint8(0), []byte{0, 0}, uint16(0), uint16(0), uint8(0), uint8(1))
	f.Fuzz(func(t *testing.T, baseHi, baseLo uint64, bitsIn uint8, gwIn uint16, excl []byte, subnetsIn uint8, takenIn []byte, fromIn, toIn uint16, offsetIn, nIn uint8) {
		bits := 116 + int(bitsIn%13)
		prefix := netip.PrefixFrom(addr6(ip6{baseHi, baseLo}), bits).Masked()
		lo, hi := prefixBounds6(prefix)
		size := hi.lo - lo.lo + 1
		at := func(off uint64) ip6 { return ip6{lo.hi, lo.lo + off%size} }

		spec := PoolSpec{CIDR: prefix.String()}
		if gw := addr6(at(uint64(gwIn))); gwIn%3 != 0 && hostAddressProblem(gw, prefix) == "" {
			spec.Gateway = gw.String()
		}
		for i := 0; i+1 < len(excl) && i < 8; i += 2 {
			a, b := at(uint64(excl[i])*17), at(uint64(excl[i])*17+uint64(excl[i+1]%8))
			if b.less(a) {
				a, b = b, a
			}
			spec.Exclude = append(spec.Exclude, Range{addr6(a), addr6(b)}.String())
		}
		pool, err := ParsePool(spec)
		if err != nil {
			t.Fatalf("ParsePool(%+v): %v", spec, err)
		}
		spaces := []Space{pool.Candidates()}
		if subnetsIn%2 == 1 && bits <= 124 {
			spaces = nil
			for _, q := range []uint64{0, 2} {
				sub := netip.PrefixFrom(addr6(at(q*size/4)), bits+2)
				r, err := pool.ParseRequest(RequestSpec{Within: sub.String(), Reserved: []string{addr6(at(q*size/4 + 1)).String()}})
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
		taken := map[ip6]bool{}
		for i := 0; i+1 < len(takenIn) && i < 64; i += 2 {
			a := lo.prev().prev().plus(uint64(takenIn[i]) * size / 200)
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
		from, to := at(uint64(fromIn)), lo.plus(uint64(toIn)%(size+2))
		if to.less(lo) {
			to = ip6{maxUint64, maxUint64}
		}

		var model []Row
		var modelCount ListingCount
		for v := from; !to.less(v); v = v.next() {
			a := addr6(v)
			switch {
			case taken[v]:
				model = append(model, Row{From: a, To: a})
				modelCount.Taken++
			case isCandidate(a):
				modelCount.Free++
				if n := len(model); n > 0 && model[n-1].Free && model[n-1].To.Next() == a {
					model[n-1].To = a
				} else {
					model = append(model, Row{From: a, To: a, Free: true})
				}
			}
			if cand.Contains(a) != isCandidate(a) {
				t.Fatalf("the spaces' sets hold %s: %v; Space.Contains: %v", a, cand.Contains(a), isCandidate(a))
			}
			if v == to {
				break
			}
		}
		modelCount.Rows, modelCount.FreeCount = len(model), CountOf(uint64(modelCount.Free))
		l := NewListing(cand, tb.Set(), Range{addr6(from), addr6(to)})
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
