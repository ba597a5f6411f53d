package candidates

import (
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// FuzzSpace checks the enumerator against a brute-force model: every
// address of a small pool is classified one by one, and the Space must
// agree on the candidates, their order, the counts and every explanation.
func FuzzSpace(f *testing.F) {
	f.Add(uint32(0xcb007100), uint8(4), uint16(1), []byte{2, 0, 3, 0}, uint8(0), uint16(0), []byte{}, []byte{4, 1}, uint16(9))
	f.Add(uint32(0x0a2a0000), uint8(0), uint16(0), []byte{}, uint8(5), uint16(300), []byte{1}, []byte{0, 0, 7, 3, 200, 20}, uint16(0))
	f.Add(uint32(0x0a000000), uint8(11), uint16(2), []byte{}, uint8(1), uint16(1), []byte{}, []byte{0, 0}, uint16(1))
	f.Add(uint32(0xffffff00), uint8(12), uint16(0), []byte{}, uint8(0), uint16(0), []byte{}, []byte{}, uint16(0))
	f.Add(uint32(0x00000000), uint8(10), uint16(1), []byte{0, 1}, uint8(3), uint16(0), []byte{}, []byte{}, uint16(0))
	f.Fuzz(func(t *testing.T, base uint32, bitsIn uint8, gwIn uint16, excl []byte, withinIn uint8, withinOff uint16, resv []byte, takenIn []byte, fromIn uint16) {
		bits := 20 + int(bitsIn%13) // /20 to /32: small enough to model
		prefix := netip.PrefixFrom(addr(ip4(base)), bits).Masked()
		lo, hi := prefixBounds(prefix)
		size := ip4(uint64(hi) - uint64(lo) + 1)
		at := func(off ip4) netip.Addr { return addr(lo + off%size) }

		spec := PoolSpec{CIDR: prefix.String()}
		var gateway netip.Addr
		if gwIn%3 != 0 {
			gateway = at(ip4(gwIn))
			if hostAddressProblem(gateway, prefix) != "" {
				gateway = netip.Addr{}
			} else {
				spec.Gateway = gateway.String()
			}
		}
		excluded := map[netip.Addr]bool{}
		for i := 0; i+1 < len(excl) && i < 16; i += 2 {
			a, b := at(ip4(excl[i])*17), at(ip4(excl[i])*17+ip4(excl[i+1]%8))
			if b.Less(a) {
				a, b = b, a
			}
			spec.Exclude = append(spec.Exclude, Range{a, b}.String())
			for v := uint64(u32(a)); v <= uint64(u32(b)); v++ {
				excluded[addr(ip4(v))] = true
			}
		}
		pool, err := ParsePool(spec)
		if err != nil {
			t.Fatalf("ParsePool(%+v): %v", spec, err)
		}

		var req RequestSpec
		scope := prefix
		if withinIn%2 == 1 {
			wbits := bits + int(withinIn/2)%(33-bits)
			scope = netip.PrefixFrom(at(ip4(withinOff)*13), wbits).Masked()
			req.Within = scope.String()
		}
		slo, shi := prefixBounds(scope)
		reserved := map[netip.Addr]bool{}
		for i := 0; i < len(resv) && i < 4; i++ {
			a := addr(slo + ip4(resv[i])%(shi-slo+1))
			req.Reserved = append(req.Reserved, a.String())
			reserved[a] = true
		}
		r, err := pool.ParseRequest(req)
		if err != nil {
			t.Fatalf("ParseRequest(%+v): %v", req, err)
		}

		var tb SetBuilder
		taken := map[netip.Addr]bool{}
		for i := 0; i+1 < len(takenIn) && i < 64; i += 2 {
			a := addr(lo - 2 + ip4(takenIn[i])*ip4(size)/200)
			b := addr(u32(a) + ip4(takenIn[i+1]%16))
			if b.Less(a) {
				continue
			}
			tb.AddRange(Range{a, b})
			for v := uint64(u32(a)); v <= uint64(u32(b)); v++ {
				taken[addr(ip4(v))] = true
			}
		}
		takenSet := tb.Set()

		isCandidate := func(a netip.Addr) bool {
			if !scope.Contains(a) || a == gateway || excluded[a] || reserved[a] {
				return false
			}
			for _, edge := range []netip.Prefix{prefix, r.Within} {
				if edge.IsValid() && edge.Bits() <= 30 {
					elo, ehi := prefixBounds(edge)
					if u32(a) == elo || u32(a) == ehi {
						return false
					}
				}
			}
			return true
		}
		var model []netip.Addr
		candidates := 0
		for v := uint64(lo); v <= uint64(hi); v++ {
			a := addr(ip4(v))
			if isCandidate(a) {
				candidates++
				if !taken[a] {
					model = append(model, a)
				}
			}
		}

		s := pool.Space(r)
		var got []netip.Addr
		it := s.Iter(takenSet)
		for a, ok := it.Next(); ok; a, ok = it.Next() {
			if len(got) > 0 && !got[len(got)-1].Less(a) {
				t.Fatalf("not ascending: %s after %s", a, got[len(got)-1])
			}
			got = append(got, a)
		}
		if addrs(got) != addrs(model) {
			t.Fatalf("candidates of %+v %+v taken %v:\n got %s\nwant %s", spec, req, takenSet.Ranges(), addrs(got), addrs(model))
		}
		if s.Size() != candidates {
			t.Errorf("Size() = %d, want %d", s.Size(), candidates)
		}
		if s.Free(takenSet) != len(model) {
			t.Errorf("Free() = %d, want %d", s.Free(takenSet), len(model))
		}
		first, ok := s.First(takenSet)
		last, okLast := s.Last(takenSet)
		if len(model) == 0 {
			if ok || okLast {
				t.Errorf("First, Last = %v %v, %v %v; want none", first, ok, last, okLast)
			}
		} else if first != model[0] || last != model[len(model)-1] {
			t.Errorf("First, Last = %v, %v; want %v, %v", first, last, model[0], model[len(model)-1])
		}
		from := at(ip4(fromIn))
		var wantFrom []netip.Addr
		for _, a := range model {
			if !a.Less(from) {
				wantFrom = append(wantFrom, a)
			}
		}
		itFrom := s.IterFrom(takenSet, from)
		var gotFrom []netip.Addr
		for a, ok := itFrom.Next(); ok; a, ok = itFrom.Next() {
			gotFrom = append(gotFrom, a)
		}
		if addrs(gotFrom) != addrs(wantFrom) {
			t.Errorf("IterFrom(%s) = %s, want %s", from, addrs(gotFrom), addrs(wantFrom))
		}
		m := s.Map(takenSet)
		for v := uint64(lo); v <= uint64(hi); v++ {
			a := addr(ip4(v))
			e := s.Explain(a, takenSet)
			wantState := "not available"
			switch {
			case isCandidate(a) && taken[a]:
				wantState = "taken"
			case isCandidate(a):
				wantState = "free"
			}
			gotState := "not available"
			if e.State == Free || e.State == Taken {
				gotState = e.State.String()
			}
			if gotState != wantState || !strings.HasPrefix(e.Message, a.String()+" ") {
				t.Fatalf("Explain(%s) = %v %q, want %s", a, e.State, e.Message, wantState)
			}
			if s.Contains(a) != isCandidate(a) {
				t.Fatalf("Contains(%s) = %v, want %v", a, s.Contains(a), isCandidate(a))
			}
			if m.Cells != "" && scope.Contains(a) && m.Cells[u32(a)-slo] != e.State.Code() {
				t.Fatalf("Map().Cells[%s] = %c, want %c", a, m.Cells[u32(a)-slo], e.State.Code())
			}
		}
		if m.Cells == "" {
			size, free := 0, 0
			for _, b := range m.Blocks {
				size += b.Size
				free += b.Free
			}
			if size != candidates || free != len(model) {
				t.Errorf("Map().Blocks add up to size %d free %d, want %d %d", size, free, candidates, len(model))
			}
		}
	})
}

// FuzzFreePrefixes checks FreePrefixes and FreePrefixCount against a
// brute-force model: every aligned block of a small parent is tested
// against every used prefix with netip.Prefix.Overlaps, and the free ones,
// lowest first, must be the answer, and their number the count. The used
// prefixes come in any order, overlap, keep their host bits, stick out of
// the parent or cover it, and some are IPv6 or invalid.
func FuzzFreePrefixes(f *testing.F) {
	f.Add(uint32(0x0a2a0000), uint8(4), uint8(10), uint8(4), []byte{0, 0, 16, 0x40, 0, 15, 0x20, 0x10, 17})
	f.Add(uint32(0x0a2a0777), uint8(0), uint8(4), uint8(255), []byte{0x80, 0, 14, 0, 0, 9})
	f.Add(uint32(0xffffff00), uint8(12), uint8(2), uint8(3), []byte{0xff, 0xff, 26, 0x10, 0, 250, 0, 0, 255})
	f.Add(uint32(0), uint8(20), uint8(0), uint8(2), []byte{0x40, 0, 31, 0x40, 0x01, 32})
	f.Add(uint32(0x0a000000), uint8(8), uint8(15), uint8(0), []byte{})
	f.Add(uint32(0x0a000000), uint8(8), uint8(1), uint8(7), []byte{0x30, 0x30, 24, 0x30, 0x30, 24, 0x31, 0, 23})
	f.Fuzz(func(t *testing.T, base uint32, parentIn, bitsIn, countIn uint8, usedIn []byte) {
		pbits := 12 + int(parentIn%21)                     // /12 to /32
		parent := netip.PrefixFrom(addr(ip4(base)), pbits) // host bits kept
		bits := pbits + int(bitsIn%16) - 2                 // two too short, up to 13 longer: at most 8 192 blocks
		count := int(countIn%20) - 1
		if countIn >= 240 {
			count = 1 << 20
		}
		lo, hi := prefixBounds(parent)
		psize := uint64(hi) - uint64(lo) + 1
		margin := psize/4 + 1
		var used []netip.Prefix
		for i := 0; i+2 < len(usedIn) && i < 3*24; i += 3 {
			off := uint64(usedIn[i])<<8 | uint64(usedIn[i+1])
			at := addr(ip4(uint64(lo) - margin + off*(psize+2*margin)/0x10000))
			switch kind := usedIn[i+2]; {
			case kind == 255:
				used = append(used, netip.Prefix{})
			case kind >= 250:
				used = append(used, netip.PrefixFrom(netip.AddrFrom16(at.As16()), 96+int(kind%32)))
			default:
				used = append(used, netip.PrefixFrom(at, 8+int(kind%25)))
			}
		}
		usedCopy := slices.Clone(used)

		var model []netip.Prefix
		free := 0
		if bits >= pbits && bits <= 32 && count >= 1 {
			model = []netip.Prefix{}
			step := uint64(1) << (32 - bits)
			for v := uint64(lo); v <= uint64(hi); v += step {
				block := netip.PrefixFrom(addr(ip4(v)), bits)
				if !slices.ContainsFunc(used, block.Overlaps) {
					free++
					if len(model) < count {
						model = append(model, block)
					}
				}
			}
			if got := FreePrefixCount(parent, used, bits); got != CountOf(uint64(free)) {
				t.Fatalf("FreePrefixCount(%s, %v, %d) = %s, want %d", parent, used, bits, got, free)
			}
		}

		got := FreePrefixes(parent, used, bits, count)
		if (got == nil) != (model == nil) || prefixes(got) != prefixes(model) {
			t.Fatalf("FreePrefixes(%s, %v, %d, %d):\n got %s (nil %v)\nwant %s (nil %v)",
				parent, used, bits, count, prefixes(got), got == nil, prefixes(model), model == nil)
		}
		if !slices.Equal(used, usedCopy) {
			t.Fatalf("FreePrefixes changed used from %v to %v", usedCopy, used)
		}
	})
}

// FuzzParsePool feeds arbitrary text to the parsers: they never panic, a
// pool they accept is canonical and consistent, and every message names its
// field.
func FuzzParsePool(f *testing.F) {
	f.Add("203.0.113.0/24", "203.0.113.1", "203.0.113.2,203.0.113.3", "203.0.113.0/28")
	f.Add("10.0.0.5/24", "10.0.0.0", "10.0.0.9-10.0.0.3", "10.0.1.0/24")
	f.Add("2001:db8::/64", "::1", "", "")
	f.Add("10.0.0.0/31", "10.0.0.1", "10.0.0.0 - 10.0.0.1", "10.0.0.0/32")
	f.Add("0.0.0.0/0", "", "-", "/")
	f.Add("fd12:3456:789a::/48", "fd12:3456:789a::1", "fd12:3456:789a::2-fd12:3456:789a::9,fd12:3456:789a:ffff:ffff:ffff:ffff:ffff", "fd12:3456:789a:1::/64")
	f.Add("2001:DB8:0::/32", "2001:db8::0:1", "10.0.0.1,2001:db8::9-2001:db8::1", "2001:db8::/33")
	f.Add("2001:db8::/127", "2001:db8::", "fe80::1%eth0", "2001:db8::1/128")
	f.Add("::/8", "::", "::ffff:10.0.0.1", "::/0")
	f.Fuzz(func(t *testing.T, cidr, gateway, exclude, within string) {
		spec := PoolSpec{CIDR: cidr, Gateway: gateway}
		if exclude != "" {
			spec.Exclude = strings.Split(exclude, ",")
		}
		p, err := ParsePool(spec)
		checkFieldErrors(t, err)
		if err != nil {
			return
		}
		if p.Prefix.String() != cidr || p.Prefix.Bits() < MinPoolBits {
			t.Errorf("ParsePool accepted cidr %q as %s", cidr, p.Prefix)
		}
		if p.Gateway.IsValid() && (p.Gateway.String() != gateway || !p.Prefix.Contains(p.Gateway) || hostAddressProblem(p.Gateway, p.Prefix) != "") {
			t.Errorf("ParsePool accepted gateway %s for %s", p.Gateway, p.Prefix)
		}
		for _, r := range p.Exclude.Ranges() {
			if !p.Prefix.Contains(r.From) || !p.Prefix.Contains(r.To) {
				t.Errorf("ParsePool accepted exclude %s outside %s", r, p.Prefix)
			}
		}
		r, err := p.ParseRequest(RequestSpec{Within: within, Reserved: spec.Exclude})
		checkFieldErrors(t, err)
		if err == nil && r.Within.IsValid() && (r.Within.Bits() < p.Prefix.Bits() || !p.Prefix.Contains(r.Within.Addr())) {
			t.Errorf("ParseRequest accepted within %s outside %s", r.Within, p.Prefix)
		}
	})
}

func checkFieldErrors(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	errs, ok := err.(Errors)
	if !ok || len(errs) == 0 {
		t.Fatalf("error %v is a %T, want a non-empty Errors", err, err)
	}
	for _, e := range errs {
		if !strings.HasPrefix(e.Message, e.Field+" ") {
			t.Errorf("message %q does not start with its field %q", e.Message, e.Field)
		}
	}
}

// FuzzParseRangeList checks the compact parser against the list parser:
// the same entries give the same set, or both refuse them.
func FuzzParseRangeList(f *testing.F) {
	f.Add("10.0.0.5-10.0.0.9,10.0.0.1")
	f.Add("10.0.0.9-10.0.0.2,x")
	f.Add(" 10.0.0.1 - 10.0.0.3 ,,")
	f.Add("::1,1.2.3.4-1.2.3.4")
	f.Add("2001:db8::5-2001:db8::9,10.0.0.1,2001:db8::a")
	f.Add("2001:DB8::1, 2001:db8::2 - 2001:db8::3")
	f.Add("fe80::1%eth0,::-10.0.0.1,ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")
	f.Fuzz(func(t *testing.T, list string) {
		got, errGot := ParseRangeList("taken", list)
		var entries []string
		if list != "" {
			entries = strings.Split(list, ",")
		}
		want, errWant := ParseRanges("taken", entries)
		if (errGot == nil) != (errWant == nil) {
			t.Fatalf("ParseRangeList(%q) error %v, ParseRanges error %v", list, errGot, errWant)
		}
		if errGot == nil && fmt.Sprint(got.Ranges()) != fmt.Sprint(want.Ranges()) {
			t.Fatalf("ParseRangeList(%q) = %v, ParseRanges = %v", list, got.Ranges(), want.Ranges())
		}
	})
}

// FuzzNumberPool checks the number enumerator against a brute-force model:
// the ranges of a small pool are validated pair by pair, and their numbers
// walked one by one in the order of the ranges' weights; the pool must
// agree on its validity, the free numbers and their order, the first, the
// next n, the size and each range's count of taken numbers. The taken set
// is built by adds and removes, some at the ends of int64, and must agree
// with the model too, and print in a form that parses back to itself.
func FuzzNumberPool(f *testing.F) {
	f.Add(uint8(0), int64(0), []byte{100, 31, 0, 0, 9, 2}, []byte{0, 104, 0, 105, 1, 104, 2, 0}, uint8(5))
	f.Add(uint8(1), int64(0), []byte{0, 3, 1, 10, 3, 1, 20, 3, 2}, []byte{0, 4, 0, 5, 0, 6, 0, 7}, uint8(9))
	f.Add(uint8(2), int64(0), []byte{200, 31, 0, 240, 40, 0}, []byte{2, 1, 2, 2, 0, 250}, uint8(3))
	f.Add(uint8(3), int64(0), []byte{0, 1, 0, 2, 0, 0}, []byte{2, 3, 0, 4, 1, 4}, uint8(2))
	f.Add(uint8(4), int64(0), []byte{10, 5, 0, 12, 255, 0, 30, 2, 255}, []byte{}, uint8(1))
	f.Add(uint8(0), int64(1)<<40, []byte{0, 20, 1, 20, 20, 1, 50, 0, 0}, []byte{0, 24, 0, 25, 0, 44}, uint8(7))
	f.Fuzz(func(t *testing.T, where uint8, baseIn int64, rangesIn, takenIn []byte, nIn uint8) {
		base := [...]int64{0, -128, MaxNumber - 255, MinNumber, MaxNumber - 100}[where%5]
		if where >= 5 {
			base = baseIn / 4 // far from the ends of int64, so base+255 cannot wrap
		}
		var ranges []NumberRange
		for i := 0; i+2 < len(rangesIn) && len(ranges) < 8; i += 3 {
			start := base + int64(rangesIn[i])
			end := start + int64(rangesIn[i+1]%32)
			if rangesIn[i+1] >= 250 {
				end = start - 1 - int64(rangesIn[i+1]-250)
			}
			weight := 1 + int(rangesIn[i+2]%3)
			if rangesIn[i+2] == 255 {
				weight = 0
			}
			ranges = append(ranges, NumberRange{start, end, weight})
		}

		var b NumberSetBuilder
		taken := map[int64]bool{}
		extremes := []int64{math.MinInt64, math.MinInt64 + 1, math.MaxInt64 - 1, math.MaxInt64, MinNumber, MaxNumber}
		for i := 0; i+1 < len(takenIn) && i < 2*256; i += 2 {
			n := base + int64(takenIn[i+1]) - 4
			switch takenIn[i] % 4 {
			case 0, 1:
				b.Add(n)
				taken[n] = true
			case 2:
				b.Remove(n)
				delete(taken, n)
			case 3:
				e := extremes[int(takenIn[i+1])%len(extremes)]
				if takenIn[i+1] >= 128 {
					b.Remove(e)
					delete(taken, e)
				} else {
					b.Add(e)
					taken[e] = true
				}
			}
		}
		set := b.Set()
		takenModel := make(map[num]bool, len(taken))
		for n := range taken {
			takenModel[num(n)] = true
		}
		checkSpans(t, set.spans, takenModel)
		reparsed, err := ParseNumberList("taken", set.String())
		if err != nil || reparsed.String() != set.String() {
			t.Fatalf("ParseNumberList(%q) = %s, %v; want the same set", set.String(), reparsed, err)
		}

		valid := len(ranges) > 0
		for i, r := range ranges {
			if r.Start < MinNumber || r.End > MaxNumber || r.Start > r.End || r.Weight < 1 {
				valid = false
			}
			for _, o := range ranges[:i] {
				if max(r.Start, o.Start) <= min(r.End, o.End) && r.Start <= r.End && o.Start <= o.End {
					valid = false
				}
			}
		}
		p, err := ParseNumberPool(ranges)
		checkFieldErrors(t, err)
		if (err == nil) != valid {
			t.Fatalf("ParseNumberPool(%v) error %v, want valid %v", ranges, err, valid)
		}
		if !valid {
			return
		}

		order := make([]NumberRange, len(ranges))
		copy(order, ranges)
		slices.SortStableFunc(order, func(x, y NumberRange) int { return y.Weight - x.Weight })
		var model []int64
		var size int64
		for _, r := range order {
			for n := r.Start; n <= r.End; n++ {
				size++
				if !taken[n] {
					model = append(model, n)
				}
			}
		}
		var got []int64
		it := p.Iter(set)
		for n, ok := it.Next(); ok; n, ok = it.Next() {
			got = append(got, n)
			if len(got) > len(model) {
				break
			}
		}
		if !slices.Equal(got, model) {
			t.Fatalf("free numbers of %v taken %s:\n got %v\nwant %v", ranges, set, got, model)
		}
		first, ok := p.First(set)
		if ok != (len(model) > 0) || ok && first != model[0] {
			t.Errorf("First() = %d %v, want the first of %v", first, ok, model)
		}
		n := int(nIn % 12)
		if got, want := p.NextN(set, n), model[:min(n, len(model))]; !slices.Equal(got, want) {
			t.Errorf("NextN(%d) = %v, want %v", n, got, want)
		}
		if p.Size() != size || p.Free(set) != int64(len(model)) {
			t.Errorf("Size(), Free() = %d, %d; want %d, %d", p.Size(), p.Free(set), size, len(model))
		}
		used := p.Used(set)
		for i, r := range ranges {
			var want int64
			for n := r.Start; n <= r.End; n++ {
				if taken[n] {
					want++
				}
			}
			if used[i] != want {
				t.Errorf("Used()[%d] (%s) = %d, want %d", i, r, used[i], want)
			}
		}
	})
}

// FuzzParseNumberList feeds arbitrary text to the parser of compact number
// lists: it never panics, every message names its field, and a list it
// accepts holds both ends of each entry and prints in a form that parses
// back to the same set.
func FuzzParseNumberList(f *testing.F) {
	f.Add("1-4000,4010")
	f.Add(" -5 - -1 ,7,+3")
	f.Add("9-3,x,,1.5,1-")
	f.Add("-9223372036854775808-9223372036854775807")
	f.Add("9223372036854775808,--1")
	f.Fuzz(func(t *testing.T, list string) {
		s, err := ParseNumberList("taken", list)
		checkFieldErrors(t, err)
		if err != nil {
			return
		}
		if list != "" {
			for entry := range strings.SplitSeq(list, ",") {
				lo, hi, problem := parseNumberRun(entry)
				if problem != "" || !s.Contains(lo) || !s.Contains(hi) {
					t.Fatalf("ParseNumberList(%q) = %s: entry %q (%d-%d, %q) is not in it", list, s, entry, lo, hi, problem)
				}
			}
		}
		again, err := ParseNumberList("taken", s.String())
		if err != nil || again.String() != s.String() {
			t.Fatalf("ParseNumberList(%q) = %s, which parses back as %s, %v", list, s, again, err)
		}
	})
}
